package planner

import (
	"context"
	"strconv"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner/laketypes"
	"github.com/lakepg/lakepg/types"
)

// inlinedScan adds to a table scan what DuckDB keeps in the catalog instead
// of Parquet files: inlined file deletes become deleted positions of their
// files, and inlined rows become batches the scan emits after the files.
// It returns the inlined tables in the order of the scan's negative file
// ordinals (-1-k is the k-th).
func (s *Session) inlinedScan(ctx context.Context, snap catalog.Snapshot, t *catalog.Table, files []catalog.DataFile, scan *exec.TableScan) ([]string, error) {
	dels, err := s.DB.InlinedFileDeletes(ctx, t.ID, snap)
	if err != nil {
		return nil, err
	}
	if len(dels) > 0 {
		ownScanFiles(scan) // filezones.go
		for i := range files {
			scan.Files[i].Deleted = dels[files[i].ID]
		}
	}
	data, err := s.DB.InlinedData(ctx, t, snap)
	if err != nil || len(data) == 0 {
		return nil, err
	}
	names := make([]string, len(data))
	for k, ir := range data {
		names[k] = ir.Table
		bs, err := inlinedBatches(ir, -1-int64(k), scan.Cols)
		if err != nil {
			return nil, err
		}
		scan.Inlined = append(scan.Inlined, bs...)
	}
	return names, nil
}

// inlinedBatches lays inlined rows out as the scan's columns plus the three
// position columns (file ordinal, row id as position, row id).
func inlinedBatches(ir catalog.InlinedRows, ordinal int64, cols []exec.ScanCol) ([]*vec.Batch, error) {
	src := make([]int, len(cols)) // value column of each scan column, -1 if absent
	for i, c := range cols {
		src[i] = -1
		for j, id := range ir.ColumnIDs {
			if id == int64(c.FieldID) {
				src[i] = j
			}
		}
	}
	width := len(ir.ColumnIDs)
	ts := make([]types.T, 0, len(cols)+3)
	for _, c := range cols {
		ts = append(ts, c.T)
	}
	ts = append(ts, types.Int64T, types.Int64T, types.Int64T)
	var out []*vec.Batch
	var b *vec.Batch
	for r, rid := range ir.RowIDs {
		if b == nil || b.N == vec.BatchSize {
			b = vec.NewBatch(ts, min(len(ir.RowIDs)-r, vec.BatchSize))
			out = append(out, b)
		}
		for i, c := range cols {
			v := b.Vecs[i]
			switch j := src[i]; {
			case j >= 0:
				if err := AppendCatalogValue(v, ir.Values[r*width+j]); err != nil {
					return nil, pgerr.Wrap(pgerr.DataCorrupted, err, "inlined data table %s, row_id %d, column %s", ir.Table, rid, c.Name)
				}
			case c.Default != nil:
				v.AppendFrom(c.Default, 0)
			default:
				v.AppendNull()
			}
		}
		n := len(cols)
		b.Vecs[n].AppendInt(ordinal)
		b.Vecs[n+1].AppendInt(rid)
		b.Vecs[n+2].AppendInt(rid)
		b.N++
	}
	return out, nil
}

// AppendCatalogValue appends a value as a catalog database driver scanned
// it. DuckDB stores inlined values natively where the backend has the type
// (PostgreSQL) and as text otherwise (SQLite: only integers, floats and
// blobs are native), so every Go type a driver returns may meet every
// column type.
func AppendCatalogValue(v *vec.Vector, x any) error {
	switch x := x.(type) {
	case nil:
		v.AppendNull()
		return nil
	case int64:
		switch v.Type.ID {
		case types.Bool:
			v.AppendBool(x != 0)
			return nil
		case types.Int16, types.Int32, types.Int64:
			v.AppendInt(x)
			return nil
		}
		return exec.ParseInto(v, strconv.FormatInt(x, 10), time.UTC, false)
	case float64:
		if v.Type.ID == types.Float32 || v.Type.ID == types.Float64 {
			v.AppendFloat(x)
			return nil
		}
		return exec.ParseInto(v, strconv.FormatFloat(x, 'g', -1, 64), time.UTC, false)
	case bool:
		if v.Type.ID == types.Bool {
			v.AppendBool(x)
			return nil
		}
		return exec.ParseInto(v, strconv.FormatBool(x), time.UTC, false)
	case []byte:
		if v.Type.ID == types.Array || v.Type.ID == types.Struct {
			return laketypes.AppendDuckNested(v, string(x)) // laketypes/nested_inlined.go
		}
		if v.Type.ID == types.Bytea {
			v.AppendString(string(x))
			return nil
		}
		return exec.ParseInto(v, string(x), time.UTC, false)
	case string:
		if v.Type.ID == types.Array || v.Type.ID == types.Struct {
			return laketypes.AppendDuckNested(v, x) // laketypes/nested_inlined.go
		}
		return exec.ParseInto(v, x, time.UTC, false)
	case time.Time:
		switch v.Type.ID {
		case types.Timestamptz:
			v.AppendInt(x.UnixMicro())
			return nil
		case types.Timestamp:
			// a zone-less timestamp arrives as that wall-clock time in UTC
			_, off := x.Zone()
			v.AppendInt(x.UnixMicro() + int64(off)*1e6)
			return nil
		case types.Date:
			_, off := x.Zone()
			us := x.UnixMicro() + int64(off)*1e6
			d := us / 86400e6
			if us%86400e6 < 0 {
				d--
			}
			v.AppendInt(d)
			return nil
		}
		return exec.ParseInto(v, x.Format(time.RFC3339Nano), time.UTC, false)
	}
	return pgerr.New(pgerr.DataCorrupted, "unexpected catalog value of Go type %T", x)
}
