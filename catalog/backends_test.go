package catalog

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/catalog/catalogtest"
)

// backend is a catalog database the tests run on.
type backend struct {
	name string
	// newCatalog returns the DSN and options of a catalog that does not
	// exist yet.
	newCatalog func(t *testing.T) (string, Options)
}

var testBackends = []backend{
	{"sqlite", func(t *testing.T) (string, Options) {
		return "sqlite:" + filepath.Join(t.TempDir(), "cat.sqlite"), Options{}
	}},
	// Each PostgreSQL catalog gets a schema of its own on the test server,
	// which also exercises Options.Schema.
	{"postgres", func(t *testing.T) (string, Options) {
		admin := pgAdmin(t)
		return admin, Options{Schema: catalogtest.NewSchema(t, admin)}
	}},
}

// pgAdmin is the test server's DSN; the test is skipped without one unless
// LAKEPG_TEST_REQUIRE_PG=1, which makes it fail.
func pgAdmin(t *testing.T) string {
	t.Helper()
	dsn := catalogtest.PostgresDSN(t)
	if dsn == "" {
		t.Skip("LAKEPG_TEST_PG_DSN is not set")
	}
	return dsn
}

// eachBackend runs f as a subtest per backend.
func eachBackend(t *testing.T, f func(t *testing.T, be backend)) {
	for _, be := range testBackends {
		t.Run(be.name, func(t *testing.T) { f(t, be) })
	}
}

// openNewOn creates a catalog on be; it returns the DSN and options to open
// it again and its data path.
func openNewOn(t *testing.T, be backend) (*DB, string, Options, string) {
	t.Helper()
	dsn, opts := be.newCatalog(t)
	data := filepath.Join(t.TempDir(), "data")
	db, err := OpenWithOptions(context.Background(), dsn, data, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dsn, opts, data
}

// colInfo is one column of a catalog table as the backend describes it.
type colInfo struct {
	name, typ   string
	notNull, pk bool
}

// describe lists a table's columns in order: SQLite's declared types,
// PostgreSQL's format_type (as pg_dump prints them).
func describe(t *testing.T, db *DB, table string) []colInfo {
	t.Helper()
	ctx := context.Background()
	var q string
	switch db.Dialect() {
	case "sqlite":
		q = `SELECT name, type, "notnull" <> 0, pk <> 0 FROM pragma_table_info(?) ORDER BY cid`
	default:
		q = `SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
	EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary AND a.attnum = ANY (i.indkey))
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = (SELECT c.oid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	WHERE n.nspname = current_schema() AND c.relname = ?)
	AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`
	}
	rows, err := db.SQL().QueryContext(ctx, db.Rebind(q), table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []colInfo
	for rows.Next() {
		var c colInfo
		if err := rows.Scan(&c.name, &c.typ, &c.notNull, &c.pk); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// tableNames lists the tables of the catalog's schema (or SQLite file).
func tableNames(t *testing.T, db *DB) []string {
	t.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`
	if db.Dialect() == "postgres" {
		q = `SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema() ORDER BY tablename`
	}
	rows, err := db.SQL().QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	return names
}

// fixtureTypeOn is the type a backend shows for a catalog column that
// DuckDB's PostgreSQL catalog (the fixture) has as pgType.
func fixtureTypeOn(dialect, pgType string) string {
	if dialect == "sqlite" {
		return sqliteTypeFor(pgType)
	}
	return pgType
}

func isFixedTable(name string) bool {
	return !strings.HasPrefix(name, "ducklake_inlined_data_") && !strings.HasPrefix(name, "ducklake_inlined_delete_") || name == "ducklake_inlined_data_tables"
}
