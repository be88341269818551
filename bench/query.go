package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// querier runs one query and reports its time: lakepg and PostgreSQL through pgx, DuckDB
// through its driver.
type querier interface {
	query(ctx context.Context, sql string, timeout time.Duration) (secs float64, rows int, err error)
	close()
}

// pgQuerier runs queries on one pgx connection in pgx's "exec" mode: the extended
// protocol in a single round trip, with no statement cached between runs, so every run
// parses and plans. Rows are read as raw values, undecoded. After a timeout the
// connection is replaced.
type pgQuerier struct {
	dsn           string
	conn          *pgx.Conn
	serverTimeout bool // set statement_timeout (PostgreSQL); else cancel from the client
	timeout       time.Duration
}

func newPGQuerier(ctx context.Context, dsn string, serverTimeout bool) (*pgQuerier, error) {
	q := &pgQuerier{dsn: dsn, serverTimeout: serverTimeout}
	return q, q.connect(ctx)
}

func (q *pgQuerier) connect(ctx context.Context) error {
	cfg, err := pgx.ParseConfig(q.dsn)
	if err != nil {
		return err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	q.conn, q.timeout = c, 0
	return nil
}

func (q *pgQuerier) query(ctx context.Context, sql string, timeout time.Duration) (float64, int, error) {
	if q.conn == nil || q.conn.IsClosed() {
		if err := q.connect(ctx); err != nil {
			return 0, 0, err
		}
	}
	if q.serverTimeout && q.timeout != timeout {
		if _, err := q.conn.Exec(ctx, fmt.Sprintf("SET statement_timeout = %d", timeout.Milliseconds())); err != nil {
			return 0, 0, err
		}
		q.timeout = timeout
	}
	limit := timeout
	if q.serverTimeout {
		limit += 30 * time.Second // the server's timeout fires first
	}
	qctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	start := time.Now()
	n, err := drain(qctx, q.conn, sql)
	secs := time.Since(start).Seconds()
	if err != nil {
		var pe *pgconn.PgError
		timedOut := errors.Is(qctx.Err(), context.DeadlineExceeded) || (errors.As(err, &pe) && pe.Code == "57014")
		if ctx.Err() == nil && (timedOut || q.conn.IsClosed()) {
			// The connection may be mid-cancel: start afresh.
			q.conn.Close(context.Background())
			q.conn = nil
		}
		if timedOut && ctx.Err() == nil {
			return secs, 0, errTimeout
		}
		return secs, 0, err
	}
	return secs, n, nil
}

// drain runs a query and reads every row without decoding it.
func drain(ctx context.Context, c *pgx.Conn, sql string) (int, error) {
	rows, err := c.Query(ctx, sql)
	if err != nil {
		return 0, err
	}
	n := 0
	for rows.Next() {
		_ = rows.RawValues()
		n++
	}
	rows.Close()
	return n, rows.Err()
}

func (q *pgQuerier) close() {
	if q.conn != nil {
		q.conn.Close(context.Background())
	}
}

// duckQuerier runs queries on a DuckDB process; the time is DuckDB's own (execute and
// fetch), measured inside the process. Rows are read as Arrow record batches and
// dropped, as pgQuerier reads lakepg's rows without decoding them.
type duckQuerier struct{ d *duck }

func (q duckQuerier) query(_ context.Context, sql string, timeout time.Duration) (float64, int, error) {
	rep, err := q.d.drain(sql, timeout)
	return rep.Seconds, rep.Rows, err
}

func (q duckQuerier) close() {}
