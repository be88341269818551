// Package datafile describes the Parquet data files a write produced as
// the catalog records them: their columns, statistics and paths.
package datafile

import (
	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/snapshot"
)

// ParquetColumns are the Parquet writer's columns of scan columns cols.
func ParquetColumns(cols []exec.ScanCol) []parquetio.Column {
	out := make([]parquetio.Column, len(cols))
	for i, c := range cols {
		out[i] = parquetio.Column{FieldID: c.FieldID, Name: c.Name, Type: c.T, ElemFieldID: c.ElemFieldID, ChildIDs: c.ChildIDs, Geometry: c.Geometry, Variant: c.Variant}
	}
	return out
}

// ToStats are the column statistics of a written file, as the catalog keeps
// them (the row id column left out).
func ToStats(cols []exec.ScanCol, info parquetio.FileInfo) []catalog.ColumnStats {
	var out []catalog.ColumnStats
	for _, st := range info.Stats {
		if st.FieldID == exec.RowIDFieldID {
			continue
		}
		vc, nc, sz := st.ValueCount, st.NullCount, st.SizeBytes
		cs := catalog.ColumnStats{ColumnID: int64(st.FieldID), ValueCount: &vc, NullCount: &nc, ColumnSizeBytes: &sz, Min: st.Min, Max: st.Max, ContainsNaN: st.ContainsNaN, Sketch: st.Sketch}
		if st.CountsUnknown { // DuckDB's NULL counts (parquetio/writer_nested.go)
			cs.ValueCount, cs.NullCount = nil, nil
		}
		out = append(out, cs)
	}
	return out
}

// NewDataFile describes written file w for the commit.
func NewDataFile(w *exec.WrittenFile, cols []exec.ScanCol, rowIDs bool) snapshot.NewDataFile {
	return snapshot.NewDataFile{RelPath: w.Name, Path: w.Path, RecordCount: w.Info.Rows, FileSize: w.Info.Size, FooterSize: w.Info.FooterSize, RowGroupCount: w.Info.RowGroups, Stats: ToStats(cols, w.Info), EmbeddedRowIDs: rowIDs, EncryptionKey: w.KeyText()}
}

// SameColumns reports whether two layouts of a table have the same columns
// (ids and types), in order.
func SameColumns(a, b *catalog.Table) bool {
	if len(a.Columns) != len(b.Columns) {
		return false
	}
	for i := range a.Columns {
		if a.Columns[i].ID != b.Columns[i].ID || a.Columns[i].Type != b.Columns[i].Type {
			return false
		}
	}
	return true
}

// FilePaths are the paths of the written files (nil and unnamed ones left
// out).
func FilePaths(ws ...*exec.WrittenFile) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		if w != nil && w.Path != "" {
			out = append(out, w.Path)
		}
	}
	return out
}
