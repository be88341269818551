package concurrency

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/test/testserver"
)

// duckExtensions are the ducklake and postgres extension files of DuckDB 1.5.5 for Python,
// loaded by path: nothing may be downloaded at run time.
type duckExtensions struct {
	Ducklake string `json:"ducklake"`
	Postgres string `json:"postgres"`
}

func findDuckExtensions(t *testing.T) duckExtensions {
	t.Helper()
	return duckExtensions{Ducklake: testserver.DuckDBExtension(t, "ducklake"), Postgres: testserver.DuckDBExtension(t, "postgres")}
}

// duckPrelude opens DuckDB, loads the extensions by path and attaches the lake as lk.
const duckPrelude = `
import json, sys, time, random, duckdb
inp = json.load(sys.stdin)
c = duckdb.connect()
# no progress bar on stdout when a query runs long on a busy machine
c.execute("SET enable_progress_bar=false")
c.execute("SET autoinstall_known_extensions=false")
c.execute("SET autoload_known_extensions=false")
for ext in ("ducklake", "postgres"):
    c.execute("LOAD '%s'" % inp[ext].replace("'", "''"))
c.execute(inp["attach"])

def q(ident):
    return '"' + ident.replace('"', '""') + '"'

def conflict(e):
    # DuckDB reports a logical conflict, and giving up after its retries, as a
    # TransactionException; the text is checked too in case a layer rewraps it.
    return isinstance(e, duckdb.TransactionException) or "conflict" in str(e).lower()
`

// duckReadScript reads every table of its input in full, values cast to VARCHAR, ordered by
// id, with the count of distinct row ids (rowid), and lists the snapshot ids.
const duckReadScript = duckPrelude + `
out = {"tables": {}, "snapshots": []}
for name in inp["tables"]:
    src = "lk.public.%s" % q(name)
    cols = c.sql("SELECT * FROM %s" % src).columns
    rows = c.execute("SELECT %s FROM %s ORDER BY id" % (", ".join("%s::VARCHAR" % q(n) for n in cols), src)).fetchall()
    n, distinct = c.execute("SELECT count(*), count(DISTINCT rowid) FROM %s" % src).fetchone()
    out["tables"][name] = {"columns": cols, "rows": [list(r) for r in rows], "count": n, "distinct_rowids": distinct}
out["snapshots"] = [r[0] for r in c.execute("SELECT snapshot_id FROM lk.snapshots() ORDER BY 1").fetchall()]
json.dump(out, sys.stdout)
`

type duckTable struct {
	rows
	Count          int64 `json:"count"`
	DistinctRowIDs int64 `json:"distinct_rowids"`
}

type duckRead struct {
	Tables    map[string]duckTable `json:"tables"`
	Snapshots []int64              `json:"snapshots"`
}

// runDuck runs a script with in (plus the extensions and the ATTACH) on its standard input
// and decodes its standard output into out.
func runDuck(t *testing.T, ctx context.Context, script string, ext duckExtensions, attach string, in map[string]any, out any) {
	t.Helper()
	in["ducklake"], in["postgres"], in["attach"] = ext.Ducklake, ext.Postgres, attach
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", "-c", script)
	cmd.Stdin = bytes.NewReader(b)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Errorf("DuckDB script failed: %v\n%s", err, stderr.String())
		return
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Errorf("DuckDB script output: %v\n%.2000s\n%s", err, stdout, stderr.String())
	}
}
