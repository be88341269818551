package exec

import (
	"context"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Timed counts the rows and wall time of the operator it wraps, inclusive of
// its inputs, for EXPLAIN ANALYZE.
type Timed struct {
	Input   Operator
	Rows    int64
	Batches int64
	Elapsed time.Duration
}

func (t *Timed) Types() []types.T { return t.Input.Types() }
func (t *Timed) Close() error     { return t.Input.Close() }
func (t *Timed) Next(ctx context.Context) (*vec.Batch, error) {
	start := time.Now()
	b, err := t.Input.Next(ctx)
	t.Elapsed += time.Since(start)
	if b != nil {
		t.Rows += int64(b.N)
		t.Batches++
	}
	return b, err
}
