package catalog

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
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
	changes     []string
	tables      map[int64]*tableReads
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
// transaction has written since.
func (t *Tx) prefetched() *commitPrefetch { return t.pre }

// prefetchedTable is what BeginCommit read ahead of table id, or nil.
func (t *Tx) prefetchedTable(id int64) *tableReads {
	if t.pre == nil {
		return nil
	}
	return t.pre.tables[id]
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

// queueReads adds the queries of r to b, after the head's, in the order
// readPrefetch takes their results.
func (db *DB) queueReads(b *pgx.Batch, r *CommitReads) {
	q := func(sql string, args ...any) { b.Queue(db.d.rebind(sql), db.d.args(args)...) }
	q(snapshotSelect + " " + headWhere)
	q(changesSinceQuery, r.Base)
	for _, id := range r.Tables {
		q(tableLiveQuery, id)
		q(tableStatsQuery, id)
		q(tableColumnStatsQuery, id)
		q(columnsQuery(liveColumnsWhere), id)
		q(inlinedTablesQuery, id)
	}
}

// readPrefetch takes the results of queueReads' queries from br.
func readPrefetch(br pgx.BatchResults, r *CommitReads) (*commitPrefetch, error) {
	p := &commitPrefetch{changesBase: r.Base, tables: map[int64]*tableReads{}}
	read := func(what string, scan func(rowScanner) error) error {
		rows, err := br.Query()
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
	if err := read("snapshot changes", func(rows rowScanner) (err error) {
		p.changes, err = scanChanges(rows)
		return err
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
	rows, err := t.QueryContext(ctx, `SELECT * FROM `+QuoteIdent(name)+` WHERE 1 = 0`)
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
