package catalog

import (
	"context"
	"database/sql"
	"sync"
)

// SQLite prepared statements. The SQLite driver compiles every query text
// anew; under a stream of small commits compiling the same few statements
// (the head query, with its join and subquery, most of all) was a quarter
// of the server's CPU. So on SQLite each distinct query text is prepared
// once, and database/sql keeps it prepared on each connection it runs on.
// Query texts with ids in them (inlined-data tables) are distinct per
// table; the cache stops growing at maxPrepared texts and runs the rest
// unprepared.
type preparedCache struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

const maxPrepared = 512

// prepared is the prepared statement of q on SQLite, or nil: another
// backend, a full cache, or a text that does not prepare (a table that
// does not exist: running it reports that).
func (db *DB) prepared(ctx context.Context, q string) *sql.Stmt {
	if db.d.name != "sqlite" {
		return nil
	}
	c := &db.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.stmts[q]; ok {
		return st
	}
	if len(c.stmts) >= maxPrepared {
		return nil
	}
	st, err := db.sql.PrepareContext(context.WithoutCancel(ctx), q)
	if err != nil {
		return nil
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[q] = st
	return st
}

// closePrepared closes the prepared statements, before the database.
func (db *DB) closePrepared() {
	c := &db.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.stmts {
		st.Close()
	}
	c.stmts = nil
}

// preparedTx runs a SQLite transaction's statements prepared.
type preparedTx struct {
	tx *sql.Tx
	db *DB
}

func (p preparedTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := p.db.prepared(ctx, q); st != nil {
		return p.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return p.tx.ExecContext(ctx, q, args...)
}

func (p preparedTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := p.db.prepared(ctx, q); st != nil {
		return p.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return p.tx.QueryContext(ctx, q, args...)
}

func (p preparedTx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st := p.db.prepared(ctx, q); st != nil {
		return p.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return p.tx.QueryRowContext(ctx, q, args...)
}
