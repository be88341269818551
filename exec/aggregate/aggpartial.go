package aggregate

import (
	"context"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Adaptive partial aggregation. The planner's eager aggregation
// (planner/optimize/eager_aggregation.go) groups a join's probe rows before the join
// when the estimates say the groups are few; an aggregation above folds
// the partial results. When the estimate is wrong and the groups are
// about as many as the rows, grouping costs a full hash aggregation and
// saves the join nothing (a BI query grouping store_sales by item class,
// store and date: 5.5 s against 2.4 s without the rule). So a partial
// aggregation watches its groups: once they pass three quarters of the
// rows read (checked at CheckRows rows and each doubling after; the groups
// repeat more as more rows come, so a first look's share overstates the
// end's: TPC-DS q47's partial groups are half of a worker's first 32,768
// rows and a fifth of all, where grouping saves an eighth of the CPU
// time), or when its table
// runs out of memory, it hands on the groups it has and passes every
// further row through as a group of its own — a sum's or a minimum's or
// a maximum's partial result over one row is the row's value, a count's
// is 1 or 0. The aggregation above folds either form alike, so the
// answers cannot change; a partial aggregation never spills.
//
// Each worker of a parallel pipeline runs its own copy (the planner puts
// the partial aggregation on the scan's workers, sql/planner/optree), and
// each decides for its own rows.

// Partial marks a HashAgg as the partial aggregation of an eager
// aggregation and counts what its copies did, for EXPLAIN ANALYZE.
type Partial struct {
	// CheckRows is the rows after which the groups are first counted
	// against the rows (0: partialCheckRows).
	CheckRows int64

	Grouped atomic.Int64 // rows grouped
	Groups  atomic.Int64 // groups handed on
	Passed  atomic.Int64 // rows passed through as groups of their own
	Workers atomic.Int64 // copies that ran
	Passing atomic.Int64 // copies that passed rows through
}

// partialCheckRows: a worker's first morsels, enough rows for groups
// spread over them to repeat (TPC-DS q4's customers by year: a tenth of
// the rows after 65,536) and few enough that a misjudged grouping stops
// early (the BI query's: 9 in 10 are groups of their own at any look).
const partialCheckRows = 1 << 15

func (p *Partial) checkRows() int64 {
	if p.CheckRows > 0 {
		return p.CheckRows
	}
	return partialCheckRows
}

// adaptive reports whether h may pass rows through: a partial aggregation
// read row by row (one over a Parallel groups in its workers and merges,
// aggradix.go, and keeps grouping), without grouping sets, whose every
// aggregate has a one-row result that is its argument's value, or a count.
func (h *HashAgg) adaptive() bool {
	if h.Partial == nil || h.GroupingSets != nil || h.GroupingID || h.NGroup == 0 || h.seed != nil || h.spillLevel > 0 {
		return false
	}
	if _, par := h.Input.(*exec.Parallel); par {
		return false
	}
	in := h.Input.Types()
	for _, a := range h.Aggs {
		if a.Distinct || a.Filter != 0 || len(a.Order) > 0 {
			return false
		}
		out, err := aggOut(a)
		if err != nil {
			return false
		}
		switch a.Kind {
		case AggCountStar, AggCount:
		case AggMin, AggMax:
			if out.ID != in[a.Arg].ID || out.Storage() != in[a.Arg].Storage() {
				return false
			}
		case AggSum:
			t := in[a.Arg]
			switch {
			case t.IsInteger() && out.ID == types.Int64:
				// a sum of bigints typed bigint: a partial aggregation
				// below another folds counts so (eager_aggregation.go)
			case t.ID == types.Numeric && out.ID == types.Numeric && out.Scale == t.Scale:
			case t.IsFloat() && out.ID == t.ID:
			default:
				return false
			}
			if out.Storage() != t.Storage() {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// aggregatePartial groups h.Input until the groups are too many for the
// rows, or memory runs out, and then stops reading: Next hands on the
// groups and passes the remaining rows through.
func (h *HashAgg) aggregatePartial(ctx context.Context) error {
	r, err := h.newRun()
	if err != nil {
		return err
	}
	h.run = r
	p := h.Partial
	p.Workers.Add(1)
	var rows int64
	check := p.checkRows()
	s := r.sets[0]
	for {
		if err := memory.ErrCanceled(ctx); err != nil {
			return err
		}
		b, err := h.Input.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		if b.N == 0 {
			continue
		}
		rows += int64(b.N)
		if err := r.consume(b); err != nil {
			if pgerr.Code(err) != memory.OutOfMemory {
				return err
			}
			// b went into the table; only its reservation failed
			h.passing = true
			break
		}
		if rows >= check {
			if 4*int64(s.ngroups) > 3*rows {
				h.passing = true
				break
			}
			check *= 2
		}
	}
	p.Grouped.Add(rows)
	p.Groups.Add(int64(s.ngroups))
	if h.passing {
		p.Passing.Add(1)
	}
	return nil
}

// passNext returns the next input batch as groups of one row each.
func (h *HashAgg) passNext(ctx context.Context) (*vec.Batch, error) {
	if h.run != nil {
		// the groups are handed on
		h.run.res.Release()
		h.run.sets = nil
	}
	for {
		if err := memory.ErrCanceled(ctx); err != nil {
			return nil, err
		}
		b, err := h.Input.Next(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		if b.N == 0 {
			continue
		}
		h.Partial.Passed.Add(int64(b.N))
		return h.passBatch(b), nil
	}
}

// passBatch makes b's rows groups of their own: the group columns and
// the arguments of sums, minimums and maximums are b's vectors (typed as
// the results), counts are 1 per row or per non-NULL argument.
func (h *HashAgg) passBatch(b *vec.Batch) *vec.Batch {
	n := b.N
	if h.pass == nil {
		h.pass = &vec.Batch{Vecs: make([]*vec.Vector, h.NGroup+len(h.Aggs))}
		h.passVecs = make([]vec.Vector, len(h.Aggs))
	}
	out := h.pass
	copy(out.Vecs, b.Vecs[:h.NGroup])
	for i, a := range h.Aggs {
		pv := &h.passVecs[i]
		switch a.Kind {
		case AggCountStar, AggCount:
			ones := pv.I64
			if cap(ones) < n {
				ones = make([]int64, n, max(n, vec.BatchSize))
			}
			ones = ones[:n]
			var nulls []bool
			if a.Kind == AggCount {
				nulls = b.Vecs[a.Arg].Nulls
			}
			if nulls == nil {
				for k := range ones {
					ones[k] = 1
				}
			} else {
				for k, null := range nulls[:n] {
					ones[k] = 1
					if null {
						ones[k] = 0
					}
				}
			}
			*pv = vec.Vector{Type: types.Int64T, I64: ones}
		default:
			*pv = *b.Vecs[a.Arg]
			pv.Type = h.outT[i]
		}
		out.Vecs[h.NGroup+i] = pv
	}
	out.N = n
	return out
}
