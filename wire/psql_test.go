package wire

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// psql runs the real psql client against ts with -c for each command
// (psql sends each -c string as one simple Query) and returns its output.
func psql(t *testing.T, ts *testServer, args ...string) (string, error) {
	t.Helper()
	path, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql is not installed: run make test, which installs Debian's postgresql-client")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	base := []string{"-X", "-h", "127.0.0.1", "-p", ts.port, "-U", "carol", "-d", "lake", "-A", "-t", "-F", "|"}
	cmd := exec.CommandContext(ctx, path, append(base, args...)...)
	// psql's default sslmode=prefer sends an SSLRequest first: answered 'N'.
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10", "PGAPPNAME=psqltest", "PGTZ=America/New_York")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestPsql(t *testing.T) {
	ts := startServer(t, Options{ServerVersion: "16.6 (lakepg 0.1.0)"})

	out, err := psql(t, ts, "-c", "gen 3")
	if err != nil || out != "1\n2\n3\n" {
		t.Fatalf("gen 3: %q %v", out, err)
	}

	// Several statements in one Query; psql 15 prints every result.
	out, err = psql(t, ts, "-c", "insert; gen 2; types")
	want := make([]string, len(typesRow))
	nulls := make([]string, len(typesRow))
	for i, tv := range typesRow {
		want[i] = tv.text
	}
	if err != nil || out != "INSERT 0 2\n1\n2\n"+strings.Join(want, "|")+"\n"+strings.Join(nulls, "|")+"\n" {
		t.Fatalf("types: %q %v", out, err)
	}

	// PGTZ travels in the startup packet and reaches the session.
	info := ts.eng.session(1).info
	if info.Params["TimeZone"] != "America/New_York" || info.ApplicationName != "psqltest" || info.User != "carol" {
		t.Errorf("startup info %+v", info)
	}

	// An error: psql shows the message, the position as a caret, and the hint.
	out, err = psql(t, ts, "-c", "error at 1")
	if err == nil || !strings.Contains(out, `ERROR:  syntax error at or near "error"`) ||
		!strings.Contains(out, "LINE 1: error at 1") || !strings.Contains(out, "HINT:  try again") {
		t.Errorf("error: %q %v", out, err)
	}

	// The session goes on after an error and after a panic (one psql run,
	// several -c commands; ON_ERROR_STOP is off).
	out, _ = psql(t, ts, "-c", "panic execute", "-c", "gen 1", "-c", "fail next", "-c", "gen 2")
	for _, want := range []string{"ERROR:  internal error: execute boom", "ERROR:  division by zero", "\n1\n", "\n1\n2\n"} {
		if !strings.Contains("\n"+out, want) {
			t.Errorf("missing %q in %q", want, out)
		}
	}

	// server_version as psql sees it.
	out, err = psql(t, ts, "-c", `\echo :SERVER_VERSION_NAME`)
	if err != nil || strings.TrimSpace(out) != "16.6 (lakepg 0.1.0)" {
		t.Errorf("SERVER_VERSION_NAME: %q %v", out, err)
	}
}
