package planner

import (
	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/sql/planner/optree"
	"github.com/lakepg/lakepg/sql/pruning"
	"github.com/lakepg/lakepg/types"
)

// min() and max() of whole columns come from the catalog: DuckLake keeps
// every data file's exact column minimum and maximum
// (ducklake_file_column_stats; a writer records exact values or NULL), so
// an aggregate of only min/max over an unfiltered table needs no file
// read. The file's two extreme values stand in for its rows: the scan
// reads, instead of the files, one small batch with a minimum row and a
// maximum row per file, followed by the table's inlined rows as always,
// and the aggregate above runs unchanged.
//
// Only where the stats describe exactly the rows read: no delete file or
// inlined file delete (a deleted row may be the extreme), no file read as
// of an older snapshot than it holds, no rows a transaction block staged,
// and fixed-width types whose statistics text parses back exactly (string
// statistics may be truncated prefixes, and NaN has no order in them).

// minMaxFromStats rewrites, in op's tree, each such aggregate's scan.
func (s *Session) minMaxFromStats(op exec.Operator) {
	for _, in := range optree.Inputs(op) {
		s.minMaxFromStats(*in)
	}
	h, ok := op.(*aggregate.HashAgg)
	if !ok || h.NGroup != 0 || h.GroupingSets != nil || h.GroupingID || len(h.Aggs) == 0 {
		return
	}
	scan, colOf := statsScan(h.Input)
	if scan == nil || len(scan.Files) == 0 {
		return
	}
	ref := s.scanRefs[scan]
	if ref == nil || len(ref.Pending) > 0 || len(ref.Files) != len(scan.Files) {
		return
	}
	used := make([]bool, len(scan.Cols))
	for _, a := range h.Aggs {
		if a.Kind != aggregate.AggMin && a.Kind != aggregate.AggMax || a.Filter != 0 || a.Arg >= len(colOf) || colOf[a.Arg] < 0 {
			return
		}
		c := colOf[a.Arg]
		if !statsExactType(scan.Cols[c].T) {
			return
		}
		used[c] = true
	}
	b, ok := statsRows(scan, ref.Files, used)
	if !ok {
		return
	}
	scan.FilesFromStats = len(scan.Files)
	scan.Files = nil
	scan.Inlined = append([]*vec.Batch{b}, scan.Inlined...)
}

// statsScan follows projections of plain columns down to a scan that
// reads every row, mapping each column of op to the scan column it is (-1:
// computed).
func statsScan(op exec.Operator) (*exec.TableScan, []int) {
	switch o := op.(type) {
	case *exec.TableScan:
		if o.Keep != nil || o.WithPos {
			return nil, nil
		}
		m := make([]int, len(o.Cols))
		for i := range m {
			m[i] = i
		}
		return o, m
	case *exec.Project:
		scan, inner := statsScan(o.Input)
		if scan == nil {
			return nil, nil
		}
		m := make([]int, len(o.Exprs))
		for i, e := range o.Exprs {
			m[i] = -1
			if r, ok := e.(*exec.ColRef); ok && r.Idx < len(inner) {
				m[i] = inner[r.Idx]
			}
		}
		return scan, m
	}
	return nil, nil
}

func statsExactType(t types.T) bool {
	switch t.ID {
	case types.Int16, types.Int32, types.Int64, types.Float32, types.Float64, types.Date, types.Timestamp, types.Timestamptz:
		return true
	case types.Numeric:
		return !t.DynNumeric()
	}
	return false
}

// statsRows builds the scan-shaped batch of each file's minimum and maximum
// of the used columns (NULL elsewhere), or reports that some file's stats
// cannot stand for its rows.
func statsRows(scan *exec.TableScan, files []catalog.DataFile, used []bool) (*vec.Batch, bool) {
	b := &vec.Batch{N: 2 * len(files)}
	for i, c := range scan.Cols {
		v := vec.New(c.T, b.N)
		if !used[i] {
			for range b.N {
				v.AppendNull()
			}
		}
		b.Vecs = append(b.Vecs, v)
	}
	for i, f := range files {
		sf := scan.Files[i]
		if f.Delete != nil || sf.DeletePath != "" || len(sf.Deleted) > 0 || sf.MaxSnapshot > 0 || !sf.CountKnown {
			return nil, false
		}
		for c, col := range scan.Cols {
			if !used[c] {
				continue
			}
			st, ok := f.Stats.Get(int64(col.FieldID))
			if !ok {
				return nil, false // a column added after the file: its default is not in the stats
			}
			if st.Min == nil && st.Max == nil && st.NullCount != nil && *st.NullCount == f.RecordCount {
				b.Vecs[c].AppendNull() // only NULLs in this file
				b.Vecs[c].AppendNull()
				continue
			}
			if col.T.IsFloat() && (st.ContainsNaN == nil || *st.ContainsNaN) {
				return nil, false
			}
			lo, hi := pruning.StatValue(col.T, st.Min), pruning.StatValue(col.T, st.Max)
			if lo == nil || hi == nil {
				return nil, false
			}
			b.Vecs[c].AppendFrom(lo, 0)
			b.Vecs[c].AppendFrom(hi, 0)
		}
	}
	for range 3 { // the position columns inlined batches carry
		v := vec.New(types.Int64T, b.N)
		for range b.N {
			v.AppendInt(0)
		}
		b.Vecs = append(b.Vecs, v)
	}
	return b, true
}
