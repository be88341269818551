package duckdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// CALL lakepg.add_data_files registers Parquet files written elsewhere (by
// DuckDB's COPY: no field ids) as DuckDB's ducklake_add_data_files does.
// The same registrations in a lake of each writer must leave the same
// catalog rows (mappings, files, statistics), each reads the other's, and
// a registered file takes deletes and shows in the change feed.

// addFilesSource writes the files to register under dir.
func addFilesSource(dir string) []string {
	q := sqlString
	return []string{
		fmt.Sprintf(`COPY (SELECT i::INTEGER AS id, 'x' || i AS a, i * 1.5 AS extra, CASE WHEN i %% 10 = 0 THEN NULL ELSE i / 4 END AS d FROM range(0, 100) r(i)) TO %s`, q(dir+"/f1.parquet")),
		fmt.Sprintf(`COPY (SELECT i::SMALLINT AS id, 'y' || i AS a FROM range(100, 150) r(i)) TO %s`, q(dir+"/region=eu/f2.parquet")),
		fmt.Sprintf(`COPY (SELECT i::BIGINT AS id, 'z' || i AS a FROM range(150, 180) r(i)) TO %s`, q(dir+"/region=us/f3.parquet")),
		fmt.Sprintf(`COPY (SELECT 'zz' AS id, 'bad' AS a) TO %s`, q(dir+"/bad/type.parquet")),
		fmt.Sprintf(`COPY (SELECT 7 AS id) TO %s`, q(dir+"/region=eu/id=notanumber/h.parquet")),
	}
}

// addFilesCalls are the registrations, for lakepg and DuckDB.
func addFilesCalls(dir string, duck bool) []string {
	call := func(path, opts string) string {
		if duck {
			return fmt.Sprintf(`CALL ducklake_add_data_files('lk', 't', %s%s)`, sqlString(path), opts)
		}
		return fmt.Sprintf(`CALL lakepg.add_data_files('main.t', %s%s)`, sqlString(path), opts)
	}
	return []string{
		call(dir+"/f1.parquet", ", allow_missing => true, ignore_extra_columns => true"),
		call(dir+"/region=*/*.parquet", ", allow_missing => true, hive_partitioning => true"),
	}
}

const addFilesTable = `CREATE TABLE %st (id BIGINT, a VARCHAR, region VARCHAR, d DOUBLE PRECISION, c INTEGER)`

func TestAddDataFiles(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			src := t.TempDir()
			for _, d := range []string{"region=eu/id=notanumber", "region=us", "bad"} {
				if err := os.MkdirAll(filepath.Join(src, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// DuckDB's lake: the files written and registered by DuckDB
			duck := newEncLake(t, kind)
			in := duck.duck
			in.Attach = duck.attach + " (DATA_PATH " + sqlString(duck.data) + ")"
			in.Steps = append(append(addFilesSource(src), fmt.Sprintf(addFilesTable, "lk.")), addFilesCalls(src, true)...)
			in.Queries = []duckQuery{}
			runDuckDB(t, in)

			// lakepg's lake: the same registrations through lakepg
			mine := newEncLake(t, kind)
			_, conn := mine.start(t, ctx)
			query(t, ctx, conn, fmt.Sprintf(addFilesTable, "main."))
			for _, c := range addFilesCalls(src, false) {
				query(t, ctx, conn, c)
			}
			// errors, with SQLSTATEs, and nothing registered by them
			for _, e := range []struct{ sql, code, text string }{
				{fmt.Sprintf(`CALL lakepg.add_data_files('main.t', %s)`, sqlString(src+"/nope.parquet")), "58P01", "no files found"},
				{fmt.Sprintf(`CALL lakepg.add_data_files('main.t', %s)`, sqlString(src+"/none-*.parquet")), "58P01", "no files found"},
				{fmt.Sprintf(`CALL lakepg.add_data_files('main.t', %s, allow_missing => true)`, sqlString(src+"/f1.parquet")), "42703", `column "extra" exists in file`},
				{fmt.Sprintf(`CALL lakepg.add_data_files('main.t', %s, ignore_extra_columns => true)`, sqlString(src+"/f1.parquet")), "42703", `column "region" exists in table`},
				{fmt.Sprintf(`CALL lakepg.add_data_files('main.t', %s, allow_missing => true)`, sqlString(src+"/bad/type.parquet")), "42804", `as bigint`},
				{fmt.Sprintf(`CALL lakepg.add_data_files('main.t', %s, allow_missing => true)`, sqlString(src+"/region=eu/id=notanumber/h.parquet")), "22P02", `"notanumber"`},
				{fmt.Sprintf(`CALL lakepg.add_data_files('main.nope', %s)`, sqlString(src+"/f1.parquet")), "42P01", `nope`},
			} {
				_, err := conn.Exec(ctx, e.sql)
				var pe *pgconn.PgError
				if !errors.As(err, &pe) || pe.Code != e.code || !strings.Contains(pe.Message, e.text) {
					t.Fatalf("%s: %v, want %s containing %q", e.sql, err, e.code, e.text)
				}
			}

			// the catalog rows each writer left: the same but for table ids
			// (lakepg's lake also has schema public)
			catalogQ := []string{
				`SELECT data_file_id, begin_snapshot, path, path_is_relative, file_format, record_count, file_size_bytes, footer_size, row_id_start, partition_id, mapping_id FROM __ducklake_metadata_lk.ducklake_data_file ORDER BY 1`,
				`SELECT mapping_id, type FROM __ducklake_metadata_lk.ducklake_column_mapping ORDER BY 1`,
				`SELECT mapping_id, column_id, source_name, target_field_id, parent_column, is_partition FROM __ducklake_metadata_lk.ducklake_name_mapping ORDER BY 1, 2`,
				// contains_nan aside: DuckDB leaves it NULL for registered files,
				// lakepg knows it (checked below)
				`SELECT data_file_id, column_id, column_size_bytes, value_count, null_count, min_value, max_value FROM __ducklake_metadata_lk.ducklake_file_column_stats ORDER BY 1, 2`,
				`SELECT record_count, next_row_id, file_size_bytes FROM __ducklake_metadata_lk.ducklake_table_stats`,
				`SELECT column_id, contains_null, min_value, max_value FROM __ducklake_metadata_lk.ducklake_table_column_stats ORDER BY 1`,
				`SELECT snapshot_id, next_file_id FROM __ducklake_metadata_lk.ducklake_snapshot WHERE snapshot_id > 1 ORDER BY 1`,
			}
			data := []string{
				`SELECT count(*), count(region), count(c), count(d), sum(id), min(a), max(a), sum(d)::DECIMAL(18,2) FROM lk.main.t`,
				`SELECT region, count(*), sum(id), min(a) FROM lk.main.t GROUP BY 1 ORDER BY 1`,
				`SELECT id, a, region, d::DECIMAL(18,2), c FROM lk.main.t WHERE id BETWEEN 95 AND 105 OR id = 170 ORDER BY id`,
			}
			read := func(l encLake) duckOutput {
				in := l.duck
				in.Attach = l.attach + " (READ_ONLY)"
				in.Queries = []duckQuery{}
				in.Raw = append(append([]string{}, catalogQ...), data...)
				return runDuckDB(t, in)
			}
			theirs, ours := read(duck), read(mine)
			for i, q := range catalogQ {
				if fmtRows(theirs.Raw[i]) != fmtRows(ours.Raw[i]) || len(ours.Raw[i]) == 0 {
					t.Fatalf("%s\nDuckDB's registrations %s\nlakepg's %s", q, fmtRows(theirs.Raw[i]), fmtRows(ours.Raw[i]))
				}
			}
			in = mine.duck
			in.Attach = mine.attach + " (READ_ONLY)"
			in.Queries = []duckQuery{}
			in.Raw = []string{`SELECT DISTINCT contains_nan FROM __ducklake_metadata_lk.ducklake_file_column_stats WHERE column_id = 4
				UNION ALL SELECT contains_nan FROM __ducklake_metadata_lk.ducklake_table_column_stats WHERE column_id = 4`}
			if got := runDuckDB(t, in).Raw[0]; len(got) != 2 || got[0][0] == nil || got[1][0] == nil || !isFalse(*got[0][0]) || !isFalse(*got[1][0]) {
				t.Fatalf("contains_nan of the double column in lakepg's registrations: %s, want false (file) and false (table)", fmtRows(got))
			}
			// DuckDB reads lakepg's lake as its own, lakepg reads both
			_, duckConn := duck.start(t, ctx)
			for j, q := range data {
				i := len(catalogQ) + j
				if fmtRows(theirs.Raw[i]) != fmtRows(ours.Raw[i]) {
					t.Fatalf("%s\nDuckDB's lake %s\nlakepg's lake read by DuckDB %s", q, fmtRows(theirs.Raw[i]), fmtRows(ours.Raw[i]))
				}
				pq := strings.ReplaceAll(q, "lk.main.t", "main.t")
				for name, c := range map[string]*pgx.Conn{"lakepg's lake": conn, "DuckDB's lake": duckConn} {
					if got := query(t, ctx, c, pq); fmtRows(got.Rows) != fmtRows(theirs.Raw[i]) {
						t.Fatalf("lakepg reading %s: %s\nlakepg %s\nDuckDB %s", name, q, fmtRows(got.Rows), fmtRows(theirs.Raw[i]))
					}
				}
			}

			// a registered file takes deletes and updates; the change feed of
			// its registration and of them agrees with DuckDB's
			query(t, ctx, conn, `DELETE FROM main.t WHERE id % 7 = 0`)
			query(t, ctx, conn, `UPDATE main.t SET a = 'upd' WHERE id BETWEEN 120 AND 130`)
			last := lastSnapshot(t, ctx, conn)
			mineFeed := query(t, ctx, conn, fmt.Sprintf(`SELECT snapshot_id, change_type, count(*), sum(id), count(region) FROM lakepg.table_changes('main.t', 1, %d) GROUP BY 1, 2 ORDER BY 1, 2`, last))
			in = mine.duck
			in.Attach = mine.attach + " (READ_ONLY)"
			in.Queries = []duckQuery{}
			in.Raw = []string{
				fmt.Sprintf(`SELECT snapshot_id, change_type, count(*), sum(id), count(region) FROM ducklake_table_changes('lk', 'main', 't', 1, %d) GROUP BY 1, 2 ORDER BY 1, 2`, last),
				`SELECT count(*), sum(id), count(region), count(*) FILTER (WHERE a = 'upd') FROM lk.main.t`,
			}
			out := runDuckDB(t, in)
			if fmtRows(mineFeed.Rows) != fmtRows(out.Raw[0]) || len(mineFeed.Rows) < 4 {
				t.Fatalf("change feed over registered files: lakepg %s\nDuckDB %s", fmtRows(mineFeed.Rows), fmtRows(out.Raw[0]))
			}
			if got := query(t, ctx, conn, `SELECT count(*), sum(id), count(region), count(*) FILTER (WHERE a = 'upd') FROM main.t`); fmtRows(got.Rows) != fmtRows(out.Raw[1]) {
				t.Fatalf("after deletes on registered files: lakepg %s, DuckDB %s", fmtRows(got.Rows), fmtRows(out.Raw[1]))
			}
		})
	}
}

// isFalse: a boolean as DuckDB prints it from a SQLite (0) or PostgreSQL
// (False) catalog.
func isFalse(s string) bool { return s == "0" || strings.EqualFold(s, "false") }
