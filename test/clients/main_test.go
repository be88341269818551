package clients

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testserver.RemoveBinary()
	os.Exit(code)
}

// fixtureSQL creates the tables every check reads, on lakepg and on PostgreSQL alike.
func fixtureSQL(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fixture.sql"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lakeServer starts a lakepg for the test and loads the fixture.
func lakeServer(t *testing.T) *testserver.Server {
	t.Helper()
	s := testserver.Start(t, testserver.Binary(t), t.TempDir())
	exec1(t, s.DSN(), fixtureSQL(t))
	return s
}

// exec1 runs SQL (several statements allowed) over the simple protocol.
func exec1(t *testing.T, dsn, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect %s: %v", dsn, err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
		t.Fatalf("%s: %v", strings.SplitN(sql, "\n", 2)[0], err)
	}
}

// run runs a client program and fails the test with its output when it
// exits non-zero.
func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// need fails the test when a program or library is missing, saying how to get it.
func need(t *testing.T, ok bool, what, install string) {
	t.Helper()
	if !ok {
		t.Fatalf("%s is missing: scripts/test.sh installs it (%s)", what, install)
	}
}

func pythonHas(module string) bool {
	return exec.Command("python3", "-c", "import "+module).Run() == nil
}

// nodePath is the node_modules directory holding node-postgres.
func nodePath(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("LAKEPG_TEST_NODE_PATH")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "lakepg-test-clients", "node", "node_modules")
	}
	_, err := os.Stat(filepath.Join(dir, "pg", "package.json"))
	need(t, err == nil, "node-postgres (node_modules/pg in "+dir+")", "npm install pg")
	return dir
}

// pgjdbcJar is the PostgreSQL JDBC driver jar.
func pgjdbcJar(t *testing.T) string {
	t.Helper()
	jar := os.Getenv("LAKEPG_TEST_PGJDBC_JAR")
	if jar == "" {
		home, _ := os.UserHomeDir()
		jar = filepath.Join(home, ".m2", "repository", "org", "postgresql", "postgresql", "42.7.14", "postgresql-42.7.14.jar")
	}
	_, err := os.Stat(jar)
	need(t, err == nil, "pgJDBC ("+jar+")", "mvn dependency:get -Dartifact=org.postgresql:postgresql:42.7.14")
	_, err = exec.LookPath("javac")
	need(t, err == nil, "javac", "apt-get install default-jdk-headless")
	return jar
}

// compileJava compiles testdata/JdbcCheck.java once per test into a temp dir.
func compileJava(t *testing.T, jar string) string {
	t.Helper()
	dir := t.TempDir()
	run(t, nil, "javac", "-cp", jar, "-d", dir, filepath.Join("testdata", "JdbcCheck.java"))
	return dir
}

// odbcReady reports whether unixODBC knows psqlODBC's Unicode driver and pyodbc imports.
func odbcReady() bool {
	out, err := exec.Command("odbcinst", "-q", "-d").Output()
	return err == nil && strings.Contains(string(out), "[PostgreSQL Unicode]") && pythonHas("pyodbc")
}
