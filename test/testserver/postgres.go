package testserver

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// PostgreSQL for the comparisons: scripts/test.sh (`make test`) starts a throwaway
// PostgreSQL 15 cluster on a loopback port (trust authentication, C locale, UTF8) and exports
// its DSN in PGDSNEnv. Tests that compare with PostgreSQL never skip silently: without the
// variable they fail and say how to get one.
const (
	// PGDSNEnv names the variable holding the DSN of the PostgreSQL server, e.g.
	// postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable.
	PGDSNEnv = "LAKEPG_TEST_PG_DSN"
	// RequirePGEnv is set to 1 by scripts/test.sh: a missing PGDSNEnv is then an error of
	// the set-up, reported as such.
	RequirePGEnv = "LAKEPG_TEST_REQUIRE_PG"
)

// PostgresDSN is the DSN of the test PostgreSQL server; without one the test fails with a
// message saying how to provide it.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(PGDSNEnv)
	if dsn != "" {
		return dsn
	}
	if os.Getenv(RequirePGEnv) == "1" {
		t.Fatalf("%s=1 but %s is not set: scripts/test.sh failed to start the PostgreSQL server", RequirePGEnv, PGDSNEnv)
	}
	t.Fatalf("this test compares lakepg with a real PostgreSQL and %s is not set: run `make test` "+
		"(scripts/test.sh starts a throwaway PostgreSQL and sets it), or point %s at a PostgreSQL 15 "+
		"server you may create databases on, e.g. %s=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable",
		PGDSNEnv, PGDSNEnv, PGDSNEnv)
	return ""
}

var dbSeq atomic.Int64

// PostgresDatabase creates a fresh database on the test PostgreSQL server (named after
// prefix, the process and a counter, so that parallel test processes never collide), drops
// it at the end of the test, and returns a DSN for it.
func PostgresDatabase(t testing.TB, prefix string) string {
	t.Helper()
	admin := PostgresDSN(t)
	name := fmt.Sprintf("%s_%d_%d", sanitize(prefix), os.Getpid(), dbSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgconn.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connecting to the test PostgreSQL (%s=%s): %v", PGDSNEnv, admin, err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name).ReadAll(); err != nil {
		t.Fatalf("PostgreSQL: DROP DATABASE %s: %v", name, err)
	}
	// Collation C: text compares in byte order, as lakepg's does. Character classes and case
	// mapping (upper, lower, initcap, regular expressions) from C.UTF-8, so that they cover
	// all of Unicode as a UTF-8 database does; plain C where the server lacks that locale.
	create := "CREATE DATABASE " + name + " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE "
	if _, err := c.Exec(ctx, create+"'C.UTF-8'").ReadAll(); err != nil {
		t.Logf("PostgreSQL: %s'C.UTF-8': %v; using LC_CTYPE 'C'", create, err)
		if _, err := c.Exec(ctx, create+"'C'").ReadAll(); err != nil {
			t.Fatalf("PostgreSQL: CREATE DATABASE %s: %v", name, err)
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c, err := pgconn.Connect(ctx, admin)
		if err != nil {
			t.Logf("PostgreSQL: dropping database %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)").ReadAll(); err != nil {
			t.Logf("PostgreSQL: DROP DATABASE %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("%s=%s is not a URL: %v", PGDSNEnv, admin, err)
	}
	u.Path = "/" + name
	return u.String()
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
