package clients

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

// The tools that build and feed a lake, each run by a Python script in testdata/ against a
// lakepg started for the test and against a fresh PostgreSQL database, concurrently. Each
// script asserts what it can know on its own and writes what it built (rows, columns) to a
// JSON file; the two files must be equal.

// toolTarget is where a tool script connects.
type toolTarget struct {
	name                   string // "lakepg" or "PostgreSQL"
	host, port, user, db   string
	url                    string // postgresql://user@host:port/db
	sqlalchemyURL, outPath string
	lakeDir                string // lakepg's lake: catalog.sqlite and data/ (lakepg only)
}

// toolTargets starts a lakepg (empty lake) and makes a PostgreSQL database, both reached with
// PostgreSQL's user and database name, so qualified names the tools write agree.
func toolTargets(t *testing.T, prefix string) (lake, pg toolTarget) {
	t.Helper()
	pgDSN := testserver.PostgresDatabase(t, prefix)
	u, err := url.Parse(pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	db, user := strings.TrimPrefix(u.Path, "/"), u.User.Username()
	s := testserver.Start(t, testserver.Binary(t), t.TempDir())
	dir := t.TempDir()
	mk := func(name, host, port string) toolTarget {
		return toolTarget{
			name: name, host: host, port: port, user: user, db: db,
			url:           fmt.Sprintf("postgresql://%s@%s:%s/%s", user, host, port, db),
			sqlalchemyURL: fmt.Sprintf("postgresql+psycopg://%s@%s:%s/%s", user, host, port, db),
			outPath:       filepath.Join(dir, strings.ToLower(name)+".json"),
		}
	}
	lake = mk("lakepg", "127.0.0.1", fmt.Sprint(s.Port))
	lake.lakeDir = s.Dir
	return lake, mk("PostgreSQL", u.Hostname(), u.Port())
}

// runToolScript runs a testdata script against both targets at once and compares the JSON
// they wrote. args gives a target's command line after the script's path.
func runToolScript(t *testing.T, script string, lake, pg toolTarget, limit time.Duration, args func(toolTarget) []string) {
	t.Helper()
	type result struct {
		out []byte
		err error
	}
	results := make([]result, 2)
	var wg sync.WaitGroup
	for i, tg := range []toolTarget{lake, pg} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			defer cancel()
			cmd := exec.CommandContext(ctx, "python3", append([]string{filepath.Join("testdata", script)}, args(tg)...)...)
			cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				err = fmt.Errorf("still running after %s: %w", limit, err)
			}
			results[i] = result{out, err}
		}()
	}
	wg.Wait()
	failed := false
	for i, tg := range []toolTarget{lake, pg} {
		r := results[i]
		if r.err != nil || !bytes.Contains(r.out, []byte("all checks passed")) {
			t.Errorf("%s on %s: %v\n%s", script, tg.name, r.err, tail(r.out, 6000))
			failed = true
		}
	}
	if failed {
		return
	}
	lakeJSON, err := os.ReadFile(lake.outPath)
	if err != nil {
		t.Fatal(err)
	}
	pgJSON, err := os.ReadFile(pg.outPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lakeJSON, pgJSON) {
		t.Errorf("%s: what lakepg built differs from what PostgreSQL built (-PostgreSQL +lakepg):\n%s", script, lineDiff(string(pgJSON), string(lakeJSON)))
	}
	duckReadsLake(t, lake)
}

// duckReadsToolLake attaches a lake read-only in DuckDB 1.5.5 and counts the rows of the
// relations it is given, reporting an error per relation it cannot read.
const duckReadsToolLake = `
import json, sys, duckdb
inp = json.load(sys.stdin)
c = duckdb.connect()
c.execute("SET enable_progress_bar=false")
c.execute("SET autoinstall_known_extensions=false")
c.execute("SET autoload_known_extensions=false")
for ext in ("ducklake", "sqlite"):
    c.execute("LOAD '%s'" % inp[ext].replace("'", "''"))
c.execute("ATTACH 'ducklake:sqlite:%s' AS lk (READ_ONLY)" % inp["catalog"].replace("'", "''"))
q = lambda s: '"' + s.replace('"', '""') + '"'
out = {}
for rel in inp["relations"]:
    try:
        out[rel] = str(c.execute("SELECT count(*) FROM lk.%s" % ".".join(q(p) for p in rel.split("."))).fetchone()[0])
    except Exception as e:
        out[rel] = "error: %s" % e
json.dump(out, sys.stdout)
`

// duckReadsLake checks that DuckDB reads what a tool built in lakepg's lake: every table and
// view (DuckDB parses lakepg's views itself) has the row count lakepg gives it.
func duckReadsLake(t *testing.T, lake toolTarget) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgconn.Connect(ctx, lake.url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	res := c.ExecParams(ctx, "SELECT table_schema || '.' || table_name FROM information_schema.tables "+
		"WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type IN ('BASE TABLE', 'VIEW') ORDER BY 1",
		nil, nil, nil, nil).Read()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := map[string]string{}
	var rels []string
	for _, r := range res.Rows {
		rel := string(r[0])
		parts := strings.SplitN(rel, ".", 2)
		q := fmt.Sprintf("SELECT count(*) FROM %q.%q", parts[0], parts[1])
		cr := c.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if cr.Err != nil {
			t.Errorf("lakepg: %s: %v", q, cr.Err)
			continue
		}
		rels = append(rels, rel)
		want[rel] = string(cr.Rows[0][0])
	}
	got := map[string]string{}
	testserver.RunPythonJSON(t, duckReadsToolLake, 2*time.Minute, map[string]any{
		"ducklake": testserver.DuckDBExtension(t, "ducklake"), "sqlite": testserver.DuckDBExtension(t, "sqlite"),
		"catalog": filepath.Join(lake.lakeDir, "catalog.sqlite"), "relations": rels,
	}, &got)
	t.Logf("DuckDB read the %d tables and views of lakepg's lake: %v", len(rels), got)
	for _, rel := range rels {
		if got[rel] != want[rel] {
			t.Errorf("DuckDB reading lakepg's lake: %s has %s rows in lakepg, DuckDB says %s", rel, want[rel], got[rel])
		}
	}
}

// tail is the end of a tool's output, where its error is.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// lineDiff lists the lines of a and b that differ, position by position after a common
// prefix and suffix, enough to see which rows disagree.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	p := 0
	for p < len(al) && p < len(bl) && al[p] == bl[p] {
		p++
	}
	s := 0
	for s < len(al)-p && s < len(bl)-p && al[len(al)-1-s] == bl[len(bl)-1-s] {
		s++
	}
	var out strings.Builder
	fmt.Fprintf(&out, "@@ line %d\n", p+1)
	for _, l := range al[max(0, p-3):p] {
		fmt.Fprintf(&out, "  %s\n", l)
	}
	for i, l := range al[p : len(al)-s] {
		if i == 200 {
			out.WriteString("- …\n")
			break
		}
		fmt.Fprintf(&out, "- %s\n", l)
	}
	for i, l := range bl[p : len(bl)-s] {
		if i == 200 {
			out.WriteString("+ …\n")
			break
		}
		fmt.Fprintf(&out, "+ %s\n", l)
	}
	return out.String()
}

// TestDbt runs the dbt project in testdata/dbt (dbt-core 1.12 with dbt-postgres 1.11):
// seeds, a view, a table and incremental models (delete+insert, merge, append), snapshots
// with the check and timestamp strategies, generic and singular tests and docs generate;
// then changed seeds and a second seed, run, snapshot and test. The rows of every seed,
// model and snapshot (less the times dbt stamps them with) and the columns docs generate
// found must be the same on lakepg and PostgreSQL.
func TestDbt(t *testing.T) {
	need(t, pythonHas("dbt.cli.main") && pythonHas("dbt.adapters.postgres"), "dbt-core 1.12 with dbt-postgres 1.11",
		"pip install dbt-core==1.12.0 dbt-core-experimental-parser==2.0.0a4 dbt-postgres==1.11.0")
	lake, pg := toolTargets(t, "dbt")
	runToolScript(t, "dbt_check.py", lake, pg, 4*time.Minute, func(tg toolTarget) []string {
		return []string{tg.host, tg.port, tg.user, tg.db, tg.outPath}
	})
}

// TestSQLAlchemyAlembic: Alembic migrations (autoincrement keys, a foreign key, a unique
// column, ADD COLUMN, an index, ALTER COLUMN TYPE and [DROP|SET] NOT NULL, renames; down and
// up again), then the SQLAlchemy 2 ORM over
// them: generated ids read back through INSERT … RETURNING, bulk inserts with RETURNING,
// updates, deletes, a rollback, joins, eager loading, and upserts through
// insert().on_conflict_do_update / on_conflict_do_nothing.
func TestSQLAlchemyAlembic(t *testing.T) {
	need(t, pythonHas("alembic") && pythonHas("sqlalchemy") && pythonHas("psycopg"), "Alembic 1.20 with SQLAlchemy 2.1 and psycopg 3",
		"pip install alembic==1.20.1 sqlalchemy==2.1.9 psycopg==3.3.9")
	lake, pg := toolTargets(t, "alembic")
	runToolScript(t, "sqlalchemy_alembic.py", lake, pg, 2*time.Minute, func(tg toolTarget) []string {
		return []string{tg.sqlalchemyURL, tg.outPath}
	})
}

// TestDjango: Django's migrate (contenttypes, auth and testdata/django_shop's models), then its
// ORM: create/save/update/delete, bulk_create reading back ids, get_or_create,
// update_or_create, an IntegrityError on a unique column, atomic blocks rolled back and
// savepoints, select_for_update, select_related joins, annotate/aggregate, auth users and
// groups (a many-to-many add is INSERT … ON CONFLICT DO NOTHING).
func TestDjango(t *testing.T) {
	need(t, pythonHas("django") && pythonHas("psycopg"), "Django 5.2 with psycopg 3", "pip install django==5.2.19 psycopg==3.3.9")
	lake, pg := toolTargets(t, "django")
	runToolScript(t, "django_check.py", lake, pg, 2*time.Minute, func(tg toolTarget) []string {
		return []string{tg.host, tg.port, tg.user, tg.db, tg.outPath}
	})
}

// TestDlt: dlt's postgres destination loading a few hundred rows with the replace, append and
// merge (primary key, a nested list in a child table) write dispositions, twice, read back.
func TestDlt(t *testing.T) {
	need(t, pythonHas("dlt") && pythonHas("psycopg2"), "dlt 1.31 with psycopg2", "pip install dlt==1.31.0 psycopg2-binary==2.9.13")
	lake, pg := toolTargets(t, "dlt")
	runToolScript(t, "dlt_check.py", lake, pg, 2*time.Minute, func(tg toolTarget) []string {
		return []string{tg.host, tg.port, tg.user, tg.db, tg.outPath}
	})
}
