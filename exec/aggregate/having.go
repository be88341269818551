package aggregate

import (
	"sync/atomic"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Having is a condition over an aggregation's groups that every group the
// query keeps meets: the planner finds it in a filter over the groups
// (sql/planner/optree/having.go), which stays above and decides. The
// aggregation tests it on each batch of groups before it makes the
// aggregates' results, and makes them only for the groups it keeps. A
// numeric result is text, made digit by digit and read again by the casts
// and comparisons over it: TPC-DS q39 made the averages and deviations of
// 90,000 groups to keep 6,250 of them by CAST(stdev AS float8) / mean > 1.
//
// The condition reads a batch of the group key columns followed by one
// float8 column per aggregate of Aggs: CAST(its result AS float8), which
// for averages and deviations of integers comes from the exact 128-bit
// quotient without the text, the same correctly rounded float8 the cast
// of the text gives, and for other results through the text and the cast
// itself. Where the condition or a result fails on a batch, the batch's
// groups are all kept, and the filter above meets the failure as before.
type Having struct {
	Env *exec.Env
	// New returns a fresh copy of the condition: expressions keep
	// scratch, and every goroutine emitting groups tests them with its own.
	New  func() exec.Expr
	Aggs []int
	// Tested and Kept count the groups (EXPLAIN ANALYZE)
	Tested, Kept atomic.Int64
}

// havingState tests one goroutine's batches of groups.
type havingState struct {
	hv    *Having
	pred  exec.Expr
	b     vec.Batch
	twins []*vec.Vector
	one   []*vec.Vector // per aggregate of hv.Aggs: one result, the text way
	keep  []bool
}

func (h *HashAgg) newHaving() *havingState {
	if h.Having == nil {
		return nil
	}
	st := &havingState{hv: h.Having, pred: h.Having.New()}
	ts := h.Types()
	for _, a := range h.Having.Aggs {
		st.twins = append(st.twins, vec.New(types.Float64T, vec.BatchSize))
		st.one = append(st.one, vec.New(ts[h.NGroup+a], 1))
	}
	return st
}

// keepGroups tests groups [lo, hi) of fns, whose keys out's first NGroup
// columns hold: keep[i] says whether group lo+i meets the condition; nil
// keeps them all.
func (st *havingState) keepGroups(h *HashAgg, out *memory.ColBuf, fns []aggFn, lo, hi int) []bool {
	st.b.Vecs = append(st.b.Vecs[:0], out.Vecs[:h.NGroup]...)
	for k, a := range st.hv.Aggs {
		tv := st.twins[k]
		tv.Reset()
		if err := st.twin(fns[a], k, tv, lo, hi); err != nil {
			return nil
		}
		st.b.Vecs = append(st.b.Vecs, tv)
	}
	st.b.N = hi - lo
	v, err := st.pred.Eval(st.hv.Env, &st.b)
	if err != nil {
		return nil
	}
	keep := st.keep[:0]
	kept := 0
	for i, ok := range v.B[:hi-lo] {
		k := ok && !v.IsNull(i)
		keep = append(keep, k)
		if k {
			kept++
		}
	}
	st.keep = keep
	st.hv.Tested.Add(int64(hi - lo))
	st.hv.Kept.Add(int64(kept))
	return keep
}

// twin appends CAST(fn's result AS float8) of groups [lo, hi) to tv.
func (st *havingState) twin(fn aggFn, k int, tv *vec.Vector, lo, hi int) error {
	dyn := st.one[k].Type.DynNumeric()
	switch s := fn.(type) {
	case *sumIntAgg:
		if s.avg && dyn {
			return st.avgTwin(s, fn, k, tv, lo, hi)
		}
	case avgOfSum:
		if dyn {
			return st.avgTwin(s.sum, fn, k, tv, lo, hi)
		}
	case *numVarAgg:
		if !s.dyn && dyn {
			return st.varTwin(s, k, tv, lo, hi)
		}
	}
	for g := lo; g < hi; g++ {
		if err := st.textTwin(fn, k, tv, g); err != nil {
			return err
		}
	}
	return nil
}

// avgTwin is twin for an average: the quotient finalAs prints, as a float.
func (st *havingState) avgTwin(s *sumIntAgg, fn aggFn, k int, tv *vec.Vector, lo, hi int) error {
	for g := lo; g < hi; g++ {
		if s.cnt[g] == 0 {
			tv.AppendNull()
			continue
		}
		if t := s.total(g); t.IsInt64() {
			if neg, qh, ql, qs, ok := exec.Divide128(int64(t.Lo), s.scale, s.cnt[g]); ok && qh == 0 && ql != 0 && qs <= 19 {
				tv.AppendFloat(exec.ScaledFloat64(neg, ql, qs))
				continue
			}
		}
		if err := st.textTwin(fn, k, tv, g); err != nil {
			return err
		}
	}
	return nil
}

// varTwin is twin for a variance or deviation: the quotient or root final
// prints, as a float.
func (st *havingState) varTwin(s *numVarAgg, k int, tv *vec.Vector, lo, hi int) error {
	sample := s.kind == AggVarSamp || s.kind == AggStddevSamp
	stddev := s.kind == AggStddevSamp || s.kind == AggStddevPop
	for g := lo; g < hi; g++ {
		n := s.n[g]
		if n == 0 || sample && n <= 1 {
			tv.AppendNull()
			continue
		}
		if (s.big == nil || s.big[g] == nil) && s.sx[g].IsInt64() && s.sx2[g].IsInt64() {
			if qh, ql, qs, ok := exec.Variance128(n, int64(s.sx[g].Lo), int64(s.sx2[g].Lo), s.scale, sample, stddev); ok && qh == 0 && qs <= 19 {
				tv.AppendFloat(exec.ScaledFloat64(false, ql, qs))
				continue
			}
		}
		if err := st.textTwin(s, k, tv, g); err != nil {
			return err
		}
	}
	return nil
}

// textTwin appends CAST(fn's result for group g AS float8) made as the
// filter above makes it: the result, then the cast.
func (st *havingState) textTwin(fn aggFn, k int, tv *vec.Vector, g int) error {
	one := st.one[k]
	one.Reset()
	if err := fn.final(one, g, g+1); err != nil {
		return err
	}
	f, err := exec.CastVector(st.hv.Env, one, 1, types.Float64T, false)
	if err != nil {
		return err
	}
	tv.AppendFrom(f, 0)
	return nil
}

// finalsKept appends fns' results of groups [lo, hi) to out's aggregate
// columns where keep says so, and NULL for the others, which the caller
// then leaves out.
func (h *HashAgg) finalsKept(out *memory.ColBuf, fns []aggFn, keep []bool, lo int) error {
	for a, fn := range fns {
		c := h.NGroup + a
		for i := 0; i < len(keep); {
			j := i + 1
			for j < len(keep) && keep[j] == keep[i] {
				j++
			}
			if keep[i] {
				if err := fn.final(out.Vecs[c], lo+i, lo+j); err != nil {
					return err
				}
			} else {
				out.AppendNulls(c, j-i)
			}
			i = j
		}
	}
	return nil
}
