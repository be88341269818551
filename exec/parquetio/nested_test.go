package parquetio

import (
	"bytes"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// duckNestedFile has DuckDB write a Parquet file with list, struct and map
// columns (uncompressed, so corrupting bytes hits levels and values, not
// the codec), in row groups of 2048 rows, with pages of the given version.
func duckNestedFile(t *testing.T, version string) []byte {
	t.Helper()
	if err := exec.Command("python3", "-c", "import duckdb").Run(); err != nil {
		t.Fatal("python3 with duckdb 1.5.5 is not available: run make test, which installs it")
	}
	path := filepath.Join(t.TempDir(), "nested.parquet")
	script := `
import duckdb, sys
c = duckdb.connect()
c.execute("SET enable_progress_bar=false")
c.execute("""COPY (SELECT i AS id,
	CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN [] ELSE [i, NULL, i * 2][1:i % 4 + 1] END AS a,
	CASE WHEN i % 3 = 0 THEN NULL ELSE ['s' || i, NULL, ''] END AS b,
	CASE WHEN i % 4 = 0 THEN NULL ELSE {'x': CASE WHEN i % 8 = 1 THEN NULL ELSE i END, 'y': 'y' || i} END AS s,
	CASE WHEN i % 6 = 0 THEN NULL ELSE [{'p': i, 'q': [i, i + 1]}, NULL, {'p': NULL, 'q': []}] END AS ls,
	CASE WHEN i % 7 = 0 THEN NULL WHEN i % 7 = 1 THEN MAP {} ELSE MAP {'k' || i: i, 'z': NULL} END AS m,
	[[i, NULL], NULL, []] AS aa
	FROM range(0, 10000) r(i)) TO '@PATH@' (FORMAT parquet, COMPRESSION uncompressed, ROW_GROUP_SIZE 2048, PARQUET_VERSION @VER@)""".replace("@PATH@", sys.argv[1]).replace("@VER@", sys.argv[2]))
`
	out, err := exec.Command("python3", "-c", script, path, version).CombinedOutput()
	if err != nil {
		t.Fatalf("DuckDB: %v\n%s", err, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func nestedProjections() []Projection {
	sT := types.StructOf([]types.Field{{Name: "x", Type: types.Int32T}, {Name: "y", Type: types.TextT}})
	lsT := types.ArrayOf(types.StructOf([]types.Field{{Name: "p", Type: types.Int32T}, {Name: "q", Type: types.ArrayOf(types.Int32T)}}))
	return []Projection{
		{Name: "id", Pos: 0, Type: types.Int64T},
		{Name: "a", Pos: 1, Type: types.ArrayOf(types.Int64T)},
		{Name: "b", Pos: 2, Type: types.ArrayOf(types.TextT)},
		{Name: "s", Pos: 3, Type: sT},
		{Name: "ls", Pos: 4, Type: lsT},
		{Name: "m", Pos: 5, Type: types.TextT},
		{Name: "aa", Pos: 6, Type: types.ArrayOf(types.ArrayOf(types.Int32T))},
	}
}

// wantNested is the text of row i as PostgreSQL prints it ("" for NULL).
func wantNested(i int) []string {
	itoa := strconv.Itoa
	var a, b, s, ls, m string
	switch {
	case i%5 == 0:
	case i%5 == 1:
		a = "{}"
	default:
		all := []string{itoa(i), "NULL", itoa(i * 2)}
		a = "{" + strings.Join(all[:min(i%4+1, 3)], ",") + "}"
	}
	if i%3 != 0 {
		b = `{s` + itoa(i) + `,NULL,""}`
	}
	if i%4 != 0 {
		x := itoa(i)
		if i%8 == 1 {
			x = ""
		}
		s = "(" + x + ",y" + itoa(i) + ")"
	}
	if i%6 != 0 {
		ls = `{"(` + itoa(i) + `,\"{` + itoa(i) + "," + itoa(i+1) + `}\")",NULL,"(,{})"}`
	}
	switch {
	case i%7 == 0:
	case i%7 == 1:
		m = "{}"
	default:
		m = `{"k` + itoa(i) + `": ` + itoa(i) + `, "z": null}`
	}
	return []string{itoa(i), a, b, s, ls, m, "{{" + itoa(i) + ",NULL},NULL,{}}"}
}

func nestedText(v *vec.Vector, i int) string {
	if v.IsNull(i) {
		return ""
	}
	return string(v.AppendText(nil, i, time.UTC))
}

// TestReadNestedDuckDB reads DuckDB's lists (of scalars, of structs, of
// lists), structs and maps, from version 1 and version 2 pages, whole and
// one row group at a time, and compares every row with its PostgreSQL text.
func TestReadNestedDuckDB(t *testing.T) {
	for _, version := range []string{"V1", "V2"} {
		t.Run(version, func(t *testing.T) {
			data := duckNestedFile(t, version)
			f, err := Open(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if f.NumRowGroups() < 3 {
				t.Fatalf("%d row groups, want several", f.NumRowGroups())
			}
			proj := nestedProjections()
			for _, groups := range [][]int{nil, {2, 0}} {
				s := f.Scan(proj, ScanOptions{RowGroups: groups})
				var b vec.Batch
				rows := 0
				for {
					start, ok, err := s.Next(&b)
					if err != nil {
						t.Fatal(err)
					}
					if !ok {
						break
					}
					for r := 0; r < b.N; r++ {
						want := wantNested(int(start) + r)
						for c := range proj {
							if got := nestedText(b.Vecs[c], r); got != want[c] {
								t.Fatalf("row %d, column %s: got %s, want %s", int(start)+r, proj[c].Name, got, want[c])
							}
						}
						rows++
					}
				}
				s.Release()
				want := int(f.NumRows())
				if groups != nil {
					want = int(f.RowGroupNumRows(2) + f.RowGroupNumRows(0))
				}
				if rows != want {
					t.Fatalf("read %d rows, want %d", rows, want)
				}
			}
			// a nested column's statistics are unknown, never a wrong bound
			for _, r := range f.RowGroupRanges(0, proj)[1:] {
				if r.Known || r.HasNullCount {
					t.Errorf("nested column range %+v, want unknown", r)
				}
			}
		})
	}
}

// TestReadNestedWrongType: a nested column read as a type of another shape
// is a clean 0A000 error.
func TestReadNestedWrongType(t *testing.T) {
	data := duckNestedFile(t, "V1")
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, ty := range []types.T{types.Int64T, types.ArrayOf(types.UUIDT), types.StructOf([]types.Field{{Name: "x", Type: types.Int32T}})} {
		s := f.Scan([]Projection{{Name: "a", Pos: 1, Type: ty}}, ScanOptions{})
		var b vec.Batch
		if _, _, err := s.Next(&b); err == nil || !strings.Contains(err.Error(), "cannot read") {
			t.Errorf("reading list a as %s: err %v, want cannot read", ty, err)
		}
	}
}

// TestReadNestedCorrupt flips bytes of the column chunks of a nested file:
// every scan must end in rows or an error, never a panic.
func TestReadNestedCorrupt(t *testing.T) {
	data := duckNestedFile(t, "V1")
	end := int64(len(data)) - 8 - footerLen(data)
	rng := rand.New(rand.NewSource(1))
	proj := nestedProjections()
	errs := 0
	for it := 0; it < 400; it++ {
		bad := append([]byte(nil), data...)
		for k := 0; k < 1+rng.Intn(4); k++ {
			bad[4+rng.Int63n(end-4)] ^= byte(1 + rng.Intn(255))
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("iteration %d: panic: %v", it, p)
				}
			}()
			g, err := Open(bytes.NewReader(bad), int64(len(bad)))
			if err != nil {
				errs++
				return
			}
			s := g.Scan(proj, ScanOptions{})
			defer s.Release()
			var b vec.Batch
			for {
				_, ok, err := s.Next(&b)
				if err != nil {
					errs++
					return
				}
				if !ok {
					return
				}
			}
		}()
	}
	if errs == 0 {
		t.Errorf("no corruption was detected in 400 corrupted files")
	}
	t.Logf("%d of 400 corrupted files failed with an error, the rest read", errs)
}
