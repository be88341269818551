package s3

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/storage/s3test"
	"github.com/lakepg/lakepg/test/testserver"
)

// duckdbExtensions finds DuckDB 1.5.5 for Python and the ducklake, sqlite
// and httpfs extensions that scripts/test.sh pip-installs.
func duckdbExtensions(t *testing.T) []string {
	t.Helper()
	return duckdbExtensionFiles(t, "ducklake", "sqlite", "httpfs")
}

// duckdbExtensionFiles returns the files of the named extensions from the
// PyPI packages duckdb-extension-<name>==1.5.5.
func duckdbExtensionFiles(t *testing.T, names ...string) []string {
	t.Helper()
	var exts []string
	for _, name := range names {
		exts = append(exts, testserver.DuckDBExtension(t, name))
	}
	return exts
}

// duckScript attaches the lake read-only with the S3 settings in a secret
// and prints the query's rows as JSON lists of text.
const duckScript = `
import json, sys, duckdb
inp = json.load(sys.stdin)
c = duckdb.connect()
# no progress bar on stdout when a query runs long on a busy machine
c.execute("SET enable_progress_bar=false")
c.execute("SET autoinstall_known_extensions=false")
c.execute("SET autoload_known_extensions=false")
for e in inp["extensions"]:
    c.execute("LOAD '%s'" % e.replace("'", "''"))
c.execute("""CREATE SECRET lakepg_test (TYPE s3, KEY_ID $1, SECRET $2, REGION $3, ENDPOINT $4,
    URL_STYLE 'path', USE_SSL false)""".replace("$1", "'%s'" % inp["key"]).replace("$2", "'%s'" % inp["secret"])
    .replace("$3", "'%s'" % inp["region"]).replace("$4", "'%s'" % inp["endpoint"]))
c.execute("ATTACH 'ducklake:sqlite:%s' AS lk (READ_ONLY)" % inp["catalog"].replace("'", "''"))
rows = [["NULL" if v is None else str(v) for v in r] for r in c.execute(inp["query"]).fetchall()]
json.dump(rows, sys.stdout)
`

// duckdbRead runs query in DuckDB over the lake whose catalog is catalog,
// returning rows as cells joined by '|'.
func duckdbRead(t *testing.T, srv *s3test.Server, catalog, query string) []string {
	t.Helper()
	in, _ := json.Marshal(map[string]any{
		"extensions": duckdbExtensions(t), "catalog": catalog, "query": query,
		"key": srv.AccessKey, "secret": srv.SecretKey, "region": s3test.Region,
		"endpoint": strings.TrimPrefix(srv.Endpoint, "http://"),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", "-c", duckScript)
	cmd.Stdin = strings.NewReader(string(in))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB: %v\n%s", err, stderr.String())
	}
	var rows [][]string
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("DuckDB output %q: %v", out, err)
	}
	res := make([]string, len(rows))
	for i, r := range rows {
		res[i] = strings.Join(r, "|")
	}
	return res
}
