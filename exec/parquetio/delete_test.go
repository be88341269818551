package parquetio

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/types"
)

func TestDeleteFileRoundTrip(t *testing.T) {
	const path = "/lake/main/t/ducklake-0190-aaaa.parquet"
	var positions []int64
	for p := int64(3); p < 300_000; p += 97 {
		positions = append(positions, p)
	}
	var buf bytes.Buffer
	info, err := WriteDeleteFile(&buf, path, positions)
	if err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if info.Rows != int64(len(positions)) || info.Size != int64(len(data)) || info.FooterSize != footerLen(data) {
		t.Fatalf("info %+v (file %d bytes)", info, len(data))
	}
	got, err := ReadDeletePositions(bytes.NewReader(data), int64(len(data)), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, positions) {
		t.Fatalf("read %d positions, wrote %d", len(got), len(positions))
	}
	// Layout as DuckDB writes it: file_path then pos, reserved field ids.
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	fs := f.Fields()
	if len(fs) != 2 || fs[0].Name != "file_path" || fs[0].FieldID != FieldFilePath || fs[0].Type != types.TextT ||
		fs[1].Name != "pos" || fs[1].FieldID != FieldPos || fs[1].Type != types.Int64T {
		t.Fatalf("fields %+v", fs)
	}
	rows, _, _ := scanFile(t, f, []Projection{{FieldID: FieldFilePath, Type: types.TextT}}, ScanOptions{})
	if len(rows) != len(positions) || rows[0][0] != path || rows[len(rows)-1][0] != path {
		t.Fatal("file_path column")
	}
	// Stats: min/max of pos are exact, as for any data file.
	if p := info.Stats[1]; *p.Min != "3" || *p.Max != fmt.Sprint(positions[len(positions)-1]) || p.ValueCount != int64(len(positions)) {
		t.Fatalf("pos stats %+v", p)
	}

	if _, err := WriteDeleteFile(&buf, path, []int64{5, 4}); err == nil {
		t.Fatal("unsorted positions accepted")
	}
	buf.Reset()
	if info, err := WriteDeleteFile(&buf, path, nil); err != nil || info.Rows != 0 {
		t.Fatalf("empty delete file: %+v %v", info, err)
	}
	if got, err := ReadDeletePositions(bytes.NewReader(buf.Bytes()), int64(buf.Len()), 0); err != nil || len(got) != 0 {
		t.Fatalf("empty delete file read: %v %v", got, err)
	}
}

func TestReadDeletePositionsUnsorted(t *testing.T) {
	// Another writer may list positions out of order or twice.
	cols := []Column{
		{FieldID: FieldFilePath, Name: "file_path", Type: types.TextT},
		{FieldID: FieldPos, Name: "pos", Type: types.Int64T},
		{FieldID: FieldSnapshotID, Name: "_ducklake_internal_snapshot_id", Type: types.Int64T},
	}
	pos := []int64{9, 2, 7, 2, 5}
	snap := []int64{3, 3, 8, 3, 9}
	data, _ := writeRows(t, cols, []genFunc{
		func(int) cell { return "x" },
		func(i int) cell { return pos[i] },
		func(i int) cell { return snap[i] },
	}, len(pos), 10, WriterOptions{})
	for _, c := range []struct {
		snap int64
		want []int64
	}{{2, nil}, {3, []int64{2, 9}}, {8, []int64{2, 7, 9}}, {100, []int64{2, 5, 7, 9}}} {
		got, err := ReadDeletePositions(bytes.NewReader(data), int64(len(data)), c.snap)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("at %d: %v %v, want %v", c.snap, got, err, c.want)
		}
	}
}
