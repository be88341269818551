package parquetio

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Tests against the lake DuckDB 1.5.5 wrote (shared/fixtures/ducklake-from-duckdb).

const (
	typesFile   = "data/main/types/ducklake-01a22bd3-1093-7df0-876b-002de842ecd5.parquet"
	typesFlush  = "data/main/types/ducklake-01a22bd3-137e-72fb-a9d7-f1f86cc40fc0.parquet"
	bigFile5    = "data/main/big/ducklake-01a22bd3-0f04-726e-bebb-7b0270bd0cfa.parquet"
	bigFile6    = "data/main/big/ducklake-01a22bd3-0f29-7803-9fe0-d19eac7ac63d.parquet"
	bigDel5     = "data/main/big/ducklake-01a22bd3-0f74-7fc3-b723-18a33547e3ee-delete.parquet"
	bigDel6     = "data/main/big/ducklake-01a22bd3-0f8b-752e-b57e-af8e699d7a6c-delete.parquet"
	bigDel6Old  = "data/main/big/ducklake-01a22bd3-0f73-773e-8f84-5b990c581d81-delete.parquet"
	rFile1      = "data/main/r/ducklake-01a22bd3-0d20-7170-8ec4-3019e4a384ac.parquet"
	rDel1       = "data/main/r/ducklake-01a22bd3-135a-7f5a-9079-399b51f89c92-delete.parquet"
	rFlushFile  = "data/main/r/ducklake-01a22bd3-1386-7f58-aa30-79a915e968d0.parquet"
	typesFileID = 19
)

// typesProj is the fixture's types table in lakepg types; the zero Type
// marks a column lakepg cannot store (time).
var typesProj = []struct {
	name string
	id   int32
	t    types.T
}{
	{"b", 1, types.BoolT}, {"i8", 2, types.Int16T}, {"i16", 3, types.Int16T}, {"i32", 4, types.Int32T},
	{"i64", 5, types.Int64T}, {"f32", 6, types.Float32T}, {"f64", 7, types.Float64T},
	{"d9", 8, types.NumericT(9, 2)}, {"d18", 9, types.NumericT(18, 6)},
	{"d38", 10, types.NumericT(18, 10)}, // decimal(38,10) in a 16-byte FIXED, small values
	{"dt", 11, types.DateT}, {"tm", 12, types.T{}}, {"tsp", 13, types.TimestampT},
	{"tstz", 14, types.TimestamptzT}, {"iv", 15, types.IntervalT}, {"s", 16, types.TextT},
	{"bl", 17, types.ByteaT}, {"u", 18, types.UUIDT}, {"j", 19, types.TextT},
}

func typesProjections() ([]Projection, []int) {
	var proj []Projection
	var csvCol []int
	for i, c := range typesProj {
		if c.t.ID == types.Unknown {
			continue
		}
		proj = append(proj, Projection{FieldID: c.id, Name: c.name, Pos: i, Type: c.t})
		csvCol = append(csvCol, i)
	}
	return proj, csvCol
}

// duckText renders a value the way DuckDB's CSV writer does.
func duckText(t types.T, v *vec.Vector, i int) string {
	if v.IsNull(i) {
		return ""
	}
	switch t.ID {
	case types.Bool:
		return strconv.FormatBool(v.B[i])
	case types.Interval:
		return string(types.AppendInterval(nil, v.Iv[i]))
	case types.Bytea:
		var b strings.Builder
		for _, c := range []byte(v.S[i]) {
			if c < 0x20 || c >= 0x7f || c == '\\' || c == '"' || c == '\'' {
				fmt.Fprintf(&b, "\\x%02X", c)
			} else {
				b.WriteByte(c)
			}
		}
		return b.String()
	}
	s, ok := StatText(t, v, i)
	if !ok {
		panic("no text")
	}
	return s
}

func readCSV(t *testing.T, rel string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = '|'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs[1:]
}

func TestFixtureTypesValues(t *testing.T) {
	want := readCSV(t, "expected/main.types.csv")
	proj, csvCol := typesProjections()
	var got [][]string
	for _, file := range []string{typesFile, typesFlush} {
		f, _ := openFixture(t, file)
		s := f.Scan(proj, ScanOptions{})
		var b vec.Batch
		for {
			_, ok, err := s.Next(&b)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if !ok {
				break
			}
			for r := 0; r < b.N; r++ {
				row := make([]string, len(proj))
				for c, v := range b.Vecs {
					row[c] = duckText(proj[c].Type, v, r)
				}
				got = append(got, row)
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for r := range want {
		for c, k := range csvCol {
			if got[r][c] != want[r][k] {
				t.Errorf("row %d %s = %q, want %q", r, typesProj[k].name, got[r][c], want[r][k])
			}
		}
	}
}

func TestFixtureTypesUnsupported(t *testing.T) {
	f, _ := openFixture(t, typesFile)
	for _, c := range []struct {
		id int32
		t  types.T
	}{{12, types.Int64T}, {15, types.ByteaT}, {12, types.IntervalT}, {10, types.NumericT(9, 2)}} {
		_, _, err := f.Scan([]Projection{{FieldID: c.id, Type: c.t}}, ScanOptions{}).Next(&vec.Batch{})
		if c.id == 10 {
			// decimal(38,10) → numeric(9,2) is a legal rescale; values fit.
			if err != nil {
				t.Errorf("d38 as numeric(9,2): %v", err)
			}
			continue
		}
		if pgerr.Code(err) != pgerr.FeatureNotSupported {
			t.Errorf("field %d as %s: %v", c.id, c.t, err)
		}
	}
	// The flushed file carries the reserved row id and snapshot columns.
	g, _ := openFixture(t, typesFlush)
	if !g.HasField(FieldRowID) || !g.HasField(FieldSnapshotID) || f.HasField(FieldRowID) {
		t.Fatal("reserved columns")
	}
	rows, _, _ := scanFile(t, g, []Projection{
		{FieldID: FieldRowID, Type: types.Int64T},
		{FieldID: FieldSnapshotID, Type: types.Int64T},
		{FieldID: 5, Type: types.Int64T},
	}, ScanOptions{})
	if len(rows) != 1 || rows[0][0] != int64(25) || rows[0][1] != int64(22) || rows[0][2] != nil {
		t.Fatalf("rows %v", rows)
	}
}

// catalogStats reads ducklake_file_column_stats rows of one data file from
// the fixture's pg_dump: column_id → [value_count, null_count, min, max,
// contains_nan] (`\N` for NULL).
func catalogStats(t *testing.T, dataFileID int) map[int32][5]string {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir(t), "catalog.sql"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int32][5]string{}
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "COPY public.ducklake_file_column_stats ") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if line == `\.` {
			break
		}
		fs := strings.Split(line, "\t")
		if fs[0] != strconv.Itoa(dataFileID) {
			continue
		}
		col, _ := strconv.Atoi(fs[2])
		out[int32(col)] = [5]string{fs[4], fs[5], fs[6], fs[7], fs[8]}
	}
	if len(out) == 0 {
		t.Fatalf("no stats for data file %d in catalog.sql", dataFileID)
	}
	return out
}

func rangeText(t types.T, r Range, max bool) string {
	v := vec.New(t, 1)
	switch t.Storage() {
	case types.StoreInt:
		v.AppendInt(map[bool]int64{false: r.MinI, true: r.MaxI}[max])
	case types.StoreFloat:
		v.AppendFloat(map[bool]float64{false: r.MinF, true: r.MaxF}[max])
	case types.StoreBool:
		v.AppendBool(map[bool]bool{false: r.MinB, true: r.MaxB}[max])
	default:
		v.AppendString(map[bool]string{false: r.MinS, true: r.MaxS}[max])
	}
	s, _ := StatText(t, v, 0)
	return s
}

// TestFixtureTypesStats checks both directions against what DuckDB wrote in
// the catalog: the Parquet statistics DuckDB wrote, decoded into Ranges,
// and the DuckLake stats our Writer produces for the same values.
func TestFixtureTypesStats(t *testing.T) {
	cat := catalogStats(t, typesFileID)
	proj, _ := typesProjections()
	f, _ := openFixture(t, typesFile)
	ranges := f.RowGroupRanges(0, proj)
	for i, p := range proj {
		want := cat[p.FieldID]
		r := ranges[i]
		if p.Type.ID == types.Interval {
			// DuckDB keeps no stats for intervals; neither do we.
			if r.Known {
				t.Errorf("interval range %+v", r)
			}
			continue
		}
		if !r.Known || !r.HasNullCount || fmt.Sprint(r.NullCount) != want[1] {
			t.Errorf("%s: range %+v", p.Name, r)
			continue
		}
		if lo, hi := rangeText(p.Type, r, false), rangeText(p.Type, r, true); lo != want[2] || hi != want[3] {
			t.Errorf("%s: range %q..%q, catalog %q..%q", p.Name, lo, hi, want[2], want[3])
		}
	}

	// Rewrite the values with our Writer; its stats must equal DuckDB's.
	rows, _, _ := scanFile(t, f, proj, ScanOptions{})
	cols := make([]Column, len(proj))
	gens := make([]genFunc, len(proj))
	for i, p := range proj {
		cols[i] = Column{FieldID: p.FieldID, Name: p.Name, Type: p.Type}
		gens[i] = func(r int) cell { return rows[r][i] }
	}
	_, info := writeRows(t, cols, gens, len(rows), 7, WriterOptions{RowGroupRows: 10})
	for i, cs := range info.Stats {
		want := cat[cols[i].FieldID]
		str := func(p *string) string {
			if p == nil {
				return `\N`
			}
			return *p
		}
		nan := `\N`
		if cs.ContainsNaN != nil {
			nan = map[bool]string{true: "t", false: "f"}[*cs.ContainsNaN]
		}
		got := [5]string{fmt.Sprint(cs.ValueCount), fmt.Sprint(cs.NullCount), str(cs.Min), str(cs.Max), nan}
		if cols[i].Type.ID == types.Interval {
			// DuckDB writes no stats row content for intervals (0, 0, NULL,
			// NULL); ours has the true counts and no min/max.
			want[0], want[1] = "25", "0"
		}
		if got != want {
			t.Errorf("%s: stats %q, DuckDB wrote %q", cols[i].Name, got, want)
		}
	}

	// The all-NULL flushed file: value_count 0, no min/max, contains_nan f.
	cat26 := catalogStats(t, 26)
	g, _ := openFixture(t, typesFlush)
	nrows, _, _ := scanFile(t, g, proj, ScanOptions{})
	for i := range gens {
		gens[i] = func(r int) cell { return nrows[r][i] }
	}
	_, info = writeRows(t, cols, gens, len(nrows), 7, WriterOptions{})
	for i, cs := range info.Stats {
		want := cat26[cols[i].FieldID]
		nan := `\N`
		if cs.ContainsNaN != nil {
			nan = map[bool]string{true: "t", false: "f"}[*cs.ContainsNaN]
		}
		if cols[i].Type.ID == types.Interval {
			want[1] = "1"
		}
		if cs.Min != nil || cs.Max != nil || fmt.Sprint(cs.ValueCount) != want[0] || fmt.Sprint(cs.NullCount) != want[1] || nan != want[4] {
			t.Errorf("%s (all NULL): %+v, DuckDB wrote %q", cols[i].Name, cs, want)
		}
	}
}

// bigTotals reads main.big's two data files with their delete files as
// visible at snapshot snap and returns count, sum(id), sum(amount) scaled,
// min/max ts and per-group count and sum(amount).
func bigTotals(t *testing.T, snap int64, applyDeletes bool) (n, sumID int64, sumAmt *big.Int, minTS, maxTS int64, groups map[string][2]*big.Int) {
	t.Helper()
	sumAmt = new(big.Int)
	groups = map[string][2]*big.Int{}
	minTS, maxTS = 1<<62, -1<<62
	proj := []Projection{
		{FieldID: 1, Name: "id", Type: types.Int64T},
		{FieldID: 2, Name: "grp", Type: types.TextT},
		{FieldID: 3, Name: "amount", Type: types.NumericT(18, 4)},
		{FieldID: 4, Name: "ts", Type: types.TimestampT},
	}
	for _, fd := range [][2]string{{bigFile5, bigDel5}, {bigFile6, bigDel6}} {
		f, _ := openFixture(t, fd[0])
		var deleted []int64
		if applyDeletes {
			_, del := openFixture(t, fd[1])
			var err error
			if deleted, err = ReadDeletePositions(bytes.NewReader(del), int64(len(del)), snap); err != nil {
				t.Fatal(err)
			}
		}
		s := f.Scan(proj, ScanOptions{})
		var b vec.Batch
		for {
			start, ok, err := s.Next(&b)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			for r := 0; r < b.N; r++ {
				if _, found := slices.BinarySearch(deleted, start+int64(r)); found {
					continue
				}
				n++
				sumID += b.Vecs[0].I64[r]
				amt := big.NewInt(b.Vecs[2].I64[r])
				sumAmt.Add(sumAmt, amt)
				g := b.Vecs[1].S[r]
				if groups[g][0] == nil {
					groups[g] = [2]*big.Int{new(big.Int), new(big.Int)}
				}
				groups[g][0].Add(groups[g][0], big.NewInt(1))
				groups[g][1].Add(groups[g][1], amt)
				ts := b.Vecs[3].I64[r]
				minTS, maxTS = min(minTS, ts), max(maxTS, ts)
			}
		}
	}
	return
}

func bigText(v *big.Int, scale int) string {
	s := v.String()
	for len(s) <= scale {
		s = "0" + s
	}
	return s[:len(s)-scale] + "." + s[len(s)-scale:]
}

func TestFixtureBigWithDeletes(t *testing.T) {
	n, sumID, sumAmt, minTS, maxTS, groups := bigTotals(t, 16, true)
	sum := readCSV(t, "expected/main.big.summary.csv")[0]
	tsv := vec.New(types.TimestampT, 2)
	tsv.AppendInt(minTS)
	tsv.AppendInt(maxTS)
	lo, _ := StatText(types.TimestampT, tsv, 0)
	hi, _ := StatText(types.TimestampT, tsv, 1)
	got := []string{fmt.Sprint(n), fmt.Sprint(sumID), bigText(sumAmt, 4), lo, hi}
	if !slices.Equal(got, sum) {
		t.Fatalf("summary %v, DuckDB %v", got, sum)
	}
	for _, rec := range readCSV(t, "expected/main.big.by_grp.csv") {
		g := groups[rec[0]]
		if g[0] == nil || g[0].String() != rec[1] || bigText(g[1], 4) != rec[2] {
			t.Errorf("group %s: %v %v, DuckDB %v", rec[0], g[0], g[1], rec)
		}
	}
	// Time travel: the snapshot column of the rewritten delete file.
	for _, c := range []struct {
		snap    int64
		deletes bool
		file    string
	}{{15, true, "expected/main.big.at_15.csv"}, {14, false, "expected/main.big.at_14.csv"}} {
		n, sumID, _, _, _, _ := bigTotals(t, c.snap, c.deletes)
		want := readCSV(t, c.file)[0]
		if fmt.Sprint(n) != want[0] || fmt.Sprint(sumID) != want[1] {
			t.Errorf("at %d: %d %d, DuckDB %v", c.snap, n, sumID, want)
		}
	}
}

func TestFixtureDeleteFiles(t *testing.T) {
	read := func(rel string, snap int64) []int64 {
		_, data := openFixture(t, rel)
		pos, err := ReadDeletePositions(bytes.NewReader(data), int64(len(data)), snap)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		return pos
	}
	// Plain two-column delete file: every position, whatever the snapshot.
	if p := read(bigDel5, 0); len(p) != 400 || p[0] != 3 || p[399] != 39903 {
		t.Fatalf("del5: %d positions", len(p))
	}
	// The rewritten file with the snapshot column: at 15 it is exactly the
	// superseded file, at 16 it holds both deletes.
	old := read(bigDel6Old, 1<<62)
	at15 := read(bigDel6, 15)
	if !slices.Equal(old, at15) || len(at15) != 600 {
		t.Fatalf("at 15: %d positions, old file %d", len(at15), len(old))
	}
	if p := read(bigDel6, 16); len(p) != 1096 {
		t.Fatalf("at 16: %d positions", len(p))
	}
	if p := read(bigDel6, 14); len(p) != 0 {
		t.Fatalf("at 14: %d positions", len(p))
	}
	// main.r: snapshot 4 deleted ids divisible by 7, snapshot 5 (UPDATE)
	// the first ten rows.
	if p := read(rDel1, 4); !slices.Equal(p, []int64{4, 11, 18, 25, 32, 39, 46}) {
		t.Fatalf("r at 4: %v", p)
	}
	if p := read(rDel1, 5); len(p) != 16 || p[0] != 0 || p[9] != 9 {
		t.Fatalf("r at 5: %v", p)
	}
}

// TestFixtureSchemaEvolution reads main.r's first file (id INTEGER, before
// the promotion to BIGINT, the rename of s and the added k DEFAULT 42)
// through the table's final schema and checks it against DuckDB's answer.
func TestFixtureSchemaEvolution(t *testing.T) {
	f, _ := openFixture(t, rFile1)
	_, del := openFixture(t, rDel1)
	deleted, err := ReadDeletePositions(bytes.NewReader(del), int64(len(del)), 33)
	if err != nil {
		t.Fatal(err)
	}
	k := vec.New(types.Int64T, 1)
	k.AppendInt(42)
	proj := []Projection{
		{FieldID: 2, Name: "label", Type: types.TextT},
		{FieldID: 3, Name: "x", Type: types.Float64T},
		{FieldID: 5, Name: "k", Type: types.Int64T, Default: k},
		{FieldID: 1, Name: "id", Type: types.Int64T},
	}
	rows, pos, _ := scanFile(t, f, proj, ScanOptions{})
	want := map[string][]string{}
	for _, rec := range readCSV(t, "expected/main.r.csv") {
		want[rec[1]] = rec
	}
	kept := 0
	for i, r := range rows {
		if _, gone := slices.BinarySearch(deleted, pos[i]); gone {
			continue
		}
		kept++
		w, ok := want[r[0].(string)]
		if !ok {
			t.Fatalf("row %v not in DuckDB's answer", r)
		}
		if x := appendDuckFloat(nil, r[1].(float64), 64); string(x) != w[2] || fmt.Sprint(r[2]) != w[3] {
			t.Errorf("row %v, DuckDB %v", r, w)
		}
		if r[3] != int64(pos[i]+10) {
			t.Errorf("id %v at position %d", r[3], pos[i])
		}
	}
	if kept != 50-16 {
		t.Fatalf("kept %d rows", kept)
	}
	// The flushed file of inlined rows embeds its row ids.
	g, _ := openFixture(t, rFlushFile)
	rows, _, _ = scanFile(t, g, []Projection{{FieldID: FieldRowID, Type: types.Int64T}, {FieldID: 1, Type: types.Int64T}}, ScanOptions{})
	if len(rows) != 2 || rows[0][0] != int64(0) || rows[1][0] != int64(1) || rows[1][1] != int64(2) {
		t.Fatalf("flushed rows %v", rows)
	}
}
