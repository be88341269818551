package parquetio

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// idFile is a file whose column "id" holds the row number, plus a nullable
// string and a float, in row groups of 1000 rows.
func idFile(t testing.TB, n int) ([]byte, []Column, []genFunc) {
	cols := []Column{
		{FieldID: 1, Name: "id", Type: types.Int64T},
		{FieldID: 2, Name: "s", Type: types.TextT},
		{FieldID: 3, Name: "x", Type: types.Float64T},
		{FieldID: 4, Name: "small", Type: types.Int32T},
	}
	gens := []genFunc{
		func(i int) cell { return int64(i) },
		func(i int) cell {
			if i%10 == 0 {
				return nil
			}
			return fmt.Sprintf("g%02d", i%50)
		},
		func(i int) cell { return float64(i) / 2 },
		func(i int) cell { return int64(i % 1000) },
	}
	data, _ := writeRows(t, cols, gens, n, 2048, WriterOptions{RowGroupRows: 1000})
	return data, cols, gens
}

func TestRowGroupPruning(t *testing.T) {
	data, cols, _ := idFile(t, 10_000)
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	proj := projFor(cols)
	for g := 0; g < f.NumRowGroups(); g++ {
		r := f.RowGroupRanges(g, proj)
		if !r[0].Known || r[0].MinI != int64(g*1000) || r[0].MaxI != int64(g*1000+999) || !r[0].HasNullCount || r[0].NullCount != 0 {
			t.Fatalf("rg %d id range %+v", g, r[0])
		}
		if !r[1].Known || r[1].MinS != "g01" || r[1].MaxS != "g49" || r[1].NullCount != 100 {
			t.Fatalf("rg %d s range %+v", g, r[1])
		}
		if !r[2].Known || r[2].MinF != float64(g*1000)/2 || r[2].MaxF != float64(g*1000+999)/2 {
			t.Fatalf("rg %d x range %+v", g, r[2])
		}
	}
	// Keep only row groups that may hold id >= 7500.
	asked := map[int]bool{} // page pruning asks again about kept row groups
	keep := func(rg int, r []Range) bool {
		asked[rg] = true
		return !r[0].Known || r[0].MaxI >= 7500
	}
	rows, pos, s := scanFile(t, f, proj, ScanOptions{Keep: keep})
	if s.RowGroupsScanned() != 3 || s.RowGroupsPruned() != 7 || len(asked) != 10 {
		t.Fatalf("scanned %d pruned %d asked %v", s.RowGroupsScanned(), s.RowGroupsPruned(), asked)
	}
	if len(rows) != 3000 || pos[0] != 7000 || rows[0][0] != int64(7000) || pos[2999] != 9999 {
		t.Fatalf("got %d rows from %d", len(rows), pos[0])
	}
	for i, row := range rows {
		if row[0] != pos[i] {
			t.Fatalf("row at %d has id %v", pos[i], row[0])
		}
	}
}

func TestRowGroupSubset(t *testing.T) {
	data, cols, _ := idFile(t, 5000)
	rows, pos, s := scanAll(t, data, projFor(cols)[:1], ScanOptions{RowGroups: []int{3, 1}})
	if len(rows) != 2000 || pos[0] != 3000 || pos[1000] != 1000 || s.RowGroupsScanned() != 2 {
		t.Fatalf("%d rows, pos %d %d", len(rows), pos[0], pos[1000])
	}
	f, _ := Open(bytes.NewReader(data), int64(len(data)))
	if _, _, err := f.Scan(projFor(cols), ScanOptions{RowGroups: []int{9}}).Next(&vec.Batch{}); err == nil {
		t.Fatal("row group out of range accepted")
	}
}

func TestProjectionSubsetReordered(t *testing.T) {
	data, cols, gens := idFile(t, 3000)
	proj := []Projection{
		{FieldID: 3, Name: "x", Type: types.Float64T},
		{FieldID: 1, Name: "id", Type: types.Int64T},
		{FieldID: 3, Name: "x again", Type: types.Float64T},
	}
	rows, _, _ := scanAll(t, data, proj, ScanOptions{})
	if len(rows) != 3000 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		if r[0] != gens[2](i) || r[1] != gens[0](i) || r[2] != r[0] {
			t.Fatalf("row %d = %v", i, r)
		}
	}
	// No columns at all still counts rows (COUNT(*)).
	rows, _, _ = scanAll(t, data, nil, ScanOptions{})
	if len(rows) != 3000 {
		t.Fatalf("count-only scan: %d rows", len(rows))
	}
	_ = cols
}

func TestMissingFieldUsesDefault(t *testing.T) {
	data, _, gens := idFile(t, 2500)
	def := vec.New(types.Int64T, 1)
	def.AppendInt(42)
	sdef := vec.New(types.TextT, 1)
	sdef.AppendString("dflt")
	proj := []Projection{
		{FieldID: 1, Name: "id", Type: types.Int64T},
		{FieldID: 99, Name: "k", Type: types.Int64T, Default: def},
		{FieldID: 98, Name: "nothing", Type: types.DateT},
		{FieldID: 97, Name: "label", Type: types.TextT, Default: sdef},
	}
	rows, _, _ := scanAll(t, data, proj, ScanOptions{})
	if len(rows) != 2500 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		if r[0] != gens[0](i) || r[1] != int64(42) || r[2] != nil || r[3] != "dflt" {
			t.Fatalf("row %d = %v", i, r)
		}
	}
	f, _ := Open(bytes.NewReader(data), int64(len(data)))
	rg := f.RowGroupRanges(0, proj)
	if !rg[1].Known || rg[1].MinI != 42 || rg[1].MaxI != 42 || rg[1].NullCount != 0 {
		t.Fatalf("default range %+v", rg[1])
	}
	if rg[2].Known || !rg[2].HasNullCount || rg[2].NullCount != 1000 {
		t.Fatalf("NULL default range %+v", rg[2])
	}
	if f.HasField(99) || !f.HasField(1) || f.HasField(FieldRowID) {
		t.Fatal("HasField")
	}
}

func TestWideningAndRescale(t *testing.T) {
	cols := []Column{
		{FieldID: 1, Name: "i32", Type: types.Int32T},
		{FieldID: 2, Name: "i16", Type: types.Int16T},
		{FieldID: 3, Name: "f32", Type: types.Float32T},
		{FieldID: 4, Name: "d", Type: types.NumericT(9, 2)},
		{FieldID: 5, Name: "dt", Type: types.DateT},
		{FieldID: 6, Name: "d4", Type: types.NumericT(18, 4)},
	}
	gens := []genFunc{
		func(i int) cell { return int64(i*1001 - 50000) },
		func(i int) cell { return int64(i - 300) },
		func(i int) cell {
			if i%4 == 1 {
				return nil
			}
			return float64(float32(i) / 8)
		},
		func(i int) cell { return int64(i*37 - 1000) },
		func(i int) cell { return int64(i - 100) },
		func(i int) cell { return int64(i*12345 - 3000000) }, // scale 4
	}
	data, _ := writeRows(t, cols, gens, 700, 256, WriterOptions{RowGroupRows: 300})
	proj := []Projection{
		{FieldID: 1, Type: types.Int64T},
		{FieldID: 2, Type: types.Int32T},
		{FieldID: 3, Type: types.Float64T},
		{FieldID: 4, Type: types.NumericT(18, 4)},
		{FieldID: 5, Type: types.TimestampT},
		{FieldID: 1, Type: types.NumericT(12, 2)},
		{FieldID: 6, Type: types.NumericT(18, 2)}, // scale down, rounded half away from zero
		{FieldID: 4, Type: types.Float64T},
	}
	rows, _, _ := scanAll(t, data, proj, ScanOptions{})
	roundDiv := func(x, q int64) int64 {
		if x >= 0 {
			return (x + q/2) / q
		}
		return -((-x + q/2) / q)
	}
	for i, r := range rows {
		want := []cell{
			gens[0](i), gens[1](i), gens[2](i),
			gens[3](i).(int64) * 100,
			gens[4](i).(int64) * 86400_000_000,
			gens[0](i).(int64) * 100,
			roundDiv(gens[5](i).(int64), 100),
			float64(gens[3](i).(int64)) / 100,
		}
		for c := range want {
			if !sameCell(r[c], want[c]) {
				t.Fatalf("row %d col %d = %v, want %v", i, c, r[c], want[c])
			}
		}
	}
	f, _ := Open(bytes.NewReader(data), int64(len(data)))
	rg := f.RowGroupRanges(1, proj)
	if rg[3].MinI != gens[3](300).(int64)*100 || rg[4].MaxI != gens[4](599).(int64)*86400_000_000 || rg[7].MinF != float64(gens[3](300).(int64))/100 {
		t.Fatalf("converted ranges %+v", rg)
	}
	// Incompatible requests fail with 0A000 on the first Next.
	for _, bad := range []Projection{
		{FieldID: 1, Type: types.TextT},
		{FieldID: 3, Type: types.Int64T},
		{FieldID: 5, Type: types.BoolT},
		{FieldID: 1, Type: types.NumericAnyT},
	} {
		_, _, err := f.Scan([]Projection{bad}, ScanOptions{}).Next(&vec.Batch{})
		if pgerr.Code(err) != pgerr.FeatureNotSupported {
			t.Errorf("%v: err %v", bad.Type, err)
		}
	}
}

// TestNoFieldIDs reads a file written without field ids by position.
func TestNoFieldIDs(t *testing.T) {
	type row struct {
		A int64  `parquet:"a"`
		B string `parquet:"b,optional"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	var rs []row
	for i := 0; i < 100; i++ {
		rs = append(rs, row{A: int64(i), B: fmt.Sprint("v", i)})
	}
	if _, err := w.Write(rs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if f.HasFieldIDs() {
		t.Fatal("file has field ids")
	}
	proj := []Projection{
		{FieldID: 7, Name: "b", Pos: 1, Type: types.TextT},
		{FieldID: 8, Name: "a", Pos: 0, Type: types.Int64T},
		{FieldID: FieldRowID, Name: "rowid", Pos: 0, Type: types.Int64T},
	}
	rows, _, _ := scanFile(t, f, proj, ScanOptions{})
	for i, r := range rows {
		// a REQUIRED column reads without definition levels; the reserved
		// row id column is never matched by position.
		if r[0] != fmt.Sprint("v", i) || r[1] != int64(i) || r[2] != nil {
			t.Fatalf("row %d = %v", i, r)
		}
	}
}

// encodingCase is a way of writing a file: page version, codec, encodings.
type encodingCase struct {
	name string
	opt  WriterOptions
}

// encodingTable is a table of every physical type, with NULLs, and a run
// of NULLs in its first column.
func encodingTable() ([]Column, [][]cell, []genFunc) {
	cols := []Column{
		{FieldID: 1, Name: "i64", Type: types.Int64T},
		{FieldID: 2, Name: "i32", Type: types.Int32T},
		{FieldID: 3, Name: "f64", Type: types.Float64T},
		{FieldID: 4, Name: "f32", Type: types.Float32T},
		{FieldID: 5, Name: "s", Type: types.TextT},
		{FieldID: 6, Name: "bl", Type: types.ByteaT},
		{FieldID: 7, Name: "b", Type: types.BoolT},
		{FieldID: 8, Name: "u", Type: types.UUIDT},
		{FieldID: 9, Name: "d", Type: types.NumericT(18, 3)},
	}
	rng := rand.New(rand.NewSource(1))
	const n = 5000
	table := make([][]cell, n)
	for i := range table {
		var u [16]byte
		rng.Read(u[:])
		table[i] = []cell{
			int64(rng.Intn(1000)) - 500, int64(rng.Int31()) - 1<<30, rng.NormFloat64(), float64(float32(rng.NormFloat64())),
			fmt.Sprint("k", rng.Intn(30)), string(u[:rng.Intn(16)]), rng.Intn(3) == 0, string(u[:]), int64(rng.Intn(1e9)),
		}
		for c := range table[i] {
			if rng.Intn(6) == 0 {
				table[i][c] = nil
			}
		}
		if i >= 1000 && i < 1500 {
			table[i][0] = nil // a run of NULLs
		}
	}
	gens := make([]genFunc, len(cols))
	for c := range cols {
		gens[c] = func(i int) cell { return table[i][c] }
	}
	return cols, table, gens
}

// encodingCases are the page versions, codecs and encodings a reader meets.
func encodingCases() []encodingCase {
	byKind := func(m map[types.ID]encoding.Encoding) func(Column) encoding.Encoding {
		return func(c Column) encoding.Encoding { return m[c.Type.ID] }
	}
	return []encodingCase{
		{"v1-snappy", WriterOptions{}},
		{"v2-snappy", WriterOptions{extra: []parquet.WriterOption{parquet.DataPageVersion(2)}}},
		{"v2-zstd", WriterOptions{extra: []parquet.WriterOption{parquet.DataPageVersion(2), parquet.Compression(&parquet.Zstd)}}},
		{"v1-gzip", WriterOptions{extra: []parquet.WriterOption{parquet.Compression(&parquet.Gzip)}}},
		{"v1-lz4raw", WriterOptions{extra: []parquet.WriterOption{parquet.Compression(&parquet.Lz4Raw)}}},
		{"v1-brotli", WriterOptions{extra: []parquet.WriterOption{parquet.Compression(&parquet.Brotli)}}},
		{"v1-uncompressed", WriterOptions{extra: []parquet.WriterOption{parquet.Compression(&parquet.Uncompressed)}}},
		{"v2-uncompressed", WriterOptions{extra: []parquet.WriterOption{parquet.DataPageVersion(2), parquet.Compression(&parquet.Uncompressed)}}},
		{"small-pages", WriterOptions{extra: []parquet.WriterOption{parquet.PageBufferSize(1024)}}},
		{"dictionary-everywhere", WriterOptions{encoding: byKind(map[types.ID]encoding.Encoding{
			types.Int64: &parquet.RLEDictionary, types.Int32: &parquet.RLEDictionary, types.Float64: &parquet.RLEDictionary,
			types.Float32: &parquet.RLEDictionary, types.Bytea: &parquet.RLEDictionary, types.UUID: &parquet.RLEDictionary,
			types.Numeric: &parquet.RLEDictionary,
		})}},
		{"delta", WriterOptions{encoding: byKind(map[types.ID]encoding.Encoding{
			types.Int64: &parquet.DeltaBinaryPacked, types.Int32: &parquet.DeltaBinaryPacked,
			types.Text: &parquet.DeltaLengthByteArray, types.Bytea: &parquet.DeltaByteArray,
			types.Numeric: &parquet.DeltaBinaryPacked,
		})}},
		{"byte-stream-split", WriterOptions{encoding: byKind(map[types.ID]encoding.Encoding{
			types.Float64: &parquet.ByteStreamSplit, types.Float32: &parquet.ByteStreamSplit,
		})}},
		{"rle-bool-v2", WriterOptions{extra: []parquet.WriterOption{parquet.DataPageVersion(2)}, encoding: byKind(map[types.ID]encoding.Encoding{
			types.Bool: &parquet.RLE,
		})}},
	}
}

// TestEncodingsAndCodecs reads files with the page versions, codecs and
// encodings other writers produce.
func TestEncodingsAndCodecs(t *testing.T) {
	cols, table, gens := encodingTable()
	const n = 5000
	cases := encodingCases()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.RowGroupRows = 2000
			data, info := writeRows(t, cols, gens, n, 999, tc.opt)
			if info.Size != int64(len(data)) {
				t.Fatal("size")
			}
			rows, _, _ := scanAll(t, data, projFor(cols), ScanOptions{})
			if len(rows) != n {
				t.Fatalf("%d rows", len(rows))
			}
			for i, r := range rows {
				for c := range cols {
					if !sameCell(r[c], table[i][c]) {
						t.Fatalf("row %d %s = %#v, want %#v", i, cols[c].Name, r[c], table[i][c])
					}
				}
			}
		})
	}
}

// corruptIters and corruptSeed are raised and varied locally to hunt for
// panics (20,000 iterations each over a dozen seeds ran clean).
var (
	corruptIters       = 400
	corruptSeed  int64 = 7
)

// TestCorruptFilesDoNotPanic flips bytes all over a valid file; reads may
// fail but must never panic or hang.
func TestCorruptFilesDoNotPanic(t *testing.T) {
	cols := allTypeCols
	plain, _ := writeRows(t, cols, allTypeGens(), 3000, 1000, WriterOptions{RowGroupRows: 1000})
	// The same data as v2 pages with zstd and the DELTA encodings, which
	// parquet-go decodes for us.
	delta, _ := writeRows(t, cols, allTypeGens(), 3000, 1000, WriterOptions{
		RowGroupRows: 1000,
		extra:        []parquet.WriterOption{parquet.DataPageVersion(2), parquet.Compression(&parquet.Zstd)},
		encoding: func(c Column) encoding.Encoding {
			switch c.Type.Storage() {
			case types.StoreInt:
				return &parquet.DeltaBinaryPacked
			case types.StoreBytes:
				if c.Type.ID != types.UUID {
					return &parquet.DeltaByteArray
				}
			}
			return nil
		},
	})
	bases := []struct {
		data []byte
		proj []Projection
	}{{plain, projFor(cols)}, {delta, projFor(cols)}}
	// DuckDB's file, when the fixture is at hand.
	if dir := findFixtureDir(); dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, typesFile)); err == nil {
			p, _ := typesProjections()
			bases = append(bases, struct {
				data []byte
				proj []Projection
			}{b, p})
		}
	}
	rng := rand.New(rand.NewSource(corruptSeed))
	for iter := 0; iter < corruptIters; iter++ {
		base := bases[iter%len(bases)]
		data := bytes.Clone(base.data)
		for k := 0; k < 1+rng.Intn(8); k++ {
			data[rng.Intn(len(data))] = byte(rng.Intn(256))
		}
		if iter%10 == 0 {
			data = data[:rng.Intn(len(data))]
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("iteration %d: panic %v\n%s", iter, p, debug.Stack())
				}
			}()
			f, err := Open(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				return
			}
			for g := 0; g < f.NumRowGroups(); g++ {
				f.RowGroupRanges(g, base.proj)
			}
			s := f.Scan(base.proj, ScanOptions{})
			var b vec.Batch
			for k := 0; k < 100; k++ {
				if _, ok, err := s.Next(&b); !ok || err != nil {
					return
				}
			}
		}()
	}
}

func TestNextReusesBuffers(t *testing.T) {
	data, cols, _ := idFile(t, 60_000)
	f, _ := Open(bytes.NewReader(data), int64(len(data)))
	proj := projFor(cols)
	s := f.Scan(proj, ScanOptions{})
	var b vec.Batch
	// Warm up: first batches size the buffers.
	for k := 0; k < 3; k++ {
		s.Next(&b)
	}
	allocs := testing.AllocsPerRun(20, func() {
		if _, ok, err := s.Next(&b); !ok || err != nil {
			t.Fatal(ok, err)
		}
	})
	// Strings cost one allocation per page (the page's values as one
	// string); nothing else may allocate per batch.
	t.Logf("%.2f allocations per batch", allocs)
	if allocs > 1 {
		t.Fatalf("%.1f allocations per batch", allocs)
	}
}

func TestLongStringRangesAreBounds(t *testing.T) {
	cols := []Column{{FieldID: 1, Name: "s", Type: types.TextT}, {FieldID: 2, Name: "b", Type: types.ByteaT}}
	long := func(i int) string { return fmt.Sprintf("%0200d-%s", i%37, string(rune('a'+i%26))) }
	gens := []genFunc{func(i int) cell { return long(i) }, func(i int) cell { return "\xff\xff" + long(i) }}
	data, info := writeRows(t, cols, gens, 500, 100, WriterOptions{})
	f, _ := Open(bytes.NewReader(data), int64(len(data)))
	r := f.RowGroupRanges(0, projFor(cols))
	lo, hi := long(0), long(0)
	for i := 0; i < 500; i++ {
		lo, hi = min(lo, long(i)), max(hi, long(i))
	}
	if !r[0].Known || r[0].MinS > lo || r[0].MaxS < hi {
		t.Fatalf("range %q..%q does not bound %q..%q", r[0].MinS, r[0].MaxS, lo, hi)
	}
	if *info.Stats[0].Min != lo || *info.Stats[0].Max != hi {
		t.Fatal("DuckLake stats must be exact")
	}
	if r[1].Known && (r[1].MinS > "\xff\xff"+lo || r[1].MaxS < "\xff\xff"+hi) {
		t.Fatal("bytea range")
	}
}

// TestConcurrentScans runs two scanners over one File at once (run with
// -race): a File is shared by all workers of a morsel-parallel scan.
func TestConcurrentScans(t *testing.T) {
	data, cols, gens := idFile(t, 8000)
	f, _ := Open(bytes.NewReader(data), int64(len(data)))
	errs := make(chan error, 2)
	for w := 0; w < 2; w++ {
		groups := []int{w, w + 2, w + 4, w + 6}
		go func() {
			s := f.Scan(projFor(cols), ScanOptions{RowGroups: groups})
			var b vec.Batch
			for {
				start, ok, err := s.Next(&b)
				if err != nil || !ok {
					errs <- err
					return
				}
				for r := 0; r < b.N; r++ {
					if got, want := cellOf(b.Vecs[1], r), gens[1](int(start)+r); got != want {
						errs <- fmt.Errorf("row %d: %v, want %v", start+int64(r), got, want)
						return
					}
				}
			}
		}()
	}
	for w := 0; w < 2; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestForeignPhysicalTypes reads what other writers produce: timestamps in
// millis and nanos, legacy INT96, unsigned integers.
func TestForeignPhysicalTypes(t *testing.T) {
	type row struct {
		Ms  int64            `parquet:"ms,timestamp(millisecond)"`
		Ns  int64            `parquet:"ns,timestamp(nanosecond)"`
		I96 deprecated.Int96 `parquet:"i96"`
		U32 uint32           `parquet:"u32"`
		U8  uint8            `parquet:"u8"`
		Big int64            `parquet:"big,timestamp(millisecond)"`
	}
	var rs []row
	for i := 0; i < 300; i++ {
		us := int64(i)*86_400_000_123 - 5_000_000_000_000 // some before 1970
		day := us/86_400_000_000 + 2440588
		nod := us % 86_400_000_000
		if nod < 0 {
			nod += 86_400_000_000
			day--
		}
		nanos := uint64(nod) * 1000
		rs = append(rs, row{
			Ms: us / 1000 * 1, Ns: us*1000 + 999, I96: deprecated.Int96{uint32(nanos), uint32(nanos >> 32), uint32(day)},
			U32: 4_000_000_000 + uint32(i), U8: uint8(200 + i%50), Big: 1 << 60,
		})
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	if _, err := w.Write(rs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	wantTypes := []types.T{types.TimestamptzT, types.TimestamptzT, types.TimestampT, types.Int64T, types.Int16T, types.TimestamptzT}
	for i, fl := range f.Fields() {
		if !fl.TypeOK || fl.Type != wantTypes[i] {
			t.Errorf("field %s: %v %v", fl.Name, fl.Type, fl.TypeOK)
		}
	}
	proj := []Projection{
		{Pos: 0, Type: types.TimestampT}, {Pos: 1, Type: types.TimestampT}, {Pos: 2, Type: types.TimestampT},
		{Pos: 3, Type: types.Int64T}, {Pos: 4, Type: types.Int16T},
	}
	rows, _, _ := scanFile(t, f, proj, ScanOptions{})
	for i, r := range rows {
		us := int64(i)*86_400_000_123 - 5_000_000_000_000
		ms := us / 1000 * 1000
		// nanoseconds round to the nearest microsecond (999 ns up)
		if r[0] != ms || r[1] != us+1 || r[2] != us || r[3] != int64(4_000_000_000+i) || r[4] != int64(200+i%50) {
			t.Fatalf("row %d = %v, want %d %d", i, r, ms, us)
		}
	}
	rg := f.RowGroupRanges(0, proj)
	if !rg[3].Known || rg[3].MinI != 4_000_000_000 || rg[3].MaxI != 4_000_000_299 {
		t.Errorf("unsigned range %+v", rg[3])
	}
	if !rg[0].Known || rg[0].MinI != rows[0][0] || rg[1].MaxI != rows[299][1] {
		t.Errorf("timestamp ranges %+v %+v", rg[0], rg[1])
	}
	// 2^60 ms does not fit in microseconds.
	_, _, err = f.Scan([]Projection{{Pos: 5, Type: types.TimestampT}}, ScanOptions{}).Next(&vec.Batch{})
	if pgerr.Code(err) != pgerr.NumericValueOutOfRange {
		t.Errorf("overflow: %v", err)
	}
}
