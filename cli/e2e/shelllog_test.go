package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestShellStatementLog: with the server's logging flags the embedded shell
// writes the server's statement line to stderr: rows, what the scans read
// and pruned, the statement and its tag, at debug, or at warn when it took
// --slow-query-ms or more. Without them it logs nothing.
func TestShellStatementLog(t *testing.T) {
	l := newLake(t)
	// the rows must be in a Parquet file for the scan to read bytes
	l.sh(t, nil, "CALL lakepg.set_option('data_inlining_row_limit', '0')")
	createOrders(t, l)
	q := "SELECT id, name FROM sales.orders WHERE amount > 0 ORDER BY id"

	lines := func(stderr string) []map[string]any {
		t.Helper()
		var out []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
			if !strings.HasPrefix(line, "{") {
				continue // the shell's own ERROR: lines
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("stderr line is not JSON: %q (%v)", line, err)
			}
			if m["msg"] == "statement" {
				out = append(out, m)
			}
		}
		return out
	}

	for _, c := range []struct {
		flags []string
		level string
	}{
		{[]string{"--log-format", "json", "--log-level", "debug"}, "DEBUG"},
		{[]string{"--log-format", "json", "--slow-query-ms", "0"}, "WARN"},
	} {
		args := append(append(append([]string{"shell", "--format", "csv"}, l.args...), c.flags...), "-c", q)
		r := run(t, l.dir, "", args...)
		if r.code != 0 || r.stdout != "id,name\n1,alice\n2,\"bob, jr\"\n" {
			t.Fatalf("%v: exit %d\n%s%s", c.flags, r.code, r.stdout, r.stderr)
		}
		got := lines(r.stderr)
		if len(got) != 1 {
			t.Fatalf("%v: want one statement line, stderr:\n%s", c.flags, r.stderr)
		}
		m := got[0]
		if m["level"] != c.level || m["statement"] != q || m["tag"] != "SELECT 2" || m["rows"] != 2.0 ||
			m["files_pruned"] != 0.0 || m["row_groups_pruned"] != 0.0 || m["user"] == "" {
			t.Errorf("%v: statement line %v", c.flags, m)
		}
		if b, ok := m["bytes_read"].(float64); !ok || b <= 0 {
			t.Errorf("%v: bytes_read %v, want > 0", c.flags, m["bytes_read"])
		}
		if d, ok := m["duration_ms"].(float64); !ok || d < 0 {
			t.Errorf("%v: duration_ms %v", c.flags, m["duration_ms"])
		}
	}

	// the catalog's min/max skip the file: pruned, nothing read
	r := run(t, l.dir, "", append(append([]string{"shell", "--format", "csv"}, l.args...), "--log-format", "json", "--log-level", "debug", "-c", "SELECT id FROM sales.orders WHERE id > 100")...)
	got := lines(r.stderr)
	if r.code != 0 || len(got) != 1 || got[0]["files_pruned"] != 1.0 || got[0]["bytes_read"] != 0.0 || got[0]["rows"] != 0.0 {
		t.Errorf("pruned scan: exit %d, lines %v\n%s", r.code, got, r.stderr)
	}

	// a failed statement logs its SQLSTATE
	r = run(t, l.dir, "", append(append([]string{"shell"}, l.args...), "--log-format", "json", "--slow-query-ms", "0", "-c", "SELECT 1/0")...)
	got = lines(r.stderr)
	if r.code != 1 || len(got) != 1 || got[0]["sqlstate"] != "22012" || got[0]["error"] != "division by zero" {
		t.Errorf("failed statement: exit %d, lines %v\n%s", r.code, got, r.stderr)
	}

	// no logging flag: stderr stays quiet
	r = run(t, l.dir, "", append(append([]string{"shell", "--format", "csv"}, l.args...), "-c", q)...)
	if r.code != 0 || r.stderr != "" {
		t.Errorf("without logging flags: exit %d, stderr %q", r.code, r.stderr)
	}
}
