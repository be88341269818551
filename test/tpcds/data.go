package tpcds

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/lakepg/lakepg/test/testserver"
)

// Tables are the 24 TPC-DS tables.
var Tables = []string{
	"call_center", "catalog_page", "catalog_returns", "catalog_sales", "customer",
	"customer_address", "customer_demographics", "date_dim", "household_demographics",
	"income_band", "inventory", "item", "promotion", "reason", "ship_mode", "store",
	"store_returns", "store_sales", "time_dim", "warehouse", "web_page", "web_returns",
	"web_sales", "web_site",
}

// duckVersion is part of the cache key: another dsdgen may generate other data.
const duckVersion = "1.5.5"

// sfText is the scale factor as the cache key and the reports spell it.
func sfText(sf float64) string { return strconv.FormatFloat(sf, 'g', -1, 64) }

// cacheRoot is where generated data is kept between runs.
func cacheRoot() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "lakepg-tpcds")
	}
	return filepath.Join(os.TempDir(), "lakepg-tpcds")
}

// complete reports whether dir holds a Parquet file for every table.
func complete(dir string) bool {
	for _, t := range Tables {
		if _, err := os.Stat(filepath.Join(dir, t+".parquet")); err != nil {
			return false
		}
	}
	return true
}

// genScript generates the data with dsdgen in an in-memory DuckDB and writes each table to
// a Parquet file (row groups of DuckDB's default size, as the shared README does at SF1).
const genScript = `
import json, sys, duckdb
inp = json.load(sys.stdin)
c = duckdb.connect()
# no progress bar on stdout, which carries the JSON answer
c.execute("SET enable_progress_bar=false")
c.execute("SET autoinstall_known_extensions=false")
c.execute("SET autoload_known_extensions=false")
c.execute("LOAD '%s'" % inp["extension"].replace("'", "''"))
c.execute("CALL dsdgen(sf=%s)" % inp["sf"])
tables = [r[0] for r in c.execute("SELECT table_name FROM duckdb_tables() ORDER BY table_name").fetchall()]
for t in tables:
    c.execute("COPY %s TO '%s' (FORMAT parquet, ROW_GROUP_SIZE 122880)" % (t, (inp["dir"] + "/" + t + ".parquet").replace("'", "''")))
json.dump({"tables": tables}, sys.stdout)
`

// Generate returns the directory of the Parquet files of scale factor sf, generating them
// with DuckDB on the first call for that scale factor (and DuckDB version). A run that is
// interrupted leaves only a temporary directory behind, never a partial cache entry: the
// files are written beside it and renamed into place at once.
func Generate(t testing.TB, sf float64) (dir string, took time.Duration) {
	t.Helper()
	root := cacheRoot()
	dir = filepath.Join(root, "duckdb-"+duckVersion+"-sf"+sfText(sf))
	if complete(dir) {
		return dir, 0
	}
	ext := testserver.DuckDBExtension(t, "tpcds")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(root, "generating-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	began := time.Now()
	var out struct{ Tables []string }
	testserver.RunPythonJSON(t, genScript, 20*time.Minute,
		map[string]string{"extension": ext, "sf": sfText(sf), "dir": tmp}, &out)
	if !slices.Equal(out.Tables, Tables) {
		t.Fatalf("dsdgen made tables %q, want %q", out.Tables, Tables)
	}
	// A stale, incomplete entry (from a version of this code that wrote in place) would make
	// the rename fail; a concurrent run that won the race leaves a complete one.
	if !complete(dir) {
		os.RemoveAll(dir)
	}
	if err := os.Rename(tmp, dir); err != nil && !complete(dir) {
		t.Fatalf("caching the TPC-DS data: %v", err)
	}
	return dir, time.Since(began)
}

// Answer is DuckDB's result of one query, or its error. Values are text as PostgreSQL would
// print them (nil for NULL); Types are DuckDB's column types.
type Answer struct {
	Columns []string
	Types   []string
	Rows    [][]*string
	Error   string
}

// answerScript answers queries by number over views of the Parquet files, in the text
// DuckDB's tpcds extension ships (tpcds_queries()). Values become text in PostgreSQL's
// spelling: decimals keep their scale, floats the shortest round-trip form.
const answerScript = `
import json, sys, datetime, decimal, duckdb
inp = json.load(sys.stdin)
c = duckdb.connect()
c.execute("SET enable_progress_bar=false")
c.execute("SET autoinstall_known_extensions=false")
c.execute("SET autoload_known_extensions=false")
c.execute("LOAD '%s'" % inp["extension"].replace("'", "''"))
for t in inp["tables"]:
    c.execute("CREATE VIEW %s AS SELECT * FROM read_parquet('%s')" % (t, (inp["dir"] + "/" + t + ".parquet").replace("'", "''")))
text_of = dict(c.execute("SELECT query_nr, query FROM tpcds_queries()").fetchall())

def text(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, datetime.datetime):
        return v.isoformat(" ")
    if isinstance(v, (datetime.date, datetime.time)):
        return v.isoformat()
    return str(v)

out = []
for n in inp["queries"]:
    try:
        rel = c.sql(text_of[n])
        cols, types = rel.columns, [str(t) for t in rel.dtypes]
        rows = [[text(v) for v in r] for r in rel.fetchall()]
        out.append({"columns": cols, "types": types, "rows": rows})
    except Exception as e:
        out.append({"error": "%s: %s" % (type(e).__name__, e)})
json.dump(out, sys.stdout)
`

// DuckDBAnswers has DuckDB answer the TPC-DS queries of the given numbers (1 … 99) over the
// Parquet files of dir. It runs DuckDB's own text of each query, not the PostgreSQL one of
// the shared queries/ directory: there, CAST(x AS DECIMAL) is an unconstrained numeric,
// while DuckDB reads it as DECIMAL(18,3) and so rounds twice (round(0.61454, 2) becomes 0.62
// by way of 0.615 in Q2 and Q78). The shared README records that PostgreSQL answers the
// rewritten text with DuckDB's answer to its own.
func DuckDBAnswers(t testing.TB, dir string, queries []int) []Answer {
	t.Helper()
	var out []Answer
	testserver.RunPythonJSON(t, answerScript, 10*time.Minute, map[string]any{
		"extension": testserver.DuckDBExtension(t, "tpcds"),
		"dir":       dir, "tables": Tables, "queries": queries,
	}, &out)
	if len(out) != len(queries) {
		t.Fatalf("DuckDB answered %d of %d queries", len(out), len(queries))
	}
	return out
}

// ParquetPath is the file of a table in a directory from Generate.
func ParquetPath(dir, table string) string { return filepath.Join(dir, table+".parquet") }
