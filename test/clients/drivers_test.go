package clients

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPsycopg: connect with startup options, typed results of every type in
// text and binary, parameters, executemany, COPY, a named (server-side)
// cursor, errors with SQLSTATE and the session going on.
func TestPsycopg(t *testing.T) {
	need(t, pythonHas("psycopg"), "psycopg 3 (Python)", "pip install psycopg==3.3.9")
	s := lakeServer(t)
	dsn := fmt.Sprintf("host=127.0.0.1 port=%d user=test dbname=lake", s.Port)
	out := run(t, nil, "python3", filepath.Join("testdata", "psycopg_check.py"), dsn)
	if !strings.Contains(out, "all checks passed") {
		t.Fatalf("psycopg_check.py: %s", out)
	}
}

// TestPsycopg2: psycopg2's implicit transaction blocks, typed results,
// a server-side (named) cursor paged with fetchmany, COPY in and out
// through copy_expert (a malformed line fails with 22P02 and commits
// nothing), executemany, errors and a failed block until ROLLBACK.
func TestPsycopg2(t *testing.T) {
	need(t, pythonHas("psycopg2"), "psycopg2 (Python)", "pip install psycopg2-binary==2.9.13")
	s := lakeServer(t)
	dsn := fmt.Sprintf("host=127.0.0.1 port=%d user=test dbname=lake", s.Port)
	out := run(t, nil, "python3", filepath.Join("testdata", "psycopg2_check.py"), dsn)
	if !strings.Contains(out, "all checks passed") {
		t.Fatalf("psycopg2_check.py: %s", out)
	}
}

// TestAsyncpg: asyncpg's binary results of every fixture type, prepared
// statements with server-inferred parameter types, a cursor in a
// transaction, copy_records_to_table (binary COPY FROM STDIN) and errors.
func TestAsyncpg(t *testing.T) {
	need(t, pythonHas("asyncpg"), "asyncpg (Python)", "pip install asyncpg==0.32.0")
	s := lakeServer(t)
	out := run(t, nil, "python3", filepath.Join("testdata", "asyncpg_check.py"), "127.0.0.1", strconv.Itoa(s.Port), "test", "lake")
	if !strings.Contains(out, "all checks passed") {
		t.Fatalf("asyncpg_check.py: %s", out)
	}
}

// TestSQLAlchemyORM: a SQLAlchemy 2 ORM round trip over psycopg 3 — a
// declarative model, create_all, Session add/commit, update and delete,
// a rolled-back flush, select() and get(), Session.begin_nested() savepoints
// (rolled back, released, failing inside) and the dialect's first-connect
// hstore lookup inside a SAVEPOINT.
func TestSQLAlchemyORM(t *testing.T) {
	need(t, pythonHas("sqlalchemy") && pythonHas("psycopg"), "SQLAlchemy 2 with psycopg 3", "pip install sqlalchemy==2.1.9 psycopg==3.3.9")
	s := lakeServer(t)
	url := fmt.Sprintf("postgresql+psycopg://test@127.0.0.1:%d/lake", s.Port)
	out := run(t, nil, "python3", filepath.Join("testdata", "sqlalchemy_orm.py"), url)
	if !strings.Contains(out, "all checks passed") {
		t.Fatalf("sqlalchemy_orm.py: %s", out)
	}
}

// TestNodePostgres: node-postgres with typed results, untyped $n parameters,
// named prepared statements, transactions and errors.
func TestNodePostgres(t *testing.T) {
	modules := nodePath(t)
	s := lakeServer(t)
	out := run(t, []string{"NODE_PATH=" + modules}, "node", filepath.Join("testdata", "node_check.js"),
		"127.0.0.1", strconv.Itoa(s.Port), "test", "lake")
	if !strings.Contains(out, "all checks passed") {
		t.Fatalf("node_check.js: %s", out)
	}
}

// TestPgJDBC: DatabaseMetaData, PreparedStatement with every type,
// ResultSetMetaData (with the table and column a result column comes from),
// setFetchSize paging with autocommit off, errors.
func TestPgJDBC(t *testing.T) {
	jar := pgjdbcJar(t)
	classes := compileJava(t, jar)
	s := lakeServer(t)
	url := fmt.Sprintf("jdbc:postgresql://127.0.0.1:%d/lake?user=test", s.Port)
	out := run(t, nil, "java", "-cp", jar+string(filepath.ListSeparator)+classes, "JdbcCheck", url)
	if !strings.Contains(out, "all checks passed") {
		t.Fatalf("JdbcCheck: %s", out)
	}
}

// TestODBC: psqlODBC through unixODBC (pyodbc): SQLTables, SQLColumns and
// queries, fetched through DECLARE/FETCH (UseDeclareFetch), and a
// transaction whose failing statements psqlODBC rolls back alone
// (SAVEPOINT / ROLLBACK TO / RELEASE around every statement).
func TestODBC(t *testing.T) {
	need(t, odbcReady(), "psqlODBC with unixODBC and pyodbc", "apt-get install odbc-postgresql unixodbc; pip install pyodbc==5.5.0")
	s := lakeServer(t)
	lines := odbcLines(t, "127.0.0.1", s.Port, "test", "lake", "statement-rollback")
	want := map[string]string{
		"SQLTables":          "lake|sales|orders|TABLE|",
		"SQLColumns":         "lake|sales|orders|amount|2|numeric|12|",
		"query.params":       "1",
		"query.after_error":  "2",
		"rollback.inside":    "[(2, 'B'), (3, 'c')]",
		"rollback.errors":    "22P02,22012,42P01",
		"rollback.committed": "[(2, 'B'), (3, 'c')]",
	}
	for name, sub := range want {
		if !strings.Contains(lines[name], sub) || strings.HasPrefix(lines[name], "ERROR") {
			t.Errorf("%s: got %q, want it to contain %q", name, lines[name], sub)
		}
	}
	if !strings.HasPrefix(lines["query.error"], "ERROR 22012") {
		t.Errorf("query.error: got %q, want ERROR 22012", lines["query.error"])
	}
}

// odbcLines runs odbc_check.py and returns its answers by call name.
func odbcLines(t *testing.T, host string, port int, user, db string, extra ...string) map[string]string {
	t.Helper()
	args := append([]string{filepath.Join("testdata", "odbc_check.py"), host, strconv.Itoa(port), user, db}, extra...)
	return parseLines(run(t, nil, "python3", args...))
}

// parseLines reads "name<TAB>answer" lines.
func parseLines(out string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		name, answer, ok := strings.Cut(line, "\t")
		if ok {
			m[name] = answer
		}
	}
	return m
}
