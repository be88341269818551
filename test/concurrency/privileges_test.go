package concurrency

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestPrivilegesTwoServers: owners and grants live in the shared catalog, so a GRANT or
// REVOKE made through one server is enforced by the other at its next statement, and a
// grant inside an open block counts only once the block commits.
func TestPrivilegesTwoServers(t *testing.T) {
	l := newLake(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	l.exec(t, 0, `CREATE ROLE app LOGIN; CREATE TABLE t (x integer); INSERT INTO t VALUES (1), (2)`)

	connect := func(i int, user string) *pgconn.PgConn {
		t.Helper()
		dsn := strings.Replace(l.servers[i].DSN(), "//test@", "//"+user+"@", 1)
		c, err := pgconn.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("connecting to lakepg %d as %s: %v", i, user, err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	// run gives a statement's SQLSTATE, "" when it succeeded, and its first value
	run := func(c *pgconn.PgConn, sql string) (string, string) {
		t.Helper()
		res, err := c.Exec(ctx, sql).ReadAll()
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pe.Code, ""
		}
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		for _, r := range res {
			if len(r.Rows) > 0 {
				return "", string(r.Rows[0][0])
			}
		}
		return "", ""
	}
	want := func(c *pgconn.PgConn, sql, code, value string) {
		t.Helper()
		gotCode, gotValue := run(c, sql)
		if gotCode != code || gotValue != value {
			t.Fatalf("%s: got code %q value %q, want code %q value %q", sql, gotCode, gotValue, code, value)
		}
	}

	admin := connect(0, "test")
	app := connect(1, "app")
	want(app, `SELECT current_user`, "", "app")
	want(app, `SELECT count(*) FROM t`, "42501", "")

	want(admin, `GRANT SELECT ON t TO app`, "", "")
	want(app, `SELECT count(*) FROM t`, "", "2")
	want(app, `INSERT INTO t VALUES (3)`, "42501", "")
	want(app, `SELECT has_table_privilege('t', 'INSERT')`, "", "f")

	// a grant in an open block is not seen by the other server until COMMIT
	want(admin, `BEGIN`, "", "")
	want(admin, `GRANT INSERT ON t TO app`, "", "")
	want(admin, `SELECT has_table_privilege('app', 't', 'INSERT')`, "", "t")
	want(app, `INSERT INTO t VALUES (3)`, "42501", "")
	want(admin, `COMMIT`, "", "")
	want(app, `INSERT INTO t VALUES (3)`, "", "")
	want(app, `SELECT count(*) FROM t`, "", "3")

	// a superuser acting as the role on the second server
	super1 := connect(1, "test")
	want(super1, `SET ROLE app`, "", "")
	want(super1, `SELECT count(*) FROM t`, "", "3")
	want(super1, `DELETE FROM t`, "42501", "")
	want(super1, `DROP TABLE t`, "42501", "")

	want(admin, `REVOKE ALL ON t FROM app`, "", "")
	want(app, `SELECT count(*) FROM t`, "42501", "")
	want(super1, `SELECT count(*) FROM t`, "42501", "")
	want(super1, `RESET ROLE`, "", "")
	want(super1, `SELECT count(*) FROM t`, "", "3")

	// ownership given away on one server counts on the other
	want(admin, `ALTER TABLE t OWNER TO app`, "", "")
	want(app, `SELECT count(*) FROM t`, "", "3")
	want(app, `DROP TABLE t`, "", "")
}

// TestConcurrentGrants: sessions on both servers grant privileges on one table to different
// roles at once; the commit applies each GRANT to the row as its catalog transaction reads
// it, so none is lost.
func TestConcurrentGrants(t *testing.T) {
	l := newLake(t)
	const perServer = 4
	var setup strings.Builder
	setup.WriteString(`CREATE TABLE shared (x integer);`)
	for i := range 2 * perServer {
		fmt.Fprintf(&setup, `CREATE ROLE g%d;`, i)
	}
	l.exec(t, 0, setup.String())
	var wg sync.WaitGroup
	errs := make(chan error, 2*perServer)
	for i := range 2 * perServer {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, err := pgconn.Connect(ctx, l.servers[i%2].DSN())
			if err != nil {
				errs <- err
				return
			}
			defer c.Close(context.Background())
			for _, priv := range []string{"SELECT", "INSERT", "UPDATE"} {
				if _, err := c.Exec(ctx, fmt.Sprintf(`GRANT %s ON shared TO g%d`, priv, i)).ReadAll(); err != nil {
					errs <- fmt.Errorf("server %d: %w", i%2, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for srv := range 2 {
		got := l.query(t, srv, `SELECT relacl::text FROM pg_class WHERE relname = 'shared'`)
		acl := *got.Rows[0][0]
		for i := range 2 * perServer {
			if !strings.Contains(acl, fmt.Sprintf("g%d=arw/", i)) {
				t.Errorf("server %d: relacl %s lacks g%d=arw", srv, acl, i)
			}
		}
	}
}
