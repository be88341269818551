package exec

import (
	"context"

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
	out   *vec.Batch
	sel   []int
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
		f.sel = f.sel[:0]
		for i := 0; i < b.N; i++ {
			if p.B[i] && !p.IsNull(i) {
				f.sel = append(f.sel, i)
			}
		}
		if len(f.sel) == 0 {
			continue
		}
		if len(f.sel) == b.N {
			return b, nil
		}
		if f.out == nil {
			f.out = vec.NewBatch(f.Input.Types(), vec.BatchSize)
		}
		f.out.Reset()
		for c, v := range b.Vecs {
			f.out.Vecs[c].Gather(v, f.sel)
		}
		f.out.N = len(f.sel)
		return f.out, nil
	}
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
		out := &vec.Batch{N: hi - lo}
		for _, v := range b.Vecs {
			out.Vecs = append(out.Vecs, v.Slice(lo, hi))
		}
		return out, nil
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
