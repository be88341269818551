package duckdb

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/catalog/catalogtest"
	"github.com/lakepg/lakepg/test/testserver"
)

// partLake is one lake for the partitioning tests: where its catalog and data live, how
// DuckDB attaches it read-write, and how lakepg is started on it.
type partLake struct {
	dsn    string // lakepg's --catalog, also opened by the test to list files
	data   string // data directory, no trailing slash
	duck   duckInput
	launch func(t *testing.T) *testserver.Server
}

// partLakes are a fresh SQLite and a fresh PostgreSQL lake.
func partLakes(t *testing.T) map[string]func(t *testing.T) partLake {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	return map[string]func(t *testing.T) partLake{
		"sqlite": func(t *testing.T) partLake {
			dir := t.TempDir()
			cat, data := filepath.Join(dir, "catalog.sqlite"), filepath.Join(dir, "data")
			return partLake{
				dsn: "sqlite:" + cat, data: data,
				duck: duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt,
					Attach: fmt.Sprintf("ATTACH %s AS lk (DATA_PATH %s)", sqlString("ducklake:sqlite:"+cat), sqlString(data+"/"))},
				launch: func(t *testing.T) *testserver.Server { return testserver.Start(t, testserver.Binary(t), dir) },
			}
		},
		"postgres": func(t *testing.T) partLake {
			dsn := testserver.PostgresDatabase(t, "lakepg_part")
			params, err := catalogtest.Params(dsn)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			return partLake{
				dsn: dsn, data: data,
				duck: duckInput{Ducklake: ducklakeExt, Postgres: postgresExtension(t),
					Attach: fmt.Sprintf("ATTACH %s AS lk (DATA_PATH %s)", sqlString("ducklake:postgres:"+params.Libpq()), sqlString(data+"/"))},
				launch: func(t *testing.T) *testserver.Server {
					port := testserver.FreePort(t)
					return testserver.Launch(t, testserver.Binary(t), dir, port, []string{
						"--listen", fmt.Sprintf("127.0.0.1:%d", port), "--catalog", dsn, "--data", data}, nil)
				},
			}
		},
	}
}

// lakepgPartSteps partition and write table ev from lakepg; each makes one snapshot.
var lakepgPartSteps = []string{
	`CREATE TABLE ev (id integer, ts timestamp, tz timestamptz, region text, d date, amount numeric(10,2))`,
	`ALTER TABLE ev SET PARTITIONED BY (year(ts), month(ts), region)`,
	`INSERT INTO ev SELECT i, TIMESTAMP '2024-01-01' + i * interval '97 hours', TIMESTAMPTZ '2024-01-01 00:00:00+00' + i * interval '31 hours',
		CASE WHEN i % 5 = 0 THEN NULL ELSE 'r' || (i % 3)::text END, DATE '2024-01-01' + i, i / 4.0 FROM generate_series(0, 149) i`,
	// two rows: inlined into the catalog, as DuckDB does for partitioned tables too
	`INSERT INTO ev VALUES (1000, '2025-06-01 12:00:00', '2025-06-01 12:00:00+00', 'a=b/c d%e ü', '2025-06-01', 1.5),
		(1001, NULL, NULL, '', NULL, NULL)`,
	`UPDATE ev SET region = 'moved', ts = ts + interval '1 year' WHERE id < 12`,
	`ALTER TABLE ev SET PARTITIONED BY (day(d), hour(tz))`,
	`INSERT INTO ev SELECT i, TIMESTAMP '2026-01-01', TIMESTAMPTZ '2026-01-01 00:00:00+00' + (i % 4) * interval '1 hour', 'late',
		DATE '2026-01-01' + (i % 2), 1 FROM generate_series(2000, 2039) i`,
	`INSERT INTO ev SELECT i, TIMESTAMP '2026-02-01', TIMESTAMPTZ '2026-01-01 00:00:00+00' + (i % 4) * interval '1 hour', 'later',
		DATE '2026-01-01' + (i % 2), 2 FROM generate_series(2100, 2139) i`,
	`CALL ducklake_merge_adjacent_files('lake', 'public.ev')`,
	`ALTER TABLE ev SET PARTITIONED BY (bucket(4, id))`,
	`INSERT INTO ev SELECT i, NULL::timestamp, NULL::timestamptz, 'bucketed', NULL::date, 3 FROM generate_series(3000, 3029) i`,
	`DELETE FROM ev WHERE id % 7 = 0`,
}

// partFilters are WHERE clauses both engines answer on ev; each prunes files by partition
// values in lakepg.
var partFilters = []string{
	`region = 'r1'`,
	`region IN ('r0', 'moved')`,
	`ts >= '2024-06-01' AND ts < '2024-09-01'`,
	`d = '2026-01-02'`,
	`id = 3007`,
	`id IN (3001, 3002, 3003)`,
}

// TestPartitionedLakepgWritesDuckDBReads: lakepg partitions a table, changes its keys and
// writes it (inserts split into hive directories, an update moving rows across partitions,
// a merge within partitions, deletes); DuckDB 1.5.5 attaches the catalog and reads every
// snapshot, and filtered queries, exactly as lakepg does; its ducklake_list_files,
// ducklake_table_info and snapshots() agree with the catalog lakepg wrote. Then DuckDB
// writes into the same partitioned table and lakepg reads DuckDB's rows row for row,
// pruning DuckDB's files by their partition values.
func TestPartitionedLakepgWritesDuckDBReads(t *testing.T) {
	for name, mk := range partLakes(t) {
		t.Run(name, func(t *testing.T) {
			lk := mk(t)
			srv := lk.launch(t)
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
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
			for _, st := range lakepgPartSteps {
				query(t, ctx, conn, st)
				next := lastSnapshot(t, ctx, conn)
				if next != snap+1 {
					t.Fatalf("after %q the last snapshot is %d, want %d (one snapshot per statement)", st, next, snap+1)
				}
				snap = next
				states = append(states, seen{snap, query(t, ctx, conn, `SELECT * FROM ev ORDER BY id`)})
			}
			changes := query(t, ctx, conn, `SELECT changes FROM lakepg.snapshots() ORDER BY snapshot_id DESC LIMIT 5`)
			if c := fmtVal(changes.Rows[3][0]); !strings.HasPrefix(c, "merge_adjacent:") {
				t.Errorf("merge_adjacent_files: changes %s, want merge_adjacent (files of one partition merged)", c)
			}
			for _, f := range partFilters {
				if plan := explainFiles(t, ctx, conn, `SELECT * FROM ev WHERE `+f); !strings.Contains(plan, "by partition values") {
					t.Errorf("lakepg WHERE %s: %s, want files pruned by partition values", f, plan)
				}
			}

			in := lk.duck
			var labels []string
			var want []result
			for _, st := range states {
				in.Queries = append(in.Queries, duckQuery{From: fmt.Sprintf("lk.public.ev AT (VERSION => %d)", st.snap), Order: "id"})
				labels = append(labels, fmt.Sprintf("ev at snapshot %d", st.snap))
				want = append(want, st.res)
			}
			for _, f := range partFilters {
				in.Queries = append(in.Queries, duckQuery{From: "(SELECT * FROM lk.public.ev WHERE " + f + ")", Order: "id"})
				labels = append(labels, "ev WHERE "+f)
				want = append(want, query(t, ctx, conn, `SELECT * FROM ev WHERE `+f+` ORDER BY id`))
			}
			in.Raw = []string{
				`SELECT data_file, data_file_size_bytes, delete_file FROM ducklake_list_files('lk', 'ev', schema => 'public') ORDER BY data_file`,
				`SELECT file_count, file_size_bytes FROM ducklake_table_info('lk') WHERE table_name = 'ev'`,
			}
			lakeSnaps := query(t, ctx, conn, `SELECT snapshot_id, snapshot_time, schema_version, changes FROM lakepg.snapshots() ORDER BY snapshot_id`)
			out := runDuckDB(t, in)
			for i, l := range labels {
				compareResult(t, l, want[i], out.Results[i])
			}
			compareSnapshots(t, lakeSnaps, out.Snapshots)
			compareFileLists(t, lk, out.Raw[0], out.Raw[1])

			// DuckDB writes into lakepg's partitioned table: files under the table's current
			// keys, inlined rows, a delete.
			before := snap
			in = lk.duck
			in.Steps = []string{
				`SET TimeZone = 'UTC'`,
				`INSERT INTO lk.public.ev SELECT i, TIMESTAMP '2027-01-01' + INTERVAL (i) DAY, TIMESTAMPTZ '2027-01-01 00:00:00+00', 'duck', DATE '2027-01-01', i / 8
					FROM range(4000, 4030) t(i)`,
				`INSERT INTO lk.public.ev VALUES (4100, NULL, NULL, 'duck small', NULL, 5)`,
				`DELETE FROM lk.public.ev WHERE id IN (4001, 3001)`,
			}
			in.Queries = []duckQuery{{From: "lk.public.ev", Order: "id"}}
			for _, f := range partFilters {
				in.Queries = append(in.Queries, duckQuery{From: "(SELECT * FROM lk.public.ev WHERE " + f + ")", Order: "id"})
			}
			in.Queries = append(in.Queries, duckQuery{From: "(SELECT * FROM lk.public.ev WHERE id IN (4007, 4100))", Order: "id"})
			out = runDuckDB(t, in)
			if got := lastSnapshot(t, ctx, conn); got != before+3 {
				t.Fatalf("DuckDB's three writes: last snapshot %d, want %d", got, before+3)
			}
			compareResult(t, "ev after DuckDB wrote to it", query(t, ctx, conn, `SELECT * FROM ev ORDER BY id`), out.Results[0])
			for i, f := range partFilters {
				compareResult(t, "ev after DuckDB's writes, WHERE "+f, query(t, ctx, conn, `SELECT * FROM ev WHERE `+f+` ORDER BY id`), out.Results[i+1])
			}
			compareResult(t, "DuckDB's rows", query(t, ctx, conn, `SELECT * FROM ev WHERE id IN (4007, 4100) ORDER BY id`), out.Results[len(out.Results)-1])
			if plan := explainFiles(t, ctx, conn, `SELECT * FROM ev WHERE id = 4007`); !strings.Contains(plan, "by partition values") {
				t.Errorf("lakepg on DuckDB's files, WHERE id = 4007: %s", plan)
			}
			// DuckDB's files carry lakepg's current partition spec
			files := catalogFiles(t, lk, "public", "ev")
			spec := catalogTable(t, lk, "public", "ev").Partition
			n := 0
			for _, f := range files {
				if f.BeginSnapshot > before && !strings.HasSuffix(f.RelPath, "-delete.parquet") {
					n++
					if f.PartitionID == nil || *f.PartitionID != spec.ID || len(f.Partition) != 1 || !strings.HasPrefix(f.RelPath, "bucket=") {
						t.Errorf("DuckDB's file %s: partition_id %v, values %v, want spec %d (bucket)", f.RelPath, f.PartitionID, f.Partition, spec.ID)
					}
				}
			}
			if n == 0 {
				t.Errorf("DuckDB's 30-row insert left no data file")
			}
		})
	}
}

// duckPartSteps write a partitioned lake from DuckDB, from scratch.
var duckPartSteps = []string{
	`SET TimeZone = 'UTC'`,
	`CREATE TABLE lk.main.w (id INTEGER, ts TIMESTAMP, region VARCHAR, d DATE, amount DOUBLE)`,
	`ALTER TABLE lk.main.w SET PARTITIONED BY (year(ts), month(ts), region)`,
	`INSERT INTO lk.main.w SELECT i, TIMESTAMP '2024-01-01' + INTERVAL (i * 50) HOUR,
		CASE WHEN i % 5 = 0 THEN NULL ELSE 'r' || (i % 3) END, DATE '2024-01-01' + i::INTEGER, i * 1.5 FROM range(0, 300) t(i)`,
	`ALTER TABLE lk.main.w SET PARTITIONED BY (bucket(8, id), day(d))`,
	`INSERT INTO lk.main.w SELECT i, TIMESTAMP '2030-01-01', 'late', DATE '2030-01-01' + (i % 3)::INTEGER, 1 FROM range(1000, 1040) t(i)`,
	`INSERT INTO lk.main.w VALUES (5000, '2031-01-01', 'small', '2031-01-01', 2)`,
	`ALTER TABLE lk.main.w RESET PARTITIONED BY`,
	`INSERT INTO lk.main.w SELECT i, TIMESTAMP '2032-01-01', 'flat', NULL, 3 FROM range(6000, 6020) t(i)`,
	`DELETE FROM lk.main.w WHERE id % 11 = 0`,
}

// duckFilters are WHERE clauses on DuckDB's table w, all of which prune by partition values.
var duckFilters = []string{
	`region = 'r1'`,
	`region IN ('r0', 'r2') AND ts < '2024-03-01'`,
	`ts >= '2024-07-01' AND ts < '2024-08-01'`,
	`id = 1007`,
	`id IN (1001, 1013, 5000)`,
	`d = '2030-01-02'`,
}

// TestPartitionedDuckDBWritesLakepgReads: DuckDB writes a partitioned lake from scratch
// (keys set, changed, reset; hive directories; inlined rows; deletes); lakepg reads the
// table and filtered queries row for row as DuckDB does, and EXPLAIN shows files pruned by
// the partition values DuckDB wrote.
func TestPartitionedDuckDBWritesLakepgReads(t *testing.T) {
	for name, mk := range partLakes(t) {
		t.Run(name, func(t *testing.T) {
			lk := mk(t)
			in := lk.duck
			in.Steps = duckPartSteps
			in.Queries = []duckQuery{{From: "lk.main.w", Order: "id"}}
			for _, f := range duckFilters {
				in.Queries = append(in.Queries, duckQuery{From: "(SELECT * FROM lk.main.w WHERE " + f + ")", Order: "id"})
			}
			out := runDuckDB(t, in)

			srv := lk.launch(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			conn, err := pgx.Connect(ctx, srv.DSN())
			if err != nil {
				t.Fatalf("connecting to lakepg: %v", err)
			}
			defer conn.Close(context.Background())
			query(t, ctx, conn, `SET TimeZone = 'UTC'`)
			compareResult(t, "DuckDB's table w", query(t, ctx, conn, `SELECT * FROM main.w ORDER BY id`), out.Results[0])
			for i, f := range duckFilters {
				q := `SELECT * FROM main.w WHERE ` + f
				compareResult(t, "DuckDB's table w WHERE "+f, query(t, ctx, conn, q+` ORDER BY id`), out.Results[i+1])
				plan := explainFiles(t, ctx, conn, q)
				if !strings.Contains(plan, "by partition values") {
					t.Errorf("lakepg WHERE %s: %s, want files pruned by partition values", f, plan)
				}
				// and the same answer without partition pruning
				query(t, ctx, conn, `SET lakepg.partition_pruning = off`)
				compareResult(t, "w WHERE "+f+" (partition pruning off)", query(t, ctx, conn, q+` ORDER BY id`), out.Results[i+1])
				query(t, ctx, conn, `RESET lakepg.partition_pruning`)
			}
			// lakepg appends to DuckDB's table after the RESET: one unpartitioned file
			query(t, ctx, conn, `INSERT INTO main.w SELECT i, TIMESTAMP '2033-01-01', 'lakepg', NULL::date, 4 FROM generate_series(7000, 7019) i`)
			files := catalogFiles(t, lk, "main", "w")
			last := files[len(files)-1]
			if last.PartitionID != nil || strings.Contains(last.RelPath, "/") {
				t.Errorf("lakepg's file after RESET PARTITIONED BY: %s, partition_id %v", last.RelPath, last.PartitionID)
			}
		})
	}
}

// explainFiles is the "Files:" line of lakepg's EXPLAIN of q.
func explainFiles(t *testing.T, ctx context.Context, conn *pgx.Conn, q string) string {
	t.Helper()
	res := query(t, ctx, conn, `EXPLAIN `+q)
	for _, r := range res.Rows {
		if l := strings.TrimSpace(fmtVal(r[0])); strings.HasPrefix(l, "Files:") {
			return l
		}
	}
	t.Fatalf("EXPLAIN %s has no Files line: %s", q, fmtRows(res.Rows))
	return ""
}

func openCatalog(t *testing.T, lk partLake) *catalog.DB {
	t.Helper()
	db, err := catalog.Open(context.Background(), lk.dsn, "")
	if err != nil {
		t.Fatalf("opening the catalog: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func catalogTable(t *testing.T, lk partLake, schema, table string) *catalog.Table {
	t.Helper()
	_, tb, _ := catalogSchemaTable(t, lk, schema, table)
	return tb
}

func catalogSchemaTable(t *testing.T, lk partLake, schema, table string) (*catalog.DB, *catalog.Table, []catalog.DataFile) {
	t.Helper()
	ctx := context.Background()
	db := openCatalog(t, lk)
	head, err := db.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := db.Load(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	sch, ok := meta.SchemaByName(schema)
	if !ok {
		t.Fatalf("no schema %s", schema)
	}
	tb, ok := meta.TableByName(sch.ID, table)
	if !ok {
		t.Fatalf("no table %s.%s", schema, table)
	}
	files, err := db.Files(ctx, sch, tb, head)
	if err != nil {
		t.Fatal(err)
	}
	return db, tb, files
}

// catalogFiles lists the table's live data files as the catalog holds them.
func catalogFiles(t *testing.T, lk partLake, schema, table string) []catalog.DataFile {
	t.Helper()
	_, _, files := catalogSchemaTable(t, lk, schema, table)
	return files
}

// compareFileLists checks DuckDB's ducklake_list_files and ducklake_table_info for ev
// against the files lakepg's catalog lists.
func compareFileLists(t *testing.T, lk partLake, listed, info [][]*string) {
	t.Helper()
	files := catalogFiles(t, lk, "public", "ev")
	var want []string
	var size int64
	for _, f := range files {
		del := "NULL"
		if f.Delete != nil {
			del = f.Delete.Path
		}
		want = append(want, fmt.Sprintf("%s %d %s", f.Path, f.FileSize, del))
		size += f.FileSize
	}
	sort.Strings(want)
	var got []string
	for _, r := range listed {
		got = append(got, fmt.Sprintf("%s %s %s", fmtVal(r[0]), fmtVal(r[1]), fmtVal(r[2])))
	}
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ducklake_list_files:\n%s\nlakepg's catalog:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(info) != 1 || fmtVal(info[0][0]) != strconv.Itoa(len(files)) || fmtVal(info[0][1]) != strconv.FormatInt(size, 10) {
		t.Errorf("ducklake_table_info: %s, lakepg's catalog has %d files of %d bytes", fmtRows(info), len(files), size)
	}
	partitioned := 0
	for _, f := range files {
		if f.PartitionID != nil {
			partitioned++
		}
	}
	if partitioned == 0 {
		t.Errorf("no data file of ev has a partition_id")
	}
}
