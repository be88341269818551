package catalog

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"
)

// dialect is everything that differs between catalog backends. Queries
// elsewhere in lakepg are written once, with '?' placeholders and SQL that
// SQLite and PostgreSQL both accept; only what is listed here may differ.
type dialect struct {
	name string
	// dollarParams: the driver wants $1, $2, ... instead of '?'.
	dollarParams bool
	// columnType maps the type a DuckLake catalog column has in DuckDB's own
	// DDL (BIGINT, VARCHAR, BOOLEAN, UUID, TIMESTAMPTZ) to the type declared
	// in this backend.
	columnType func(duckdbType string) string
	// inlinedColumnType maps a DuckLake column type (int32, varchar, ...) to
	// the type DuckDB declares for it in a ducklake_inlined_data_* table on
	// this backend; ok is false where DuckDB would not inline the column.
	inlinedColumnType func(ducklakeType string) (typ string, ok bool)
	// tableExists is a query with one parameter (a table name) that returns
	// a row if that table exists in the catalog database.
	tableExists string
	// timeArg turns a timestamptz value into what this backend stores.
	timeArg func(time.Time) any
	// writeTx and readTx are the options of BeginWrite's and of the
	// read-only transactions; nil is the driver's default.
	writeTx, readTx *sql.TxOptions
	// bootstrapTxOpts are the options of the transaction that creates a
	// catalog; prepareCatalog, when set, runs first in it.
	bootstrapTxOpts *sql.TxOptions
	prepareCatalog  func(ctx context.Context, tx *sql.Tx, schema string) error
	// oneOff, when set, replaces oneOffQuery at the head of a query's
	// arguments (oneOffArgs) for the driver.
	oneOff any
}

// oneOffQuery leads the arguments of a query whose text is one table's own
// (it names that table's ducklake_inlined_data_* or ducklake_inlined_delete_*
// table): such a text is not kept prepared. pgx prepares and caches every
// statement it has not seen: such a query took two round trips (prepare,
// then run) and, with thousands of tables, pushed the catalog's common
// statements out of the connection's statement cache, so that they were
// parsed again. On PostgreSQL these run unprepared, in one round trip; on
// SQLite they stay out of the prepared statements (sqlitestmts.go), whose
// room is for the texts every statement runs.
type oneOffQuery struct{}

// oneOffArgs are the arguments of a one table's own query text.
func (d *dialect) oneOffArgs(args ...any) []any {
	return append([]any{oneOffQuery{}}, args...)
}

// oneOffQueryArgs reports whether args lead with oneOffQuery, and returns
// them as the driver takes them.
func (d *dialect) oneOffQueryArgs(args []any) ([]any, bool) {
	if len(args) == 0 || args[0] != (oneOffQuery{}) {
		return args, false
	}
	if d.oneOff == nil {
		return args[1:], true
	}
	out := append([]any{d.oneOff}, args[1:]...)
	return out, true
}

// sqliteDialect mirrors what DuckDB itself leaves in a SQLite file when it
// creates a DuckLake there: DuckDB's sqlite extension rewrites every column
// type with ToSQLiteType before running CREATE TABLE, so BOOLEAN and the
// integer types become BIGINT and everything else that is not a float or a
// blob (UUID, TIMESTAMPTZ, VARCHAR) becomes VARCHAR. The DuckLake 1.5 reader
// then sees exactly the types it sees on a catalog it made itself: booleans as
// 0/1 integers, uuids and timestamps as text that it casts
// (snapshot_time::TIMESTAMPTZ). Declaring TIMESTAMPTZ instead would make the
// sqlite extension read the column as a TIMESTAMP without time zone.
var sqliteDialect = &dialect{
	name: "sqlite",
	columnType: func(t string) string {
		switch t {
		case "BIGINT", "BOOLEAN":
			return "BIGINT"
		default:
			return "VARCHAR"
		}
	},
	inlinedColumnType: sqliteInlinedColumnType,
	tableExists:       "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?",
	timeArg:           func(t time.Time) any { return FormatTime(t) },
	// The writer lock comes from _txlock=immediate in the connection string.
	readTx: &sql.TxOptions{ReadOnly: true},
}

// sqliteInlinedColumnType follows DuckDB's SQLite metadata manager (floats,
// timestamptz, nested types and variant stored as VARCHAR text) composed with
// the sqlite extension's type mapping applied when the table is created.
func sqliteInlinedColumnType(t string) (string, bool) {
	base := strings.ToLower(t)
	if i := strings.IndexByte(base, '('); i >= 0 {
		base = base[:i]
	}
	switch base {
	case "variant", "geometry":
		return "", false
	case "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32":
		return "BIGINT", true
	case "blob":
		return "BLOB", true
	default:
		return "VARCHAR", true
	}
}

// rebind rewrites '?' placeholders to $1, $2, ... for backends that need it,
// leaving question marks inside string literals and quoted identifiers alone.
func (d *dialect) rebind(q string) string {
	if !d.dollarParams || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// args converts Go values into what the backend stores: time.Time becomes the
// backend's timestamptz representation. Everything else passes through
// (modernc.org/sqlite binds bool as 0/1, pgx as boolean).
func (d *dialect) args(in []any) []any {
	var out []any
	for i, a := range in {
		var conv any
		switch v := a.(type) {
		case time.Time:
			conv = d.timeArg(v)
		case *time.Time:
			if v == nil {
				conv = nil
			} else {
				conv = d.timeArg(*v)
			}
		default:
			if out != nil {
				out[i] = a
			}
			continue
		}
		if out == nil {
			out = make([]any, len(in))
			copy(out, in[:i])
		}
		out[i] = conv
	}
	if out == nil {
		return in
	}
	return out
}
