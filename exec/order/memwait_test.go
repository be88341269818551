package order

import (
	"context"
	"math/rand"
	"slices"
	"sync"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
)

// TestConcurrentSortsWait: eight sorts, each bigger than a pool they share,
// all finish in order: when one cannot get memory for its next batch while
// the others hold the pool, it waits instead of failing.
func TestConcurrentSortsWait(t *testing.T) {
	sp := testSpill(t, 0)
	pool := memory.NewMemoryPool(1 << 20)
	rows := sortRows(rand.New(rand.NewSource(41)), 30000)
	want := refSort(t, rows, []SortKey{{Col: 2}}, 0)
	var wg, started sync.WaitGroup
	started.Add(8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := memory.NewQueryMemory(pool, context.Background())
			defer m.Close()
			ctx := memory.WithQueryMemory(context.Background(), m)
			// all eight start at once: the pool holds the first batches
			// of four of them
			in := &startTogether{Operator: newRowsOp(sortTypes, rows, 500), wg: &started}
			s := &Sort{Input: in, Keys: []SortKey{{Col: 2}}}
			defer s.Close()
			var got []string
			err := exec.Drain(ctx, s, func(b *vec.Batch) error {
				for i := 0; i < b.N; i++ {
					got = append(got, rowText(b, i))
				}
				return nil
			})
			if err != nil {
				t.Errorf("sort %d: %v", i, err)
				return
			}
			if !slices.Equal(got, want) {
				t.Errorf("sort %d: rows differ", i)
			}
		}()
	}
	wg.Wait()
	t.Logf("%d requests waited", pool.Waits())
	if pool.Waits() == 0 {
		t.Fatal("no sort had to wait for memory")
	}
	if n := spillFilesLeft(t, sp); n != 0 || pool.Used() != 0 {
		t.Fatalf("%d spill files, %d bytes reserved left", n, pool.Used())
	}
}

// startTogether holds its first batch until every operator of its group
// has asked for one.
type startTogether struct {
	exec.Operator
	wg   *sync.WaitGroup
	once sync.Once
}

func (s *startTogether) Next(ctx context.Context) (*vec.Batch, error) {
	s.once.Do(func() { s.wg.Done(); s.wg.Wait() })
	return s.Operator.Next(ctx)
}
