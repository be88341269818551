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
	return mk("lakepg", "127.0.0.1", fmt.Sprint(s.Port)), mk("PostgreSQL", u.Hostname(), u.Port())
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

// TestDlt: dlt's postgres destination loading a few hundred rows with the replace, append and
// merge (primary key, a nested list in a child table) write dispositions, twice, read back.
func TestDlt(t *testing.T) {
	need(t, pythonHas("dlt") && pythonHas("psycopg2"), "dlt 1.31 with psycopg2", "pip install dlt==1.31.0 psycopg2-binary==2.9.13")
	lake, pg := toolTargets(t, "dlt")
	runToolScript(t, "dlt_check.py", lake, pg, 2*time.Minute, func(tg toolTarget) []string {
		return []string{tg.host, tg.port, tg.user, tg.db, tg.outPath}
	})
}
