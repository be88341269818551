package duckdb

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/test/testserver"
)

// Repeated deletes on one data file. DuckDB 1.5.5 keeps one delete-file row
// per data file: a further delete writes a file with every deleted position
// and the snapshot that deleted it (_ducklake_internal_snapshot_id), begins
// it at the first delete and removes the old row. lakepg used to write the
// plain union and end-date the old row, which reads the same at every
// snapshot, but DuckDB's ducklake_table_changes takes every position of
// every delete file that begins by the end of the range as deleted at that
// file's begin_snapshot (it only subtracts the delete file in force before
// the range starts), so each further delete counted the earlier positions
// again (2345 deletes instead of 1218 in TestEncryptedLakeFromDuckDB).
// Here both writers take turns on one file, on SQLite and PostgreSQL
// catalogs, and the change feeds over every range, the table at every
// snapshot and the catalog rows must agree.

var duckDelSteps = []string{
	`CREATE TABLE lk.t (id INTEGER, v VARCHAR)`,
	`INSERT INTO lk.t SELECT i, 'v' || (i % 13) FROM range(0, 3000) r(i)`,
	`DELETE FROM lk.t WHERE id % 11 = 0`,
	`UPDATE lk.t SET v = 'upd' WHERE id BETWEEN 100 AND 120`,
}

var lakepgDelSteps = []string{
	`INSERT INTO main.t (id, v) SELECT i, 'lakepg ' || i FROM generate_series(5000, 6999) i`,
	// a further delete on DuckDB's file (which has a delete file with the
	// snapshot column already) and a first one on lakepg's
	`DELETE FROM main.t WHERE id % 5 = 0`,
	`UPDATE main.t SET v = 'by lakepg' WHERE id BETWEEN 200 AND 260 OR id BETWEEN 6000 AND 6010`,
	`DELETE FROM main.t WHERE id BETWEEN 1000 AND 1100 OR id BETWEEN 5500 AND 5600`,
	// two deletes of one file in a block are one snapshot
	`BEGIN; DELETE FROM main.t WHERE id BETWEEN 1200 AND 1250; DELETE FROM main.t WHERE id BETWEEN 1300 AND 1320; COMMIT`,
	`CREATE TABLE main.u (id integer, v text)`,
	`INSERT INTO main.u SELECT i, 'u' FROM generate_series(0, 1999) i`,
	`DELETE FROM main.u WHERE id % 3 = 0`,
	`DELETE FROM main.u WHERE id % 7 = 0`,
	`UPDATE main.u SET v = 'w' WHERE id % 10 = 1`,
}

// duckDelLater are DuckDB's deletes on the files lakepg's delete files
// cover: it reads lakepg's snapshot column to merge them.
var duckDelLater = []string{
	`DELETE FROM lk.main.t WHERE id BETWEEN 1500 AND 1600 OR id BETWEEN 6500 AND 6600`,
	`DELETE FROM lk.main.u WHERE id BETWEEN 100 AND 300`,
}

func TestDeleteFileHistory(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			l := newEncLake(t, kind)
			in := l.duck
			in.Attach = l.attach + " (DATA_PATH " + sqlString(l.data) + ", DATA_INLINING_ROW_LIMIT 0)"
			in.Steps = duckDelSteps
			in.Queries = []duckQuery{}
			runDuckDB(t, in)

			srv, conn := l.start(t, ctx)
			for _, st := range lakepgDelSteps {
				query(t, ctx, conn, st)
			}
			// A block whose base is not the head at COMMIT: its delete file
			// was stamped with the snapshot after its base, which another
			// session's commit takes; COMMIT rewrites it for its own.
			other, err := pgx.Connect(ctx, srv.DSN())
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close(context.Background())
			query(t, ctx, conn, `BEGIN`)
			query(t, ctx, conn, `DELETE FROM main.t WHERE id BETWEEN 1400 AND 1450`)
			query(t, ctx, other, `INSERT INTO main.u VALUES (9000, 'other session')`)
			query(t, ctx, conn, `DELETE FROM main.t WHERE id BETWEEN 1460 AND 1470`)
			if got := fmtRows(query(t, ctx, conn, `SELECT count(*) FROM main.t WHERE id BETWEEN 1400 AND 1450 OR id BETWEEN 1460 AND 1470`).Rows); got != fmtRows([][]*string{{ptr("0")}}) {
				t.Fatalf("the block does not see its own deletes: %s", got)
			}
			query(t, ctx, conn, `COMMIT`)
			afterLakepg := lastSnapshot(t, ctx, conn)
			compareHistory(t, ctx, conn, l, "lakepg's deletes", afterLakepg)

			// DuckDB deletes again from the files lakepg's delete files cover.
			in = l.duck
			in.Attach = l.attach
			in.Steps = duckDelLater
			in.Queries = []duckQuery{}
			runDuckDB(t, in)
			last := lastSnapshot(t, ctx, conn)
			if last != afterLakepg+2 {
				t.Fatalf("after DuckDB's deletes the last snapshot is %d, want %d", last, afterLakepg+2)
			}
			before := compareHistory(t, ctx, conn, l, "DuckDB's deletes after lakepg's", last)
			l.compareTables(t, ctx, conn, "after both writers' deletes", "t", "u")
			if l.sqlitePath == "" {
				return
			}
			// A lake from before: lakepg reads the end-dated plain delete
			// files it used to write exactly as the merged ones.
			if n := oldStyleDeletes(t, l.sqlitePath, l.data); n < 4 {
				t.Fatalf("only %d old-style delete-file rows written", n)
			}
			srv.Restart(t)
			conn2, err := pgx.Connect(ctx, srv.DSN())
			if err != nil {
				t.Fatal(err)
			}
			defer conn2.Close(context.Background())
			mineQ, _, what := historyQueries(t, ctx, conn2, last)
			for i, q := range mineQ {
				if got := query(t, ctx, conn2, q); fmtRows(got.Rows) != fmtRows(before[i].Rows) {
					t.Fatalf("old-style delete files: %s\nnow %s\nbefore %s", what[i], fmtRows(got.Rows), fmtRows(before[i].Rows))
				}
			}
			t.Logf("old-style lake read as before (%d queries)", len(mineQ))
			// and a further delete on it keeps one live delete file per data
			// file, which DuckDB reads as lakepg does
			query(t, ctx, conn2, `DELETE FROM main.t WHERE id BETWEEN 1700 AND 1800 OR id BETWEEN 6700 AND 6800`)
			l.compareTables(t, ctx, conn2, "a delete on the old-style lake", "t", "u")
			got := query(t, ctx, conn2, fmt.Sprintf(`SELECT count(*) FROM lakepg.table_changes('main.t', %d, %d) WHERE change_type = 'delete'`, last+1, last+1))
			if fmtRows(got.Rows) != fmtRows([][]*string{{ptr("153")}}) {
				t.Fatalf("deletes of the last snapshot in lakepg's feed: %s, want 153 (1700..1800 less multiples of 5 and 11, 6700..6800 less multiples of 5)", fmtRows(got.Rows))
			}
		})
	}
}

// compareHistory compares lakepg's and DuckDB's change feeds of t and u over
// every range ending at last, both tables at every snapshot, and checks that
// the catalog keeps one delete-file row per data file and schedules the
// replaced ones for deletion.
func compareHistory(t *testing.T, ctx context.Context, conn *pgx.Conn, l encLake, label string, last int64) []result {
	t.Helper()
	mineQ, duckQ, what := historyQueries(t, ctx, conn, last)
	var mine []result
	for _, q := range mineQ {
		mine = append(mine, query(t, ctx, conn, q))
	}
	in := l.duck
	in.Attach = l.attach + " (READ_ONLY)"
	in.Queries = []duckQuery{}
	in.Raw = duckQ
	in.Raw = append(in.Raw,
		`SELECT data_file_id, count(*) FROM __ducklake_metadata_lk.ducklake_delete_file GROUP BY 1 HAVING count(*) > 1`,
		`SELECT count(*) FROM __ducklake_metadata_lk.ducklake_delete_file WHERE end_snapshot IS NOT NULL OR (partial_max IS NOT NULL AND partial_max <= begin_snapshot)`,
		`SELECT count(*) FROM __ducklake_metadata_lk.ducklake_files_scheduled_for_deletion s
			JOIN __ducklake_metadata_lk.ducklake_delete_file d ON d.delete_file_id = s.data_file_id`)
	out := runDuckDB(t, in)
	if len(out.Raw) != len(mine)+3 {
		t.Fatalf("DuckDB answered %d queries, want %d", len(out.Raw), len(mine)+3)
	}
	deletes := 0
	for i, r := range mine {
		if fmtRows(r.Rows) != fmtRows(out.Raw[i]) {
			t.Fatalf("%s: %s\nlakepg %s\nDuckDB %s", label, what[i], fmtRows(r.Rows), fmtRows(out.Raw[i]))
		}
		for _, row := range r.Rows {
			if len(row) == 4 && row[1] != nil && *row[1] == "delete" {
				deletes++
			}
		}
	}
	if deletes == 0 {
		t.Fatalf("%s: no change feed has deletes", label)
	}
	cat := out.Raw[len(mine):]
	if len(cat[0]) != 0 {
		t.Errorf("%s: data files with more than one delete-file row: %s", label, fmtRows(cat[0]))
	}
	if fmtRows(cat[1]) != fmtRows([][]*string{{ptr("0")}}) {
		t.Errorf("%s: end-dated delete files, or partial_max not after begin_snapshot: %s", label, fmtRows(cat[1]))
	}
	if fmtRows(cat[2]) != fmtRows([][]*string{{ptr("0")}}) {
		t.Errorf("%s: files scheduled for deletion that a delete-file row still names: %s", label, fmtRows(cat[2]))
	}
	t.Logf("%s: %d change feeds and table states compared with DuckDB's", label, len(mine))
	return mine
}

// historyQueries are, for lakepg and for DuckDB, the change feeds of t and
// u over every range ending at last and both tables at every snapshot.
func historyQueries(t *testing.T, ctx context.Context, conn *pgx.Conn, last int64) (mine, duck, what []string) {
	t.Helper()
	for _, tb := range []string{"t", "u"} {
		r := query(t, ctx, conn, fmt.Sprintf(`SELECT min(snapshot_id) FROM lakepg.snapshots WHERE changes LIKE '%%created_table:"main"."%s"%%'`, tb))
		if len(r.Rows) != 1 || r.Rows[0][0] == nil {
			t.Fatalf("no snapshot created table %s", tb)
		}
		var created int64
		if _, err := fmt.Sscan(*r.Rows[0][0], &created); err != nil {
			t.Fatal(err)
		}
		for start := created; start <= last; start++ {
			mine = append(mine, fmt.Sprintf(`SELECT snapshot_id, change_type, count(*), sum(id) FROM lakepg.table_changes('main.%s', %d, %d) GROUP BY 1, 2 ORDER BY 1, 2`, tb, start, last))
			duck = append(duck, fmt.Sprintf(`SELECT snapshot_id, change_type, count(*), sum(id) FROM ducklake_table_changes('lk', 'main', '%s', %d, %d) GROUP BY 1, 2 ORDER BY 1, 2`, tb, start, last))
			what = append(what, fmt.Sprintf("table_changes('main.%s', %d, %d)", tb, start, last))
			mine = append(mine, fmt.Sprintf(`SELECT count(*), sum(id), count(v), count(DISTINCT v) FROM lakepg.at_version('main.%s', %d)`, tb, start))
			duck = append(duck, fmt.Sprintf(`SELECT count(*), sum(id), count(v), count(DISTINCT v) FROM lk.main.%s AT (VERSION => %d)`, tb, start))
			what = append(what, fmt.Sprintf("main.%s at snapshot %d", tb, start))
		}
	}
	return mine, duck, what
}

// oldStyleDeletes rewrites a SQLite catalog into the layout lakepg wrote
// before it replaced delete-file rows as DuckDB does: every delete file with
// the snapshot column becomes one plain file per snapshot in it (the
// positions deleted by then), each row end-dated where the next begins.
// It returns how many rows it wrote.
func oldStyleDeletes(t *testing.T, catalogPath, dataPath string) int {
	t.Helper()
	const script = `
import json, sys, sqlite3, duckdb
inp = json.load(sys.stdin)
c = sqlite3.connect(inp["catalog"])
d = duckdb.connect()
rows = c.execute("""SELECT f.delete_file_id, f.table_id, f.data_file_id, f.path, f.end_snapshot, s.path, t.path
  FROM ducklake_delete_file f JOIN ducklake_table t ON t.table_id = f.table_id AND t.end_snapshot IS NULL
  JOIN ducklake_schema s ON s.schema_id = t.schema_id AND s.end_snapshot IS NULL
  WHERE f.partial_max IS NOT NULL""").fetchall()
next_id = 1000000
written = 0
for (fid, tid, dfid, path, end, spath, tpath) in rows:
    src = inp["data"] + spath + tpath + path
    snaps = [r[0] for r in d.execute("SELECT DISTINCT _ducklake_internal_snapshot_id FROM read_parquet(?) ORDER BY 1", [src]).fetchall()]
    c.execute("DELETE FROM ducklake_delete_file WHERE delete_file_id = ?", (fid,))
    for i, s in enumerate(snaps):
        name = "old-style-%d-%d-delete.parquet" % (fid, s)
        dst = inp["data"] + spath + tpath + name
        d.execute("COPY (SELECT file_path, pos FROM read_parquet('%s') WHERE _ducklake_internal_snapshot_id <= %d ORDER BY pos) TO '%s' (FORMAT parquet, FIELD_IDS {file_path: 2147483646, pos: 2147483645})" % (src, s, dst))
        n = d.execute("SELECT count(*) FROM read_parquet(?)", [dst]).fetchone()[0]
        size = d.execute("SELECT size FROM read_blob(?)", [dst]).fetchone()[0]
        e = snaps[i + 1] if i + 1 < len(snaps) else end
        c.execute("INSERT INTO ducklake_delete_file VALUES (?, ?, ?, ?, ?, ?, 1, 'parquet', ?, ?, NULL, NULL, NULL)",
                  (next_id, tid, s, e, dfid, name, n, size))
        next_id += 1
        written += 1
c.commit()
json.dump({"written": written}, sys.stdout)
`
	var out struct{ Written int }
	testserver.RunPythonJSON(t, script, time.Minute, map[string]string{"catalog": catalogPath, "data": dataPath}, &out)
	return out.Written
}
