package parquetio

import (
	"bytes"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// fuzzTypes are the types the seed files were written with, by column
// name (unique across the seeds), so that nested columns, which have no
// natural type, are read too.
var fuzzTypes = func() map[string]types.T {
	m := map[string]types.T{}
	nested, _ := duckNestedCols()
	for _, cs := range [][]Column{allTypeCols, nested} {
		for _, c := range cs {
			m[c.Name] = c.Type
		}
	}
	return m
}()

// fuzzSeeds are small files from lakepg's writer: several row groups of a
// few pages each (so the page index has something to say), in the page
// versions, codecs and encodings the reader decodes; nested columns; a
// delete file.
func fuzzSeeds(t testing.TB) [][]byte {
	small := []parquet.WriterOption{parquet.PageBufferSize(256)}
	uncompressed := append(small, parquet.Compression(&parquet.Uncompressed))
	var seeds [][]byte
	for _, opt := range []WriterOptions{
		{extra: uncompressed},
		{extra: append(uncompressed, parquet.DataPageVersion(2)), encoding: func(c Column) encoding.Encoding {
			switch c.Type.Storage() {
			case types.StoreInt:
				return &parquet.DeltaBinaryPacked
			case types.StoreFloat:
				return &parquet.ByteStreamSplit
			case types.StoreBytes:
				if c.Type.ID != types.UUID {
					return &parquet.DeltaLengthByteArray
				}
			}
			return nil
		}},
		{extra: uncompressed, encoding: func(c Column) encoding.Encoding {
			if c.Type.ID == types.Bool {
				return &parquet.RLE
			}
			return &parquet.RLEDictionary
		}},
		{extra: small}, // lz4_raw, lakepg's default
		{Compression: "snappy", extra: small},
	} {
		opt.RowGroupRows, opt.sequential = 40, true
		data, _ := writeRows(t, allTypeCols, allTypeGens(), 100, 10, opt)
		seeds = append(seeds, data)
	}
	cols, gens := duckNestedCols()
	data, _ := writeRows(t, cols, gens, 12, 12, WriterOptions{RowGroupRows: 6, extra: uncompressed})
	seeds = append(seeds, data)
	var del bytes.Buffer
	if _, err := WriteDeleteFile(&del, "data/x.parquet", []int64{0, 3, 4, 99, 1 << 33}); err != nil {
		t.Fatal(err)
	}
	return append(seeds, del.Bytes())
}

// fuzzKeep rules out some ranges of projection k (an arbitrary half of
// the values), so that row groups and pages are pruned from their
// statistics and the page index.
func fuzzKeep(k int) func(int, []Range) bool {
	return func(_ int, r []Range) bool {
		x := r[k]
		return !x.Known || x.AllNull || (x.MinI>>20)&1 == 0 || (x.MaxI>>20)&1 == 0
	}
}

// fuzzMaxBatches bounds the rows one scan reads: a corrupt row count must
// not make an input take minutes.
const fuzzMaxBatches = 64

// FuzzParquetRead opens arbitrary bytes as a Parquet file and reads all
// of it that it can: footer, schema, statistics, page index, pages. Every
// corruption must come back as an error, never as a panic.
func FuzzParquetRead(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		var proj []Projection
		for i, fl := range file.Fields() {
			ty, ok := fuzzTypes[fl.Name]
			if !ok {
				if !fl.TypeOK {
					continue
				}
				ty = fl.Type
			}
			proj = append(proj, Projection{FieldID: fl.FieldID, Name: fl.Name, Pos: i, Type: ty})
		}
		// a column the file lacks, and the row id DuckLake may store
		proj = append(proj,
			Projection{FieldID: 1 << 20, Name: "absent", Pos: len(proj) + 7, Type: types.Int64T},
			Projection{FieldID: FieldRowID, Name: "rowid", Pos: 0, Type: types.Int64T})
		keep := fuzzKeep(0)
		for k, p := range proj {
			if p.Type.ID == types.Int64 {
				keep = fuzzKeep(k)
				break
			}
		}
		for g := range file.NumRowGroups() {
			file.RowGroupRanges(g, proj)
			file.RowGroupBytes(g, proj)
			file.PagePruning(g, proj, keep)
		}
		for _, opt := range []ScanOptions{{}, {Keep: keep}} {
			s := file.Scan(proj, opt)
			var b vec.Batch
			for range fuzzMaxBatches {
				if _, ok, err := s.Next(&b); !ok || err != nil {
					break
				}
			}
			s.PageStats()
			s.Release()
		}
		ReadDeletePositions(bytes.NewReader(data), int64(len(data)), 1)
	})
}
