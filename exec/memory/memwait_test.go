package memory

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lakepg/lakepg/pgerr"
)

// waitFor polls until cond holds (or fails the test after 5 s).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestQueryMemoryWaits: a statement whose request the pool cannot meet
// while another statement holds the memory waits for it, first come first
// served (a small request behind a big one waits its turn), and gets it
// once it is given back.
func TestQueryMemoryWaits(t *testing.T) {
	pool := NewMemoryPool(1 << 20)
	ctx := context.Background()
	a := NewQueryMemory(pool, ctx)
	if err := a.Grow(900 << 10); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	ask := func(name string, m *Memory, n int64) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.Grow(n); err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
		}()
	}
	b, c := NewQueryMemory(pool, ctx), NewQueryMemory(pool, ctx)
	ask("b", b, 500<<10)
	waitFor(t, "b to queue", func() bool { return pool.nwait.Load() == 1 })
	ask("c", c, 50<<10) // would fit now, but b came first
	waitFor(t, "c to queue", func() bool { return pool.nwait.Load() == 2 })
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	if len(order) != 0 {
		t.Fatalf("%v got memory while a held it", order)
	}
	mu.Unlock()
	a.Shrink(900 << 10)
	wg.Wait()
	if len(order) != 2 || order[0] != "b" {
		t.Fatalf("served %v; want b then c", order)
	}
	if pool.Used() != 550<<10 {
		t.Fatalf("pool holds %d", pool.Used())
	}
	for _, m := range []*Memory{a, b, c} {
		m.Close()
	}
}

// TestQueryMemoryWaitEnds: a wait ends with 57014 when the statement is
// cancelled or its statement_timeout passes, and with 53200 at once when
// waiting cannot help (nothing that statements not waiting hold would make
// room).
func TestQueryMemoryWaitEnds(t *testing.T) {
	pool := NewMemoryPool(1 << 20)
	a := NewQueryMemory(pool, context.Background())
	defer a.Close()
	if err := a.Grow(900 << 10); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := NewQueryMemory(pool, ctx)
	defer b.Close()
	done := make(chan error)
	go func() { done <- b.Grow(500 << 10) }()
	waitFor(t, "b to queue", func() bool { return pool.nwait.Load() == 1 })
	cancel()
	if err := <-done; pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("cancelled wait: %v", err)
	}
	tctx, tcancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer tcancel()
	c := NewQueryMemory(pool, tctx)
	defer c.Close()
	start := time.Now()
	if err := c.Grow(500 << 10); pgerr.Code(err) != pgerr.QueryCanceled || time.Since(start) < 90*time.Millisecond {
		t.Fatalf("timed out wait: %v after %v", err, time.Since(start))
	}
	if b.Used() != 0 || c.Used() != 0 || pool.Used() != 900<<10 {
		t.Fatalf("failed waits left memory reserved: b %d, c %d, pool %d", b.Used(), c.Used(), pool.Used())
	}
	// memory held outside any statement account (not released by
	// statements that run): no wait
	pool2 := NewMemoryPool(1 << 20)
	if err := NewMemory(pool2, 0).Grow(900 << 10); err != nil {
		t.Fatal(err)
	}
	d := NewQueryMemory(pool2, context.Background())
	defer d.Close()
	if err := d.Grow(500 << 10); !isOutOfMemory(err) {
		t.Fatalf("want 53200 when no statement holds what is missing, got %v", err)
	}
}

// TestReservationFloor: under a pool another holder has filled to the
// spilling share, a spilling reservation is refused at once, and one with
// a floor grows up to the floor, from the pool's last eighth, and no
// further; while a statement waits for memory the floor is not taken.
func TestReservationFloor(t *testing.T) {
	const limit = 16 << 20
	pool := NewMemoryPool(limit)
	other := NewMemory(pool, 0)
	if err := other.Grow(limit - limit/8); err != nil {
		t.Fatal(err)
	}
	m := NewMemory(pool, 0)
	plain := Reservation{Mem: m, Spill: true}
	if err := plain.Grow(1); err == nil {
		t.Fatal("a spilling reservation grew past the spilling share")
	}
	floor := m.SpillFloor()
	if floor != limit/16 {
		t.Fatalf("floor %d, want %d", floor, limit/16)
	}
	r := Reservation{Mem: m, Spill: true, Floor: floor}
	var got int64
	for r.Grow(64<<10) == nil {
		got += 64 << 10
	}
	if got < floor-reserveChunk || got > floor {
		t.Fatalf("grew %d bytes under the floor of %d", got, floor)
	}
	if pool.Used() > limit {
		t.Fatalf("pool used %d past its limit %d", pool.Used(), limit)
	}
	r.Release()
	pool.nwait.Add(1)
	if err := r.Grow(1); err == nil {
		t.Fatal("the floor was taken while a statement waits")
	}
	pool.nwait.Add(-1)
	other.Close()
	if pool.Used() != 0 {
		t.Fatalf("pool holds %d after release", pool.Used())
	}
}
