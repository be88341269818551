package catalog

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// BeginCommit starts the read-write transaction of a snapshot commit;
// reads, when not nil, names what the commit will read in it (see
// CommitReads).
//
// On SQLite it is BeginWrite, BEGIN IMMEDIATE already serialising writers,
// followed by the reads, run one by one under the writer lock.
//
// On PostgreSQL the transaction takes a transaction-level advisory lock of
// the catalog schema first thing, so the commits of lakepg servers sharing
// the catalog queue for the next snapshot id instead of racing for it:
// without it, of two servers building on one head the second to insert
// head+1 fails on the primary key and sleeps DuckDB's backoff (50-100 ms
// and more) before retrying, which bounds a cluster to a few hundred
// commits/s with a p99 of a second.
//
// Everything the lock is held for costs every server's commits, so the
// transaction spends as few round trips as it can holding it: BEGIN, the
// lock, the head and the reads go out in one pipelined batch, and the
// writes and COMMIT (which releases the lock) in another (commitPipelined).
// That is why the transaction runs at READ COMMITTED: each statement reads
// what was committed when it starts, so the reads after the lock see the
// previous holder's commit (a REPEATABLE READ snapshot would be taken by
// the statement that waits for the lock, before the holder committed).
// Between lakepg's commits nothing moves while the lock is held. DuckDB
// does not take the lock; a DuckDB commit that lands after the head was
// read has id head+1, so this commit's ducklake_snapshot insert fails on
// the primary key and is retried on the new head, as with REPEATABLE READ
// (LostRace). The conflict checks are unchanged.
func (db *DB) BeginCommit(ctx context.Context, reads *CommitReads) (*Tx, error) {
	if reads != nil && len(reads.Tables) > maxPrefetchTables {
		r := *reads
		r.Tables = r.Tables[:maxPrefetchTables]
		reads = &r
	}
	if db.d.name != "postgres" {
		t, err := db.BeginWrite(ctx)
		if err != nil || reads == nil {
			return t, err
		}
		if err := t.readAhead(ctx, reads); err != nil { // commitreads.go
			t.Rollback()
			return nil, fmt.Errorf("catalog: begin commit: %w", err)
		}
		return t, nil
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, err
	}
	t := &Tx{db: db, lock: conn}
	err = conn.Raw(func(dc any) error {
		b := &pgx.Batch{}
		b.Queue(`BEGIN ISOLATION LEVEL READ COMMITTED`)
		b.Queue(`SELECT pg_advisory_xact_lock(hashtext($1))`, commitLockKey(db.schema))
		if reads != nil {
			for _, st := range db.readQueries(reads) {
				b.Queue(st.q, st.args...)
			}
		}
		catalogQueries.Add(1) // one round trip, however many statements (the tracer sees no batch)
		br := dc.(*stdlib.Conn).Conn().SendBatch(ctx, b)
		if _, err := br.Exec(); err != nil {
			br.Close()
			return err
		}
		if _, err := br.Exec(); err != nil {
			br.Close()
			return fmt.Errorf("commit lock: %w", err)
		}
		if reads != nil {
			p, err := readPrefetch(func() (prefetchRows, error) { return br.Query() }, reads)
			if err != nil {
				br.Close()
				return err
			}
			t.pre = p
		}
		return br.Close()
	})
	if err != nil {
		// closing the connection ends the transaction and releases the lock
		discard(conn)
		return nil, fmt.Errorf("catalog: begin commit: %w", err)
	}
	return t, nil
}

// commitLockKey names the advisory lock of commits to the catalog in schema.
func commitLockKey(schema string) string { return "lakepg commit " + schema }

// unlock returns a BeginWrite transaction's connection, if it has one, to
// the pool.
func (t *Tx) unlock() {
	if t.lock == nil {
		return
	}
	conn := t.lock
	t.lock = nil
	conn.Close()
}

// commitPipelined sends the queued statements and COMMIT in one round trip;
// COMMIT releases the commit lock.
func (t *Tx) commitPipelined(ctx context.Context) error {
	if t.ended {
		return sql.ErrTxDone
	}
	if t.deferredErr != nil {
		err := t.deferredErr
		t.rollbackPipelined()
		return err
	}
	pending := coalesce(t.pending) // coalesce.go
	t.pending, t.pre, t.ended = nil, nil, true
	conn := t.lock
	t.lock = nil
	committed := false
	err := conn.Raw(func(dc any) error {
		b := &pgx.Batch{}
		for _, p := range pending {
			b.Queue(p.q, p.args...)
		}
		b.Queue(`COMMIT`)
		catalogQueries.Add(1)
		br := dc.(*stdlib.Conn).Conn().SendBatch(ctx, b)
		defer br.Close()
		for i := range pending {
			if _, err := br.Exec(); err != nil {
				return fmt.Errorf("catalog: %s: %w", firstWords(pending[i].q), err)
			}
		}
		tag, err := br.Exec()
		if err != nil {
			return fmt.Errorf("catalog: commit: %w", err)
		}
		if tag.String() != "COMMIT" { // "ROLLBACK": the transaction had failed
			return fmt.Errorf("catalog: commit: the transaction was rolled back")
		}
		committed = true
		return br.Close()
	})
	if err != nil {
		// a connection in an unknown state is closed, which ends any
		// transaction on it
		discard(conn)
		if committed {
			// the COMMIT itself succeeded: reporting a failure would make
			// the caller retry, and commit twice
			return nil
		}
		t.deferredErr = err
		return err
	}
	conn.Close()
	return nil
}

// rollbackPipelined ends a commit transaction without committing, which
// releases the commit lock.
func (t *Tx) rollbackPipelined() error {
	if t.ended {
		return nil
	}
	t.ended, t.pending, t.pre = true, nil, nil
	conn := t.lock
	t.lock = nil
	if _, err := conn.ExecContext(context.Background(), `ROLLBACK`); err != nil {
		discard(conn)
		return nil // closing the connection rolled back
	}
	conn.Close()
	return nil
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
	if !t.keep {
		t.pre = nil
	}
	return t.execDeferred(ctx, q, args...)
}

// execDeferred is ExecDeferred without ending the answers read ahead, for
// statements that change no data (savepoints).
func (t *Tx) execDeferred(ctx context.Context, q string, args ...any) error {
	if t.tx != nil {
		t.sent++
		_, err := t.q().ExecContext(ctx, t.db.d.rebind(q), t.db.d.args(args)...) // prepared on SQLite
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
	if len(t.pending) == 0 || t.tx != nil {
		return nil
	}
	pending := coalesce(t.pending)
	t.pending = nil
	t.sent++
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
	return t.execDeferred(ctx, "SAVEPOINT "+name)
}

// ReleaseAndFlush forgets savepoint name and sends every queued statement
// now, so that an error of the statements since the savepoint is known
// (and returned) while they can still be rolled back alone.
func (t *Tx) ReleaseAndFlush(ctx context.Context, name string) error {
	if err := t.execDeferred(ctx, "RELEASE SAVEPOINT "+name); err != nil {
		return err
	}
	if t.tx != nil {
		return nil
	}
	return t.flush(ctx)
}

// RollbackTo undoes everything since savepoint name, queued statements and
// a failed pipelined batch included, leaving the transaction usable.
func (t *Tx) RollbackTo(ctx context.Context, name string) error {
	if t.tx == nil && t.deferredErr == nil {
		// the savepoint itself may still be queued
		_ = t.flush(ctx)
	}
	t.pending, t.deferredErr, t.pre = nil, nil, nil
	_, err := t.q().ExecContext(ctx, "ROLLBACK TO SAVEPOINT "+name)
	return err
}
