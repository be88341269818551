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

// add_data_files into tables with struct, list and map columns and into a
// partitioned table (files in its hive directories): DuckDB's
// ducklake_add_data_files and lakepg's register the same files into two
// lakes whose tables DuckDB created alike; the name mappings, files,
// partition values and (for the scalar table) statistics must be the same,
// and each engine reads both lakes alike.

func addNestedSource(dir string) []string {
	q := sqlString
	return []string{
		fmt.Sprintf(`COPY (SELECT i::INTEGER AS id, {'a': i::INTEGER, 'b': CASE WHEN i %% 3 = 0 THEN NULL ELSE 'b' || i END} AS s,
			CASE WHEN i %% 5 = 0 THEN NULL ELSE [i::INTEGER, (i + 1)::INTEGER] END AS l, MAP {'k': i::INTEGER, 'k2': 2} AS m FROM range(0, 40) r(i)) TO %s`, q(dir+"/n1.parquet")),
		fmt.Sprintf(`COPY (SELECT i::INTEGER AS id, {'a': i::INTEGER, 'b': 'late'} AS s, [i::INTEGER] AS l FROM range(100, 110) r(i)) TO %s`, q(dir+"/n2.parquet")),
		fmt.Sprintf(`COPY (SELECT i::INTEGER AS id, TIMESTAMP '2024-01-01' + INTERVAL (i) DAY AS ts FROM range(0, 30) r(i)) TO %s`, q(dir+"/p/region=eu/year=2024/f1.parquet")),
		fmt.Sprintf(`COPY (SELECT i::INTEGER AS id, TIMESTAMP '2025-03-01' + INTERVAL (i) HOUR AS ts, 'ignored' AS region FROM range(30, 50) r(i)) TO %s`, q(dir+"/p/region=us/year=2025/f2.parquet")),
		fmt.Sprintf(`COPY (SELECT i::INTEGER AS id, TIMESTAMP '2024-06-01' AS ts FROM range(50, 55) r(i)) TO %s`, q(dir+"/p/region=__HIVE_DEFAULT_PARTITION__/year=2024/f3.parquet")),
		fmt.Sprintf(`COPY (SELECT 1 AS id, TIMESTAMP '2024-06-01' AS ts) TO %s`, q(dir+"/wrong/region=eu/year=2023/w.parquet")),
		fmt.Sprintf(`COPY (SELECT 1 AS id, TIMESTAMP '2024-06-01' AS ts) TO %s`, q(dir+"/flat/region=eu/w.parquet")),
	}
}

var addNestedTables = []string{
	`CREATE TABLE lk.main.n (id INTEGER, s STRUCT(a INTEGER, b VARCHAR), l INTEGER[], m MAP(VARCHAR, INTEGER))`,
	`CREATE TABLE lk.main.p (id INTEGER, ts TIMESTAMP, region VARCHAR)`,
	`ALTER TABLE lk.main.p SET PARTITIONED BY (region, year(ts))`,
}

func addNestedCalls(dir string, duck bool) []string {
	call := func(table, path, opts string) string {
		if duck {
			return fmt.Sprintf(`CALL ducklake_add_data_files('lk', '%s', %s%s)`, table, sqlString(path), opts)
		}
		return fmt.Sprintf(`CALL lakepg.add_data_files('main.%s', %s%s)`, table, sqlString(path), opts)
	}
	return []string{
		call("n", dir+"/n1.parquet", ""),
		call("n", dir+"/n2.parquet", ", allow_missing => true"),
		call("p", dir+"/p/**/*.parquet", ", ignore_extra_columns => true"),
	}
}

func TestAddDataFilesNestedPartitioned(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			src := t.TempDir()
			for _, d := range []string{"p/region=eu/year=2024", "p/region=us/year=2025", "p/region=__HIVE_DEFAULT_PARTITION__/year=2024", "wrong/region=eu/year=2023", "flat/region=eu"} {
				if err := os.MkdirAll(filepath.Join(src, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			duck := newEncLake(t, kind)
			in := duck.duck
			in.Attach = duck.attach + " (DATA_PATH " + sqlString(duck.data) + ")"
			in.Steps = append(append(addNestedSource(src), addNestedTables...), addNestedCalls(src, true)...)
			in.Queries = []duckQuery{}
			runDuckDB(t, in)

			mine := newEncLake(t, kind)
			in = mine.duck
			in.Attach = mine.attach + " (DATA_PATH " + sqlString(mine.data) + ")"
			in.Steps = addNestedTables
			in.Queries = []duckQuery{}
			runDuckDB(t, in)
			_, conn := mine.start(t, ctx)
			for _, c := range addNestedCalls(src, false) {
				query(t, ctx, conn, c)
			}
			for _, e := range []struct{ sql, code, text string }{
				// year=2023 holds a 2024 row: DuckDB would take it, lakepg checks
				{fmt.Sprintf(`CALL lakepg.add_data_files('main.p', %s)`, sqlString(src+"/wrong/region=eu/year=2023/w.parquet")), "22023", "year = 2024, but its directory says 2023"},
				{fmt.Sprintf(`CALL lakepg.add_data_files('main.p', %s)`, sqlString(src+"/flat/region=eu/w.parquet")), "22023", "year="},
				{fmt.Sprintf(`CALL lakepg.add_data_files('main.p', %s, hive_partitioning => false, allow_missing => true)`, sqlString(src+"/p/region=eu/year=2024/f1.parquet")), "22023", "region="},
				{fmt.Sprintf(`CALL lakepg.add_data_files('main.n', %s)`, sqlString(src+"/n2.parquet")), "42703", `column "m" exists in table`},
			} {
				_, err := conn.Exec(ctx, e.sql)
				var pe *pgconn.PgError
				if !errors.As(err, &pe) || pe.Code != e.code || !strings.Contains(pe.Message, e.text) {
					t.Fatalf("%s: %v, want %s containing %q", e.sql, err, e.code, e.text)
				}
			}

			catalogQ := []string{
				`SELECT data_file_id, table_id, path, path_is_relative, record_count, file_size_bytes, footer_size, row_id_start, partition_id, mapping_id FROM __ducklake_metadata_lk.ducklake_data_file ORDER BY 1`,
				`SELECT mapping_id, table_id, type FROM __ducklake_metadata_lk.ducklake_column_mapping ORDER BY 1`,
				`SELECT mapping_id, column_id, source_name, target_field_id, parent_column, is_partition FROM __ducklake_metadata_lk.ducklake_name_mapping ORDER BY 1, 2`,
				`SELECT data_file_id, table_id, partition_key_index, partition_value FROM __ducklake_metadata_lk.ducklake_file_partition_value ORDER BY 1, 3`,
				// the partitioned table's statistics (the nested table's leaves
				// get none from lakepg)
				`SELECT s.data_file_id, s.column_id, s.value_count, s.null_count, s.min_value, s.max_value FROM __ducklake_metadata_lk.ducklake_file_column_stats s
					JOIN __ducklake_metadata_lk.ducklake_table t ON t.table_id = s.table_id AND t.table_name = 'p' ORDER BY 1, 2`,
				`SELECT table_id, record_count, next_row_id FROM __ducklake_metadata_lk.ducklake_table_stats ORDER BY 1`,
			}
			data := []string{
				`SELECT id, s.a, s.b, len(l), l[1], l[2], m['k'], m['k2'] FROM lk.main.n ORDER BY id`,
				`SELECT id, ts::VARCHAR, region FROM lk.main.p ORDER BY id`,
				`SELECT region, count(*), sum(id) FROM lk.main.p WHERE ts >= TIMESTAMP '2025-01-01' OR region IS NULL GROUP BY 1 ORDER BY 1`,
			}
			pgData := []string{
				`SELECT id, (s).a, (s).b, cardinality(l), l[1], l[2], (m->>'k')::int, (m->>'k2')::int FROM main.n ORDER BY id`,
				`SELECT id, ts::text, region FROM main.p ORDER BY id`,
				`SELECT region, count(*), sum(id) FROM main.p WHERE ts >= '2025-01-01' OR region IS NULL GROUP BY 1 ORDER BY 1`,
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
					t.Errorf("%s\nDuckDB's registrations %s\nlakepg's %s", q, fmtRows(theirs.Raw[i]), fmtRows(ours.Raw[i]))
				}
			}
			_, duckConn := duck.start(t, ctx)
			for j, q := range data {
				i := len(catalogQ) + j
				if fmtRows(theirs.Raw[i]) != fmtRows(ours.Raw[i]) || len(theirs.Raw[i]) == 0 {
					t.Errorf("%s\nDuckDB's lake %s\nlakepg's lake read by DuckDB %s", q, fmtRows(theirs.Raw[i]), fmtRows(ours.Raw[i]))
				}
				for name, c := range map[string]*pgx.Conn{"lakepg's lake": conn, "DuckDB's lake": duckConn} {
					if got := query(t, ctx, c, pgData[j]); fmtRows(got.Rows) != fmtRows(theirs.Raw[i]) {
						t.Errorf("lakepg reading %s: %s\nlakepg %s\nDuckDB %s", name, pgData[j], fmtRows(got.Rows), fmtRows(theirs.Raw[i]))
					}
				}
			}
			// the registered files are pruned by their partition values
			for name, c := range map[string]*pgx.Conn{"lakepg's lake": conn, "DuckDB's lake": duckConn} {
				if plan := explainFiles(t, ctx, c, `SELECT * FROM main.p WHERE region = 'us'`); !strings.Contains(plan, "2 pruned (2 by partition values)") {
					t.Errorf("%s, WHERE region = 'us': %s", name, plan)
				}
			}
		})
	}
}
