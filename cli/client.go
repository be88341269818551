package cli

import (
	"context"
	"io"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/types"
)

// client runs statements on a server over the simple query protocol, as
// psql does, so that every statement kind (SET, SHOW, EXPLAIN) behaves the
// same as there.
type client struct {
	pc       *pgconn.PgConn
	onNotice func(Notice)
}

// OpenClient connects to the server at dsn (postgres://…).
func OpenClient(ctx context.Context, dsn string) (Conn, error) {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "lakepg shell"
	}
	c := &client{}
	cfg.OnNotice = c.notice
	pc, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	c.pc = pc
	return c, nil
}

func (c *client) Run(ctx context.Context, stmt string, sink Sink) (string, error) {
	mrr := c.pc.Exec(ctx, stmt)
	var (
		tag  string
		rerr error
	)
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		if fds := rr.FieldDescriptions(); len(fds) > 0 && rerr == nil {
			cols := make([]Column, len(fds))
			for i, fd := range fds {
				t, ok := types.FromOID(fd.DataTypeOID)
				if !ok {
					t = types.TextT
				}
				cols[i] = Column{Name: fd.Name, Type: t}
			}
			rerr = sink.Columns(cols)
		}
		for rerr == nil && rr.NextRow() {
			rerr = sink.Row(rr.Values())
		}
		ct, err := rr.Close()
		if err != nil && rerr == nil {
			rerr = err
		}
		tag = ct.String()
	}
	if err := mrr.Close(); err != nil && rerr == nil {
		rerr = err
	}
	if rerr != nil {
		return "", rerr
	}
	return tag, nil
}

func (c *client) CopyFrom(ctx context.Context, stmt string, r io.Reader) (int64, error) {
	ct, err := c.pc.CopyFrom(ctx, r, stmt)
	if err != nil {
		return 0, err
	}
	return ct.RowsAffected(), nil
}

func (c *client) Close() error { return c.pc.Close(context.Background()) }
