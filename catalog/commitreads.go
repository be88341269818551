package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// rowScanner is what the scan helpers need of a result: *sql.Rows and the
// pgx.Rows of a pipelined batch both have it.
type rowScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// CommitReads names what a commit is going to read in its transaction, so
// that on PostgreSQL BeginCommit fetches it in the round trip that takes
// the commit lock and starts the transaction, instead of one round trip per
// query while every lakepg server's commits wait for the lock. The answers
// are those the queries would give at the transaction's start; they are
// served until the transaction first writes (Tx.ExecContext,
// Tx.ExecDeferred), after which the methods query again.
type CommitReads struct {
	// Base is the snapshot the commit built on: ChangesSince(Base).
	Base int64
	// Tables are existing tables the commit adds rows to: their TableLive,
	// TableStats, TableColumnStats, LiveColumns and InlinedTables.
	Tables []int64
}

// maxPrefetchTables bounds the tables one BeginCommit reads ahead: a commit
// touching more reads the others when it needs them.
const maxPrefetchTables = 16

// commitPrefetch holds the answers BeginCommit fetched.
type commitPrefetch struct {
	head        Snapshot
	changesBase int64
	changes     []snapshotChanges // after changesBase, in id order
	tables      map[int64]*tableReads
}

type snapshotChanges struct {
	id      int64
	changes string
}

// clone copies p deeply enough that changing the copy (Advance,
// NoteTableStats) leaves p as it was.
func (p *commitPrefetch) clone() *commitPrefetch {
	if p == nil {
		return nil
	}
	c := *p
	c.changes = append([]snapshotChanges(nil), p.changes...)
	c.tables = make(map[int64]*tableReads, len(p.tables))
	for id, tr := range p.tables {
		x := *tr
		c.tables[id] = &x
	}
	return &c
}

type tableReads struct {
	live       bool
	stats      TableStats
	statsExist bool
	colStats   map[int64]TableColumnStats
	cols       []Column
	inlined    []InlinedTable
}

// prefetched is what BeginCommit read ahead, nil when nothing was or the
// transaction has written since (unless KeepReads).
func (t *Tx) prefetched() *commitPrefetch { return t.pre }

// prefetchedTable is what BeginCommit read ahead of table id, or nil.
func (t *Tx) prefetchedTable(id int64) *tableReads {
	if t.pre == nil {
		return nil
	}
	return t.pre.tables[id]
}

// changesSince is ChangesSince(base) from the answers read ahead; ok is
// false when they do not reach back to base.
func (p *commitPrefetch) changesSince(base int64) (out []string, ok bool) {
	if base < p.changesBase {
		return nil, false
	}
	for _, sc := range p.changes {
		if sc.id > base && sc.changes != "" {
			out = append(out, sc.changes)
		}
	}
	return out, true
}

// Pipelined reports whether the transaction queues its writes and sends
// them in batches (a commit transaction on PostgreSQL).
func (t *Tx) Pipelined() bool { return t.tx == nil }

// KeepReads makes the answers read ahead outlive the transaction's writes,
// for a group of insert commits (snapshot/group.go): the writer then keeps
// them true itself, with NoteTableStats, NoteInlinedTables and Advance, or
// ends them (ForgetReads). Statements run at once (ExecContext) still end
// them.
func (t *Tx) KeepReads() { t.keep = true }

// ForgetReads ends the answers read ahead: the writes queued since do more
// than NoteTableStats and Advance can describe.
func (t *Tx) ForgetReads() { t.pre = nil }

// NoteTableStats records the statistics rows the transaction's queued
// writes leave for table id, so that the answers read ahead stay true.
func (t *Tx) NoteTableStats(id int64, stats TableStats, colStats map[int64]TableColumnStats) {
	if r := t.prefetchedTable(id); r != nil {
		r.stats, r.statsExist = stats, true
		r.colStats = colStats
	}
}

// NoteInlinedTables records that the transaction registered an
// inlined-data table for table id: its answers are read afresh.
func (t *Tx) NoteInlinedTables(id int64) {
	if t.pre != nil {
		delete(t.pre.tables, id)
	}
}

// Advance records that the transaction's queued writes made snap the head.
func (t *Tx) Advance(snap Snapshot) {
	if t.pre == nil || snap.ID <= t.pre.head.ID {
		return
	}
	t.pre.head = snap
	t.pre.changes = append(t.pre.changes, snapshotChanges{id: snap.ID, changes: snap.Changes})
}

// TxMark is where Undo takes a transaction back to.
type TxMark struct {
	pending, sent int
	pre           *commitPrefetch
}

// Mark notes the transaction's queued writes and answers read ahead.
func (t *Tx) Mark() TxMark {
	return TxMark{pending: len(t.pending), sent: t.sent, pre: t.pre.clone()}
}

// RestoreReads puts back the answers read ahead at m, after a rollback to
// a savepoint taken at m undid the writes since (SQLite's group commits).
func (t *Tx) RestoreReads(m TxMark) {
	if t.keep {
		t.pre = m.pre
	}
}

// Undo drops the writes queued since m and restores the answers read ahead
// then; false when some of them were already sent (or failed), which only
// a savepoint or the end of the transaction can undo.
func (t *Tx) Undo(m TxMark) bool {
	if t.sent != m.sent || t.deferredErr != nil || len(t.pending) < m.pending {
		return false
	}
	t.pending = t.pending[:m.pending]
	t.pre = m.pre
	return true
}

// TableLive reports whether table id has a live row (end_snapshot IS NULL).
func (t *Tx) TableLive(ctx context.Context, id int64) (bool, error) {
	if r := t.prefetchedTable(id); r != nil {
		return r.live, nil
	}
	var n int64
	if err := t.QueryRowContext(ctx, tableLiveQuery, id).Scan(&n); err != nil {
		return false, fmt.Errorf("catalog: check table %d: %w", id, err)
	}
	return n > 0, nil
}

const tableLiveQuery = `SELECT COUNT(*) FROM ducklake_table WHERE table_id = ? AND end_snapshot IS NULL`

// readQueries are the queries of r, after the head's, in the order
// readPrefetch takes their results.
func (db *DB) readQueries(r *CommitReads) []pendingStmt {
	var out []pendingStmt
	q := func(sql string, args ...any) {
		out = append(out, pendingStmt{q: db.d.rebind(sql), args: db.d.args(args)})
	}
	q(snapshotSelect + " " + headWhere)
	q(`SELECT snapshot_id, changes_made`+changesAfter, r.Base)
	for _, id := range r.Tables {
		q(tableLiveQuery, id)
		q(tableStatsQuery, id)
		q(tableColumnStatsQuery, id)
		q(columnsQuery(liveColumnsWhere), id)
		q(inlinedTablesQuery, id)
	}
	return out
}

// prefetchRows is one result readPrefetch takes: pgx.Rows of a pipelined
// batch, or sqlRows.
type prefetchRows interface {
	rowScanner
	Close()
}

// sqlRows gives *sql.Rows the Close of prefetchRows.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

// readAhead runs readQueries(r) one after the other in the transaction
// (SQLite: its writer lock is held from BEGIN, so nothing moves meanwhile)
// and keeps their answers as BeginCommit on PostgreSQL does: a group of
// commits then reads a table's statistics, columns and inlined tables and
// the head once, not once per member.
func (t *Tx) readAhead(ctx context.Context, r *CommitReads) error {
	qs := t.db.readQueries(r)
	next := 0
	p, err := readPrefetch(func() (prefetchRows, error) {
		st := qs[next]
		next++
		rows, err := t.q().QueryContext(ctx, st.q, st.args...) // prepared
		if err != nil {
			return nil, err
		}
		return sqlRows{rows}, nil
	}, r)
	if err != nil {
		return err
	}
	t.pre = p
	return nil
}

// readPrefetch takes the results of readQueries(r) in order from next.
func readPrefetch(next func() (prefetchRows, error), r *CommitReads) (*commitPrefetch, error) {
	p := &commitPrefetch{changesBase: r.Base, tables: map[int64]*tableReads{}}
	read := func(what string, scan func(rowScanner) error) error {
		rows, err := next()
		if err != nil {
			return fmt.Errorf("catalog: read ahead %s: %w", what, err)
		}
		err = scan(rows)
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
		if err != nil {
			return fmt.Errorf("catalog: read ahead %s: %w", what, err)
		}
		return nil
	}
	if err := read("head", func(rows rowScanner) error {
		snaps, err := scanSnapshotRows(rows)
		if err == nil && len(snaps) == 0 {
			err = ErrSnapshotNotFound
		}
		if err == nil {
			p.head = snaps[0]
		}
		return err
	}); err != nil {
		return nil, err
	}
	if err := read("snapshot changes", func(rows rowScanner) error {
		for rows.Next() {
			var sc snapshotChanges
			var c sql.NullString
			if err := rows.Scan(&sc.id, &c); err != nil {
				return err
			}
			sc.changes = c.String
			p.changes = append(p.changes, sc)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for _, id := range r.Tables {
		tr := &tableReads{}
		steps := []struct {
			what string
			scan func(rowScanner) error
		}{
			{"table", func(rows rowScanner) error {
				var n int64
				if rows.Next() {
					if err := rows.Scan(&n); err != nil {
						return err
					}
				}
				tr.live = n > 0
				return nil
			}},
			{"table stats", func(rows rowScanner) (err error) {
				tr.stats, tr.statsExist, err = scanTableStats(rows)
				// the rest of the single row, if any, is dropped by Close
				return err
			}},
			{"column stats", func(rows rowScanner) (err error) {
				tr.colStats, err = scanTableColumnStats(rows)
				return err
			}},
			{"columns", func(rows rowScanner) error {
				cols, err := scanColumns(rows)
				tr.cols = columnsOf(cols)
				return err
			}},
			{"inlined tables", func(rows rowScanner) (err error) {
				tr.inlined, err = scanInlinedTables(rows)
				return err
			}},
		}
		for _, s := range steps {
			if err := read(s.what, s.scan); err != nil {
				return nil, err
			}
		}
		p.tables[id] = tr
	}
	return p, nil
}

// inlinedNames caches the value columns of inlined-data tables. A
// registered inlined-data table is named for its table and the schema
// version whose layout it has, and is never altered, so its columns never
// change; only tables registered before the reading transaction began are
// cached (one the transaction itself creates may yet roll back, and another
// commit could then register the name with another layout).
type inlinedNames struct {
	mu    sync.Mutex
	names map[string][]string
}

// InlinedColumnNames are the value columns of inlined-data table name,
// after its three system columns.
func (t *Tx) InlinedColumnNames(ctx context.Context, name string) ([]string, error) {
	c := &t.db.inlinedNames
	c.mu.Lock()
	cols, ok := c.names[name]
	c.mu.Unlock()
	if ok {
		return cols, nil
	}
	// committed: the table was in a registration list read before the
	// transaction wrote anything
	committed := false
	if t.pre != nil {
		for _, tr := range t.pre.tables {
			for _, it := range tr.inlined {
				committed = committed || it.Name == name
			}
		}
	}
	// the format's system column in the text: a migration renames the
	// columns, and PostgreSQL refuses a statement prepared before it
	// ("cached plan must not change result type")
	rows, err := t.QueryContext(ctx, `SELECT * FROM `+QuoteIdent(name)+` WHERE `+QuoteIdent(t.db.InlinedColumns().RowID)+` IS NULL AND 1 = 0`)
	if err != nil {
		return nil, fmt.Errorf("catalog: read inlined table %s: %w", name, err)
	}
	defer rows.Close()
	all, err := rows.Columns()
	if err != nil || len(all) < 3 {
		return nil, fmt.Errorf("catalog: inlined table %s has no system columns: %v", name, err)
	}
	cols = all[3:]
	if committed {
		c.mu.Lock()
		if c.names == nil {
			c.names = map[string][]string{}
		}
		c.names[name] = cols
		c.mu.Unlock()
	}
	return cols, nil
}
