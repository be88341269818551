package planner

import (
	"context"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/storage"
	"github.com/lakepg/lakepg/types"
)

// histScan reads files whole (no deletes) with each row's id and the
// snapshot that inserted it: the embedded _ducklake_internal_snapshot_id,
// or the file's begin snapshot. Its batches are the table's columns, then
// row id and snapshot id.
type histScan struct {
	scan   *exec.TableScan
	begins []int64 // by scan file ordinal
	ncols  int
	out    *vec.Batch
	MinS   int64
	MaxS   int64
	// ord and pos are the last batch's file ordinals and positions; which,
	// when set, maps ordinals to the caller's file indexes.
	ord, pos *vec.Vector
	which    []int
}

func (h *histScan) Close() error { return h.scan.Close() }

func (h *histScan) Next(ctx context.Context) (*vec.Batch, error) {
	b, err := h.scan.Next(ctx)
	if err != nil || b == nil {
		return nil, err
	}
	n := h.ncols
	h.ord, h.pos = b.Vecs[n+1], b.Vecs[n+2]
	snapV := vec.New(types.Int64T, b.N)
	sv, ord := b.Vecs[n], b.Vecs[n+1]
	for i := 0; i < b.N; i++ {
		x := h.begins[ord.I64[i]]
		if !sv.IsNull(i) {
			x = sv.I64[i]
		}
		snapV.AppendInt(x)
		if h.MinS < 0 || x < h.MinS {
			h.MinS = x
		}
		if x > h.MaxS {
			h.MaxS = x
		}
	}
	if h.out == nil {
		h.out = &vec.Batch{}
	}
	h.out.Vecs = append(append(h.out.Vecs[:0], b.Vecs[:n]...), b.Vecs[n+3], snapV)
	h.out.N = b.N
	return h.out, nil
}

func NewHistScan(store storage.Backend, head catalog.Snapshot, cols []exec.ScanCol, files []exec.ScanFile, begins []int64) *histScan {
	sc := append(append([]exec.ScanCol(nil), cols...), exec.ScanCol{FieldID: ParquetioSnapshotField, Name: "_ducklake_internal_snapshot_id", T: types.Int64T})
	scan := &exec.TableScan{Store: store, Snapshot: head.ID, Label: "maintenance", Cols: sc, WithPos: true, Files: files}
	return &histScan{scan: scan, begins: begins, ncols: len(cols), MinS: -1}
}

// ParquetioSnapshotField is _ducklake_internal_snapshot_id's field id.
const ParquetioSnapshotField = parquetio.FieldSnapshotID

func (h *histScan) Types() []types.T {
	ts := make([]types.T, 0, h.ncols+2)
	for _, c := range h.scan.Cols[:h.ncols] {
		ts = append(ts, c.T)
	}
	return append(ts, types.Int64T, types.Int64T)
}
