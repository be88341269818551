package exec

import (
	"context"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// DistinctOn keeps the first row of each run of equal Keys in its (sorted)
// input: SELECT DISTINCT ON.
type DistinctOn struct {
	Input Operator
	Keys  []int
	last  *vec.Batch // one row: the previous key
	out   *vec.Batch
}

func (d *DistinctOn) Types() []types.T { return d.Input.Types() }
func (d *DistinctOn) Close() error     { return d.Input.Close() }

func (d *DistinctOn) Next(ctx context.Context) (*vec.Batch, error) {
	for {
		b, err := d.Input.Next(ctx)
		if err != nil || b == nil {
			return nil, err
		}
		if d.out == nil {
			d.out = vec.NewBatch(d.Input.Types(), vec.BatchSize)
		}
		d.out.Reset()
		for i := 0; i < b.N; i++ {
			if d.last != nil && d.sameKey(b, i) {
				continue
			}
			d.last = vec.NewBatch(d.Input.Types(), 1)
			for c, v := range b.Vecs {
				d.last.Vecs[c].AppendFrom(v, i)
				d.out.Vecs[c].AppendFrom(v, i)
			}
			d.last.N = 1
			d.out.N++
		}
		if d.out.N > 0 {
			return d.out, nil
		}
	}
}

func (d *DistinctOn) sameKey(b *vec.Batch, i int) bool {
	for _, k := range d.Keys {
		v, l := b.Vecs[k], d.last.Vecs[k]
		ni, nl := v.IsNull(i), l.IsNull(0)
		if ni != nl {
			return false
		}
		if !ni && CompareRows(v, i, l, 0) != 0 {
			return false
		}
	}
	return true
}
