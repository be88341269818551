package duckdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/catalog/catalogtest"
	"github.com/lakepg/lakepg/test/testserver"
)

// maintSteps write a table the way small and large writes do by default (inlined rows and
// inlined file deletes up to 10 rows, Parquet data and delete files above), then run each
// maintenance procedure that makes a snapshot. Each step makes exactly one snapshot.
var maintSteps = []string{
	`CREATE TABLE m (id integer, v text, d double precision, ts timestamptz, n numeric(10,2), dt date, b boolean,
		u uuid, iv interval, bl bytea)`,
	`INSERT INTO m (id, v, d, n, dt) SELECT i, 'a' || i::text, i * 0.5, i, DATE '2024-01-01' + i FROM generate_series(1000, 1039) i`,
	`INSERT INTO m VALUES
		(1, 'one', 1.5, '2024-01-01 10:00:00+00', 1.25, '2024-01-01', true, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 year 2 mons 3 days 04:05:06.5', '\xdead'),
		(2, NULL, 'NaN', '1969-12-31 23:59:59.999999+00', -0.01, '2000-02-29', false, NULL, '36 hours', '\x'),
		(3, 'it''s "q" ✓', '-Infinity', NULL, NULL, NULL, NULL, '00000000-0000-0000-0000-000000000000', NULL, NULL)`,
	`INSERT INTO m (id, v, d, n) SELECT i, 'b' || i::text, i, i FROM generate_series(2000, 2029) i`,
	`INSERT INTO m (id, v) VALUES (4, 'four')`,
	`DELETE FROM m WHERE id IN (1001, 1002)`,
	`DELETE FROM m WHERE id = 2`,
	`UPDATE m SET v = 'upd' WHERE id = 3`,
	`DELETE FROM m WHERE id BETWEEN 2000 AND 2020`,
	`UPDATE m SET v = 'u2', b = true WHERE id = 1010`,
	`CALL lakepg.flush_inlined_data('m')`,
	`INSERT INTO m (id, v) VALUES (5, 'after flush'), (6, NULL)`,
	`DELETE FROM m WHERE id = 5`,
	`CALL lakepg.rewrite_data_files('m', 0.5)`,
	`INSERT INTO m (id, v) SELECT i, 'c' || i::text FROM generate_series(3000, 3019) i`,
	`INSERT INTO m (id, v) SELECT i, 'd' || i::text FROM generate_series(4000, 4019) i`,
	`CALL ducklake_merge_adjacent_files('lake', 'public.m')`,
	`CALL lakepg.flush_inlined_data()`,
}

// maintChangesToken is the changes_made each maintenance step must have written.
var maintChangesToken = map[string]string{
	`CALL lakepg.flush_inlined_data('m')`:                    "deleted_from_table:%d,inline_flush:%d",
	`CALL lakepg.rewrite_data_files('m', 0.5)`:               "rewrite_delete:%d",
	`CALL ducklake_merge_adjacent_files('lake', 'public.m')`: "merge_adjacent:%d",
	`CALL lakepg.flush_inlined_data()`:                       "inline_flush:%d",
}

// TestMaintenanceDuckDBReads: lakepg writes a lake with inlined and Parquet rows and
// deletes, flushes, rewrites, merges, expires snapshots and cleans up files; at every
// snapshot still present, lakepg's reads after all that equal what it read when the
// snapshot was new, and DuckDB 1.5.5 reads the same. DuckDB's ducklake_table_changes
// agrees with lakepg.table_changes on the same lake. With the catalog in SQLite and in
// PostgreSQL.
func TestMaintenanceDuckDBReads(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		srv := testserver.Start(t, testserver.Binary(t), dir)
		checkMaintenance(t, srv, filepath.Join(dir, "data"), duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: filepath.Join(dir, "catalog.sqlite")})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := testserver.PostgresDatabase(t, "lakepg_maint")
		params, err := catalogtest.Params(dsn)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		data := filepath.Join(dir, "data")
		port := testserver.FreePort(t)
		srv := testserver.Launch(t, testserver.Binary(t), dir, port, []string{
			"--listen", fmt.Sprintf("127.0.0.1:%d", port), "--catalog", dsn, "--data", data}, nil)
		attach := fmt.Sprintf("ATTACH %s AS lk (READ_ONLY, DATA_PATH %s)", sqlString("ducklake:postgres:"+params.Libpq()), sqlString(data+"/"))
		checkMaintenance(t, srv, data, duckInput{Ducklake: ducklakeExt, Postgres: postgresExtension(t), Attach: attach})
	})
}

func checkMaintenance(t *testing.T, srv *testserver.Server, data string, in duckInput) {
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
	var changes []string
	for _, st := range maintSteps {
		query(t, ctx, conn, st)
		next := lastSnapshot(t, ctx, conn)
		if next != snap+1 {
			t.Fatalf("after %q the last snapshot is %d, want %d (one snapshot per statement)", st, next, snap+1)
		}
		snap = next
		changes = append(changes, *query(t, ctx, conn, fmt.Sprintf(`SELECT changes FROM lakepg.snapshots() WHERE snapshot_id = %d`, snap)).Rows[0][0])
		states = append(states, seen{snap, query(t, ctx, conn, `SELECT * FROM m ORDER BY id`)})
	}
	tableID := strings.TrimPrefix(changes[1], "inserted_into_table:")
	for i, st := range maintSteps {
		if tok, ok := maintChangesToken[st]; ok {
			if want := strings.ReplaceAll(tok, "%d", tableID); changes[i] != want {
				t.Errorf("%s: changes_made %q, want %q", st, changes[i], want)
			}
		}
		if strings.HasPrefix(st, "INSERT INTO m (id, v) VALUES") && changes[i] != "inlined_insert:"+tableID {
			t.Errorf("%s: changes_made %q, want inlined_insert:%s", st, changes[i], tableID)
		}
	}
	head := snap

	// The change feed, compared with DuckDB's on the same lake before anything expires.
	var feedLabels []string
	var feeds []result
	feedIn := in
	feedIn.Queries = nil
	for _, r := range [][2]int64{{1, head}, {2, 6}, {5, 10}, {7, 7}, {9, 9}, {10, 12}, {11, 13}, {15, head}} {
		order := `snapshot_id * 1000000 + rowid * 4 + CASE change_type WHEN 'delete' THEN 0 WHEN 'insert' THEN 1 WHEN 'update_preimage' THEN 2 ELSE 3 END`
		feeds = append(feeds, query(t, ctx, conn, fmt.Sprintf(`SELECT *, %s AS k FROM lakepg.table_changes('public.m', %d, %d) ORDER BY k`, order, r[0], r[1])))
		feedIn.Queries = append(feedIn.Queries, duckQuery{From: fmt.Sprintf(`(SELECT *, %s AS k FROM ducklake_table_changes('lk', 'public', 'm', %d, %d))`, order, r[0], r[1]), Order: "k"})
		feedLabels = append(feedLabels, fmt.Sprintf("table_changes(m, %d, %d)", r[0], r[1]))
	}
	out := runDuckDB(t, feedIn)
	for i, l := range feedLabels {
		compareResult(t, l, feeds[i], out.Results[i])
	}

	// Expire two early snapshots and the flush's; drop what nothing can read any more.
	expired := map[int64]bool{2: true, 3: true, 11: true}
	query(t, ctx, conn, `CALL lakepg.expire_snapshots(versions => ARRAY[2, 3, 11])`)
	if got := lastSnapshot(t, ctx, conn); got != head {
		t.Fatalf("expire_snapshots made a snapshot: last is %d, want %d", got, head)
	}
	before := parquetFiles(t, data)
	stray := filepath.Join(data, "public", "m", "stray.parquet")
	if err := os.WriteFile(stray, []byte("PAR1 not a lake file PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	query(t, ctx, conn, `CALL lakepg.cleanup_old_files(cleanup_all => true)`)
	query(t, ctx, conn, `CALL ducklake_delete_orphaned_files('lake', cleanup_all => true)`)
	after := parquetFiles(t, data)
	if len(after) >= len(before) {
		t.Errorf("cleanup_old_files deleted nothing: %d Parquet files before, %d after", len(before), len(after))
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("delete_orphaned_files left %s (stat: %v)", stray, err)
	}
	if n := len(query(t, ctx, conn, `SELECT * FROM lakepg.snapshots() WHERE snapshot_id IN (2, 3, 11)`).Rows); n != 0 {
		t.Errorf("lakepg still lists %d expired snapshots", n)
	}

	// Every snapshot still present reads as it did when it was new, in lakepg and DuckDB.
	in.Queries = nil
	var labels []string
	var want []result
	for _, st := range states {
		if expired[st.snap] {
			continue
		}
		now := query(t, ctx, conn, fmt.Sprintf(`SELECT * FROM lakepg.at_version('public.m', %d) ORDER BY id`, st.snap))
		compareLake(t, fmt.Sprintf("lakepg's table m at snapshot %d after maintenance", st.snap), st.res, now)
		in.Queries = append(in.Queries, duckQuery{From: fmt.Sprintf("lk.public.m AT (VERSION => %d)", st.snap), Order: "id"})
		labels = append(labels, fmt.Sprintf("table m at snapshot %d (after maintenance)", st.snap))
		want = append(want, st.res)
	}
	in.Queries = append(in.Queries, duckQuery{From: "lk.public.m", Order: "id"})
	labels = append(labels, "table m, current state")
	want = append(want, states[len(states)-1].res)
	in.Queries = append(in.Queries, duckQuery{From: "lk.public.m AT (VERSION => 2)", Order: "id"})
	out = runDuckDB(t, in)
	for i, l := range labels {
		compareResult(t, l, want[i], out.Results[i])
	}
	if e := out.Results[len(out.Results)-1].Error; e == "" {
		t.Errorf("DuckDB still reads expired snapshot 2")
	}
	if _, err := conn.Exec(ctx, `SELECT * FROM lakepg.at_version('public.m', 2)`); err == nil || !strings.Contains(err.Error(), "22023") {
		t.Errorf("lakepg reading expired snapshot 2: %v, want SQLSTATE 22023", err)
	}
	t.Logf("%d snapshots compared after flush, rewrite, merge, expiry and cleanup; %d change feeds compared", len(labels)-1, len(feeds))
}

// compareLake compares two lakepg results of the same query.
func compareLake(t *testing.T, label string, want, got result) {
	t.Helper()
	if fmtRows(want.Rows) != fmtRows(got.Rows) || strings.Join(want.Columns, ",") != strings.Join(got.Columns, ",") {
		t.Errorf("%s differs from what it read before maintenance\nbefore: %s\nnow: %s", label, fmtRows(want.Rows), fmtRows(got.Rows))
	}
}

func parquetFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".parquet") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
