package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// DefaultSchema is the PostgreSQL schema a catalog lives in when Options
// name none: DuckDB's ducklake extension puts its tables in the database's
// default schema, public, unless ATTACH names a METADATA_SCHEMA.
const DefaultSchema = "public"

// postgresDialect mirrors what DuckDB's ducklake extension leaves in a
// PostgreSQL database: it sends its own DDL through postgres_execute, so the
// fixed tables get exactly the DuckDB type names PostgreSQL also knows
// (BIGINT, VARCHAR, BOOLEAN, UUID, TIMESTAMPTZ), and values come back typed:
// booleans as bool, timestamps as time.Time, uuids as text.
var postgresDialect = &dialect{
	name:              "postgres",
	dollarParams:      true,
	columnType:        func(t string) string { return t },
	inlinedColumnType: postgresInlinedColumnType,
	// current_schema() is the first schema of search_path that exists, which
	// is the chosen catalog schema or, when that does not exist yet, NULL:
	// exactly where the catalog's unqualified names resolve.
	tableExists: `SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relname = ? AND c.relkind IN ('r', 'p')`,
	timeArg: func(t time.Time) any { return t },
	// REPEATABLE READ, deliberately. A commit decides everything (conflict
	// checks, ids, row ids, stats) from what it reads after the head, so all
	// of it must come from the one view in which that head is the latest
	// snapshot; READ COMMITTED would let each statement see commits that
	// landed after the head was read. Writers are then serialised by the
	// ducklake_snapshot primary key: the commit inserts head+1 before
	// anything else, so a writer that read the same head gets 23505 (or
	// waits for the winner and then gets it), and any row it would update
	// under a winner's feet gives 40001. Both roll back and retry on a fresh
	// view (see LostRace). SERIALIZABLE would add nothing the primary key
	// does not already give, and DuckDB does not use it.
	writeTx: &sql.TxOptions{Isolation: sql.LevelRepeatableRead},
	// Reads (Load, Files) make several queries that must agree with each
	// other, so they share one snapshot too.
	readTx:          &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true},
	prepareCatalog:  preparePostgresCatalog,
	bootstrapTxOpts: &sql.TxOptions{Isolation: sql.LevelReadCommitted},
	oneOff:          pgx.QueryExecModeExec,
}

// postgresInlinedColumnType follows DuckDB 1.5's PostgreSQL metadata manager:
// types PostgreSQL cannot hold exactly become VARCHAR (dates and timestamps
// have narrower ranges there, unsigned 64-bit and 128-bit integers do not
// exist, nested types have no unnamed composite), text and blobs become BYTEA
// (PostgreSQL text cannot hold a NUL byte), the remaining scalars use the
// PostgreSQL spelling of their DuckDB type. Variant and geometry are never
// inlined.
func postgresInlinedColumnType(t string) (string, bool) {
	base := strings.ToLower(strings.TrimSpace(t))
	args := ""
	if i := strings.IndexByte(base, '('); i >= 0 {
		base, args = base[:i], base[i:]
	}
	switch base {
	case "variant", "geometry":
		return "", false
	case "boolean":
		return "BOOLEAN", true
	case "int8", "int16":
		return "SMALLINT", true
	case "int32", "uint8", "uint16":
		return "INTEGER", true
	case "int64", "uint32":
		return "BIGINT", true
	case "float32":
		return "REAL", true
	case "float64":
		return "DOUBLE PRECISION", true
	case "decimal":
		return "DECIMAL" + strings.ToUpper(args), true
	case "time":
		return "TIME", true
	case "timetz":
		return "TIME WITH TIME ZONE", true
	case "interval":
		return "INTERVAL", true
	case "uuid":
		return "UUID", true
	case "varchar", "json", "blob":
		return "BYTEA", true
	default:
		// uint64, int128, uint128, date, timestamp*, struct, list, map
		return "VARCHAR", true
	}
}

// postgresDSN turns the catalog DSN into one pgx parses: postgres:// and
// postgresql:// URLs pass through, and DuckDB's own spelling
// postgres:dbname=... host=... (a libpq keyword/value string) loses its
// prefix.
func postgresDSN(dsn string) string {
	for _, p := range []string{"postgres://", "postgresql://"} {
		if strings.HasPrefix(dsn, p) {
			return dsn
		}
	}
	for _, p := range []string{"postgresql:", "postgres:"} {
		if rest, ok := strings.CutPrefix(dsn, p); ok {
			return rest
		}
	}
	return dsn
}

// catalogIdleConns and catalogIdleTime bound the idle catalog connections
// a server keeps: enough for its sessions' catalog queries and a commit in
// flight at once, released when idle for a few seconds.
const (
	catalogIdleConns = 16
	catalogIdleTime  = 10 * time.Second
)

// openPostgres connects through pgx's database/sql driver with search_path
// set to the catalog schema alone, so every unqualified ducklake_* name in
// lakepg's queries means the table in that schema, as DuckDB's
// {METADATA_CATALOG}-qualified names do.
func openPostgres(dsn, schema string) (*DB, error) {
	if schema == "" {
		schema = DefaultSchema
	}
	cfg, err := pgx.ParseConfig(postgresDSN(dsn))
	if err != nil {
		return nil, fmt.Errorf("catalog: PostgreSQL DSN: %w", err)
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["search_path"] = quoteIdent(schema)
	cfg.Tracer = countingTracer{}
	db := stdlib.OpenDB(*cfg)
	// database/sql keeps 2 idle connections by default: with more sessions
	// than that querying at once, every query beyond them opened a new
	// PostgreSQL connection (a backend start, a login, and the statement
	// cache refilled with a Parse per statement) and closed it again. Idle
	// connections go after a while, so an idle server holds few.
	db.SetMaxIdleConns(catalogIdleConns)
	db.SetConnMaxIdleTime(catalogIdleTime)
	return &DB{sql: db, d: postgresDialect, schema: schema}, nil
}

// preparePostgresCatalog runs first in the transaction that creates a
// catalog: it serialises lakepg servers creating the same catalog at once
// (an advisory lock on the schema name; CREATE TABLE would otherwise fail in
// the slower one) and creates the schema when it does not exist yet, as
// DuckDB does for a METADATA_SCHEMA.
func preparePostgresCatalog(ctx context.Context, tx *sql.Tx, schema string) error {
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "lakepg catalog "+schema); err != nil {
		return fmt.Errorf("catalog: lock schema %q: %w", schema, err)
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_catalog.pg_namespace WHERE nspname = $1`, schema).Scan(&n); err != nil {
		return fmt.Errorf("catalog: probe schema %q: %w", schema, err)
	}
	if n > 0 {
		return nil
	}
	// Only when missing: CREATE SCHEMA IF NOT EXISTS still needs the CREATE
	// privilege on the database, which a user of an existing schema may
	// lack.
	if _, err := tx.ExecContext(ctx, `CREATE SCHEMA `+quoteIdent(schema)); err != nil {
		return fmt.Errorf("catalog: create schema %q: %w", schema, err)
	}
	return nil
}

var dsnPassword = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*)`)

// RedactDSN is a catalog DSN fit for logs: a password in a PostgreSQL URL's
// user information or in a password= parameter is replaced by "xxxxx".
func RedactDSN(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		if u, err := url.Parse(dsn); err == nil {
			dsn = u.Redacted()
		}
	}
	if !strings.HasPrefix(dsn, "postgres") {
		return dsn
	}
	return dsnPassword.ReplaceAllString(dsn, "${1}xxxxx")
}
