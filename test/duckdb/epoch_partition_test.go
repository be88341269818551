package duckdb

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/test/testserver"
)

// DuckLake 1.1's epoch_year/month/day/hour partition transforms. DuckDB
// 1.5.5 has none of them and cannot attach a 1.1 catalog, and DuckDB 2.0's
// ducklake extension cannot be installed here, so what DuckDB checks is the
// values: it reads each of lakepg's partitioned files (plain Parquet, no
// catalog) and computes the expression DuckDB 2.0's extension partitions by,
// date_diff(part, DATE '1970-01-01', v) with a timestamptz taken at its UTC
// instant; every row of a file must give the partition value lakepg stored
// for it and put in its path.

// epochScript: for each file, the distinct values of each expression over
// its rows; for each filter, the rows of all files that match it.
const epochScript = `
import json, sys, duckdb
inp = json.load(sys.stdin)
c = duckdb.connect()
c.execute("SET TimeZone = 'UTC'")
files = []
for f in inp["files"]:
    path = f["path"].replace("'", "''")
    vals = []
    for e in f["exprs"]:
        rows = c.execute("SELECT DISTINCT (%s)::VARCHAR FROM read_parquet('%s', hive_partitioning = false)" % (e, path)).fetchall()
        vals.append(sorted("NULL" if r[0] is None else r[0] for r in rows))
    files.append(vals)
paths = "[" + ", ".join("'" + f["path"].replace("'", "''") + "'" for f in inp["files"]) + "]"
counts = []
for w in inp["filters"]:
    counts.append(c.execute("SELECT count(*)::VARCHAR FROM read_parquet(%s, hive_partitioning = false) WHERE %s" % (paths, w)).fetchone()[0])
json.dump({"files": files, "counts": counts}, sys.stdout)
`

type epochFile struct {
	Path  string   `json:"path"`
	Exprs []string `json:"exprs"`
}

// epochExpr is the expression DuckDB 2.0 partitions column col of DuckLake
// type typ by for an epoch transform.
func epochExpr(transform, col, typ string) string {
	v := quoteIdent(col)
	if strings.HasPrefix(typ, "timestamptz") {
		v = "make_timestamp(epoch_us(" + v + "))"
	}
	return fmt.Sprintf("date_diff('%s', DATE '1970-01-01', %s)", strings.TrimPrefix(transform, "epoch_"), v)
}

// epochFilters prune by epoch partition values; each holds rows.
var epochFilters = []string{
	`ts >= '1969-06-01' AND ts < '1969-07-01'`,
	`ts < '1969-01-01'`,
	`ts = '1970-03-04 05:00:00'`,
	`d = '1969-12-31'`,
	`d >= '1970-01-03'`,
	`tz >= '1970-01-01 03:00:00+00' AND tz < '1970-01-01 04:00:00+00'`,
	`tz < '1969-12-31 23:00:00+00'`,
}

// TestEpochPartitions: lakepg writes a 1.1 lake partitioned by all four epoch
// transforms (values before 1970 included; a timestamptz key written in a
// session at +05:30); the catalog holds DuckDB's transform names and values,
// the paths epoch_<part>=<value>; DuckDB computes the same value from every
// row of every file; filters prune files by those values and answer as with
// pruning off and as DuckDB over the files; compaction keeps the layout. On
// a 1.0 catalog the transforms are refused with SQLSTATE 0A000.
func TestEpochPartitions(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			old := newEncLake(t, kind)
			_, oldConn := old.start(t, ctx)
			query(t, ctx, oldConn, `CREATE TABLE main.e (ts timestamp)`)
			_, err := oldConn.Exec(ctx, `ALTER TABLE main.e SET PARTITIONED BY (epoch_year(ts))`)
			if err == nil || !strings.Contains(err.Error(), "0A000") || !strings.Contains(err.Error(), "1.1") {
				t.Fatalf("epoch_year on a 1.0 catalog: %v, want 0A000 naming DuckLake 1.1", err)
			}

			l := newEncLake(t, kind)
			_, conn := l.start(t, ctx, "--ducklake-version", "1.1")
			for _, st := range []string{
				`CREATE TABLE main.e (id integer, ts timestamp, tz timestamptz, d date, v text)`,
				`ALTER TABLE main.e SET PARTITIONED BY (epoch_year(ts), epoch_month(ts))`,
				`INSERT INTO main.e SELECT i, CASE WHEN i % 500 = 7 THEN NULL ELSE TIMESTAMP '1968-11-01' + i * interval '7 hours' END,
					TIMESTAMPTZ '1969-12-31 20:00:00+00' + i * interval '13 minutes', DATE '1969-12-20' + i / 100, 'a' || i FROM generate_series(0, 2999) i`,
				`SET TimeZone = 'Asia/Kolkata'`,
				`ALTER TABLE main.e SET PARTITIONED BY (epoch_day(d), epoch_hour(tz))`,
				`INSERT INTO main.e SELECT i, TIMESTAMP '1970-03-04 05:00:00', TIMESTAMPTZ '1969-12-31 21:00:00+00' + (i % 400) * interval '1 minute',
					DATE '1969-12-30' + (i % 5), 'b' || i FROM generate_series(3000, 3799) i`,
				`INSERT INTO main.e SELECT i, TIMESTAMP '1970-03-04 05:00:00', TIMESTAMPTZ '1969-12-31 21:00:00+00' + (i % 400) * interval '1 minute',
					DATE '1969-12-30' + (i % 5), 'c' || i FROM generate_series(4000, 4799) i`,
				`SET TimeZone = 'UTC'`,
			} {
				query(t, ctx, conn, st)
			}
			before := query(t, ctx, conn, `SELECT * FROM main.e ORDER BY id`)
			checkEpochFiles(t, ctx, l, conn, false)
			query(t, ctx, conn, `CALL ducklake_merge_adjacent_files('lake', 'main.e')`)
			if after := query(t, ctx, conn, `SELECT * FROM main.e ORDER BY id`); fmtRows(after.Rows) != fmtRows(before.Rows) {
				t.Errorf("e changed in merge_adjacent_files: %d rows before, %d after", len(before.Rows), len(after.Rows))
			}
			checkEpochFiles(t, ctx, l, conn, true)
		})
	}
}

// checkEpochFiles checks table e's live files and filters (see
// TestEpochPartitions); merged says the day/hour files were compacted.
func checkEpochFiles(t *testing.T, ctx context.Context, l encLake, pc *pgx.Conn, merged bool) {
	t.Helper()
	db := l.catalogDB(t, ctx)
	head, err := db.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := db.Load(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	sch, _ := meta.SchemaByName("main")
	tb, ok := meta.TableByName(sch.ID, "e")
	if !ok {
		t.Fatal("no table main.e")
	}
	files, err := db.Files(ctx, sch, tb, head)
	if err != nil {
		t.Fatal(err)
	}
	var transforms []string
	rows, err := db.SQL().QueryContext(ctx, `SELECT transform FROM ducklake_partition_column ORDER BY partition_id, partition_key_index`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		transforms = append(transforms, s)
	}
	rows.Close()
	if got := strings.Join(transforms, ","); got != "epoch_year,epoch_month,epoch_day,epoch_hour" {
		t.Fatalf("ducklake_partition_column transforms: %s", got)
	}
	var in struct {
		Files   []epochFile `json:"files"`
		Filters []string    `json:"filters"`
	}
	var want [][]string
	var parts []string // spec and values of each file
	specs := map[int64]int{}
	for _, f := range files {
		if len(f.Partition) == 0 {
			t.Fatalf("file %s has no partition values", f.RelPath)
		}
		specs[*f.PartitionID]++
		ef := epochFile{Path: f.Path}
		var vals []string
		dir := ""
		for _, pv := range f.Partition {
			c, ok := tb.ColumnByID(pv.ColumnID)
			if !ok {
				t.Fatalf("partition key column %d", pv.ColumnID)
			}
			ef.Exprs = append(ef.Exprs, epochExpr(pv.Transform, c.Name, c.Type))
			val := "NULL"
			hive := "__HIVE_DEFAULT_PARTITION__"
			if pv.Value != nil {
				val, hive = *pv.Value, *pv.Value
			}
			vals = append(vals, val)
			dir += pv.Transform + "=" + hive + "/"
		}
		if !strings.HasPrefix(f.RelPath, dir) {
			t.Errorf("file %s with values %v: want it under %s", f.RelPath, vals, dir)
		}
		in.Files = append(in.Files, ef)
		want = append(want, vals)
		parts = append(parts, fmt.Sprintf("%d:%s", *f.PartitionID, strings.Join(vals, "/")))
	}
	if len(specs) != 2 {
		t.Fatalf("files under %d partition specs, want 2: %v", len(specs), specs)
	}
	in.Filters = epochFilters
	var out struct {
		Files  [][][]string `json:"files"`
		Counts []string     `json:"counts"`
	}
	testserver.RunPythonJSON(t, epochScript, 2*time.Minute, in, &out)
	negative := false
	for i, f := range in.Files {
		for k, got := range out.Files[i] {
			if len(got) != 1 || got[0] != want[i][k] {
				t.Errorf("file %s: DuckDB computes %s = %v from its rows, lakepg stored %s", f.Path, f.Exprs[k], got, want[i][k])
			}
			if strings.HasPrefix(want[i][k], "-") {
				negative = true
			}
		}
	}
	if !negative {
		t.Errorf("no file holds a value before 1970")
	}
	for i, w := range epochFilters {
		q := `SELECT * FROM main.e WHERE ` + w
		plan := explainFiles(t, ctx, pc, q)
		if !strings.Contains(plan, "by partition values") {
			t.Errorf("WHERE %s: %s, want files pruned by partition values", w, plan)
		}
		pruned := query(t, ctx, pc, q+` ORDER BY id`)
		query(t, ctx, pc, `SET lakepg.partition_pruning = off`)
		if all := query(t, ctx, pc, q+` ORDER BY id`); fmtRows(all.Rows) != fmtRows(pruned.Rows) {
			t.Errorf("WHERE %s: %d rows with partition pruning, %d without", w, len(pruned.Rows), len(all.Rows))
		}
		query(t, ctx, pc, `RESET lakepg.partition_pruning`)
		if n := fmt.Sprint(len(pruned.Rows)); n != out.Counts[i] || n == "0" {
			t.Errorf("WHERE %s: lakepg %s rows, DuckDB over the files %s", w, n, out.Counts[i])
		}
	}
	// the two inserts under the day/hour keys wrote a file each per
	// partition; merge_adjacent_files leaves one
	seen := map[string]int{}
	for _, p := range parts {
		seen[p]++
	}
	twice := 0
	for p, n := range seen {
		if n > 1 {
			twice++
			if merged {
				t.Errorf("%d live files for partition %s after merge_adjacent_files", n, p)
			}
		}
	}
	if !merged && twice == 0 {
		t.Errorf("no partition has two files before merge_adjacent_files")
	}
}
