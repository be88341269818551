// Package catalogtest gives tests a throwaway PostgreSQL database or schema
// for a catalog, on the server LAKEPG_TEST_PG_DSN names (scripts/test.sh
// starts one). It must not import package catalog, whose own tests use it.
package catalogtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // registers driver "pgx"
)

// PostgresDSN is the DSN of the test server (a database an administrator
// may create databases and schemas in). Without one it returns "", and the
// caller skips its PostgreSQL cases, unless LAKEPG_TEST_REQUIRE_PG=1 asks
// for them: then the test fails.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("LAKEPG_TEST_PG_DSN")
	if dsn == "" && os.Getenv("LAKEPG_TEST_REQUIRE_PG") == "1" {
		t.Fatal("LAKEPG_TEST_REQUIRE_PG=1 but LAKEPG_TEST_PG_DSN is not set: run scripts/test.sh, which starts PostgreSQL")
	}
	return dsn
}

// uniqueName is a lower-case identifier no other test uses.
func uniqueName(prefix string) string {
	b := make([]byte, 6)
	rand.Read(b)
	return fmt.Sprintf("%s_%d_%s", prefix, os.Getpid(), hex.EncodeToString(b))
}

func exec1(t testing.TB, dsn, stmt string) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := db.ExecContext(ctx, stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// QuoteIdent double-quotes a PostgreSQL identifier.
func QuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// NewSchema returns the name of a schema that does not exist yet in admin's
// database (so that opening a catalog there exercises its creation) and
// drops it, with everything in it, when the test ends. Register it before
// opening the catalog so that the catalog closes first.
func NewSchema(t testing.TB, admin string) string {
	t.Helper()
	name := uniqueName("lakepg_test")
	t.Cleanup(func() { exec1(t, admin, "DROP SCHEMA IF EXISTS "+QuoteIdent(name)+" CASCADE") })
	return name
}

// NewDatabase creates an empty database on admin's server and returns its
// DSN; the database is dropped, whoever is still connected, when the test
// ends.
func NewDatabase(t testing.TB, admin string) string {
	t.Helper()
	name := uniqueName("lakepg_test")
	exec1(t, admin, "CREATE DATABASE "+QuoteIdent(name))
	t.Cleanup(func() { exec1(t, admin, "DROP DATABASE IF EXISTS "+QuoteIdent(name)+" WITH (FORCE)") })
	dsn, err := WithDatabase(admin, name)
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// WithDatabase is dsn (a URL or libpq keywords) pointed at another database.
func WithDatabase(dsn, dbname string) (string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", err
		}
		u.Path = "/" + dbname
		return u.String(), nil
	}
	return dsn + " dbname=" + dbname, nil
}

// ConnParams are the parts of a DSN that other clients (psql, DuckDB's
// postgres extension) are given separately.
type ConnParams struct {
	Host     string
	Port     uint16
	User     string
	Password string
	Database string
}

// Params parses dsn.
func Params(dsn string) (ConnParams, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return ConnParams{}, err
	}
	return ConnParams{Host: cfg.Host, Port: cfg.Port, User: cfg.User, Password: cfg.Password, Database: cfg.Database}, nil
}

// Libpq renders the parameters as a libpq keyword/value string, the form
// DuckDB's ATTACH 'ducklake:postgres:...' takes.
func (p ConnParams) Libpq() string {
	q := func(v string) string {
		return "'" + strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), "'", `\'`) + "'"
	}
	s := fmt.Sprintf("host=%s port=%d dbname=%s user=%s", q(p.Host), p.Port, q(p.Database), q(p.User))
	if p.Password != "" {
		s += " password=" + q(p.Password)
	}
	return s
}

// Psql runs the SQL script file with psql on dsn's database, stopping at the
// first error: the way a pg_dump is meant to be restored.
func Psql(t testing.TB, dsn, file string) {
	t.Helper()
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatalf("psql not found (scripts/test.sh installs postgresql-client): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-f", file).CombinedOutput()
	if err != nil {
		t.Fatalf("psql -f %s: %v\n%s", file, err, out)
	}
}
