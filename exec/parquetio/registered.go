package parquetio

import (
	"encoding/binary"
	"strings"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// What registering an existing Parquet file in a lake (ducklake_add_data_files)
// needs from it besides its rows: the footer length the catalog records, the
// compressed size of each top-level column, and statistics in DuckLake's
// text form computed from the values themselves (footer statistics are
// optional, may be truncated and use the file's types, not the table's).

// FooterSize is the length of the file's footer (the value before the
// trailing magic), as ducklake_data_file.footer_size records it.
func (f *File) FooterSize() int64 {
	var tail [8]byte
	if err := readFull(f.r, tail[:], f.size-8); err != nil {
		return 0
	}
	return int64(binary.LittleEndian.Uint32(tail[:4]))
}

// ColumnBytes is the compressed size of the chunks of the top-level column
// named name (case-insensitively), over all row groups; 0 if none.
func (f *File) ColumnBytes(name string) int64 {
	var n int64
	for i := range f.top {
		tf := &f.top[i]
		if !strings.EqualFold(tf.elem.name, name) || tf.leaf < 0 {
			continue
		}
		for _, g := range f.meta.rowGroups {
			n += g.columns[tf.leaf].totalCompressed
		}
	}
	return n
}

// StatsAcc accumulates one column's DuckLake statistics from its values.
type StatsAcc struct{ a statAcc }

// NewStatsAcc starts the statistics of a column of type t.
func NewStatsAcc(t types.T) *StatsAcc { return &StatsAcc{a: statAcc{t: t}} }

// Add takes rows [0, n) of v.
func (s *StatsAcc) Add(v *vec.Vector, n int) { s.a.add(v, 0, n) }

// Result is the ducklake_file_column_stats row of column fieldID.
func (s *StatsAcc) Result(fieldID int32, size int64) ColumnStats { return s.a.result(fieldID, size) }

// LeafCol is a table's leaf field under a nested column: its column id and
// type, in the depth-first order of the table's fields.
type LeafCol struct {
	FieldID int32
	Type    types.T
}

// LeafStats are the ducklake_file_column_stats rows of the leaves of the
// nested top-level column name, taken from the footer as DuckDB's
// ducklake_add_data_files takes them: null_count is the chunks' NULL
// count, value_count their level entries minus it (a NULL or empty list
// still has an entry), the size their compressed bytes and the bounds
// their min/max read as the leaf's type. Leaf values are not scanned: the
// counts DuckDB records are the footer's (its writer counts a NULL struct
// once more in some leaves), which values alone cannot give. ok is false
// when the file's leaves do not pair one to one with leaves.
func (f *File) LeafStats(name string, leaves []LeafCol) (out []ColumnStats, ok bool) {
	var tf *topField
	for i := range f.top {
		if strings.EqualFold(f.top[i].elem.name, name) {
			tf = &f.top[i]
			break
		}
	}
	if tf == nil || tf.node == nil {
		return nil, false
	}
	var nodes []*nestNode
	var walk func(n *nestNode)
	walk = func(n *nestNode) {
		if len(n.children) == 0 {
			nodes = append(nodes, n)
			return
		}
		for _, k := range n.children {
			walk(k)
		}
	}
	walk(tf.node)
	if len(nodes) != len(leaves) {
		return nil, false
	}
	for i, n := range nodes {
		lc := leaves[i]
		acc := statAcc{t: lc.Type}
		var entries, nulls, size int64
		counted := true
		p, err := makePlan(name, n.elem, lc.Type)
		for _, g := range f.meta.rowGroups {
			cm := &g.columns[n.lo]
			entries += cm.numValues
			size += cm.totalCompressed
			if !cm.hasStats || !cm.stats.hasNullCount {
				counted = false
			} else {
				nulls += cm.stats.nullCount
			}
			if err != nil {
				continue
			}
			if r := chunkRange(cm, &p); r.Known {
				acc.addRange(&r)
			}
		}
		cs := acc.result(lc.FieldID, size)
		cs.ContainsNaN = nil // the footer does not say
		cs.ValueCount, cs.NullCount = entries-nulls, nulls
		if !counted || nulls > entries {
			cs.ValueCount, cs.NullCount, cs.CountsUnknown = 0, 0, true
		}
		out = append(out, cs)
	}
	return out, true
}

// addRange widens a's bounds to a row group's.
func (a *statAcc) addRange(r *Range) {
	switch a.t.Storage() {
	case types.StoreInt:
		if !a.has || r.MinI < a.minI {
			a.minI = r.MinI
		}
		if !a.has || r.MaxI > a.maxI {
			a.maxI = r.MaxI
		}
	case types.StoreFloat:
		if !a.has || r.MinF < a.minF {
			a.minF = r.MinF
		}
		if !a.has || r.MaxF > a.maxF {
			a.maxF = r.MaxF
		}
	case types.StoreBool:
		if !a.has {
			a.minB, a.maxB = r.MinB, r.MaxB
		}
		a.minB, a.maxB = a.minB && r.MinB, a.maxB || r.MaxB
	case types.StoreInterval:
		return
	default:
		if a.t.Wide() {
			return // wide decimals' bounds are not decoded (boundsRange)
		}
		if !a.has || r.MinS < a.minS {
			a.minS = strings.Clone(r.MinS)
		}
		if !a.has || r.MaxS > a.maxS {
			a.maxS = strings.Clone(r.MaxS)
		}
	}
	a.has = true
}
