package memory

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lakepg/lakepg/pgerr"
)

// OutOfMemory is SQLSTATE 53200, which PostgreSQL reports when an
// allocation fails. (pgerr has only the 53000 class code.)
const OutOfMemory = "53200"

// MemoryPool is the process-wide budget every query's Memory draws from.
// Only buffering operators reserve (hash tables, sort buffers, window
// partitions, aggregate states); streaming operators and the batches in
// flight are small and bounded, so they are not counted.
type MemoryPool struct {
	limit atomic.Int64
	used  atomic.Int64

	// queries waiting for memory (see Memory.wait), first come first served
	mu       sync.Mutex
	queue    []*memWaiter
	nwait    atomic.Int32
	waits    atomic.Int64         // requests that have had to wait, ever
	accounts map[*Memory]struct{} // query accounts (NewQueryMemory)
}

// NewMemoryPool returns a pool of limit bytes (<= 0: unlimited).
func NewMemoryPool(limit int64) *MemoryPool {
	p := &MemoryPool{}
	p.SetLimit(limit)
	return p
}

// SetLimit changes the budget; reservations already made are kept.
func (p *MemoryPool) SetLimit(limit int64) {
	if limit <= 0 {
		limit = 1 << 62
	}
	p.limit.Store(limit)
}

// Limit is the budget in bytes.
func (p *MemoryPool) Limit() int64 { return p.limit.Load() }

// Waiting is the number of requests waiting for memory now.
func (p *MemoryPool) Waiting() int { return int(p.nwait.Load()) }

// Waits is the number of requests that have had to wait for memory.
func (p *MemoryPool) Waits() int64 { return p.waits.Load() }

// Used is the number of bytes reserved now.
func (p *MemoryPool) Used() int64 { return p.used.Load() }

func (p *MemoryPool) reserve(n int64) bool {
	if p.used.Add(n) > p.limit.Load() {
		p.used.Add(-n)
		return false
	}
	return true
}

func (p *MemoryPool) release(n int64) {
	p.used.Add(-n)
	if p.nwait.Load() > 0 {
		p.mu.Lock()
		if len(p.queue) > 0 {
			p.queue[0].signal()
		}
		p.mu.Unlock()
	}
}

// memWaiter is one request waiting for memory.
type memWaiter struct{ wake chan struct{} }

func (w *memWaiter) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// GlobalMemory is the pool queries use unless the server installs another.
// Its default is the Go memory limit when one is set (GOMEMLIMIT), else 3/4
// of the machine's RAM, else 4 GiB.
var GlobalMemory = NewMemoryPool(defaultMemoryLimit())

func defaultMemoryLimit() int64 {
	if l := debug.SetMemoryLimit(-1); l > 0 && l < 1<<62 {
		return l
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "MemTotal:") {
				continue
			}
			fields := strings.Fields(line)
			if len(fields) >= 2 {
				if kb, err := strconv.ParseInt(fields[1], 10, 64); err == nil && kb > 0 {
					return kb * 1024 / 4 * 3
				}
			}
		}
	}
	return 4 << 30
}

// Memory is one query's account. Operators reserve with Grow before they
// buffer and give back with Shrink; Grow fails with 53200 when either this
// account's Limit or its pool's budget would be exceeded, so a query that is
// too big errors instead of taking the server down (spilling comes later).
//
// A nil *Memory is valid: it charges GlobalMemory directly. Grow and Shrink
// may be called from several workers at once.
type Memory struct {
	Pool  *MemoryPool // nil: GlobalMemory
	Limit int64       // per-query cap in bytes; <= 0: only the pool's
	used  atomic.Int64
	peak  atomic.Int64

	// a query account (NewQueryMemory) waits for memory other queries
	// hold instead of failing; ctx is the statement's, for cancellation
	ctx     atomic.Value // ctxBox
	query   bool
	waiting atomic.Int32 // requests of this account waiting (parallel workers)
	closed  atomic.Bool
	endMu   sync.Mutex
	ends    []func() // AtEnd's
}

type ctxBox struct{ ctx context.Context }

// NewQueryMemory opens a statement's account on pool (nil: GlobalMemory).
// When the pool is full its operators' requests wait, first come first
// served, for other statements to give memory back — as long as they can:
// a request that the memory of statements not waiting themselves could not
// satisfy fails with 53200 rather than wait for ever. SetContext gives the
// statement's context, whose end (a cancel, statement_timeout) ends a wait.
func NewQueryMemory(pool *MemoryPool, ctx context.Context) *Memory {
	m := &Memory{Pool: pool, query: true}
	m.SetContext(ctx)
	p := m.ActivePool()
	p.mu.Lock()
	if p.accounts == nil {
		p.accounts = map[*Memory]struct{}{}
	}
	p.accounts[m] = struct{}{}
	p.mu.Unlock()
	return m
}

// SetContext sets the context a wait for memory ends with.
func (m *Memory) SetContext(ctx context.Context) { m.ctx.Store(ctxBox{ctx}) }

type queryMemKey struct{}

// WithQueryMemory returns ctx carrying the statement's account, which the
// operators without a Mem of their own charge.
func WithQueryMemory(ctx context.Context, m *Memory) context.Context {
	if m == nil {
		return ctx
	}
	return context.WithValue(ctx, queryMemKey{}, m)
}

// MemFor is m, or else ctx's statement account (nil: GlobalMemory).
func MemFor(ctx context.Context, m *Memory) *Memory {
	if m != nil {
		return m
	}
	q, _ := ctx.Value(queryMemKey{}).(*Memory)
	return q
}

// wait takes n bytes from the pool once the statements ahead in the queue
// are served and others have given enough back. It fails with 53200 when
// waiting cannot help (what statements that are not waiting hold and the
// free memory together are less than n), and with 57014 when the
// statement's context ends.
func (m *Memory) wait(n int64) error {
	p := m.ActivePool()
	box, _ := m.ctx.Load().(ctxBox)
	if box.ctx == nil || m.closed.Load() {
		return errOutOfMemory(n)
	}
	ctx := box.ctx
	p.waits.Add(1)
	w := &memWaiter{wake: make(chan struct{}, 1)}
	p.mu.Lock()
	p.queue = append(p.queue, w)
	p.nwait.Add(1)
	m.waiting.Add(1)
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		for i, q := range p.queue {
			if q == w {
				p.queue = append(p.queue[:i], p.queue[i+1:]...)
				break
			}
		}
		p.nwait.Add(-1)
		m.waiting.Add(-1)
		if len(p.queue) > 0 {
			p.queue[0].signal()
		}
		p.mu.Unlock()
	}()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		p.mu.Lock()
		head := len(p.queue) > 0 && p.queue[0] == w
		var others int64
		for a := range p.accounts {
			if a != m && a.waiting.Load() == 0 {
				others += a.used.Load()
			}
		}
		p.mu.Unlock()
		if head && p.reserve(n) {
			return nil
		}
		if p.limit.Load()-p.used.Load()+others < n {
			return errOutOfMemory(n)
		}
		select {
		case <-ctx.Done():
			return ErrCanceled(ctx)
		case <-w.wake:
		case <-tick.C:
		}
	}
}

// NewMemory opens an account on pool (nil: GlobalMemory).
func NewMemory(pool *MemoryPool, limit int64) *Memory {
	return &Memory{Pool: pool, Limit: limit}
}

func (m *Memory) ActivePool() *MemoryPool {
	if m == nil || m.Pool == nil {
		return GlobalMemory
	}
	return m.Pool
}

// Grow reserves n more bytes.
func (m *Memory) Grow(n int64) error {
	if n <= 0 {
		return nil
	}
	if m != nil {
		u := m.used.Add(n)
		if m.Limit > 0 && u > m.Limit {
			m.used.Add(-n)
			return errOutOfMemory(n)
		}
		for {
			p := m.peak.Load()
			if u <= p || m.peak.CompareAndSwap(p, u) {
				break
			}
		}
	}
	p := m.ActivePool()
	if m == nil || !m.query {
		if !p.reserve(n) {
			if m != nil {
				m.used.Add(-n)
			}
			return errOutOfMemory(n)
		}
		return nil
	}
	// a statement's request queues behind those already waiting
	if p.nwait.Load() == 0 && p.reserve(n) {
		return nil
	}
	if err := m.wait(n); err != nil {
		m.used.Add(-n)
		return err
	}
	return nil
}

// growSpillable is Grow for an operator that can spill: it fails already
// when the pool (or the account's Limit) would be more than 7/8 full. The
// last eighth is left to what cannot spill — the operators above a spilling
// one (an aggregate over a spilled GROUP BY, say) need a little memory while
// the spilled one still holds its share.
func (m *Memory) growSpillable(n int64, half bool, holding bool) error {
	p := m.ActivePool()
	if holding && p.nwait.Load() > 0 {
		// statements wait for memory: an operator that can spill gives
		// way, spilling what it holds, rather than take more
		return errOutOfMemory(n)
	}
	share := func(lim int64) int64 {
		lim -= lim / 8
		if half {
			lim /= 2
		}
		return lim
	}
	if p.used.Load()+n > share(p.limit.Load()) {
		return errOutOfMemory(n)
	}
	if m != nil && m.Limit > 0 && m.used.Load()+n > share(m.Limit) {
		return errOutOfMemory(n)
	}
	return m.Grow(n)
}

// GrowSpillable is Grow for what can go to disk instead (a temporary
// table's rows): refused when the pool is more than 7/8 full or statements
// wait for memory.
func (m *Memory) GrowSpillable(n int64) error { return m.growSpillable(n, false, true) }

// TryCount reserves n bytes of buffers that are in use anyway (a scan's)
// when the pool, and the account's Limit, stay under half the spilling
// share and no statement waits; it never waits, and reports whether it
// reserved.
func (m *Memory) TryCount(n int64) bool {
	if n <= 0 {
		return true
	}
	p := m.ActivePool()
	half := func(lim int64) int64 { return (lim - lim/8) / 2 }
	if p.nwait.Load() > 0 || p.used.Load()+n > half(p.limit.Load()) {
		return false
	}
	if m != nil && m.Limit > 0 && m.used.Load()+n > half(m.Limit) {
		return false
	}
	return m.take(n)
}

// take reserves n bytes from the pool when it has them, within the
// account's Limit; it never waits.
func (m *Memory) take(n int64) bool {
	if m != nil && m.Limit > 0 && m.used.Load()+n > m.Limit {
		return false
	}
	if !m.ActivePool().reserve(n) {
		return false
	}
	if m != nil {
		u := m.used.Add(n)
		for {
			pk := m.peak.Load()
			if u <= pk || m.peak.CompareAndSwap(pk, u) {
				break
			}
		}
	}
	return true
}

// SpillFloor is what a spilled operator's last partitioning level may hold
// when other holders have filled the spilling share (Reservation.Floor): a
// sixteenth of the pool, or of the account's own limit when lower. One
// level of partitioning divides a build side by 16, so a build that would
// have fit the whole budget fits the floor after one level, however full
// the pool is; and two floors fit in the eighth of the pool that spilling
// operators leave, enough for a spilled join and one reading its output.
func (m *Memory) SpillFloor() int64 {
	b := m.ActivePool().limit.Load()
	if m != nil && m.Limit > 0 {
		b = min(b, m.Limit)
	}
	return b / 16
}

// MergeBudget is what a sort's last merge may reserve for its runs' blocks:
// a quarter of the pool, or of the account's own limit when lower.
func (m *Memory) MergeBudget() int64 {
	b := m.ActivePool().limit.Load()
	if m != nil && m.Limit > 0 {
		b = min(b, m.Limit)
	}
	return b / 4
}

// GrowPast counts n bytes that are in use whatever the limit says: a state
// that can neither spill nor be given up. Past the limit the pool reads
// full, so operators that can spill give way and statements wait.
func (m *Memory) GrowPast(n int64) {
	if n <= 0 {
		return
	}
	if m != nil {
		u := m.used.Add(n)
		for {
			p := m.peak.Load()
			if u <= p || m.peak.CompareAndSwap(p, u) {
				break
			}
		}
	}
	m.ActivePool().used.Add(n)
}

// EndQuery ends a statement's account (NewQueryMemory): it no longer waits
// nor counts among the statements others wait for. What it still holds
// stays reserved until its operators give it back — a cursor's operators
// outlive the statement that first ran them.
func (m *Memory) EndQuery() {
	if m == nil || !m.query {
		return
	}
	m.endMu.Lock()
	if m.closed.Swap(true) {
		m.endMu.Unlock()
		return
	}
	ends := m.ends
	m.ends = nil
	m.endMu.Unlock()
	p := m.ActivePool()
	p.mu.Lock()
	delete(p.accounts, m)
	p.mu.Unlock()
	for _, f := range ends {
		f()
	}
}

// AtEnd has f run when the statement's account ends (EndQuery), for what
// an operator nobody closes would keep for ever: a WITH query's rows
// whose readers a plan made only to be dropped still count. It reports
// false, and registers nothing, for an account that is not a statement's
// or has ended.
func (m *Memory) AtEnd(f func()) bool {
	if m == nil || !m.query {
		return false
	}
	m.endMu.Lock()
	defer m.endMu.Unlock()
	if m.closed.Load() {
		return false
	}
	m.ends = append(m.ends, f)
	return true
}

// Shrink gives back n bytes.
func (m *Memory) Shrink(n int64) {
	if n <= 0 {
		return
	}
	if m != nil {
		m.used.Add(-n)
	}
	m.ActivePool().release(n)
}

// Used is the number of bytes the account holds now.
func (m *Memory) Used() int64 {
	if m == nil {
		return 0
	}
	return m.used.Load()
}

// Peak is the most the account held at once (EXPLAIN ANALYZE).
func (m *Memory) Peak() int64 {
	if m == nil {
		return 0
	}
	return m.peak.Load()
}

// Close returns whatever the account still holds to its pool (an operator
// that was never closed, say).
func (m *Memory) Close() {
	if m == nil {
		return
	}
	m.EndQuery()
	if n := m.used.Swap(0); n > 0 {
		m.ActivePool().release(n)
	}
}

func errOutOfMemory(n int64) error {
	e := pgerr.New(OutOfMemory, "out of memory")
	e.Detail = fmt.Sprintf("Failed on request of size %d.", n)
	e.Hint = "The query needs more memory than lakepg's memory budget allows."
	return e
}

// Reservation is one operator's share of a Memory account. It reserves in
// chunks so that hot loops touch the shared atomics rarely, and returns
// everything on release.
type Reservation struct {
	Mem      *Memory
	Reserved int64 // bytes taken from mem
	Used     int64 // bytes the operator says it holds
	Spill    bool  // the operator spills when a grow fails (growSpillable)
	// spillHalf: spill at half that share. Parallel aggregation workers
	// do, because their frozen tables are merged in memory at the end and
	// the merge holds the workers' tables and the merged one at once.
	SpillHalf bool
	// cap is the operator's own budget (work_mem): a spilling operator
	// spills past it even when the pool has room. 0: none.
	Cap int64
	// Floor is what a spilling operator may hold even when the spilling
	// share is taken (Memory.SpillFloor): up to it, a grow growSpillable
	// refuses takes the pool's free memory instead — the last eighth, that
	// spilling operators leave — without waiting, and only when no
	// statement waits. A spilled join's partition joins and chunks have
	// it: with nothing, under a pool another holder had filled, each
	// partition spilled again at its first batch, level after level,
	// until partitions held a row or two. 0: none.
	Floor int64
}

const reserveChunk = 256 << 10

type workMemKey struct{}

// WithWorkMem returns ctx carrying a per-operator budget (the session's
// work_mem, in bytes): every operator that can spill does so once it holds
// that much, whatever the pool has left. n <= 0: none.
func WithWorkMem(ctx context.Context, n int64) context.Context {
	if n <= 0 {
		return ctx
	}
	return context.WithValue(ctx, workMemKey{}, n)
}

// WorkMemOf is ctx's per-operator budget (0: none).
func WorkMemOf(ctx context.Context) int64 {
	n, _ := ctx.Value(workMemKey{}).(int64)
	return n
}

// Grow records n more bytes in use, reserving from the account as needed.
func (r *Reservation) Grow(n int64) error {
	r.Used += n
	if r.Spill && r.Cap > 0 && r.Used > r.Cap {
		r.Used -= n
		return errOutOfMemory(n)
	}
	if r.Used <= r.Reserved {
		return nil
	}
	need := r.Used - r.Reserved
	if need < reserveChunk {
		need = reserveChunk
	}
	var err error
	if r.Spill {
		err = r.Mem.growSpillable(need, r.SpillHalf, r.Reserved > 0)
		if err != nil && r.Reserved+need <= r.Floor && r.Mem.ActivePool().nwait.Load() == 0 && r.Mem.take(need) {
			err = nil
		}
	} else {
		err = r.Mem.Grow(need)
	}
	if err != nil {
		r.Used -= n
		return err
	}
	r.Reserved += need
	return nil
}

// Room is how much more r may grow by before a grow fails and its operator
// spills: what it has reserved beyond its use, and the free part of the
// share growSpillable leaves it, within its Cap.
func (r *Reservation) Room() int64 {
	p := r.Mem.ActivePool()
	share := func(lim int64) int64 {
		lim -= lim / 8
		if r.SpillHalf {
			lim /= 2
		}
		return lim
	}
	free := share(p.limit.Load()) - p.used.Load()
	if m := r.Mem; m != nil && m.Limit > 0 {
		free = min(free, share(m.Limit)-m.used.Load())
	}
	room := max(free, 0) + r.Reserved - r.Used
	if r.Cap > 0 {
		room = min(room, r.Cap-r.Used)
	}
	return max(room, 0)
}

// Shrink records n bytes given up, returning what is reserved beyond the
// rest to the account.
func (r *Reservation) Shrink(n int64) {
	r.Used = max(r.Used-n, 0)
	if extra := r.Reserved - r.Used; extra > reserveChunk {
		r.Mem.Shrink(extra)
		r.Reserved -= extra
	}
}

// Release gives everything back.
func (r *Reservation) Release() {
	r.Mem.Shrink(r.Reserved)
	r.Reserved, r.Used = 0, 0
}
