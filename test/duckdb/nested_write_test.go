package duckdb

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/catalog/catalogtest"
	"github.com/lakepg/lakepg/test/testserver"
)

// nestedWriteScript runs DuckDB statements on the attached lake, then
// answers queries with each value rendered as PostgreSQL's text output
// would render it (record_out for structs, array_out for lists), so rows
// compare as text with lakepg's.
const nestedWriteScript = `
import json, sys, duckdb, datetime
inp = json.load(sys.stdin)
c = duckdb.connect()
c.execute("SET enable_progress_bar=false")
c.execute("SET autoinstall_known_extensions=false")
c.execute("SET autoload_known_extensions=false")
for ext in ("ducklake", "sqlite", "postgres"):
    if inp.get(ext):
        c.execute("LOAD '%s'" % inp[ext].replace("'", "''"))
c.execute(inp["attach"] + inp.get("attachOptions", ""))
c.execute("USE lk")
def scalar(v):
    if isinstance(v, bool):
        return "t" if v else "f"
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else repr(v)
    return str(v)
def arr_elem(s):
    if s == "" or s.upper() == "NULL" or any(ch in '{},"\\ \t\n' for ch in s):
        return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'
    return s
def rec_field(s):
    if s == "" or any(ch in '(),"\\ \t\n' for ch in s):
        return '"' + s.replace('"', '""').replace('\\', '\\\\') + '"'
    return s
def pg(v):
    if isinstance(v, list):
        return "{" + ",".join("NULL" if e is None else pg(e) if isinstance(e, list) else arr_elem(pg(e)) for e in v) + "}"
    if isinstance(v, dict):
        return "(" + ",".join("" if e is None else rec_field(pg(e)) for e in v.values()) + ")"
    return scalar(v)
out = []
for st in inp.get("steps") or []:
    c.execute(st)
for q in inp["queries"]:
    try:
        out.append([[None if x is None else pg(x) for x in r] for r in c.execute(q).fetchall()])
    except Exception as e:
        out.append("error: %s: %s" % (type(e).__name__, e))
json.dump(out, sys.stdout)
`

type nestedWriteInput struct {
	Ducklake string `json:"ducklake"`
	Sqlite   string `json:"sqlite,omitempty"`
	Postgres string `json:"postgres,omitempty"`
	Attach   string `json:"attach"`
	// AttachOptions follow Attach: " (…)" options of the ATTACH.
	AttachOptions string   `json:"attachOptions,omitempty"`
	Steps         []string `json:"steps"`
	Queries       []string `json:"queries"`
}

func runNestedWriteScript(t *testing.T, in nestedWriteInput) [][][]*string {
	t.Helper()
	var raw []json.RawMessage
	testserver.RunPythonJSON(t, nestedWriteScript, 4*time.Minute, in, &raw)
	out := make([][][]*string, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			t.Fatalf("DuckDB query %q: %s", in.Queries[i], r)
		}
	}
	return out
}

// nestedSource is the DuckDB-written table every shape is copied from.
var nestedSource = []string{
	`CREATE TABLE public.src (id INTEGER, st STRUCT(a INTEGER, b VARCHAR), ls STRUCT(x INTEGER[], y STRUCT(p DOUBLE, q DATE)),
		lst STRUCT(k VARCHAR, v BIGINT)[], aa INTEGER[][], m MAP(VARCHAR, INTEGER))`,
	`INSERT INTO public.src VALUES
		(1, {'a': 1, 'b': 'x'}, {'x': [1, 2, NULL], 'y': {'p': 1.5, 'q': DATE '2020-01-01'}}, [{'k': 'a', 'v': 1}, NULL, {'k': NULL, 'v': 2}], [[1, 2], [], NULL, [NULL, 3]], MAP {'a': 1}),
		(2, NULL, NULL, NULL, NULL, NULL),
		(3, {'a': NULL, 'b': NULL}, {'x': NULL, 'y': NULL}, [], [[]], MAP {}),
		(4, {'a': 7, 'b': 'it''s, {x} "q" \ (p)'}, {'x': [], 'y': {'p': NULL, 'q': NULL}}, [NULL], [NULL], NULL),
		(5, {'a': -3, 'b': ''}, {'x': [5], 'y': {'p': -0.25, 'q': DATE '1999-12-31'}}, [{'k': 'NULL', 'v': NULL}, {'k': ' sp ', 'v': 9}], [[NULL], [4, 5, 6]], NULL)`,
	`INSERT INTO public.src SELECT 100 + g, {'a': g, 'b': 'v' || g}, {'x': [g, NULL], 'y': {'p': g / 4, 'q': DATE '2000-01-01' + g::INTEGER}},
		CASE WHEN g % 5 = 0 THEN NULL ELSE [{'k': 'k' || g, 'v': g * 10}, NULL] END, [[g], [], NULL], NULL FROM range(1, 400) t(g)`,
}

// TestDuckDBReadsLakepgNested: lakepg writes struct columns, arrays of
// arrays and arrays of structs (CREATE TABLE AS from a DuckDB-written
// table, INSERT … SELECT, small inserts kept inlined, DELETE, UPDATE); the
// catalog rows equal those DuckDB writes for the same CREATE TABLE AS;
// DuckDB reads every table exactly as lakepg does, then inserts into
// lakepg's tables and lakepg reads its rows.
func TestDuckDBReadsLakepgNested(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		srv := testserver.Start(t, testserver.Binary(t), dir)
		attach := fmt.Sprintf("ATTACH %s AS lk", sqlString("ducklake:sqlite:"+filepath.Join(dir, "catalog.sqlite")))
		checkNestedWrites(t, srv, nestedWriteInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Attach: attach}, "")
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := testserver.PostgresDatabase(t, "lakepg_nested_write")
		params, err := catalogtest.Params(dsn)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		data := filepath.Join(dir, "data")
		port := testserver.FreePort(t)
		srv := testserver.Launch(t, testserver.Binary(t), dir, port, []string{
			"--listen", fmt.Sprintf("127.0.0.1:%d", port), "--catalog", dsn, "--data", data}, nil)
		attach := fmt.Sprintf("ATTACH %s AS lk", sqlString("ducklake:postgres:"+params.Libpq()))
		opts := fmt.Sprintf("DATA_PATH %s", sqlString(data+"/"))
		checkNestedWrites(t, srv, nestedWriteInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Postgres: postgresExtension(t), Attach: attach, AttachOptions: " (" + opts + ")"}, opts+", ")
	})
}

// checkNestedWrites: opts are ATTACH options the source run puts before
// its own (DuckDB 1.5.5 cannot read back the struct-with-date rows it
// inlines itself, so the source is written to files).
func checkNestedWrites(t *testing.T, srv *testserver.Server, in nestedWriteInput, opts string) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatalf("connecting to lakepg: %v", err)
	}
	defer conn.Close(context.Background())

	// DuckDB writes the source; it also runs the CTAS lakepg runs below,
	// into duck_f, for the catalog comparison
	src := in
	src.AttachOptions = " (" + opts + "DATA_INLINING_ROW_LIMIT 0)"
	src.Steps = append(append([]string(nil), nestedSource...),
		`CREATE TABLE public.duck_f AS SELECT id, st, ls, lst, aa FROM public.src WHERE id < 300`)
	src.Queries = []string{`SELECT count(*) FROM public.src`}
	runNestedWriteScript(t, src)

	cols := "id, st, ls, lst, aa"
	steps := []string{
		`SET lakepg.data_inlining_row_limit = 0`,
		`CREATE TABLE f AS SELECT ` + cols + ` FROM src WHERE id < 300`,
		`INSERT INTO f SELECT id + 1000, st, ls, lst, aa FROM src WHERE id % 3 = 0`,
		`DELETE FROM f WHERE id % 7 = 2`,
		`UPDATE f SET st = (SELECT st FROM src WHERE id = 4), lst = NULL WHERE id BETWEEN 100 AND 120`,
		`SET lakepg.data_inlining_row_limit = 10`,
		`CREATE TABLE inl AS SELECT ` + cols + ` FROM src WHERE id <= 5`,
		`INSERT INTO inl SELECT id + 10, st, ls, lst, aa FROM src WHERE id <= 5`,
		`DELETE FROM inl WHERE id = 12`,
		`UPDATE inl SET ls = (SELECT ls FROM src WHERE id = 5) WHERE id IN (1, 13)`,
		`INSERT INTO f SELECT id + 5000, st, ls, lst, aa FROM src WHERE id IN (1, 4, 5)`,
	}
	for _, st := range steps {
		query(t, ctx, conn, st)
	}
	ch := query(t, ctx, conn, `SELECT string_agg(changes, ';') FROM lakepg.snapshots()`)
	if c := fmtVal(ch.Rows[0][0]); !strings.Contains(c, "inlined_insert:") {
		t.Errorf("changes %s: no inlined insert", c)
	}
	// a map cannot become a column
	if _, err := conn.Exec(ctx, `CREATE TABLE mp AS SELECT m FROM src`); err == nil || !strings.Contains(err.Error(), "0A000") {
		t.Errorf("CREATE TABLE AS of a map column: %v, want 0A000", err)
	}

	tables := []string{"f", "inl"}
	sel := func(tbl string) string { return `SELECT ` + cols + ` FROM public.` + tbl + ` ORDER BY id` }
	var want []result
	for _, tbl := range tables {
		want = append(want, query(t, ctx, conn, sel(tbl)))
	}
	rd := in
	for _, tbl := range tables {
		rd.Queries = append(rd.Queries, sel(tbl))
	}
	cq := `SELECT c.column_id - t0.base, c.column_order - t0.base, c.column_name, c.column_type, c.initial_default, c.default_value,
		c.nulls_allowed, c.parent_column - t0.base, c.default_value_type, c.default_value_dialect
		FROM __ducklake_metadata_lk.ducklake_column c JOIN (SELECT table_id, min(column_id) - 1 AS base FROM __ducklake_metadata_lk.ducklake_column GROUP BY table_id) t0 USING (table_id)
		JOIN __ducklake_metadata_lk.ducklake_table t ON t.table_id = c.table_id AND t.end_snapshot IS NULL WHERE t.table_name = '%s' ORDER BY 1`
	sq := `SELECT s.column_id, s.value_count, s.null_count, s.min_value, s.max_value, s.contains_nan
		FROM __ducklake_metadata_lk.ducklake_file_column_stats s JOIN __ducklake_metadata_lk.ducklake_data_file f USING (data_file_id)
		JOIN __ducklake_metadata_lk.ducklake_table t ON t.table_id = s.table_id AND t.end_snapshot IS NULL
		WHERE t.table_name = '%s' AND f.begin_snapshot = (SELECT min(begin_snapshot) FROM __ducklake_metadata_lk.ducklake_data_file WHERE table_id = t.table_id) ORDER BY 1`
	rd.Queries = append(rd.Queries, fmt.Sprintf(cq, "f"), fmt.Sprintf(cq, "duck_f"), fmt.Sprintf(sq, "f"), fmt.Sprintf(sq, "duck_f"))
	out := runNestedWriteScript(t, rd)
	for i, tbl := range tables {
		compareNestedRows(t, "table "+tbl, want[i], out[i])
	}
	n := len(tables)
	for k, what := range []string{"ducklake_column rows", "ducklake_file_column_stats of the CTAS file"} {
		lk, dk := out[n+2*k], out[n+2*k+1]
		if len(lk) == 0 || fmt.Sprint(jsonRows(lk)) != fmt.Sprint(jsonRows(dk)) {
			t.Errorf("%s differ:\nlakepg:\n%s\nDuckDB:\n%s", what, jsonRows(lk), jsonRows(dk))
		}
	}

	// DuckDB writes into lakepg's tables (a file and inlined rows); lakepg reads them
	back := in
	back.Steps = []string{
		`INSERT INTO public.f SELECT id + 9000, st, ls, lst, aa FROM public.src WHERE id < 200`,
		// inlined: ls stays NULL, as DuckDB 1.5.5 cannot read back a struct with a date it inlines
		`INSERT INTO public.inl VALUES (99, {'a': 99, 'b': 'd'}, NULL, [{'k': 'z', 'v': NULL}], [[9, NULL]])`,
	}
	for _, tbl := range tables {
		back.Queries = append(back.Queries, sel(tbl))
	}
	out = runNestedWriteScript(t, back)
	for i, tbl := range tables {
		compareNestedRows(t, "table "+tbl+" after DuckDB's inserts", query(t, ctx, conn, sel(tbl)), out[i])
	}
}

func jsonRows(rows [][]*string) string {
	var b strings.Builder
	for _, r := range rows {
		for i, v := range r {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(fmtVal(v))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// compareNestedRows compares lakepg's text rows with DuckDB's rendered
// ones.
func compareNestedRows(t *testing.T, label string, pg result, dk [][]*string) {
	t.Helper()
	if len(pg.Rows) != len(dk) {
		t.Errorf("%s: lakepg has %d rows, DuckDB %d", label, len(pg.Rows), len(dk))
		return
	}
	for r, row := range pg.Rows {
		for c := range row {
			if fmtVal(row[c]) != fmtVal(dk[r][c]) {
				t.Errorf("%s: row %d (id %s), column %s: lakepg %s, DuckDB %s", label, r+1, fmtVal(row[0]), pg.Columns[c], fmtVal(row[c]), fmtVal(dk[r][c]))
				return
			}
		}
	}
}
