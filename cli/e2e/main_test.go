package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/test/testserver"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testserver.RemoveBinary()
	os.Exit(code)
}

// lake is a temporary lake directory and the flags that name it.
type lake struct {
	dir  string
	args []string
}

func newLake(t *testing.T) lake {
	dir := t.TempDir()
	return lake{dir: dir, args: []string{"--catalog", "sqlite:" + filepath.Join(dir, "catalog.sqlite"), "--data", filepath.Join(dir, "data")}}
}

// result is one finished run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

// run runs lakepg with args in dir and returns its output and exit status.
func run(t *testing.T, dir string, stdin string, args ...string) result {
	t.Helper()
	return runEnv(t, dir, nil, stdin, args...)
}

// runEnv is run with more environment variables.
func runEnv(t *testing.T, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(testserver.Binary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(append(testserver.CleanEnv(), "HOME="+dir), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("lakepg %s: %v", strings.Join(args, " "), err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// sh runs lakepg shell -c for each statement on the lake and requires success.
func (l lake) sh(t *testing.T, extra []string, stmts ...string) string {
	t.Helper()
	args := append([]string{"shell", "--timing=false"}, l.args...)
	args = append(args, extra...)
	for _, s := range stmts {
		args = append(args, "-c", s)
	}
	r := run(t, l.dir, "", args...)
	if r.code != 0 {
		t.Fatalf("lakepg %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// snapshotCount is the number of snapshots of the lake.
func (l lake) snapshotCount(t *testing.T) string {
	t.Helper()
	out := l.sh(t, []string{"--format", "csv"}, "SELECT count(*) AS n FROM lakepg.snapshots")
	return strings.TrimSpace(strings.TrimPrefix(out, "n\n"))
}
