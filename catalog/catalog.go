package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	_ "modernc.org/sqlite" // registers driver "sqlite"
)

// Version is the lakepg version recorded in ducklake_metadata.created_by
// ('lakepg <Version>') when a catalog is created. cmd/lakepg may set it.
var Version = "dev"

// ErrSnapshotNotFound is returned when a requested snapshot does not exist
// (never existed, or was expired).
var ErrSnapshotNotFound = errors.New("catalog: snapshot not found")

// busyTimeoutMS is how long a SQLite connection waits for another writer's
// lock before failing with "database is locked". Commits are short, so ten
// seconds only runs out when something is stuck.
const busyTimeoutMS = 10000

// DB is an open DuckLake catalog.
type DB struct {
	sql      *sql.DB
	d        *dialect
	dataPath string
	schema   string // PostgreSQL: the schema the catalog lives in
	// encrypted: ducklake_metadata encrypted = 'true' (DuckDB's ENCRYPTED
	// lakes: every data and delete file has its own key).
	encrypted bool
	// wantEncrypted: Options.Encrypted, for init
	wantEncrypted bool
	// format is ducklake_metadata.version (format.go), a string; it changes
	// when a migration is noticed (RecheckFormat). wantFormat is
	// Options.Format, for init.
	format     atomic.Value
	wantFormat string
	// tables caches tableExists (tablecache.go)
	tables tableCache
	// inlinedNames caches inlined-data tables' columns (commitreads.go)
	inlinedNames inlinedNames
	// stmts holds SQLite's prepared statements (sqlitestmts.go)
	stmts preparedCache
	// files keeps tables' file lists (filecache.go)
	files fileCache
	// indexesAdded, indexErr: what init did about lakepg's indexes
	// (indexes.go)
	indexesAdded []string
	indexErr     error
	// tableArrays: Advance's shared arrays of tables (metadelta.go)
	tableArrays tableArrays
}

// Encrypted reports whether the lake was created encrypted.
func (db *DB) Encrypted() bool { return db.encrypted }

// Options are the settings of OpenWithOptions that a DSN does not carry.
type Options struct {
	// Schema is the PostgreSQL schema holding the DuckLake tables (DuckDB's
	// METADATA_SCHEMA); "" means DefaultSchema. It is created with the
	// catalog if missing. SQLite catalogs have no schemas: it must be "".
	Schema string
	// Encrypted creates a new catalog as an encrypted lake (DuckDB's
	// ENCRYPTED: ducklake_metadata encrypted = 'true', every data and delete
	// file encrypted with its own key). Opening an existing unencrypted lake
	// with it is an error: it cannot be turned on afterwards, as in DuckDB.
	Encrypted bool
	// Format is the DuckLake format version of a new catalog ("1.0" or
	// "1.1"; "" means FormatVersion, 1.0). Opening an existing catalog of
	// another version with it is an error: Migrate moves a 1.0 catalog on.
	Format string
	// FileCacheBytes bounds the memory of the cached file lists (filecache.go);
	// 0 means DefaultFileCacheBytes. A table's list is cached only when it
	// takes at most half of it: the list of a table of 100,000 files with
	// two columns' statistics, with what planning derives from it, takes
	// about 90 MiB, so a table of 1,000,000 files needs a limit of 2 GiB or
	// its list is read from the catalog for every statement.
	FileCacheBytes int64
}

// Open opens or creates the catalog with default Options.
//
// dsn is "sqlite:PATH", a PostgreSQL URL ("postgres://..." or
// "postgresql://...") or DuckDB's "postgres:<libpq keywords>". dataPath is
// the data root (an absolute directory or an s3:// URL). When the catalog is
// created, dataPath is required and stored in ducklake_metadata.data_path
// with a trailing '/'. When it already exists the stored value wins; a
// non-empty dataPath that differs from it (after normalising the trailing
// slash) is an error, as DuckDB's DATA_PATH is.
func Open(ctx context.Context, dsn, dataPath string) (*DB, error) {
	return OpenWithOptions(ctx, dsn, dataPath, Options{})
}

// OpenWithOptions is Open with Options.
func OpenWithOptions(ctx context.Context, dsn, dataPath string, opts Options) (*DB, error) {
	var db *DB
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		if opts.Schema != "" {
			return nil, fmt.Errorf("catalog: a SQLite catalog has no schemas (schema %q given)", opts.Schema)
		}
		path := strings.TrimPrefix(dsn, "sqlite:")
		path = strings.TrimPrefix(path, "//")
		if path == "" {
			return nil, errors.New("catalog: empty SQLite path in DSN")
		}
		if strings.ContainsAny(path, "?#") {
			return nil, fmt.Errorf("catalog: SQLite path %q must not contain '?' or '#'", path)
		}
		// _txlock=immediate: every read-write transaction starts with BEGIN
		// IMMEDIATE, taking SQLite's single writer lock up front, so commits
		// (lakepg's and DuckDB's) are serialised and a commit reads the head
		// snapshot under the same lock it writes under. Read-only
		// transactions (Load, Files) still start with a plain BEGIN.
		conn := "file:" + path + fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(0)&_txlock=immediate", busyTimeoutMS)
		sdb, err := sql.Open("sqlite", conn)
		if err != nil {
			return nil, fmt.Errorf("catalog: open sqlite %s: %w", path, err)
		}
		// as openPostgres: a connection opened per query beyond database/sql's
		// 2 idle ones reads the schema again and loses its prepared statements
		sdb.SetMaxIdleConns(catalogIdleConns)
		sdb.SetConnMaxIdleTime(catalogIdleTime)
		db = &DB{sql: sdb, d: sqliteDialect}
	case strings.HasPrefix(dsn, "postgres:"), strings.HasPrefix(dsn, "postgresql:"):
		var err error
		if db, err = openPostgres(dsn, opts.Schema); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("catalog: unsupported catalog DSN %q (want sqlite:PATH or postgres://...)", dsn)
	}
	db.wantEncrypted = opts.Encrypted
	db.files.limit = DefaultFileCacheBytes
	if opts.FileCacheBytes > 0 {
		db.files.limit = opts.FileCacheBytes
	}
	if opts.Format != "" {
		f, err := ParseFormat(opts.Format)
		if err != nil {
			db.sql.Close()
			return nil, err
		}
		db.wantFormat = f
	}
	if err := db.init(ctx, dataPath); err != nil {
		db.sql.Close()
		return nil, err
	}
	return db, nil
}

// Close closes the catalog database.
func (db *DB) Close() error {
	db.closePrepared()
	return db.sql.Close()
}

// DataPath is the stored data_path, ending in '/'.
func (db *DB) DataPath() string { return db.dataPath }

// SQL is the underlying database handle, for package snapshot and tests.
// Queries on it must be written with Rebind in mind.
func (db *DB) SQL() *sql.DB { return db.sql }

// Rebind rewrites a query written with '?' placeholders for this backend.
func (db *DB) Rebind(q string) string { return db.d.rebind(q) }

// Dialect names the backend ("sqlite" or "postgres").
func (db *DB) Dialect() string { return db.d.name }

// Schema is the PostgreSQL schema the catalog lives in ("" for SQLite).
func (db *DB) Schema() string { return db.schema }

// InlinedColumnType is the column type DuckDB declares for a column of
// DuckLake type t in a ducklake_inlined_data_* table on this backend; ok is
// false when DuckDB would not inline such a column.
func (db *DB) InlinedColumnType(t string) (typ string, ok bool) { return db.d.inlinedColumnType(t) }

// normaliseDataPath gives the form stored in data_path: '/' separators, a
// trailing '/', and local directories made absolute so the lake does not
// depend on the server's working directory.
func normaliseDataPath(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	if !strings.Contains(p, "://") {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("catalog: data path %q: %w", p, err)
		}
		p = filepath.ToSlash(abs)
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p, nil
}

// init creates the catalog if it does not exist, then reads and checks the
// global metadata.
func (db *DB) init(ctx context.Context, dataPath string) error {
	want, err := normaliseDataPath(dataPath)
	if err != nil {
		return err
	}
	exists, err := db.tableExists(ctx, db.sql, "ducklake_metadata")
	if err != nil {
		return fmt.Errorf("catalog: probe catalog: %w", err)
	}
	if !exists {
		if want == "" {
			return errors.New("catalog: creating a new catalog needs a data path")
		}
		if err := db.bootstrap(ctx, want); err != nil {
			return err
		}
	}
	meta, err := db.globalMetadata(ctx)
	if err != nil {
		return err
	}
	f, err := checkStoredFormat(meta["version"])
	if err != nil {
		return err
	}
	db.format.Store(f)
	if db.wantFormat != "" && db.wantFormat != f {
		if f == Format10 {
			return fmt.Errorf("catalog: the lake is in DuckLake format %s, not %s: migrate it with 'lakepg migrate --to %s' (DuckDB 1.5 can no longer open it then)", f, db.wantFormat, db.wantFormat)
		}
		return fmt.Errorf("catalog: the lake is in DuckLake format %s, not %s: a migrated catalog cannot be downgraded", f, db.wantFormat)
	}
	switch meta["encrypted"] {
	case "true":
		db.encrypted = true
	case "false", "":
	default:
		// DuckDB rejects anything else too.
		return fmt.Errorf("catalog: ducklake_metadata encrypted is %q, want 'true' or 'false'", meta["encrypted"])
	}
	if db.wantEncrypted && !db.encrypted {
		return errors.New("catalog: the lake was created unencrypted; encryption can only be chosen when a lake is created")
	}
	stored, ok := meta["data_path"]
	if !ok || stored == "" {
		return errors.New("catalog: ducklake_metadata has no data_path")
	}
	if !strings.HasSuffix(stored, "/") {
		stored += "/"
	}
	if want != "" && want != stored {
		return fmt.Errorf("catalog: data path %q differs from the catalog's data_path %q", strings.TrimSuffix(want, "/")+"/", stored)
	}
	db.dataPath = stored
	db.indexesAdded, db.indexErr = db.ensureIndexes(ctx)
	return nil
}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (db *DB) globalMetadata(ctx context.Context) (map[string]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT "key", "value" FROM ducklake_metadata WHERE scope IS NULL`)
	if err != nil {
		return nil, fmt.Errorf("catalog: read ducklake_metadata: %w", err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("catalog: read ducklake_metadata: %w", err)
		}
		m[k] = v
	}
	return m, rows.Err()
}

// bootstrap creates the 28 tables (29 in format 1.1) and the rows of snapshot 0 in one
// transaction. Besides DuckLake's schema main (id 0) lakepg creates public
// (id 1), because PostgreSQL clients expect it; snapshot 0 records both.
func (db *DB) bootstrap(ctx context.Context, dataPath string) error {
	tx, err := db.sql.BeginTx(ctx, db.d.bootstrapTxOpts)
	if err != nil {
		return fmt.Errorf("catalog: create catalog: %w", err)
	}
	defer tx.Rollback()
	if db.d.prepareCatalog != nil {
		if err := db.d.prepareCatalog(ctx, tx, db.schema); err != nil {
			return err
		}
	}
	// Another process may have created the catalog while we waited for the
	// writer lock (SQLite) or the advisory lock (PostgreSQL); creating it
	// twice would fail on CREATE TABLE.
	exists, err := db.tableExists(ctx, tx, "ducklake_metadata")
	if err != nil {
		return fmt.Errorf("catalog: create catalog: %w", err)
	}
	if exists {
		return tx.Commit()
	}
	format := db.wantFormat
	if format == "" {
		format = FormatVersion
	}
	for _, t := range tablesOf(format) {
		if _, err := tx.ExecContext(ctx, db.d.createTableSQL(t)); err != nil {
			return fmt.Errorf("catalog: create %s: %w", t.name, err)
		}
	}
	for _, ix := range catalogIndexes {
		if _, err := tx.ExecContext(ctx, ix); err != nil {
			return fmt.Errorf("catalog: create index: %w", err)
		}
	}
	now := time.Now()
	mainUUID, err := uuid.NewV7()
	if err != nil {
		return err
	}
	publicUUID, err := uuid.NewV7()
	if err != nil {
		return err
	}
	stmts := []struct {
		q    string
		args []any
	}{
		{`INSERT INTO ducklake_snapshot VALUES (?, ?, ?, ?, ?)`, []any{0, now, 0, 2, 0}},
		{`INSERT INTO ducklake_snapshot_changes VALUES (?, ?, NULL, NULL, NULL)`, []any{0, `created_schema:"main",created_schema:"public"`}},
		{`INSERT INTO ducklake_metadata ("key", "value") VALUES (?, ?), (?, ?), (?, ?), (?, ?)`, []any{
			"version", format, "created_by", "lakepg " + Version, "data_path", dataPath, "encrypted", strconv.FormatBool(db.wantEncrypted)}},
		{`INSERT INTO ducklake_schema VALUES (?, ?, ?, NULL, ?, ?, ?), (?, ?, ?, NULL, ?, ?, ?)`, []any{
			0, mainUUID.String(), 0, "main", "main/", true,
			1, publicUUID.String(), 0, "public", "public/", true}},
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, db.d.rebind(s.q), db.d.args(s.args)...); err != nil {
			return fmt.Errorf("catalog: seed catalog: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("catalog: create catalog: %w", err)
	}
	return nil
}

// Tx is one read-write transaction on the catalog database. On SQLite it
// holds the writer lock from its start (BEGIN IMMEDIATE), so the head snapshot
// it reads cannot move until it ends. On PostgreSQL BeginWrite's is a
// REPEATABLE READ transaction without a lock: the head can move, and a
// commit built on a stale head fails on the ducklake_snapshot primary key
// (see LostRace); BeginCommit's holds the commit lock (commitlock.go). Exec
// and Query take '?' placeholders and convert time.Time arguments for the
// backend.
type Tx struct {
	// tx is the database/sql transaction; nil in a commit transaction on
	// PostgreSQL, whose BEGIN and COMMIT go pipelined over lock with other
	// statements (commitlock.go)
	tx *sql.Tx
	db *DB
	// lock is the connection holding the commit lock (BeginCommit on
	// PostgreSQL), released when the transaction ends; nil otherwise.
	lock *sql.Conn
	// ended: the transaction on lock was committed or rolled back
	ended bool
	// pending are ExecDeferred's statements not sent yet; deferredErr is
	// the first error sending them gave (commitlock.go).
	pending     []pendingStmt
	deferredErr error
	// pre are the answers BeginCommit read ahead, until the first write
	// unless keep (commitreads.go)
	pre  *commitPrefetch
	keep bool
	// sent counts the times statements of the transaction went to the
	// database (queued writes flushed, ExecContext): Undo's test
	sent int
}

// sqlTx is what Tx sends its statements through: a *sql.Tx, or the *sql.Conn
// a commit transaction on PostgreSQL runs on.
type sqlTx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (t *Tx) q() sqlTx {
	if t.tx != nil {
		if t.db.d.name == "sqlite" {
			return preparedTx{tx: t.tx, db: t.db}
		}
		return t.tx
	}
	return t.lock
}

// BeginWrite starts a read-write transaction.
func (db *DB) BeginWrite(ctx context.Context) (*Tx, error) {
	tx, err := db.sql.BeginTx(ctx, db.d.writeTx)
	if err != nil {
		return nil, err
	}
	return &Tx{tx: tx, db: db}, nil
}

// ExecContext runs a statement written with '?' placeholders.
func (t *Tx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	t.pre = nil
	t.sent++
	return t.q().ExecContext(ctx, t.db.d.rebind(q), t.db.d.args(args)...)
}

// QueryContext runs a query written with '?' placeholders.
func (t *Tx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	return t.q().QueryContext(ctx, t.db.d.rebind(q), t.db.d.args(args)...)
}

// QueryRowContext runs a query written with '?' placeholders.
func (t *Tx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	_ = t.flush(ctx) // an error aborts the transaction: the query fails too, DeferredErr says why
	return t.q().QueryRowContext(ctx, t.db.d.rebind(q), t.db.d.args(args)...)
}

// Commit commits the transaction.
func (t *Tx) Commit() error {
	if t.tx == nil {
		return t.commitPipelined(context.Background()) // commitlock.go
	}
	if err := t.flush(context.Background()); err != nil {
		t.Rollback()
		return err
	}
	err := t.tx.Commit()
	t.unlock()
	return err
}

// Rollback aborts the transaction; after Commit it is a no-op.
func (t *Tx) Rollback() error {
	if t.tx == nil {
		return t.rollbackPipelined() // commitlock.go
	}
	err := t.tx.Rollback()
	t.unlock()
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

// DB is the catalog the transaction belongs to.
func (t *Tx) DB() *DB { return t.db }

// readTx is a read-only transaction: one consistent view of the catalog for
// the several queries a Load or Files makes, without taking the writer lock.
type readTx struct {
	tx *sql.Tx
	d  *dialect
}

func (db *DB) beginRead(ctx context.Context) (*readTx, error) {
	tx, err := db.sql.BeginTx(ctx, db.d.readTx)
	if err != nil {
		return nil, err
	}
	return &readTx{tx: tx, d: db.d}, nil
}

func (r *readTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	args, _ = r.d.oneOffQueryArgs(args)
	return r.tx.QueryContext(ctx, r.d.rebind(q), r.d.args(args)...)
}

func (r *readTx) done() { r.tx.Rollback() }

// dbQueryer runs single queries outside a transaction.
type dbQueryer struct {
	db  *sql.DB
	d   *dialect
	cat *DB
}

func (q dbQueryer) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	query = q.d.rebind(query)
	args, oneOff := q.d.oneOffQueryArgs(args)
	for try := 0; ; try++ {
		var rows *sql.Rows
		var err error
		if st := q.prepared(ctx, query, oneOff); st != nil { // sqlitestmts.go
			rows, err = st.QueryContext(ctx, q.d.args(args)...)
		} else {
			rows, err = q.db.QueryContext(ctx, query, q.d.args(args)...)
		}
		if err == nil || try >= 4 || !schemaChanged(err) { // race.go
			return rows, err
		}
	}
}

func (q dbQueryer) prepared(ctx context.Context, query string, oneOff bool) *sql.Stmt {
	if oneOff {
		return nil
	}
	return q.cat.prepared(ctx, query)
}

func (db *DB) q() dbQueryer { return dbQueryer{db: db.sql, d: db.d, cat: db} }
