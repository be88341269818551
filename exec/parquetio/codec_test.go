package parquetio

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Every parquet_compression name writes its codec (lz4_raw by default), the
// reader reads it back, and an unknown name is refused with 22023.
func TestWriterCodecs(t *testing.T) {
	for name, want := range map[string]int32{"": codecLZ4Raw, "lz4": codecLZ4Raw, "LZ4_RAW": codecLZ4Raw, "snappy": codecSnappy,
		"zstd": codecZstd, "gzip": codecGzip, "brotli": codecBrotli, "uncompressed": codecUncompressed} {
		cols, gens := []Column{{FieldID: 1, Name: "id", Type: types.Int64T}, {FieldID: 2, Name: "s", Type: types.TextT}},
			[]genFunc{func(i int) cell { return int64(i * 3) }, func(i int) cell { return fmt.Sprintf("value %d", i%100) }}
		data, _ := writeRows(t, cols, gens, 50_000, 4096, WriterOptions{Compression: name})
		f, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, cm := range f.meta.rowGroups[0].columns {
			if cm.codec != want {
				t.Errorf("%q: codec %s, want %s", name, codecName(cm.codec), codecName(want))
			}
		}
		rows, pos, _ := scanAll(t, data, projFor(cols), ScanOptions{})
		if len(rows) != 50_000 {
			t.Fatalf("%q: %d rows", name, len(rows))
		}
		for i, row := range rows {
			if row[0] != gens[0](int(pos[i])) || row[1] != gens[1](int(pos[i])) {
				t.Fatalf("%q: row %d = %v", name, pos[i], row)
			}
		}
	}
	var buf bytes.Buffer
	_, err := NewWriter(&buf, []Column{{FieldID: 1, Name: "id", Type: types.Int64T}}, WriterOptions{Compression: "lzma"})
	if pgerr.Code(err) != "22023" {
		t.Errorf("codec lzma: %v, want 22023", err)
	}
}

// Unique strings, for which a dictionary does not pay, are written PLAIN
// (parquet-go's own default would be DELTA_LENGTH_BYTE_ARRAY, which the
// reader only transcodes).
func TestUniqueStringsArePlain(t *testing.T) {
	cols := []Column{{FieldID: 1, Name: "s", Type: types.TextT}}
	gens := []genFunc{func(i int) cell { return fmt.Sprintf("unique value number %07d", i) }}
	data, _ := writeRows(t, cols, gens, 20_000, 4096, WriterOptions{})
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	cm := &f.meta.rowGroups[0].columns[0]
	var h pageHeader
	if _, err := readPageHeader(data[chunkStart(cm):], &h); err != nil {
		t.Fatal(err)
	}
	if h.typ != pageData || h.encoding != encPlain {
		t.Errorf("first page: type %d encoding %d, want a PLAIN data page", h.typ, h.encoding)
	}
}
