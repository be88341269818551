package exec

import (
	"context"
	"sync"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Append concatenates its inputs (UNION ALL).
type Append struct {
	Inputs []Operator
	cur    int
}

func (a *Append) Types() []types.T { return a.Inputs[0].Types() }
func (a *Append) Close() error {
	var err error
	for _, in := range a.Inputs {
		if e := in.Close(); err == nil {
			err = e
		}
	}
	return err
}
func (a *Append) Next(ctx context.Context) (*vec.Batch, error) {
	for a.cur < len(a.Inputs) {
		b, err := a.Inputs[a.cur].Next(ctx)
		if err != nil {
			return nil, err
		}
		if b != nil {
			return b, nil
		}
		a.cur++
	}
	return nil, nil
}

// SetOp is INTERSECT (Intersect) or EXCEPT, with ALL keeping multiplicities.
// Rows compare NULL-equal, as set operations do in SQL.
type SetOp struct {
	Left, Right Operator
	Intersect   bool
	All         bool
	out         *vec.Batch
	done        bool
}

func (s *SetOp) Types() []types.T { return s.Left.Types() }
func (s *SetOp) Close() error {
	err := s.Left.Close()
	if e := s.Right.Close(); err == nil {
		err = e
	}
	return err
}

func (s *SetOp) Next(ctx context.Context) (*vec.Batch, error) {
	if s.done {
		return nil, nil
	}
	s.done = true
	// lookups index the maps with string(key) directly, which does not
	// copy the key; only a key stored for the first time is copied
	counts := map[string]int64{}
	var key []byte
	rowKey := func(b *vec.Batch, i int) {
		key = key[:0]
		for _, v := range b.Vecs {
			key = appendKey(key, v, i)
		}
	}
	if err := Drain(ctx, s.Right, func(b *vec.Batch) error {
		for i := 0; i < b.N; i++ {
			rowKey(b, i)
			if c, ok := counts[string(key)]; ok {
				if s.All {
					counts[string(key)] = c + 1
				}
				continue
			}
			counts[string(key)] = 1
		}
		return nil
	}); err != nil {
		return nil, err
	}
	out := vec.NewBatch(s.Left.Types(), vec.BatchSize)
	emitted := map[string]bool{}
	err := Drain(ctx, s.Left, func(b *vec.Batch) error {
		for i := 0; i < b.N; i++ {
			rowKey(b, i)
			c := counts[string(key)]
			var keep bool
			switch {
			case s.Intersect && s.All:
				keep = c > 0
				if keep {
					counts[string(key)] = c - 1
				}
			case s.Intersect:
				keep = c > 0 && !emitted[string(key)]
			case s.All:
				keep = c == 0
				if c > 0 {
					counts[string(key)] = c - 1
				}
			default:
				keep = c == 0 && !emitted[string(key)]
			}
			if !keep {
				continue
			}
			if !s.All {
				emitted[string(key)] = true
			}
			for c, v := range b.Vecs {
				out.Vecs[c].AppendFrom(v, i)
			}
			out.N++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out.N == 0 {
		return nil, nil
	}
	// one batch holds the whole result; callers accept batches of any size
	return out, nil
}

// BatchSource emits one prepared batch (system tables, small constant sets).
type BatchSource struct {
	B *vec.Batch
	T []types.T
	// Lazy, when B is nil, makes the batch at the first Next: rows whose
	// count is known while planning and whose columns are made only for
	// the plan that reads them (pg_class of a lake of 10,000 tables)
	Lazy *LazyBatch
	done bool
}

func (s *BatchSource) Types() []types.T { return s.T }
func (s *BatchSource) Close() error     { return nil }
func (s *BatchSource) Next(ctx context.Context) (*vec.Batch, error) {
	if s.done {
		return nil, nil
	}
	b := s.B
	if b == nil && s.Lazy != nil {
		var err error
		if b, err = s.Lazy.Batch(); err != nil {
			return nil, err
		}
	}
	if b == nil || b.N == 0 {
		return nil, nil
	}
	s.done = true
	return b, nil
}

// Rows is the number of rows the source emits.
func (s *BatchSource) Rows() int {
	switch {
	case s.B != nil:
		return s.B.N
	case s.Lazy != nil:
		return s.Lazy.N
	}
	return 0
}

// LazyBatch is a batch of N rows made when first read, once for every
// source that shares it (a correlated subplan runs its copy per outer row).
type LazyBatch struct {
	N int
	// Make makes the batch's columns: those need marks, in order (nil:
	// every column)
	Make func(need []bool) (*vec.Batch, error)
	// Need is what Batch asks Make for; nil: every column
	Need []bool

	once sync.Once
	b    *vec.Batch
	err  error
}

// Batch makes the batch at the first call.
func (l *LazyBatch) Batch() (*vec.Batch, error) {
	l.once.Do(func() { l.b, l.err = l.Make(l.Need) })
	return l.b, l.err
}
