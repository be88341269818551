package exec

import (
	"context"

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
}

func (f *Filter) Types() []types.T { return f.Input.Types() }
func (f *Filter) Close() error     { return f.Input.Close() }
func (f *Filter) Next(ctx context.Context) (*vec.Batch, error) {
	for {
		b, err := f.Input.Next(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		p, err := f.Pred.Eval(f.Env, b)
		if err != nil {
			return nil, err
		}
		n := b.N
		f.sel = Resize32(f.sel, n)
		k := selectTrue(f.sel, p.B[:n], p.Nulls)
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
	out   vec.Batch
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
