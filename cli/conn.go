package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Column is one result column as the shell shows it.
type Column struct {
	Name string
	Type types.T
}

// Sink receives one statement's result: Columns once (only for statements
// that return rows), then each row as text values (nil = NULL). The values
// are only valid during the call.
type Sink interface {
	Columns(cols []Column) error
	Row(vals [][]byte) error
}

// Conn runs SQL statements, embedded or against a server. It is the one
// interface with two real implementations (embedded, client).
type Conn interface {
	// Run runs one statement, streaming its rows into sink, and returns its
	// command tag ("SELECT 2", "CREATE TABLE", ...).
	Run(ctx context.Context, stmt string, sink Sink) (tag string, err error)
	Close() error
}

// copier is the optional ability of a client connection to stream COPY FROM
// STDIN data; embedded connections do not need it.
type copier interface {
	CopyFrom(ctx context.Context, stmt string, r io.Reader) (rows int64, err error)
}

// discard is a Sink that drops everything.
type discard struct{}

func (discard) Columns([]Column) error { return nil }
func (discard) Row([][]byte) error     { return nil }

// SQLState is the SQLSTATE of err: from a lakepg error (embedded) or a
// server's ErrorResponse (client), XX000 when it carries none.
func SQLState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return pgerr.Code(err)
}

// isSQLError reports whether err came from a statement (it has a SQLSTATE).
func isSQLError(err error) bool {
	var pe *pgconn.PgError
	_, ok := pgerr.As(err)
	return ok || errors.As(err, &pe)
}

// errorLine is how every command reports a failed statement.
func errorLine(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Sprintf("ERROR: %s (SQLSTATE %s)", pe.Message, pe.Code)
	}
	if e, ok := pgerr.As(err); ok {
		return fmt.Sprintf("ERROR: %s (SQLSTATE %s)", e.Message, e.Code)
	}
	return fmt.Sprintf("ERROR: %s (SQLSTATE %s)", err.Error(), pgerr.Internal)
}
