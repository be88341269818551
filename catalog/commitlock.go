package catalog

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// BeginCommit starts the read-write transaction of a snapshot commit.
//
// On SQLite it is BeginWrite: BEGIN IMMEDIATE already serialises writers.
// On PostgreSQL the transaction's connection first takes a session advisory
// lock of the catalog schema, so the commits of lakepg servers sharing the
// catalog queue for the next snapshot id instead of racing for it: without
// it, of two servers building on one head the second to insert head+1 fails
// on the primary key and sleeps DuckDB's backoff (50-100 ms and more) before
// retrying, which bounds a cluster to a few hundred commits/s with a p99 of
// a second. The lock is taken before BEGIN, so the REPEATABLE READ snapshot
// the commit reads the head in is taken after the previous lock holder
// committed. DuckDB does not take the lock; against DuckDB the primary key
// still decides, with the retries of the optimistic protocol. Nothing but
// the order of lakepg's own commits depends on the lock: the conflict checks
// are unchanged.
func (db *DB) BeginCommit(ctx context.Context) (*Tx, error) {
	if db.d.name != "postgres" {
		return db.BeginWrite(ctx)
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(hashtext($1))`, commitLockKey(db.schema)); err != nil {
		discard(conn)
		return nil, fmt.Errorf("catalog: commit lock: %w", err)
	}
	tx, err := conn.BeginTx(ctx, db.d.writeTx)
	if err != nil {
		t := &Tx{db: db, lock: conn}
		t.unlock()
		return nil, err
	}
	return &Tx{tx: tx, db: db, lock: conn}, nil
}

// commitLockKey names the advisory lock of commits to the catalog in schema.
func commitLockKey(schema string) string { return "lakepg commit " + schema }

// unlock releases the commit lock, if the transaction holds one, and returns
// its connection to the pool; a connection whose unlock failed is closed
// (which releases the lock with the session).
func (t *Tx) unlock() {
	if t.lock == nil {
		return
	}
	conn := t.lock
	t.lock = nil
	if _, err := conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock(hashtext($1))`, commitLockKey(t.db.schema)); err != nil {
		discard(conn)
		return
	}
	conn.Close()
}

// discard closes conn's database connection instead of pooling it.
func discard(conn interface {
	Raw(func(any) error) error
	Close() error
}) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	conn.Close()
}

type pendingStmt struct {
	q    string
	args []any
}

// ExecDeferred runs a statement whose result the caller does not need
// (an INSERT or an UPDATE by key). In a commit transaction on PostgreSQL
// it is queued and sent with the next statements in one pipelined round
// trip, right before the next query, exec or the commit; otherwise it runs
// now. An error of a queued statement is returned by the call that sent it
// and kept in DeferredErr.
func (t *Tx) ExecDeferred(ctx context.Context, q string, args ...any) error {
	if t.lock == nil {
		_, err := t.ExecContext(ctx, q, args...)
		return err
	}
	if t.deferredErr != nil {
		return t.deferredErr
	}
	t.pending = append(t.pending, pendingStmt{q: t.db.d.rebind(q), args: t.db.d.args(args)})
	return nil
}

// DeferredErr is the first error of a statement ExecDeferred queued: the
// cause when later statements of the transaction fail because it aborted.
func (t *Tx) DeferredErr() error { return t.deferredErr }

// flush sends the queued statements as one pipelined batch.
func (t *Tx) flush(ctx context.Context) error {
	if t.deferredErr != nil {
		return t.deferredErr
	}
	if len(t.pending) == 0 {
		return nil
	}
	pending := t.pending
	t.pending = nil
	err := t.lock.Raw(func(dc any) error {
		conn := dc.(*stdlib.Conn).Conn()
		b := &pgx.Batch{}
		for _, p := range pending {
			b.Queue(p.q, p.args...)
		}
		catalogQueries.Add(1) // one round trip, however many statements (the tracer sees no batch)
		br := conn.SendBatch(ctx, b)
		for i := range pending {
			if _, err := br.Exec(); err != nil {
				br.Close()
				return fmt.Errorf("catalog: %s: %w", firstWords(pending[i].q), err)
			}
		}
		return br.Close()
	})
	if err != nil {
		t.deferredErr = err
	}
	return err
}

// firstWords names a statement in an error without the whole SQL.
func firstWords(q string) string {
	f := strings.Fields(q)
	if len(f) > 3 {
		f = f[:3]
	}
	return strings.Join(f, " ")
}

// Savepoint marks where RollbackTo returns to. On PostgreSQL it goes out
// with the next pipelined batch, costing no round trip of its own.
func (t *Tx) Savepoint(ctx context.Context, name string) error {
	return t.ExecDeferred(ctx, "SAVEPOINT "+name)
}

// ReleaseAndFlush forgets savepoint name and sends every queued statement
// now, so that an error of the statements since the savepoint is known
// (and returned) while they can still be rolled back alone.
func (t *Tx) ReleaseAndFlush(ctx context.Context, name string) error {
	if err := t.ExecDeferred(ctx, "RELEASE SAVEPOINT "+name); err != nil {
		return err
	}
	if t.lock == nil {
		return nil
	}
	return t.flush(ctx)
}

// RollbackTo undoes everything since savepoint name, queued statements and
// a failed pipelined batch included, leaving the transaction usable.
func (t *Tx) RollbackTo(ctx context.Context, name string) error {
	if t.lock != nil && t.deferredErr == nil {
		// the savepoint itself may still be queued
		_ = t.flush(ctx)
	}
	t.pending, t.deferredErr = nil, nil
	_, err := t.tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT "+name)
	return err
}
