package concurrency

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// serializationFailure is the only SQLSTATE a refused write may answer.
const serializationFailure = "40001"

// ledger is what one client was told it committed: per table, id -> v. Every client writes
// only rows with ids of its own, so the union of the ledgers is the expected content.
type ledger map[string]map[int64]int64

// span is the ids of one acknowledged insert.
type span struct {
	table  string
	lo, hi int64
}

// opCount counts one kind of statement: committed and refused with 40001.
type opCount struct{ ok, conflicts int }

// pgClient is one lakepg client of the mixed workload, pinned to one connection.
type pgClient struct {
	id      int
	server  int
	conn    *pgx.Conn
	rnd     *rand.Rand
	tables  []string
	seq     int64
	live    ledger
	batches []span
	ops     map[string]*opCount
	errs    []string
	shared  *shared
}

// shared coordinates the rare statements (ALTER, compaction) among all clients.
type shared struct {
	mu        sync.Mutex
	nextAlter time.Time
	nextMerge time.Time
	alters    int
	maxAlters int
}

// turn reports whether the time *next has come, and sets the next one every later.
func (s *shared) turn(next *time.Time, every time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Now().Before(*next) {
		return false
	}
	*next = time.Now().Add(every)
	return true
}

// alterTurn is turn for ALTER TABLE, at most maxAlters times; it returns the number of the
// column to add, 0 when it is not the time.
func (s *shared) alterTurn() int {
	if !s.turn(&s.nextAlter, 2500*time.Millisecond) {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alters >= s.maxAlters {
		return 0
	}
	s.alters++
	return s.alters
}

func (c *pgClient) base() int64 { return int64(c.id) * 1_000_000_000 }

func (c *pgClient) count(kind string) *opCount {
	o := c.ops[kind]
	if o == nil {
		o = &opCount{}
		c.ops[kind] = o
	}
	return o
}

// outcome classifies a statement's error: nil is a commit, 40001 a refusal (false, nil);
// anything else is recorded as a failure of the test.
func (c *pgClient) outcome(kind, sql string, err error) bool {
	o := c.count(kind)
	if err == nil {
		o.ok++
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == serializationFailure {
		o.conflicts++
		return false
	}
	c.errs = append(c.errs, fmt.Sprintf("client %d (lakepg %d): %s: %.300s: %v", c.id, c.server, kind, sql, err))
	return false
}

func (c *pgClient) checkCount(kind, sql string, tag pgconn.CommandTag, want int64) {
	if tag.RowsAffected() != want {
		c.errs = append(c.errs, fmt.Sprintf("client %d (lakepg %d): %s: %.300s: command tag %q, want %d rows (the client's ledger)", c.id, c.server, kind, sql, tag, want))
	}
}

func (c *pgClient) table() string { return c.tables[c.rnd.IntN(len(c.tables))] }

// pick is a stretch of ids of an earlier acknowledged insert.
func (c *pgClient) pick() (string, int64, int64) {
	b := c.batches[c.rnd.IntN(len(c.batches))]
	a := b.lo + c.rnd.Int64N(b.hi-b.lo+1)
	return b.table, a, min(b.hi, a+c.rnd.Int64N(400))
}

func (c *pgClient) newIDs(n int) (lo, hi int64) {
	lo = c.base() + c.seq + 1
	c.seq += int64(n)
	return lo, lo + int64(n) - 1
}

func valuesList(lo, hi int64, client int) string {
	var b strings.Builder
	for i := lo; i <= hi; i++ {
		if i > lo {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %d, 0)", i, client)
	}
	return b.String()
}

// liveIn lists the ledger's ids of table in [a, b].
func (c *pgClient) liveIn(l ledger, table string, a, b int64) []int64 {
	var ids []int64
	for i := a; i <= b; i++ {
		if _, ok := l[table][i]; ok {
			ids = append(ids, i)
		}
	}
	return ids
}

// run issues statements until the deadline.
func (c *pgClient) run(ctx context.Context, deadline time.Time) {
	for time.Now().Before(deadline) && len(c.errs) < 10 && ctx.Err() == nil {
		r := c.rnd.Float64()
		col := c.shared.alterTurn()
		switch {
		case col > 0:
			sql := fmt.Sprintf("ALTER TABLE %s ADD COLUMN c%d integer DEFAULT %d", c.table(), col, col)
			_, err := c.conn.Exec(ctx, sql)
			c.outcome("alter add column", sql, err)
		case c.shared.turn(&c.shared.nextMerge, 3*time.Second):
			sql := fmt.Sprintf("CALL lakepg.merge_adjacent_files('%s')", c.table())
			_, err := c.conn.Exec(ctx, sql)
			c.outcome("merge_adjacent_files", sql, err)
		case r < 0.30 || len(c.batches) == 0:
			c.insertSmall(ctx)
		case r < 0.42:
			c.insertLarge(ctx)
		case r < 0.60:
			c.delete(ctx)
		case r < 0.78:
			c.update(ctx)
		case r < 0.90:
			c.block(ctx)
		default:
			c.read(ctx)
		}
	}
}

func (c *pgClient) insertSmall(ctx context.Context) {
	t := c.table()
	lo, hi := c.newIDs(1 + c.rnd.IntN(5))
	sql := fmt.Sprintf("INSERT INTO %s (id, client, v) VALUES %s", t, valuesList(lo, hi, c.id))
	tag, err := c.conn.Exec(ctx, sql)
	if c.outcome("insert small", sql, err) {
		c.checkCount("insert small", sql, tag, hi-lo+1)
		for i := lo; i <= hi; i++ {
			c.live[t][i] = 0
		}
		c.batches = append(c.batches, span{t, lo, hi})
	}
}

func (c *pgClient) insertLarge(ctx context.Context) {
	t := c.table()
	n := 200 + c.rnd.IntN(2800)
	lo, hi := c.newIDs(n)
	sql := fmt.Sprintf("INSERT INTO %s (id, client, v) SELECT $1::bigint + g, $2::integer, 0 FROM generate_series(0, $3::integer - 1) g", t)
	tag, err := c.conn.Exec(ctx, sql, lo, c.id, n)
	if c.outcome("insert large", sql, err) {
		c.checkCount("insert large", sql, tag, int64(n))
		for i := lo; i <= hi; i++ {
			c.live[t][i] = 0
		}
		c.batches = append(c.batches, span{t, lo, hi})
	}
}

// where is a predicate over a stretch: a few ids, or all of it.
func (c *pgClient) where(a, b int64) (string, []int64) {
	if c.rnd.IntN(2) == 0 {
		set := map[int64]bool{}
		for k := 0; k < 1+c.rnd.IntN(4); k++ {
			set[a+c.rnd.Int64N(b-a+1)] = true
		}
		var ids []int64
		for i := range set {
			ids = append(ids, i)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		parts := make([]string, len(ids))
		for k, i := range ids {
			parts[k] = fmt.Sprint(i)
		}
		return "id IN (" + strings.Join(parts, ", ") + ")", ids
	}
	var ids []int64
	for i := a; i <= b; i++ {
		ids = append(ids, i)
	}
	return fmt.Sprintf("id BETWEEN %d AND %d", a, b), ids
}

func (c *pgClient) hits(l ledger, t string, ids []int64) []int64 {
	var out []int64
	for _, i := range ids {
		if _, ok := l[t][i]; ok {
			out = append(out, i)
		}
	}
	return out
}

func (c *pgClient) delete(ctx context.Context) {
	t, a, b := c.pick()
	where, ids := c.where(a, b)
	hit := c.hits(c.live, t, ids)
	sql := fmt.Sprintf("DELETE FROM %s WHERE %s", t, where)
	tag, err := c.conn.Exec(ctx, sql)
	if c.outcome("delete", sql, err) {
		c.checkCount("delete", sql, tag, int64(len(hit)))
		for _, i := range hit {
			delete(c.live[t], i)
		}
	}
}

func (c *pgClient) update(ctx context.Context) {
	t, a, b := c.pick()
	where, ids := c.where(a, b)
	hit := c.hits(c.live, t, ids)
	sql := fmt.Sprintf("UPDATE %s SET v = v + 1 WHERE %s", t, where)
	tag, err := c.conn.Exec(ctx, sql)
	if c.outcome("update", sql, err) {
		c.checkCount("update", sql, tag, int64(len(hit)))
		for _, i := range hit {
			c.live[t][i]++
		}
	}
}

// block is BEGIN; INSERT; UPDATE; DELETE; SELECT; COMMIT on one table: the statements see
// the block's own writes, and the ledger takes them only when COMMIT succeeds.
func (c *pgClient) block(ctx context.Context) {
	t, a, b := c.pick()
	pending := map[int64]int64{}
	for i, v := range c.live[t] {
		pending[i] = v
	}
	l := ledger{t: pending}
	abort := func(sql string, err error) {
		c.outcome("block", sql, err)
		if _, rerr := c.conn.Exec(ctx, "ROLLBACK"); rerr != nil {
			c.errs = append(c.errs, fmt.Sprintf("client %d: ROLLBACK: %v", c.id, rerr))
		}
	}
	exec := func(sql string, want int64) bool {
		tag, err := c.conn.Exec(ctx, sql)
		if err != nil {
			abort(sql, err)
			return false
		}
		if want >= 0 {
			c.checkCount("block", sql, tag, want)
		}
		return true
	}
	if !exec("BEGIN", -1) {
		return
	}
	lo, hi := c.newIDs(1 + c.rnd.IntN(3))
	if !exec(fmt.Sprintf("INSERT INTO %s (id, client, v) VALUES %s", t, valuesList(lo, hi, c.id)), hi-lo+1) {
		return
	}
	for i := lo; i <= hi; i++ {
		pending[i] = 0
	}
	// committed rows and one the block inserted itself
	upd := append(c.liveIn(l, t, a, b), lo)
	if !exec(fmt.Sprintf("UPDATE %s SET v = v + 10 WHERE id BETWEEN %d AND %d OR id = %d", t, a, b, lo), int64(len(upd))) {
		return
	}
	for _, i := range upd {
		pending[i] += 10
	}
	d := a + c.rnd.Int64N(b-a+1)
	del := c.hits(l, t, []int64{d, hi})
	if !exec(fmt.Sprintf("DELETE FROM %s WHERE id = %d OR id = %d", t, d, hi), int64(len(del))) {
		return
	}
	for _, i := range del {
		delete(pending, i)
	}
	// a read inside the block sees the block's own writes
	var n, sum int64
	sql := fmt.Sprintf("SELECT count(*), coalesce(sum(v), 0)::bigint FROM %s WHERE client = %d", t, c.id)
	if err := c.conn.QueryRow(ctx, sql).Scan(&n, &sum); err != nil {
		abort(sql, err)
		return
	}
	c.checkRead(ctx, "block", t, sql, pending, n, sum)
	if _, err := c.conn.Exec(ctx, "COMMIT"); err != nil {
		c.outcome("block", "COMMIT", err)
		return
	}
	c.count("block").ok++
	c.live[t] = pending
	c.batches = append(c.batches, span{t, lo, hi})
}

// checkRead compares a count and sum of the client's rows with its ledger; on a difference
// it reads the rows (in the same transaction, if any) to name the ids that differ.
func (c *pgClient) checkRead(ctx context.Context, kind, table, sql string, want map[int64]int64, n, sum int64) {
	var wn, wsum int64
	for _, v := range want {
		wn++
		wsum += v
	}
	if n == wn && sum == wsum {
		return
	}
	msg := fmt.Sprintf("client %d (lakepg %d): %s: %s: count %d, sum %d; the client's ledger says count %d, sum %d",
		c.id, c.server, kind, sql, n, sum, wn, wsum)
	rows, err := c.conn.Query(ctx, fmt.Sprintf("SELECT id, v FROM %s WHERE client = %d", table, c.id))
	if err == nil {
		seen := map[int64]int{}
		var diffs []string
		for rows.Next() {
			var id, v int64
			if err := rows.Scan(&id, &v); err != nil {
				break
			}
			seen[id]++
			if w, ok := want[id]; !ok || w != v || seen[id] > 1 {
				diffs = append(diffs, fmt.Sprintf("read %d v %d (ledger: present %v, v %d)", id, v, ok, w))
			}
		}
		rows.Close()
		for id, v := range want {
			if seen[id] == 0 {
				diffs = append(diffs, fmt.Sprintf("missing %d v %d", id, v))
			}
		}
		sort.Strings(diffs)
		msg += fmt.Sprintf("; %d differences: %s", len(diffs), strings.Join(diffs[:min(len(diffs), 10)], ", "))
	}
	c.errs = append(c.errs, msg)
}

// read checks that the client's own rows are exactly its ledger: nobody else writes them.
func (c *pgClient) read(ctx context.Context) {
	t := c.table()
	var n, sum int64
	sql := fmt.Sprintf("SELECT count(*), coalesce(sum(v), 0)::bigint FROM %s WHERE client = %d", t, c.id)
	err := c.conn.QueryRow(ctx, sql).Scan(&n, &sum)
	if err != nil {
		c.outcome("read", sql, err)
		return
	}
	c.count("read").ok++
	c.checkRead(ctx, "read", t, sql, c.live[t], n, sum)
}
