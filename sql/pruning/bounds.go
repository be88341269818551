// Package pruning decides, before anything is read, which data files and
// row groups a scan can skip: it turns a filter into bounds on columns and
// checks them against catalog min/max statistics, Parquet row-group ranges
// and DuckLake partition values. It only proves absence; whatever it cannot
// evaluate is kept.
package pruning

import (
	"slices"
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Bound is a conjunct "column op constant" usable for pruning, or with
// list set "column IN (constants)" (op EQ, NULLs left out of the list), or
// with alts set an OR whose every branch bounds the column: a value may
// match when it meets all the bounds of one alternative.
type Bound struct {
	col  int
	op   exec.CmpOp
	val  *vec.Vector // one row, the column's type
	list *vec.Vector // IN: the non-NULL constants, the column's type
	alts [][]Bound   // OR: per branch, its bounds on col
}

// conjuncts flattens AND trees.
func conjuncts(e exec.Expr) []exec.Expr {
	if l, ok := e.(*exec.Logic); ok && l.And {
		var out []exec.Expr
		for _, a := range l.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []exec.Expr{e}
}

// Bounds extracts prunable conjuncts over columns [0, ncols) of a scan.
func Bounds(pred exec.Expr, cols []exec.ScanCol) []Bound {
	var out []Bound
	for _, c := range conjuncts(pred) {
		if l, ok := c.(*exec.Logic); ok && !l.And {
			out = append(out, orBounds(l, cols)...)
			continue
		}
		if in, ok := c.(*exec.InList); ok {
			if b, ok := inBound(in, cols); ok {
				out = append(out, b)
			}
			continue
		}
		cmp, ok := c.(*exec.Cmp)
		if !ok || cmp.Op == exec.NE {
			continue
		}
		l, r, op := cmp.L, cmp.R, cmp.Op
		if _, ok := l.(*exec.Const); ok {
			l, r, op = r, l, op.Flipped()
		}
		ref, ok := l.(*exec.ColRef)
		k, ok2 := r.(*exec.Const)
		if !ok || !ok2 || ref.Idx >= len(cols) || k.IsNull() {
			continue
		}
		ct := cols[ref.Idx].T
		if k.V.Type != ct {
			v, err := exec.CastVector(nil, k.V, 1, ct, false)
			if err != nil || v.Type.Storage() != ct.Storage() {
				continue
			}
			// only exact conversions are safe bounds
			back, err := exec.CastVector(nil, v, 1, k.V.Type, false)
			if err != nil || exec.CompareRows(back, 0, k.V, 0) != 0 {
				continue
			}
			out = append(out, Bound{col: ref.Idx, op: op, val: v})
			continue
		}
		out = append(out, Bound{col: ref.Idx, op: op, val: k.V})
	}
	return out
}

// orBounds are the bounds an OR implies: for each column every branch
// bounds, one Bound whose alternatives are the branches' bounds on it.
// "id = 250 OR id = 260" keeps the files holding either value; a branch
// without a bound on a column (or a condition lakepg cannot read) leaves
// that column unbounded.
func orBounds(l *exec.Logic, cols []exec.ScanCol) []Bound {
	branches := make([][]Bound, len(l.Args))
	for i, a := range l.Args {
		if branches[i] = Bounds(a, cols); len(branches[i]) == 0 {
			return nil
		}
	}
	var out []Bound
	for _, first := range branches[0] {
		col := first.col
		if slices.ContainsFunc(out, func(b Bound) bool { return b.col == col }) {
			continue
		}
		alts := make([][]Bound, len(branches))
		for i, br := range branches {
			for _, b := range br {
				if b.col == col {
					alts[i] = append(alts[i], b)
				}
			}
			if alts[i] == nil {
				alts = nil
				break
			}
		}
		if alts != nil {
			out = append(out, Bound{col: col, op: exec.EQ, alts: alts})
		}
	}
	return out
}

// allMayMatch reports whether a value range [lo, hi] can satisfy every
// bound of bs.
func allMayMatch(bs []Bound, lo, hi *vec.Vector) bool {
	for _, b := range bs {
		if !mayMatch(b, lo, hi) {
			return false
		}
	}
	return true
}

// inBound turns "column IN (constants)" into a bound when every constant
// converts exactly to the column's type.
func inBound(in *exec.InList, cols []exec.ScanCol) (Bound, bool) {
	ref, ok := in.E.(*exec.ColRef)
	if in.Not || !ok || ref.Idx >= len(cols) {
		return Bound{}, false
	}
	ct := cols[ref.Idx].T
	list := vec.New(ct, in.List.Len())
	for i := 0; i < in.List.Len(); i++ {
		if in.List.IsNull(i) {
			continue // NULL matches nothing
		}
		one := vec.New(in.List.Type, 1)
		one.AppendFrom(in.List, i)
		if one.Type != ct {
			v, err := exec.CastVector(nil, one, 1, ct, false)
			if err != nil || v.Type.Storage() != ct.Storage() {
				return Bound{}, false
			}
			back, err := exec.CastVector(nil, v, 1, one.Type, false)
			if err != nil || exec.CompareRows(back, 0, one, 0) != 0 {
				return Bound{}, false
			}
			one = v
		}
		list.AppendFrom(one, 0)
	}
	return Bound{col: ref.Idx, op: exec.EQ, list: list}, true
}

// mayMatch reports whether a value range [lo, hi] can satisfy b.
func mayMatch(b Bound, lo, hi *vec.Vector) bool {
	if b.alts != nil {
		return slices.ContainsFunc(b.alts, func(alt []Bound) bool { return allMayMatch(alt, lo, hi) })
	}
	if b.list != nil {
		for i := 0; i < b.list.Len(); i++ {
			if exec.CompareRows(lo, 0, b.list, i) <= 0 && exec.CompareRows(hi, 0, b.list, i) >= 0 {
				return true
			}
		}
		return false
	}
	cl := exec.CompareRows(lo, 0, b.val, 0) // lo vs v
	ch := exec.CompareRows(hi, 0, b.val, 0) // hi vs v
	switch b.op {
	case exec.EQ:
		return cl <= 0 && ch >= 0
	case exec.LT:
		return cl < 0
	case exec.LE:
		return cl <= 0
	case exec.GT:
		return ch > 0
	case exec.GE:
		return ch >= 0
	}
	return true
}

func StatValue(t types.T, s *string) *vec.Vector {
	if s == nil {
		return nil
	}
	v := vec.New(t, 1)
	text := *s
	if t.ID == types.Bytea || t.ID == types.UUID || t.IsFloat() && strings.Contains(text, "nan") {
		return nil
	}
	if err := exec.ParseInto(v, text, nil, false); err != nil {
		return nil
	}
	return v
}

func FileMayMatch(f catalog.DataFile, cols []exec.ScanCol, bs []Bound) bool {
	return NewFilePruner(cols, bs).MayMatch(&f)
}

// FilePruner checks files against bounds, parsing their min/max into
// vectors it reuses: a table of 100,000 files allocated two vectors per
// file and bound, most of its planning time.
type FilePruner struct {
	cols    []exec.ScanCol
	bs      []Bound
	scratch [][2]*vec.Vector // per bound: min, max
}

// NewFilePruner prepares the checks of bs over a scan's columns.
func NewFilePruner(cols []exec.ScanCol, bs []Bound) *FilePruner {
	p := &FilePruner{cols: cols, bs: bs, scratch: make([][2]*vec.Vector, len(bs))}
	for i, b := range bs {
		t := cols[b.col].T
		p.scratch[i] = [2]*vec.Vector{vec.New(t, 1), vec.New(t, 1)}
	}
	return p
}

// MayMatch reports whether f's statistics leave room for a row the bounds
// keep.
func (p *FilePruner) MayMatch(f *catalog.DataFile) bool {
	for i, b := range p.bs {
		st, ok := f.Stats.Get(int64(p.cols[b.col].FieldID))
		if !ok {
			continue
		}
		t := p.cols[b.col].T
		if t.ID == types.TimeTZ {
			continue // DuckDB writes 0 values and 0 NULLs for timetz: no stats
		}
		if st.ValueCount != nil && *st.ValueCount == 0 {
			return false // only NULLs: no comparison holds
		}
		lo, hi := p.scratch[i][0], p.scratch[i][1]
		if st.IntOK && t.Storage() == types.StoreInt && (t.ID == types.Int16 || t.ID == types.Int32 || t.ID == types.Int64) {
			lo.Reset()
			hi.Reset()
			lo.I64, hi.I64 = append(lo.I64, st.MinInt), append(hi.I64, st.MaxInt)
		} else if !statInto(lo, st.Min) || !statInto(hi, st.Max) {
			continue
		}
		if !mayMatch(b, lo, hi) {
			return false
		}
	}
	return true
}

// statInto parses a min/max statistic into v (emptied first), as StatValue.
func statInto(v *vec.Vector, s *string) bool {
	if s == nil {
		return false
	}
	t := v.Type
	if t.ID == types.Bytea || t.ID == types.UUID || t.IsFloat() && strings.Contains(*s, "nan") {
		return false
	}
	v.Reset()
	if n, ok := StatInt(t, s); ok {
		v.I64 = append(v.I64, n)
		return true
	}
	return exec.ParseInto(v, *s, nil, false) == nil && v.Len() == 1
}

// StatInt reads the min/max statistic of an integer column without the
// general parser (planning a table of 100,000 files reads 200,000 of them);
// ok is false for other types and for text it does not read.
func StatInt(t types.T, s *string) (int64, bool) {
	if s == nil {
		return 0, false
	}
	switch t.ID {
	case types.Int16, types.Int32, types.Int64:
		n, err := strconv.ParseInt(*s, 10, 64)
		return n, err == nil
	}
	return 0, false
}

// RangesMayMatch checks row-group ranges; ranges follow the scan's
// projection order (needed columns only).
func RangesMayMatch(scan *exec.TableScan, ranges []parquetio.Range, bs []Bound) bool {
	for _, b := range bs {
		slot := scan.ProjectionSlot(b.col)
		if slot < 0 || slot >= len(ranges) {
			continue
		}
		if ranges[slot].AllNull {
			return false // no comparison holds on NULL
		}
		if !ranges[slot].Known {
			continue
		}
		r := ranges[slot]
		t := scan.Cols[b.col].T
		lo, hi := vec.New(t, 1), vec.New(t, 1)
		switch t.Storage() {
		case types.StoreInt:
			lo.AppendInt(r.MinI)
			hi.AppendInt(r.MaxI)
		case types.StoreFloat:
			lo.AppendFloat(r.MinF)
			hi.AppendFloat(r.MaxF)
		case types.StoreBool:
			lo.AppendBool(r.MinB)
			hi.AppendBool(r.MaxB)
		default:
			if t.ID != types.Text {
				continue
			}
			lo.AppendString(r.MinS)
			hi.AppendString(r.MaxS)
		}
		if !mayMatch(b, lo, hi) {
			return false
		}
	}
	return true
}
