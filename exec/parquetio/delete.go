package parquetio

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Positional delete files (notes §5): file_path VARCHAR, pos BIGINT (0-based
// row position in the data file), optionally the snapshot that deleted the
// row.

// WriteDeleteFile writes a delete file for dataFilePath with the given
// positions, which must be sorted ascending.
func WriteDeleteFile(w io.Writer, dataFilePath string, positions []int64) (FileInfo, error) {
	return WriteDeleteFileKey(w, dataFilePath, positions, nil)
}

// WriteDeleteFileKey is WriteDeleteFile encrypted with key (nil: plain).
func WriteDeleteFileKey(w io.Writer, dataFilePath string, positions []int64, key Key) (FileInfo, error) {
	for i := 1; i < len(positions); i++ {
		if positions[i] < positions[i-1] {
			return FileInfo{}, fmt.Errorf("parquet: delete positions must be sorted ascending")
		}
	}
	cols := []Column{
		{FieldID: FieldFilePath, Name: "file_path", Type: types.VarcharT},
		{FieldID: FieldPos, Name: "pos", Type: types.Int64T},
	}
	pw, err := NewWriter(w, cols, WriterOptions{Key: key})
	if err != nil {
		return FileInfo{}, err
	}
	b := vec.NewBatch([]types.T{types.VarcharT, types.Int64T}, vec.BatchSize)
	for lo := 0; lo < len(positions); lo += vec.BatchSize {
		hi := min(lo+vec.BatchSize, len(positions))
		b.Reset()
		for _, p := range positions[lo:hi] {
			b.Vecs[0].AppendString(dataFilePath)
			b.Vecs[1].AppendInt(p)
		}
		b.N = hi - lo
		if err := pw.Write(b); err != nil {
			return FileInfo{}, err
		}
	}
	return pw.Close()
}

// ReadDeletePositions reads a delete file's positions, sorted ascending and
// without duplicates. When the file has the snapshot column, only rows
// deleted at or before snapshot are kept.
func ReadDeletePositions(r io.ReaderAt, size int64, snapshot int64) ([]int64, error) {
	return ReadDeletePositionsKey(r, size, snapshot, nil)
}

// ReadDeletePositionsKey is ReadDeletePositions for a delete file that may be
// encrypted with key (nil: the catalog has none).
//
// A deletion vector (a 'puffin' delete file, puffin.go) is recognised by its
// first bytes and read as such: its snapshot-less blob applies in full (the
// catalog only shows the file from its begin_snapshot on).
func ReadDeletePositionsKey(r io.ReaderAt, size int64, snapshot int64, key Key) ([]int64, error) {
	return ReadDeletePositionsFormat(r, size, snapshot, key, "puffin")
}

// ReadDeletePositionsFormat is ReadDeletePositionsKey for a delete file
// whose ducklake_delete_file.format is format: only a 'puffin' file is
// looked at for a deletion vector, so reading a Parquet delete file costs
// no extra read of its first bytes (a request of its own on S3).
func ReadDeletePositionsFormat(r io.ReaderAt, size int64, snapshot int64, key Key, format string) ([]int64, error) {
	if strings.EqualFold(format, "puffin") && IsDeletionVector(r, size) {
		return ReadDeletionVectorPositions(r, size, 0, snapshot)
	}
	f, err := OpenKey(r, size, key)
	if err != nil {
		return nil, err
	}
	fields := f.Fields()
	// Readers validate delete files by position and type (notes §5): pos is
	// the second column, the snapshot id the optional third.
	posProj := Projection{FieldID: FieldPos, Name: "pos", Pos: 1, Type: types.Int64T}
	snapProj := Projection{FieldID: FieldSnapshotID, Name: "_ducklake_internal_snapshot_id", Pos: 2, Type: types.Int64T}
	if len(fields) < 2 {
		return nil, fmt.Errorf("parquet: delete file has %d columns, want file_path and pos", len(fields))
	}
	switch {
	case !f.HasFieldIDs():
		posProj.FieldID = 0 // match by position
	case !f.HasField(FieldPos):
		posProj.FieldID = fields[1].FieldID
	}
	hasSnap := false
	if f.HasFieldIDs() {
		hasSnap = f.HasField(FieldSnapshotID)
	} else if len(fields) >= 3 && fields[2].Name == "_ducklake_internal_snapshot_id" {
		// Reserved ids are matched by id only, so look it up by position.
		hasSnap = true
		snapProj.FieldID = 0
	}
	proj := []Projection{posProj}
	if hasSnap {
		proj = append(proj, snapProj)
	}
	// The footer's row count only sizes the slice, and a corrupt one
	// (negative, or billions) must not: the scan finds the real rows.
	out := make([]int64, 0, min(max(f.NumRows(), 0), 1<<20))
	s := f.Scan(proj, ScanOptions{})
	var b vec.Batch
	for {
		_, ok, err := s.Next(&b)
		if err != nil {
			return nil, fmt.Errorf("parquet: reading delete file: %w", err)
		}
		if !ok {
			break
		}
		pos := b.Vecs[0]
		if !hasSnap {
			if pos.Nulls == nil {
				out = append(out, pos.I64[:b.N]...)
				continue
			}
			for i := 0; i < b.N; i++ {
				if !pos.Nulls[i] {
					out = append(out, pos.I64[i])
				}
			}
			continue
		}
		snap := b.Vecs[1]
		for i := 0; i < b.N; i++ {
			if pos.IsNull(i) {
				continue
			}
			// A NULL snapshot id cannot be placed in history; the row is
			// in the file, so it counts as deleted.
			if !snap.IsNull(i) && snap.I64[i] > snapshot {
				continue
			}
			out = append(out, pos.I64[i])
		}
	}
	if !slices.IsSorted(out) {
		slices.Sort(out)
	}
	return slices.Compact(out), nil
}
