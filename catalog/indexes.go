package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// indexName is the name a statement of catalogIndexes creates.
func indexName(ddl string) string {
	return strings.Fields(strings.TrimPrefix(ddl, "CREATE INDEX IF NOT EXISTS "))[0]
}

// IndexesAdded says what opening the catalog did about lakepg's indexes
// (catalogIndexes): the ones it created because the catalog lacked them,
// and why it could not create the others (nil when it did not try or all
// went well). A catalog without them works, only slower, so neither stops
// the catalog from opening; the server logs both.
func (db *DB) IndexesAdded() ([]string, error) { return db.indexesAdded, db.indexErr }

// ensureIndexes creates the indexes of catalogIndexes that an existing
// catalog lacks: one that DuckDB created, or one an older lakepg created
// before an index was added to the list. A catalog that has them all costs
// one query.
func (db *DB) ensureIndexes(ctx context.Context) ([]string, error) {
	if db.d.name == "sqlite" {
		return db.ensureIndexesSQLite(ctx)
	}
	return db.ensureIndexesPostgres(ctx)
}

func (db *DB) ensureIndexesSQLite(ctx context.Context) ([]string, error) {
	have, err := indexNames(ctx, db.sql, `SELECT name, 1 FROM sqlite_master WHERE type = 'index' AND name LIKE 'lakepg\_%' ESCAPE '\'`)
	if err != nil || len(missingIndexes(have)) == 0 {
		return nil, err
	}
	// One write transaction (BEGIN IMMEDIATE): the writer lock is held
	// while the indexes are built, so commits of other servers and of DuckDB
	// wait for it, as they wait for any commit; IF NOT EXISTS covers another
	// process that built them first.
	tx, err := db.sql.BeginTx(ctx, db.d.writeTx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var added []string
	for _, ddl := range missingIndexes(have) {
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return nil, fmt.Errorf("catalog: create index %s: %w", indexName(ddl), err)
		}
		added = append(added, indexName(ddl))
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("catalog: create indexes: %w", err)
	}
	return added, nil
}

// ensureIndexesPostgres builds the missing indexes CONCURRENTLY: a plain
// CREATE INDEX would block every writer of the table (other lakepg servers,
// DuckDB) for as long as the build takes, seconds on a catalog of millions
// of files. A session advisory lock lets one server at a time do it; a
// server that does not get it leaves the work to the one that has it. An
// index a failed concurrent build left invalid is dropped and built again.
func (db *DB) ensureIndexesPostgres(ctx context.Context) ([]string, error) {
	const q = `SELECT c.relname, i.indisvalid FROM pg_catalog.pg_index i
JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relname LIKE 'lakepg\_%'`
	have, err := indexNames(ctx, db.sql, q)
	if err != nil || len(missingIndexes(have)) == 0 {
		return nil, err
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var locked bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(hashtext($1))`, "lakepg indexes "+db.schema).Scan(&locked); err != nil {
		return nil, fmt.Errorf("catalog: lock for indexes: %w", err)
	}
	if !locked {
		return nil, nil
	}
	defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock(hashtext($1))`, "lakepg indexes "+db.schema)
	// read again under the lock: the server that held it may have finished
	if have, err = indexNames(ctx, conn, q); err != nil {
		return nil, err
	}
	var added []string
	for _, ddl := range missingIndexes(have) {
		name := indexName(ddl)
		if _, invalid := have[name]; invalid {
			if _, err := conn.ExecContext(ctx, `DROP INDEX CONCURRENTLY IF EXISTS `+quoteIdent(name)); err != nil {
				return added, fmt.Errorf("catalog: drop invalid index %s: %w", name, err)
			}
		}
		concurrent := strings.Replace(ddl, "CREATE INDEX", "CREATE INDEX CONCURRENTLY", 1)
		if _, err := conn.ExecContext(ctx, concurrent); err != nil {
			return added, fmt.Errorf("catalog: create index %s: %w", name, err)
		}
		added = append(added, name)
	}
	return added, nil
}

// indexNames reads (name, valid) pairs: the value is whether the index is
// usable.
func indexNames(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("catalog: list indexes: %w", err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		var valid bool
		if err := rows.Scan(&name, &valid); err != nil {
			return nil, fmt.Errorf("catalog: list indexes: %w", err)
		}
		have[name] = valid
	}
	return have, rows.Err()
}

// missingIndexes are the statements of catalogIndexes whose index is absent
// or not valid.
func missingIndexes(have map[string]bool) []string {
	var out []string
	for _, ddl := range catalogIndexes {
		if !have[indexName(ddl)] {
			out = append(out, ddl)
		}
	}
	return out
}

// IndexNames are the names of the indexes lakepg adds to a catalog's
// DuckLake tables, for tests that look for them.
func IndexNames() []string {
	out := make([]string, len(catalogIndexes))
	for i, ddl := range catalogIndexes {
		out[i] = indexName(ddl)
	}
	return out
}
