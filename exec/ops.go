package exec

import (
	"context"
	"sort"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
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

// SortKey orders by an input column.
type SortKey struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// Sort buffers its input and emits it ordered by Keys.
type Sort struct {
	Input Operator
	Keys  []SortKey
	data  *vec.Batch
	order []int
	pos   int
	out   *vec.Batch
}

func (s *Sort) Types() []types.T { return s.Input.Types() }
func (s *Sort) Close() error     { return s.Input.Close() }
func (s *Sort) Next(ctx context.Context) (*vec.Batch, error) {
	if s.data == nil {
		s.data = vec.NewBatch(s.Input.Types(), vec.BatchSize)
		for {
			b, err := s.Input.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				break
			}
			if err := ctx.Err(); err != nil {
				return nil, pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
			}
			for c, v := range b.Vecs {
				for i := 0; i < b.N; i++ {
					s.data.Vecs[c].AppendFrom(v, i)
				}
			}
			s.data.N += b.N
		}
		s.order = make([]int, s.data.N)
		for i := range s.order {
			s.order[i] = i
		}
		sort.SliceStable(s.order, func(a, b int) bool {
			return CompareKeys(s.data, s.Keys, s.order[a], s.order[b]) < 0
		})
		s.out = vec.NewBatch(s.Input.Types(), vec.BatchSize)
	}
	if s.pos >= len(s.order) {
		return nil, nil
	}
	end := min(s.pos+vec.BatchSize, len(s.order))
	s.out.Reset()
	for c, v := range s.data.Vecs {
		s.out.Vecs[c].Gather(v, s.order[s.pos:end])
	}
	s.out.N = end - s.pos
	s.pos = end
	return s.out, nil
}

// CompareKeys compares rows i and j of b under keys. NULLs sort as larger
// than every value unless NullsFirst, as in PostgreSQL.
func CompareKeys(b *vec.Batch, keys []SortKey, i, j int) int {
	for _, k := range keys {
		v := b.Vecs[k.Col]
		ni, nj := v.IsNull(i), v.IsNull(j)
		var c int
		switch {
		case ni && nj:
			c = 0
		case ni || nj:
			c = 1
			if nj {
				c = -1
			}
			if k.NullsFirst {
				c = -c
			}
			if c != 0 {
				return c
			}
		default:
			c = CompareRows(v, i, v, j)
			if k.Desc {
				c = -c
			}
		}
		if c != 0 {
			return c
		}
	}
	return 0
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
