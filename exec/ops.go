package exec

import (
	"cmp"
	"context"
	"slices"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Operator is a pull-based stage of a plan. Next returns the next batch, or
// nil at the end; the batch is valid until the following call.
type Operator interface {
	Types() []types.T
	Next(ctx context.Context) (*vec.Batch, error)
	Close() error
}

// Values emits rows of expressions evaluated once, without input.
type Values struct {
	Env  *Env
	Rows [][]Expr
	T    []types.T
	done bool
}

func (v *Values) Types() []types.T { return v.T }
func (v *Values) Close() error     { return nil }
func (v *Values) Next(ctx context.Context) (*vec.Batch, error) {
	if v.done {
		return nil, nil
	}
	v.done = true
	out := vec.NewBatch(v.T, len(v.Rows))
	one := &vec.Batch{N: 1}
	for _, row := range v.Rows {
		for c, e := range row {
			x, err := e.Eval(v.Env, one)
			if err != nil {
				return nil, err
			}
			if x.Type != v.T[c] {
				if x, err = CastVector(v.Env, x, 1, v.T[c], false); err != nil {
					return nil, err
				}
			}
			out.Vecs[c].AppendFrom(x, 0)
		}
	}
	out.N = len(v.Rows)
	return out, nil
}

// Filter keeps rows where Pred is true.
type Filter struct {
	Env   *Env
	Input Operator
	Pred  Expr
	out   *memory.ColBuf
	sel   []int32

	// A filter over filters (the planner stacks one per WHERE conjunct)
	// runs them as one chain at its first batch: each condition is tested
	// only on the rows the ones before kept, on a compact batch of the
	// columns it reads, and the kept rows' columns are copied once at the
	// end instead of after every condition.
	chained bool
	chain   []filterStep
	pos     []int32 // positions kept by the step, in its compact batch
	// observe counts the batches left before a chain whose conditions
	// cannot raise is put in the order of the rows each keeps, fewest
	// first; 0 once the order is settled
	observe int
}

// filterStep is one condition of a filter chain and the compact batch it
// runs on.
type filterStep struct {
	env     *Env
	pred    Expr
	sub     subBatch
	in, out int // rows tested and kept while the order is observed
}

// filterObserveBatches is how many batches a chain's pass rates are
// counted over before it is ordered by them.
const filterObserveBatches = 4

func (f *Filter) Types() []types.T { return f.Input.Types() }
func (f *Filter) Close() error     { return f.Input.Close() }

// fuse takes the filters below f into its chain, innermost first.
func (f *Filter) fuse() {
	f.chained = true
	var steps []filterStep
	in := f.Input
	for {
		g, ok := in.(*Filter)
		if !ok || g.chained {
			break
		}
		steps = append(steps, filterStep{env: g.Env, pred: g.Pred})
		in = g.Input
	}
	if len(steps) == 0 {
		return
	}
	slices.Reverse(steps)
	f.chain = append(steps, filterStep{env: f.Env, pred: f.Pred})
	f.Input = in
	for _, st := range f.chain {
		if MayRaise(st.pred) {
			return // the conditions keep the order written: a guard stays first
		}
	}
	f.chain = mergeRanges(f.chain)
	if len(f.chain) > 1 {
		f.observe = filterObserveBatches
	}
}

// mergeRanges makes two comparisons of one integer column with constants
// (x >= a, x < b: the planner's conjuncts of a BETWEEN or of a date range)
// one step, which Logic tests as one range in one pass.
func mergeRanges(chain []filterStep) []filterStep {
	for i := 0; i < len(chain); i++ {
		for j := i + 1; j < len(chain); j++ {
			pair := []Expr{chain[i].pred, chain[j].pred}
			if rangeOf(pair) == nil {
				continue
			}
			chain[i].pred = &Logic{And: true, Args: pair}
			chain = slices.Delete(chain, j, j+1)
			break
		}
	}
	return chain
}

func (f *Filter) Next(ctx context.Context) (*vec.Batch, error) {
	if !f.chained {
		f.fuse()
	}
	for {
		b, err := f.Input.Next(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		n := b.N
		var k int
		if f.chain == nil {
			p, err := f.Pred.Eval(f.Env, b)
			if err != nil {
				return nil, err
			}
			f.sel = Resize32(f.sel, n)
			k = selectTrue(f.sel, p.B[:n], p.Nulls)
		} else if k, err = f.runChain(b); err != nil {
			return nil, err
		}
		if k == 0 {
			continue
		}
		if k == n {
			return b, nil
		}
		if f.out == nil {
			f.out = memory.NewColBuf(f.Input.Types(), vec.BatchSize)
		}
		f.out.Clear()
		for c, v := range b.Vecs {
			f.out.Gather(c, v, f.sel[:k])
		}
		f.out.N = k
		return &f.out.Batch, nil
	}
}

// runChain tests the chain's conditions on b in turn and leaves the rows
// all kept in f.sel, returning their count.
func (f *Filter) runChain(b *vec.Batch) (int, error) {
	n := b.N
	f.sel = Resize32(f.sel, n)
	k := n
	for j := range f.chain {
		st := &f.chain[j]
		in := b
		if k < n {
			in = st.sub.gather(st.pred, b, f.sel[:k])
		}
		p, err := st.pred.Eval(st.env, in)
		if err != nil {
			return 0, err
		}
		before := k
		if k == n {
			k = selectTrue(f.sel, p.B[:n], p.Nulls)
		} else {
			f.pos = Resize32(f.pos, k)
			kept := selectTrue(f.pos, p.B[:k], p.Nulls)
			// pos is increasing and pos[i] >= i: composed in place
			for i, x := range f.pos[:kept] {
				f.sel[i] = f.sel[x]
			}
			k = kept
		}
		if f.observe > 0 {
			st.in += before
			st.out += k
		}
		if k == 0 {
			break
		}
	}
	if f.observe > 0 {
		if f.observe--; f.observe == 0 {
			// a step no row reached keeps its place after the others
			slices.SortStableFunc(f.chain, func(a, b filterStep) int {
				return cmp.Compare(passRate(a), passRate(b))
			})
		}
	}
	return k, nil
}

// passRate is the share of the rows a step kept of those it tested.
func passRate(st filterStep) float64 {
	if st.in == 0 {
		return 2
	}
	return float64(st.out) / float64(st.in)
}

// selectTrue writes the positions of true, non-NULL values into sel and
// returns their count. The loop stores every position and advances by the
// condition, so it has no data-dependent branch (PERFORMANCE.md rule 6).
func selectTrue(sel []int32, bs []bool, nulls []bool) int {
	sel = sel[:len(bs)]
	k := 0
	if nulls == nil {
		for i, ok := range bs {
			sel[k] = int32(i)
			k += b2i(ok)
		}
		return k
	}
	nulls = nulls[:len(bs)]
	for i, ok := range bs {
		sel[k] = int32(i)
		k += b2i(ok && !nulls[i])
	}
	return k
}

func b2i(b bool) int {
	var x int
	if b {
		x = 1
	}
	return x
}

// Project computes output columns from expressions.
type Project struct {
	Env   *Env
	Input Operator
	Exprs []Expr
	// Shared counts the expressions this Project computes once for the
	// Project above it, which wrote them several times (EXPLAIN shows it)
	Shared int
	out    vec.Batch
}

func (p *Project) Types() []types.T {
	ts := make([]types.T, len(p.Exprs))
	for i, e := range p.Exprs {
		ts[i] = e.Type()
	}
	return ts
}
func (p *Project) Close() error { return p.Input.Close() }
func (p *Project) Next(ctx context.Context) (*vec.Batch, error) {
	b, err := p.Input.Next(ctx)
	if err != nil || b == nil {
		return nil, err
	}
	p.out.Vecs = p.out.Vecs[:0]
	for _, e := range p.Exprs {
		v, err := e.Eval(p.Env, b)
		if err != nil {
			return nil, err
		}
		p.out.Vecs = append(p.out.Vecs, v)
	}
	p.out.N = b.N
	return &p.out, nil
}

// Limit skips Offset rows then passes at most Count (Count < 0: no limit).
type Limit struct {
	Input         Operator
	Offset, Count int64
	seen          int64
	emitted       int64
	out           vec.Batch
	views         []vec.Vector
}

func (l *Limit) Types() []types.T { return l.Input.Types() }
func (l *Limit) Close() error     { return l.Input.Close() }
func (l *Limit) Next(ctx context.Context) (*vec.Batch, error) {
	for {
		if l.Count >= 0 && l.emitted >= l.Count {
			return nil, nil
		}
		b, err := l.Input.Next(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		lo, hi := 0, b.N
		if l.seen < l.Offset {
			skip := min(l.Offset-l.seen, int64(b.N))
			lo = int(skip)
		}
		l.seen += int64(b.N)
		if l.Count >= 0 {
			hi = min(hi, lo+int(l.Count-l.emitted))
		}
		if lo >= hi {
			continue
		}
		l.emitted += int64(hi - lo)
		if lo == 0 && hi == b.N {
			return b, nil
		}
		// views of the input's vectors, in structs reused from call to call
		if len(l.views) < len(b.Vecs) {
			l.views = make([]vec.Vector, len(b.Vecs))
		}
		l.out.Vecs = l.out.Vecs[:0]
		for c, v := range b.Vecs {
			w := &l.views[c]
			v.SliceInto(w, lo, hi)
			l.out.Vecs = append(l.out.Vecs, w)
		}
		l.out.N = hi - lo
		return &l.out, nil
	}
}

// Drain runs op to the end, calling fn per batch.
func Drain(ctx context.Context, op Operator, fn func(*vec.Batch) error) error {
	for {
		b, err := op.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			return nil
		}
		if err := fn(b); err != nil {
			return err
		}
	}
}
