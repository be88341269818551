package exec

import (
	"context"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// LimitTies is FETCH FIRST n ROWS WITH TIES over input sorted on Keys: after
// the n-th row it goes on returning the rows whose sort keys equal that
// row's, and stops at the first that differs.
type LimitTies struct {
	Input         Operator
	Offset, Count int64
	Keys          []int // the sort key columns
	seen, emitted int64
	last          []*vec.Vector // the n-th row's key values, one row each
	done          bool
	out           vec.Batch
}

func (l *LimitTies) Types() []types.T { return l.Input.Types() }
func (l *LimitTies) Close() error     { return l.Input.Close() }

func (l *LimitTies) Next(ctx context.Context) (*vec.Batch, error) {
	for !l.done && l.Count > 0 {
		b, err := l.Input.Next(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		lo, hi := 0, b.N
		if l.seen < l.Offset {
			lo = int(min(l.Offset-l.seen, int64(b.N)))
		}
		l.seen += int64(b.N)
		for i := lo; i < b.N; i++ {
			if l.emitted < l.Count {
				l.emitted++
				if l.emitted == l.Count {
					l.keep(b, i)
				}
				continue
			}
			if !l.tie(b, i) {
				hi, l.done = i, true
				break
			}
		}
		if lo >= hi {
			continue
		}
		if lo == 0 && hi == b.N {
			return b, nil
		}
		l.out.Vecs = l.out.Vecs[:0]
		for _, v := range b.Vecs {
			l.out.Vecs = append(l.out.Vecs, v.Slice(lo, hi))
		}
		l.out.N = hi - lo
		return &l.out, nil
	}
	return nil, nil
}

// keep copies row i's key values: the next batch may overwrite b.
func (l *LimitTies) keep(b *vec.Batch, i int) {
	l.last = l.last[:0]
	for _, c := range l.Keys {
		v := vec.New(b.Vecs[c].Type, 1)
		v.AppendFrom(b.Vecs[c], i)
		l.last = append(l.last, v)
	}
}

func (l *LimitTies) tie(b *vec.Batch, i int) bool {
	for k, c := range l.Keys {
		if !memory.NullableEqual(b.Vecs[c], i, l.last[k], 0) {
			return false
		}
	}
	return true
}
