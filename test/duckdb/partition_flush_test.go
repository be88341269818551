package duckdb

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/test/testserver"
)

// partFlushSteps run unchanged in DuckDB (after USE lk) and in lakepg: small writes into a
// partitioned table stay inlined (some deleted, one updated, a layout change in between),
// then the flush writes them out, one file per partition. 'lk' is the catalog name in
// DuckDB; lakepg ignores the argument.
var partFlushSteps = []string{
	`CREATE TABLE p (id INTEGER, r VARCHAR, ts TIMESTAMP)`,
	`ALTER TABLE p SET PARTITIONED BY (r, year(ts))`,
	`INSERT INTO p VALUES (1, 'a', '2024-01-01'), (2, 'b', '2024-01-01'), (3, 'a', '2025-01-01')`,
	`INSERT INTO p VALUES (4, 'a', '2024-05-01'), (5, NULL, NULL), (6, 'b', '2024-02-02')`,
	`DELETE FROM p WHERE id = 2`,
	`UPDATE p SET id = 40 WHERE id = 4`,
	`INSERT INTO p VALUES (9, 'a/b c', '2024-07-07'), (10, 'a', '2023-12-31 23:59:59')`,
	`CALL ducklake_flush_inlined_data('lk')`,
	`INSERT INTO p VALUES (11, 'b', '2024-03-03')`,
	`CALL ducklake_flush_inlined_data('lk')`,
}

// partFlushQueries are the catalog rows compared after partFlushSteps. Paths are compared
// by their directory (file names are uuids); sizes differ between the Parquet writers.
var partFlushQueries = []struct{ name, query string }{
	{"ducklake_snapshot", `SELECT snapshot_id, schema_version, next_catalog_id, next_file_id FROM ducklake_snapshot ORDER BY snapshot_id`},
	{"ducklake_snapshot_changes", `SELECT snapshot_id, changes_made FROM ducklake_snapshot_changes ORDER BY snapshot_id`},
	{"ducklake_data_file", `SELECT data_file_id, table_id, begin_snapshot, end_snapshot, record_count, row_id_start, partition_id, partial_max,
		rtrim(path, replace(path, '/', '')) FROM ducklake_data_file ORDER BY data_file_id`},
	{"ducklake_file_partition_value", `SELECT * FROM ducklake_file_partition_value ORDER BY data_file_id, partition_key_index`},
	{"ducklake_delete_file", `SELECT delete_file_id, table_id, begin_snapshot, end_snapshot, data_file_id, delete_count, partial_max,
		rtrim(path, replace(path, '/', '')) FROM ducklake_delete_file ORDER BY delete_file_id`},
	{"ducklake_file_column_stats", `SELECT data_file_id, column_id, value_count, null_count, min_value, max_value FROM ducklake_file_column_stats
		ORDER BY data_file_id, column_id`},
	{"ducklake_table_stats", `SELECT table_id, record_count, next_row_id FROM ducklake_table_stats ORDER BY table_id`},
}

// TestPartitionedFlushMatchesDuckDB: DuckDB runs partFlushSteps on a new lake; lakepg runs
// them on a lake DuckDB created. The flush must leave the same catalog rows: one data file
// per partition (partition_id, partition values, the hive directory, begin snapshot,
// partial_max and row_id_start of its rows), delete files for rows deleted while inlined,
// the same ids, snapshots and changes.
func TestPartitionedFlushMatchesDuckDB(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	duckDir := t.TempDir()
	runDuckSteps(t, ctx, ducklakeExt, sqliteExt, duckDir, partFlushSteps)

	lakeDir := t.TempDir()
	runDuckSteps(t, ctx, ducklakeExt, sqliteExt, lakeDir, nil)
	srv := testserver.Start(t, testserver.Binary(t), lakeDir)
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatalf("connecting to lakepg: %v", err)
	}
	for _, st := range partFlushSteps {
		query(t, ctx, conn, st)
	}
	conn.Close(ctx)
	srv.Stop(t)

	duck := dumpCatalog(t, filepath.Join(duckDir, "catalog.sqlite"), partFlushQueries)
	lake := dumpCatalog(t, filepath.Join(lakeDir, "catalog.sqlite"), partFlushQueries)
	if n := len(duck.rows["ducklake_file_partition_value"]); n < 10 {
		t.Fatalf("DuckDB's flush left %d partition values: the steps no longer flush into partitions", n)
	}
	compareDumps(t, duck, lake)
}

// compareDumps reports every compared table whose rows differ.
func compareDumps(t *testing.T, duck, lake catalogDump) {
	t.Helper()
	if d, l := strings.Join(duck.tables, " "), strings.Join(lake.tables, " "); d != l {
		t.Errorf("tables compared:\nDuckDB: %s\nlakepg: %s", d, l)
	}
	for _, name := range duck.tables {
		d, l := strings.Join(duck.rows[name], "\n"), strings.Join(lake.rows[name], "\n")
		if d != l {
			t.Errorf("%s differs\nDuckDB:\n%s\nlakepg:\n%s", name, d, l)
		}
	}
}

// lakepgFlushSteps write small batches into a partitioned table from lakepg (all inlined),
// change the layout, and flush; each makes one snapshot.
var lakepgFlushSteps = []string{
	`CREATE TABLE pf (id integer, region text, d date, v numeric(10,2))`,
	`ALTER TABLE pf SET PARTITIONED BY (region, month(d))`,
	`INSERT INTO pf VALUES (1, 'eu', '2024-01-05', 1.5), (2, 'us', '2024-01-06', 2.5), (3, 'eu', '2024-02-01', NULL)`,
	`INSERT INTO pf VALUES (4, NULL, '2024-01-07', 4), (5, 'us', NULL, 5), (6, 'eu', '2024-01-31', 6)`,
	`DELETE FROM pf WHERE id = 2`,
	`UPDATE pf SET v = 60, d = '2024-03-01' WHERE id = 6`,
	`ALTER TABLE pf ADD COLUMN note text`,
	`INSERT INTO pf VALUES (7, 'eu', '2024-01-09', 7, 'after add'), (8, 'apac', '2024-05-05', 8, NULL)`,
	`CALL lakepg.flush_inlined_data('pf')`,
	`DELETE FROM pf WHERE id = 7`,
	`INSERT INTO pf VALUES (9, 'us', '2024-01-10', 9, 'last')`,
}

// lakepgFlushFilters prune the flushed files by partition values in lakepg.
var lakepgFlushFilters = []string{
	`region = 'eu'`,
	`region = 'us' AND d >= '2024-01-01'`,
	`d = '2024-05-05'`,
	`region IN ('apac', 'us')`,
}

// TestPartitionedFlushDuckDBReads: lakepg flushes inlined rows of a partitioned table (with
// the catalog in SQLite and in PostgreSQL): one file per partition in hive directories,
// each with the spec's partition_id and values. DuckDB 1.5.5 reads every snapshot, before
// and after the flush, and filtered queries exactly as lakepg does, and lakepg prunes the
// flushed files by their partition values.
func TestPartitionedFlushDuckDBReads(t *testing.T) {
	for name, mk := range partLakes(t) {
		t.Run(name, func(t *testing.T) {
			lk := mk(t)
			srv := lk.launch(t)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			conn, err := pgx.Connect(ctx, srv.DSN())
			if err != nil {
				t.Fatalf("connecting to lakepg: %v", err)
			}
			defer conn.Close(context.Background())
			query(t, ctx, conn, `SET TimeZone = 'UTC'`)

			type seen struct {
				snap int64
				res  result
			}
			var states []seen
			snap := lastSnapshot(t, ctx, conn)
			flushAt := int64(-1)
			for _, st := range lakepgFlushSteps {
				query(t, ctx, conn, st)
				next := lastSnapshot(t, ctx, conn)
				if next != snap+1 {
					t.Fatalf("after %q the last snapshot is %d, want %d (one snapshot per statement)", st, next, snap+1)
				}
				snap = next
				if strings.HasPrefix(st, "CALL") {
					flushAt = snap
				}
				states = append(states, seen{snap, query(t, ctx, conn, `SELECT * FROM pf ORDER BY id`)})
			}

			// the flushed files: one per partition, as DuckDB lays them out
			files := catalogFiles(t, lk, "public", "pf")
			spec := catalogTable(t, lk, "public", "pf").Partition
			var flushed []string
			for _, f := range files {
				if f.PartialMax == nil {
					continue
				}
				vals := make([]string, len(f.Partition))
				for _, pv := range f.Partition {
					vals[pv.Index] = "NULL"
					if pv.Value != nil {
						vals[pv.Index] = *pv.Value
					}
				}
				dir := f.RelPath[:strings.LastIndexByte(f.RelPath, '/')+1]
				flushed = append(flushed, fmt.Sprintf("%s %s", dir, strings.Join(vals, ",")))
				if f.PartitionID == nil || *f.PartitionID != spec.ID {
					t.Errorf("flushed file %s: partition_id %v, want %d", f.RelPath, f.PartitionID, spec.ID)
				}
			}
			// the first inlined-data table holds ids 1..6 (6 in its old and new version), the
			// one made by ADD COLUMN ids 7 and 8: each is split by partition on its own
			want := []string{
				"region=eu/month=1/ eu,1", "region=us/month=1/ us,1", "region=eu/month=2/ eu,2",
				"region=__HIVE_DEFAULT_PARTITION__/month=1/ NULL,1", "region=us/month=__HIVE_DEFAULT_PARTITION__/ us,NULL",
				"region=eu/month=3/ eu,3",
				"region=eu/month=1/ eu,1", "region=apac/month=5/ apac,5",
			}
			if strings.Join(sortedCopy(flushed), "\n") != strings.Join(sortedCopy(want), "\n") {
				t.Errorf("flushed files (directory, partition values):\n%s\nwant:\n%s", strings.Join(flushed, "\n"), strings.Join(want, "\n"))
			}
			for _, f := range lakepgFlushFilters {
				if plan := explainFiles(t, ctx, conn, `SELECT * FROM pf WHERE `+f); !strings.Contains(plan, "by partition values") {
					t.Errorf("lakepg WHERE %s: %s, want flushed files pruned by partition values", f, plan)
				}
			}

			in := lk.duck
			var labels []string
			var wantRes []result
			for _, st := range states {
				in.Queries = append(in.Queries, duckQuery{From: fmt.Sprintf("lk.public.pf AT (VERSION => %d)", st.snap), Order: "id"})
				labels = append(labels, fmt.Sprintf("pf at snapshot %d (flush at %d)", st.snap, flushAt))
				wantRes = append(wantRes, st.res)
			}
			for _, f := range lakepgFlushFilters {
				in.Queries = append(in.Queries, duckQuery{From: "(SELECT * FROM lk.public.pf WHERE " + f + ")", Order: "id"})
				labels = append(labels, "pf WHERE "+f)
				wantRes = append(wantRes, query(t, ctx, conn, `SELECT * FROM pf WHERE `+f+` ORDER BY id`))
			}
			lakeSnaps := query(t, ctx, conn, `SELECT snapshot_id, snapshot_time, schema_version, changes FROM lakepg.snapshots() ORDER BY snapshot_id`)
			out := runDuckDB(t, in)
			for i, l := range labels {
				compareResult(t, l, wantRes[i], out.Results[i])
			}
			compareSnapshots(t, lakeSnaps, out.Snapshots)
		})
	}
}

func sortedCopy(xs []string) []string {
	out := append([]string(nil), xs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
