package duckdb

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/test/testserver"
)

// DuckLake 1.1. DuckDB 2.0's ducklake extension cannot be installed on
// these machines, so the 1.1 side is checked against the specification and
// the extension's source, and DuckDB 1.5.5 is what runs:
//   - a 1.0 lake that DuckDB 1.5.5 wrote (inlined rows, deletion vectors in
//     Puffin files) and lakepg wrote to is migrated by `lakepg migrate`;
//     lakepg answers the same at every snapshot before and after, and as
//     DuckDB 1.5.5 did before, and DuckDB 1.5.5 refuses the migrated lake;
//   - lakepg creates a 1.1 lake (--ducklake-version 1.1) and works in it;
//   - a Puffin file with one deletion vector per snapshot (1.1's layout)
//     answers at every snapshot as the Parquet delete file it replaces.

// digest is one row that stands for a whole table: count, sum, non-NULL v
// and an md5 of every row in id order.
const digestLakepg = `SELECT count(*)::text, sum(id)::text, count(v)::text, md5(string_agg(id::text || ':' || coalesce(v, '~'), ',' ORDER BY id)) FROM main.t`
const digestDuck = `SELECT count(*), sum(id), count(v), md5(string_agg(id::VARCHAR || ':' || coalesce(v, '~'), ',' ORDER BY id)) FROM lk.main.t AT (VERSION => %d)`

// digests reads t at every snapshot from first to last in lakepg.
func digests(t *testing.T, ctx context.Context, conn *pgx.Conn, first, last int64) []string {
	t.Helper()
	var out []string
	for s := first; s <= last; s++ {
		query(t, ctx, conn, fmt.Sprintf(`SET lakepg.snapshot = %d`, s))
		out = append(out, fmtRows(query(t, ctx, conn, digestLakepg).Rows))
	}
	query(t, ctx, conn, `RESET lakepg.snapshot`)
	return out
}

// lakepgCmd runs a lakepg subcommand on the lake and returns its output.
func (l encLake) lakepgCmd(t *testing.T, ctx context.Context, args ...string) (string, error) {
	t.Helper()
	args = append(append(args, "--data", l.data), l.lakepgArgs...)
	cmd := exec.CommandContext(ctx, testserver.Binary(t), args...)
	cmd.Env = testserver.CleanEnv()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// catalogDB opens the lake's catalog directly.
func (l encLake) catalogDB(t *testing.T, ctx context.Context) *catalog.DB {
	t.Helper()
	dsn := l.lakepgArgs[1]
	db, err := catalog.Open(ctx, dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// attachError is what DuckDB 1.5.5 says when it attaches the lake ("" if it
// attaches).
const attachScript = `
import json, sys, duckdb
inp = json.load(sys.stdin)
c = duckdb.connect()
c.execute("SET autoinstall_known_extensions=false")
c.execute("SET autoload_known_extensions=false")
for ext in ("ducklake", "sqlite", "postgres"):
    if inp.get(ext):
        c.execute("LOAD '%s'" % inp[ext].replace("'", "''"))
err = ""
try:
    c.execute(inp["attach"])
    c.execute("SELECT count(*) FROM lk.main.t").fetchall()
except Exception as e:
    err = "%s: %s" % (type(e).__name__, e)
json.dump({"error": err, "version": duckdb.__version__}, sys.stdout)
`

func (l encLake) duckAttachError(t *testing.T, opts string) (msg, version string) {
	t.Helper()
	in := l.duck
	in.Attach = l.attach + opts
	var out struct{ Error, Version string }
	testserver.RunPythonJSON(t, attachScript, 2*time.Minute, in, &out)
	return out.Error, out.Version
}

// inlinedSystemColumns lists the first three columns of each registered
// inlined-data table.
func inlinedSystemColumns(t *testing.T, ctx context.Context, db *catalog.DB) []string {
	t.Helper()
	rows, err := db.SQL().QueryContext(ctx, `SELECT table_name FROM ducklake_inlined_data_tables ORDER BY table_name`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	rows.Close()
	var out []string
	for _, n := range names {
		r, err := db.SQL().QueryContext(ctx, `SELECT * FROM `+catalog.QuoteIdent(n)+` WHERE 1 = 0`)
		if err != nil {
			t.Fatal(err)
		}
		cols, err := r.Columns()
		r.Close()
		if err != nil || len(cols) < 3 {
			t.Fatalf("inlined table %s: %v %v", n, cols, err)
		}
		out = append(out, n+"("+strings.Join(cols[:3], ",")+")")
	}
	return out
}

func columnsOf(t *testing.T, ctx context.Context, db *catalog.DB, table string) string {
	t.Helper()
	r, err := db.SQL().QueryContext(ctx, `SELECT * FROM `+table+` WHERE 1 = 0`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cols, err := r.Columns()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(cols, ",")
}

func TestDuckLake11Migration(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			l := newEncLake(t, kind)
			// DuckDB 1.5.5 makes a 1.0 lake: inlined rows, a data file,
			// deletion vectors (Puffin format) from two DELETEs, a deleted
			// inlined row.
			in := l.duck
			in.Attach = l.attach + " (DATA_PATH " + sqlString(l.data) + ", WRITE_DELETION_VECTORS true)"
			in.Steps = []string{
				`CREATE TABLE lk.t (id INTEGER, v VARCHAR)`,
				`INSERT INTO lk.t VALUES (1, 'a'), (2, 'b'), (3, NULL)`,
				`INSERT INTO lk.t SELECT i, 'f' || i FROM range(100, 3100) r(i)`,
				`DELETE FROM lk.t WHERE id % 7 = 0`,
				`DELETE FROM lk.t WHERE id BETWEEN 1000 AND 1050`,
				`DELETE FROM lk.t WHERE id = 2`,
			}
			in.Queries = []duckQuery{}
			in.Raw = []string{`SELECT format, count(*) FROM __ducklake_metadata_lk.ducklake_delete_file GROUP BY 1 ORDER BY 1`}
			out := runDuckDB(t, in)
			if got := fmtRows(out.Raw[0]); !strings.Contains(got, `"puffin"`) {
				t.Fatalf("DuckDB 1.5.5 wrote no deletion vector: delete files by format %s", got)
			}
			t.Logf("DuckDB 1.5.5's delete files by format: %s", fmtRows(out.Raw[0]))

			srv, conn := l.start(t, ctx)
			// lakepg writes to it: inlined rows, a file, deletes over
			// DuckDB's deletion vectors (merged into a Parquet delete file),
			// an update.
			for _, st := range []string{
				`INSERT INTO main.t VALUES (4, 'lakepg'), (5, NULL)`,
				`INSERT INTO main.t SELECT i, 'g' || i FROM generate_series(5000, 6999) i`,
				`DELETE FROM main.t WHERE id BETWEEN 2000 AND 2100 OR id = 3`,
				`UPDATE main.t SET v = 'upd' WHERE id BETWEEN 6000 AND 6050 OR id = 1`,
			} {
				query(t, ctx, conn, st)
			}
			last := lastSnapshot(t, ctx, conn)
			before := digests(t, ctx, conn, 1, last)

			// DuckDB 1.5.5 answers the same at every snapshot.
			din := l.duck
			din.Attach = l.attach + " (READ_ONLY)"
			din.Queries = []duckQuery{}
			for s := int64(1); s <= last; s++ {
				din.Raw = append(din.Raw, fmt.Sprintf(digestDuck, s))
			}
			dout := runDuckDB(t, din)
			for i, rows := range dout.Raw {
				if got := fmtRows(rows); got != before[i] {
					t.Fatalf("snapshot %d: lakepg %s, DuckDB 1.5.5 %s", i+1, before[i], got)
				}
			}
			if before[len(before)-1] == before[0] {
				t.Fatal("the table did not change over the snapshots")
			}

			// a running server keeps the version it opened with: stop it
			srv.Stop(t)
			o, err := l.lakepgCmd(t, ctx, "migrate")
			if err != nil || !strings.Contains(o, "from DuckLake format 1.0 to 1.1") {
				t.Fatalf("lakepg migrate: %v\n%s", err, o)
			}
			t.Logf("lakepg migrate: %s", strings.TrimSpace(o))
			if o, err := l.lakepgCmd(t, ctx, "migrate"); err != nil || !strings.Contains(o, "already in DuckLake format 1.1") {
				t.Fatalf("lakepg migrate, again: %v\n%s", err, o)
			}
			o, err = l.lakepgCmd(t, ctx, "check")
			if err != nil || !strings.Contains(o, "DuckLake format version 1.1") || !strings.Contains(o, ": 0 problem(s)") {
				t.Fatalf("lakepg check after the migration: %v\n%s", err, o)
			}

			db := l.catalogDB(t, ctx)
			if db.Format() != catalog.Format11 {
				t.Fatalf("format after migrate: %s", db.Format())
			}
			for _, c := range inlinedSystemColumns(t, ctx, db) {
				if !strings.HasSuffix(c, "(_ducklake_row_id,_ducklake_begin_snapshot,_ducklake_end_snapshot)") {
					t.Fatalf("inlined table not renamed: %s", c)
				}
			}
			for _, tb := range []string{"ducklake_data_file", "ducklake_delete_file"} {
				if cols := columnsOf(t, ctx, db, tb); !strings.HasSuffix(cols, ",partial_max,row_group_count") {
					t.Fatalf("%s after migrate: %s", tb, cols)
				}
			}
			if cols := columnsOf(t, ctx, db, "ducklake_view_column_tag"); cols != "view_id,column_name,begin_snapshot,end_snapshot,key,value" {
				t.Fatalf("ducklake_view_column_tag: %s", cols)
			}

			// DuckDB 1.5.5 cannot read a 1.1 catalog.
			msg, ver := l.duckAttachError(t, " (READ_ONLY)")
			t.Logf("DuckDB %s attaching the migrated lake: %s", ver, msg)
			if msg == "" || !strings.Contains(msg, "1.1") {
				t.Fatalf("DuckDB %s attached a 1.1 lake: %q", ver, msg)
			}

			// A server asked for 1.0 refuses the migrated lake.
			o, err = l.lakepgCmd(t, ctx, "migrate", "--to", "1.0")
			if err == nil || !strings.Contains(o, "cannot be downgraded") {
				t.Fatalf("lakepg migrate --to 1.0 on a 1.1 lake: %v\n%s", err, o)
			}

			// Every snapshot reads as before; lakepg goes on writing.
			srv.Restart(t)
			conn2, err := pgx.Connect(ctx, srv.DSN())
			if err != nil {
				t.Fatal(err)
			}
			defer conn2.Close(context.Background())
			after := digests(t, ctx, conn2, 1, last)
			for i := range before {
				if before[i] != after[i] {
					t.Fatalf("snapshot %d after the migration: %s, before %s", i+1, after[i], before[i])
				}
			}
			for _, st := range []string{
				`INSERT INTO main.t VALUES (7, 'new'), (8, 'names')`,
				`DELETE FROM main.t WHERE id = 8 OR id BETWEEN 3000 AND 3010`,
				`UPDATE main.t SET v = 'again' WHERE id = 7`,
				`CALL lakepg.flush_inlined_data('main.t')`,
				`DELETE FROM main.t WHERE id = 7`,
			} {
				query(t, ctx, conn2, st)
			}
			// files from before the migration keep a NULL row_group_count,
			// the flush's new file has one
			var unknown, known int64
			if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) - count(row_group_count), count(row_group_count) FROM ducklake_data_file`).Scan(&unknown, &known); err != nil {
				t.Fatal(err)
			}
			if unknown == 0 || known == 0 {
				t.Fatalf("data files after the migration: %d without row_group_count, %d with", unknown, known)
			}
			r := query(t, ctx, conn2, `SELECT count(*), sum(id) FROM main.t WHERE id < 100`)
			if got := fmtRows(r.Rows); got != fmtRows([][]*string{{ptr("3"), ptr("10")}}) { // 1, 4, 5
				t.Fatalf("small ids after the writes in 1.1: %s", got)
			}
			last2 := lastSnapshot(t, ctx, conn2)
			again := digests(t, ctx, conn2, 1, last)
			for i := range before {
				if before[i] != again[i] {
					t.Fatalf("snapshot %d after the 1.1 writes: %s, before %s", i+1, again[i], before[i])
				}
			}
			if last2 <= last {
				t.Fatal("no new snapshots")
			}
			if o, err := l.lakepgCmd(t, ctx, "check"); err != nil || !strings.Contains(o, ": 0 problem(s)") {
				t.Fatalf("lakepg check after the 1.1 writes: %v\n%s", err, o)
			}
		})
	}
}

// TestDuckLake11NewLake: lakepg creates a 1.1 lake and works in it; a
// Puffin file with one deletion vector per snapshot (the layout 1.1 allows)
// put in place of a Parquet delete file answers the same at every snapshot
// and in the change feed.
func TestDuckLake11NewLake(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			l := newEncLake(t, kind)
			srv, conn := l.start(t, ctx, "--ducklake-version", "1.1")
			first := lastSnapshot(t, ctx, conn) + 1
			for _, st := range []string{
				`CREATE TABLE main.t (id integer, v text)`,
				`INSERT INTO main.t VALUES (1, 'a'), (2, 'b'), (3, NULL)`,
				`INSERT INTO main.t SELECT i, 'f' || i FROM generate_series(100, 3099) i`,
				`DELETE FROM main.t WHERE id % 7 = 0`,
				`DELETE FROM main.t WHERE id BETWEEN 1000 AND 1050 OR id = 2`,
				`UPDATE main.t SET v = 'u' WHERE id BETWEEN 2000 AND 2010 OR id = 1`,
				`DELETE FROM main.t WHERE id BETWEEN 2500 AND 2520`,
				// 1.1 keeps a user column called row_id inlined: its system
				// columns are _ducklake_*
				`CREATE TABLE main.r (row_id integer, begin_snapshot text)`,
				`INSERT INTO main.r VALUES (10, 'x'), (20, 'y')`,
				`DELETE FROM main.r WHERE row_id = 10`,
			} {
				query(t, ctx, conn, st)
			}
			if got := fmtRows(query(t, ctx, conn, `SELECT row_id, begin_snapshot FROM main.r`).Rows); got != fmtRows([][]*string{{ptr("20"), ptr("y")}}) {
				t.Fatalf("table r: %s", got)
			}
			last := lastSnapshot(t, ctx, conn)
			before := digests(t, ctx, conn, first+1, last)
			feed := fmt.Sprintf(`SELECT snapshot_id, change_type, count(*), sum(id) FROM lakepg.table_changes('main.t', %d, %d) GROUP BY 1, 2 ORDER BY 1, 2`, first, last)
			feedBefore := fmtRows(query(t, ctx, conn, feed).Rows)

			db := l.catalogDB(t, ctx)
			if db.Format() != catalog.Format11 {
				t.Fatalf("new lake's format: %s", db.Format())
			}
			for _, tb := range []string{"ducklake_data_file", "ducklake_delete_file"} {
				if cols := columnsOf(t, ctx, db, tb); !strings.HasSuffix(cols, ",partial_max,row_group_count") {
					t.Fatalf("%s: %s", tb, cols)
				}
			}
			// every file lakepg wrote has its row_group_count (one row group each)
			for _, tb := range []string{"ducklake_data_file", "ducklake_delete_file"} {
				var n, known, lo, hi int64
				if err := db.SQL().QueryRowContext(ctx, `SELECT count(*), count(row_group_count), coalesce(min(row_group_count), 0), coalesce(max(row_group_count), 0) FROM `+tb).Scan(&n, &known, &lo, &hi); err != nil {
					t.Fatal(err)
				}
				if n == 0 || known != n || lo != 1 || hi != 1 {
					t.Fatalf("%s: %d rows, %d with row_group_count, from %d to %d", tb, n, known, lo, hi)
				}
			}
			cols := inlinedSystemColumns(t, ctx, db)
			if len(cols) < 2 {
				t.Fatalf("inlined tables: %v", cols)
			}
			for _, c := range cols {
				if !strings.HasSuffix(c, "(_ducklake_row_id,_ducklake_begin_snapshot,_ducklake_end_snapshot)") {
					t.Fatalf("inlined table of a 1.1 lake: %s", c)
				}
			}
			if o, err := l.lakepgCmd(t, ctx, "check"); err != nil || !strings.Contains(o, "DuckLake format version 1.1") || !strings.Contains(o, ": 0 problem(s)") {
				t.Fatalf("lakepg check: %v\n%s", err, o)
			}
			if msg, ver := l.duckAttachError(t, " (READ_ONLY)"); msg == "" || !strings.Contains(msg, "1.1") {
				t.Fatalf("DuckDB %s attached a 1.1 lake: %q", ver, msg)
			} else {
				t.Logf("DuckDB %s attaching lakepg's 1.1 lake: %s", ver, msg)
			}

			// Replace t's live Parquet delete file (with its snapshot column)
			// by a Puffin file holding one cumulative vector per snapshot.
			var delID, begin int64
			var rel string
			if err := db.SQL().QueryRowContext(ctx, db.Rebind(`SELECT d.delete_file_id, d.path, d.begin_snapshot FROM ducklake_delete_file d
				JOIN ducklake_table tb ON tb.table_id = d.table_id AND tb.end_snapshot IS NULL
				WHERE tb.table_name = 't' AND d.end_snapshot IS NULL AND d.format = 'parquet'`)).Scan(&delID, &rel, &begin); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(l.data, "main", "t")
			old, err := os.ReadFile(filepath.Join(dir, rel))
			if err != nil {
				t.Fatal(err)
			}
			var blobs []parquetio.PuffinBlob
			prev := -1
			for s := begin; s <= last; s++ {
				pos, err := parquetio.ReadDeletePositions(bytes.NewReader(old), int64(len(old)), s)
				if err != nil {
					t.Fatal(err)
				}
				if len(pos) != prev {
					blobs = append(blobs, parquetio.PuffinBlob{Snapshot: s, Positions: pos})
					prev = len(pos)
				}
			}
			if len(blobs) < 3 {
				t.Fatalf("the delete file spans %d snapshots, want at least 3", len(blobs))
			}
			file, footer, err := parquetio.WritePuffin("t.parquet", blobs)
			if err != nil {
				t.Fatal(err)
			}
			name := strings.TrimSuffix(rel, ".parquet") + ".puffin"
			if err := os.WriteFile(filepath.Join(dir, name), file, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(dir, rel)); err != nil {
				t.Fatal(err)
			}
			if _, err := db.SQL().ExecContext(ctx, db.Rebind(`UPDATE ducklake_delete_file SET path = ?, format = 'puffin', file_size_bytes = ?, footer_size = ?, encryption_key = NULL WHERE delete_file_id = ?`),
				name, len(file), footer, delID); err != nil {
				t.Fatal(err)
			}
			srv.Restart(t)
			conn2, err := pgx.Connect(ctx, srv.DSN())
			if err != nil {
				t.Fatal(err)
			}
			defer conn2.Close(context.Background())
			after := digests(t, ctx, conn2, first+1, last)
			for i := range before {
				if before[i] != after[i] {
					t.Fatalf("snapshot %d with the Puffin file: %s, with the Parquet file %s", first+1+int64(i), after[i], before[i])
				}
			}
			if got := fmtRows(query(t, ctx, conn2, feed).Rows); got != feedBefore {
				t.Fatalf("change feed with the Puffin file:\n%s\nwith the Parquet file:\n%s", got, feedBefore)
			}
			if o, err := l.lakepgCmd(t, ctx, "check"); err != nil || !strings.Contains(o, ": 0 problem(s)") {
				t.Fatalf("lakepg check with the Puffin file: %v\n%s", err, o)
			}
			// a further DELETE merges the Puffin file's vectors into a new
			// Parquet delete file, history included
			query(t, ctx, conn2, `DELETE FROM main.t WHERE id BETWEEN 3000 AND 3005`)
			again := digests(t, ctx, conn2, first+1, last)
			for i := range before {
				if before[i] != again[i] {
					t.Fatalf("snapshot %d after merging the Puffin file: %s, before %s", first+1+int64(i), again[i], before[i])
				}
			}
			r := query(t, ctx, conn2, `SELECT count(*) FROM main.t WHERE id BETWEEN 2990 AND 3010`)
			if got := fmtRows(r.Rows); got != fmtRows([][]*string{{ptr("13")}}) { // 21 rows less 2996, 3003, 3010 (id % 7) and 3000..3005
				t.Fatalf("rows 2990..3010: %s", got)
			}
		})
	}
}

// TestDuckLake11MigrationConflict: a 1.0 inlined-data table with a user
// column that a renamed system column would take stops the migration, which
// leaves the catalog at 1.0; renaming the column and flushing the inlined
// data lets it through.
func TestDuckLake11MigrationConflict(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			l := newEncLake(t, kind)
			srv, conn := l.start(t, ctx)
			query(t, ctx, conn, `CREATE TABLE main.c (_ducklake_row_id integer, x text)`)
			query(t, ctx, conn, `INSERT INTO main.c VALUES (1, 'one'), (2, 'two')`)
			want := fmtRows(query(t, ctx, conn, `SELECT * FROM main.c ORDER BY 1`).Rows)
			srv.Stop(t)
			o, err := l.lakepgCmd(t, ctx, "migrate")
			if err == nil || !strings.Contains(o, `has a column "_ducklake_row_id"`) {
				t.Fatalf("lakepg migrate with a colliding column: %v\n%s", err, o)
			}
			t.Logf("lakepg migrate: %s", strings.TrimSpace(o))
			if db := l.catalogDB(t, ctx); db.Format() != catalog.Format10 {
				t.Fatalf("format after a failed migration: %s", db.Format())
			}
			srv.Restart(t)
			conn2, err := pgx.Connect(ctx, srv.DSN())
			if err != nil {
				t.Fatal(err)
			}
			defer conn2.Close(context.Background())
			if got := fmtRows(query(t, ctx, conn2, `SELECT * FROM main.c ORDER BY 1`).Rows); got != want {
				t.Fatalf("after the failed migration: %s, want %s", got, want)
			}
			query(t, ctx, conn2, `ALTER TABLE main.c RENAME COLUMN _ducklake_row_id TO rid`)
			query(t, ctx, conn2, `CALL lakepg.flush_inlined_data('main.c')`)
			srv.Stop(t)
			if o, err := l.lakepgCmd(t, ctx, "migrate"); err != nil || !strings.Contains(o, "to 1.1") {
				t.Fatalf("lakepg migrate after rename and flush: %v\n%s", err, o)
			}
			srv.Restart(t)
			conn3, err := pgx.Connect(ctx, srv.DSN())
			if err != nil {
				t.Fatal(err)
			}
			defer conn3.Close(context.Background())
			query(t, ctx, conn3, `INSERT INTO main.c VALUES (3, 'three')`)
			r := query(t, ctx, conn3, `SELECT count(*), sum(rid) FROM main.c`)
			if got := fmtRows(r.Rows); got != fmtRows([][]*string{{ptr("3"), ptr("6")}}) {
				t.Fatalf("after the migration: %s", got)
			}
		})
	}
}

// TestDuckLake11MigratedUnderServer: the catalog is migrated while a server
// has it open (as DuckDB 2.0's AUTOMATIC_MIGRATION would do it): the server
// reads the renamed inlined tables, and an inlined table it creates
// afterwards has the 1.1 layout.
func TestDuckLake11MigratedUnderServer(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			l := newEncLake(t, kind)
			_, conn := l.start(t, ctx)
			query(t, ctx, conn, `CREATE TABLE main.a (id integer, v text)`)
			query(t, ctx, conn, `INSERT INTO main.a VALUES (1, 'x'), (2, 'y')`)
			if o, err := l.lakepgCmd(t, ctx, "migrate"); err != nil || !strings.Contains(o, "to 1.1") {
				t.Fatalf("lakepg migrate: %v\n%s", err, o)
			}
			if got := fmtRows(query(t, ctx, conn, `SELECT id, v FROM main.a ORDER BY id`).Rows); got != fmtRows([][]*string{{ptr("1"), ptr("x")}, {ptr("2"), ptr("y")}}) {
				t.Fatalf("inlined rows after the migration: %s", got)
			}
			query(t, ctx, conn, `CREATE TABLE main.b (id integer)`)
			query(t, ctx, conn, `INSERT INTO main.b VALUES (7)`)
			query(t, ctx, conn, `INSERT INTO main.a VALUES (3, 'z')`)
			query(t, ctx, conn, `DELETE FROM main.a WHERE id = 1`)
			if got := fmtRows(query(t, ctx, conn, `SELECT (SELECT string_agg(id::text, ',' ORDER BY id) FROM main.a), (SELECT sum(id) FROM main.b)`).Rows); got != fmtRows([][]*string{{ptr("2,3"), ptr("7")}}) {
				t.Fatalf("after writes in the migrated lake: %s", got)
			}
			db := l.catalogDB(t, ctx)
			for _, c := range inlinedSystemColumns(t, ctx, db) {
				if !strings.HasSuffix(c, "(_ducklake_row_id,_ducklake_begin_snapshot,_ducklake_end_snapshot)") {
					t.Fatalf("inlined table after the migration: %s", c)
				}
			}
		})
	}
}
