package slt

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// PgxDB is a DB over one pgx connection in the simple query protocol (each record is sent
// as one Query message, results come back in text format, as psql would see them).
//
// When a record leaves the connection unusable (a timeout, a server that died), the
// connection is dropped; Recover, when set, is called before the next record connects again,
// so a test can restart a dead or stuck server.
type PgxDB struct {
	Connect func(ctx context.Context) (*pgx.Conn, error)
	Recover func(ctx context.Context) error

	conn   *pgx.Conn
	broken bool
}

// Close closes the connection.
func (d *PgxDB) Close(ctx context.Context) {
	if d.conn != nil {
		_ = d.conn.Close(ctx)
		d.conn = nil
	}
}

func (d *PgxDB) get(ctx context.Context) (*pgx.Conn, error) {
	if d.conn != nil && d.conn.IsClosed() {
		d.conn = nil
		d.broken = true
	}
	if d.conn != nil {
		return d.conn, nil
	}
	if d.broken && d.Recover != nil {
		if err := d.Recover(ctx); err != nil {
			return nil, err
		}
	}
	c, err := d.Connect(ctx)
	if err != nil {
		return nil, err
	}
	d.conn, d.broken = c, false
	return c, nil
}

// after drops the connection when the statement left it closed or timed out.
func (d *PgxDB) after(ctx context.Context, err error) {
	if err == nil || d.conn == nil {
		return
	}
	if d.conn.IsClosed() || ctx.Err() != nil {
		d.Close(context.Background())
		d.broken = true
	}
}

func (d *PgxDB) Exec(ctx context.Context, sql string) error {
	c, err := d.get(ctx)
	if err != nil {
		return err
	}
	_, err = c.Exec(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	d.after(ctx, err)
	return err
}

func (d *PgxDB) Query(ctx context.Context, sql string) (*Result, error) {
	c, err := d.get(ctx)
	if err != nil {
		return nil, err
	}
	res, err := query(ctx, c, sql)
	d.after(ctx, err)
	return res, err
}

func query(ctx context.Context, c *pgx.Conn, sql string) (*Result, error) {
	rows, err := c.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	res := &Result{}
	for _, fd := range rows.FieldDescriptions() {
		res.Columns = append(res.Columns, Column{Name: fd.Name, OID: fd.DataTypeOID})
	}
	for rows.Next() {
		raw := rows.RawValues()
		row := make([]Value, len(raw))
		for i, b := range raw {
			if b == nil {
				row[i] = Value{Null: true}
			} else {
				row[i] = Value{Text: string(b)}
			}
		}
		res.Rows = append(res.Rows, row)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return res, nil
}
