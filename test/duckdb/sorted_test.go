package duckdb

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Sorted tables: ALTER TABLE … SET/RESET SORTED BY leaves the catalog rows
// DuckDB 1.5.5 leaves for the same statements, each writer honours the
// order the other set, and a sorted table's files let min/max skip row
// groups that an unsorted table's cannot.

// sortSteps run in each writer's own lake (%s: DuckDB's "lk." or lakepg's
// "main.").
var sortSteps = []string{
	`CREATE TABLE %ss (id INTEGER, v VARCHAR, g INTEGER)`,
	`ALTER TABLE %ss SET SORTED BY (v DESC, id ASC NULLS FIRST)`,
	`INSERT INTO %ss SELECT (i * 7919) %% 1000, 'v' || (i %% 13), i %% 3 FROM range(0, 1000) r(i)`,
	`ALTER TABLE %ss SET SORTED BY (g)`,
	`ALTER TABLE %ss RESET SORTED BY`,
	`ALTER TABLE %ss SET SORTED BY (id DESC)`,
}

func TestSortedTables(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			duck := newEncLake(t, kind)
			in := duck.duck
			in.Attach = duck.attach + " (DATA_PATH " + sqlString(duck.data) + ", DATA_INLINING_ROW_LIMIT 0)"
			in.Queries = []duckQuery{}
			for _, st := range sortSteps {
				in.Steps = append(in.Steps, fmt.Sprintf(st, "lk."))
			}
			runDuckDB(t, in)

			mine := newEncLake(t, kind)
			_, conn := mine.start(t, ctx)
			query(t, ctx, conn, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
			for _, st := range sortSteps {
				st = strings.Replace(fmt.Sprintf(st, "main."), "range(0, 1000) r(i)", "generate_series(0, 999) i", 1)
				query(t, ctx, conn, st)
			}
			// the same rows, but for ids (lakepg's lake also has schema
			// public, one more catalog id)
			catalogQ := []string{
				`SELECT sort_key_index, expression, dialect, sort_direction, null_order, i.begin_snapshot, i.end_snapshot
					FROM __ducklake_metadata_lk.ducklake_sort_expression e JOIN __ducklake_metadata_lk.ducklake_sort_info i USING (sort_id)
					ORDER BY i.begin_snapshot, sort_key_index`,
				`SELECT snapshot_id, schema_version, regexp_replace(changes_made, '[0-9]+$', 'N')
					FROM __ducklake_metadata_lk.ducklake_snapshot JOIN __ducklake_metadata_lk.ducklake_snapshot_changes USING (snapshot_id)
					WHERE snapshot_id > 0 ORDER BY 1`,
				`SELECT count(*) FROM __ducklake_metadata_lk.ducklake_schema_versions`,
				`SELECT max(sort_id) - min(sort_id) FROM __ducklake_metadata_lk.ducklake_sort_info`,
				// the file the INSERT wrote, in file order
				`SELECT string_agg(v || ':' || coalesce(id::VARCHAR, 'null'), ',') FROM (SELECT v, id FROM lk.main.s LIMIT 40)`,
			}
			read := func(l encLake) [][][]*string {
				in := l.duck
				in.Attach = l.attach + " (READ_ONLY, DATA_PATH " + sqlString(l.data) + ")"
				in.Queries = []duckQuery{}
				in.Raw = catalogQ
				return runDuckDB(t, in).Raw
			}
			theirs, ours := read(duck), read(mine)
			for i, q := range catalogQ {
				if q != catalogQ[len(catalogQ)-1] && (fmtRows(theirs[i]) != fmtRows(ours[i]) || len(ours[i]) == 0) {
					t.Fatalf("%s\nDuckDB %s\nlakepg %s", q, fmtRows(theirs[i]), fmtRows(ours[i]))
				}
			}
			if got, want := fmtRows(ours[len(ours)-1]), fmtRows(theirs[len(theirs)-1]); got != want || !strings.HasPrefix(got, "\n  (\"v9:6,v9:38,") {
				t.Fatalf("the INSERT's file in SORTED BY (v DESC, id ASC NULLS FIRST) order:\nlakepg %s\nDuckDB %s", got, want)
			}

			// each honours the order the other set: lakepg inserts into
			// DuckDB's lake (SORTED BY id DESC), DuckDB into lakepg's
			_, duckConn := duck.start(t, ctx)
			query(t, ctx, duckConn, `INSERT INTO main.s SELECT (i * 37) % 500, 'lakepg', 0 FROM generate_series(0, 499) i`)
			in = mine.duck
			in.Attach = mine.attach + " (DATA_PATH " + sqlString(mine.data) + ")"
			in.Queries = []duckQuery{}
			in.Steps = []string{`INSERT INTO lk.main.s SELECT (i * 37) % 500, 'duckdb', 0 FROM range(0, 500) r(i)`}
			runDuckDB(t, in)
			for _, c := range []struct {
				name, writer string
				l            encLake
			}{{"lakepg's insert into DuckDB's lake", "lakepg", duck}, {"DuckDB's insert into lakepg's lake", "duckdb", mine}} {
				in := c.l.duck
				in.Attach = c.l.attach + " (READ_ONLY, DATA_PATH " + sqlString(c.l.data) + ")"
				in.Queries = []duckQuery{}
				// one file, read in file order
				in.Raw = []string{fmt.Sprintf(`SELECT string_agg(id::VARCHAR, ',') FROM (SELECT id FROM lk.main.s WHERE v = '%s' LIMIT 5)`, c.writer)}
				if got := fmtRows(runDuckDB(t, in).Raw[0]); got != fmtRows([][]*string{{ptr("499,498,497,496,495")}}) {
					t.Fatalf("%s: the new file starts %s, want ids descending from 499", c.name, got)
				}
			}
			if kind == "sqlite" {
				prunes(t, ctx, conn)
			}
		})
	}
}

var rowGroupsRE = regexp.MustCompile(`Row groups: (\d+) scanned, (\d+) pruned`)

// prunes: the same rows, inserted in five batches in random order, in a
// table without and one with a sort order; a range filter on the sort key
// reads few row groups of the sorted table's files, and after
// merge_adjacent_files (which writes the merged file sorted too) fewer yet.
func prunes(t *testing.T, ctx context.Context, conn *pgx.Conn) {
	t.Helper()
	query(t, ctx, conn, `CALL lakepg.set_option('parquet_row_group_size', '2000')`)
	for _, tb := range []string{"unsorted", "sorted"} {
		query(t, ctx, conn, fmt.Sprintf(`CREATE TABLE main.%s (id integer, pad text)`, tb))
		if tb == "sorted" {
			query(t, ctx, conn, `ALTER TABLE main.sorted SET SORTED BY (id)`)
		}
		for b := 0; b < 5; b++ {
			query(t, ctx, conn, fmt.Sprintf(`INSERT INTO main.%s SELECT (i * 7919 + %d) %% 100000, 'p' || i FROM generate_series(%d, %d) i`, tb, b, b*20000, b*20000+19999))
		}
	}
	read := func(tb string) (scanned, pruned int, sum string) {
		var plan strings.Builder
		for _, r := range query(t, ctx, conn, fmt.Sprintf(`EXPLAIN ANALYZE SELECT count(*), sum(id) FROM main.%s WHERE id BETWEEN 40000 AND 40999`, tb)).Rows {
			plan.WriteString(*r[0] + "\n")
		}
		m := rowGroupsRE.FindStringSubmatch(plan.String())
		if m == nil {
			t.Fatalf("EXPLAIN ANALYZE shows no row groups:\n%s", plan.String())
		}
		scanned, _ = strconv.Atoi(m[1])
		pruned, _ = strconv.Atoi(m[2])
		return scanned, pruned, fmtRows(query(t, ctx, conn, fmt.Sprintf(`SELECT count(*), sum(id) FROM main.%s WHERE id BETWEEN 40000 AND 40999`, tb)).Rows)
	}
	us, up, usum := read("unsorted")
	ss, sp, ssum := read("sorted")
	if usum != ssum || strings.HasPrefix(usum, "\n  (\"0\"") {
		t.Fatalf("the tables answer differently: %s, %s", usum, ssum)
	}
	t.Logf("row groups read for id BETWEEN 40000 AND 40999: unsorted %d (%d pruned), sorted %d (%d pruned)", us, up, ss, sp)
	if us != 50 || ss > 5+5 || sp < 40 {
		t.Fatalf("row groups scanned: unsorted %d (%d pruned), sorted %d (%d pruned); want 50 unsorted and at most 2 per file sorted", us, up, ss, sp)
	}
	query(t, ctx, conn, `CALL lakepg.merge_adjacent_files('main.sorted')`)
	ms, mp, msum := read("sorted")
	t.Logf("after merge_adjacent_files: sorted %d (%d pruned)", ms, mp)
	if msum != ssum || ms > 2 || mp < 48 {
		t.Fatalf("after merge_adjacent_files: %d row groups scanned (%d pruned), %s; want at most 2", ms, mp, msum)
	}
}

// TestSortedExpressionKeys: sort keys that are expressions, as DuckDB
// stores them ("lower(x)", "(id % 1000)"): lakepg's inserts into DuckDB's
// table and DuckDB's into lakepg's (whose SET SORTED BY took the
// expressions) are written in that order, and so is lakepg's compaction
// and its flush of inlined rows.
func TestSortedExpressionKeys(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			const ins = `INSERT INTO %s SELECT i, CASE WHEN i %% 3 = 0 THEN 'B' ELSE 'a' END || (i %% 4)::VARCHAR, '%s' FROM range(0, 300) r(i)`
			const order = `lower(x), id % 1000 DESC`
			// file order of one writer's rows, and the order they should have
			check := func(l encLake, writer string) {
				t.Helper()
				in := l.duck
				in.Attach = l.attach + " (READ_ONLY, DATA_PATH " + sqlString(l.data) + ")"
				in.Queries = []duckQuery{}
				in.Raw = []string{
					fmt.Sprintf(`SELECT string_agg(id::VARCHAR, ',') FROM (SELECT id FROM lk.main.e WHERE w = '%s')`, writer),
					fmt.Sprintf(`SELECT string_agg(id::VARCHAR, ',' ORDER BY %s) FROM lk.main.e WHERE w = '%s'`, order, writer),
					`SELECT expression FROM __ducklake_metadata_lk.ducklake_sort_expression ORDER BY sort_id, sort_key_index`,
				}
				out := runDuckDB(t, in).Raw
				got, want := fmtRows(out[0]), fmtRows(out[1])
				if got != want || len(out[0]) != 1 || out[0][0][0] == nil {
					t.Fatalf("%s's rows in file order:\n%s\nwant (ORDER BY %s)\n%s\nsort expressions %s", writer, got, order, want, fmtRows(out[2]))
				}
			}
			duck := newEncLake(t, kind)
			in := duck.duck
			in.Attach = duck.attach + " (DATA_PATH " + sqlString(duck.data) + ", DATA_INLINING_ROW_LIMIT 0)"
			in.Queries = []duckQuery{}
			in.Steps = []string{
				`CREATE TABLE lk.main.e (id INTEGER, x VARCHAR, w VARCHAR)`,
				`ALTER TABLE lk.main.e SET SORTED BY (` + order + `)`,
			}
			runDuckDB(t, in)
			_, duckConn := duck.start(t, ctx)
			query(t, ctx, duckConn, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
			query(t, ctx, duckConn, strings.ReplaceAll(fmt.Sprintf(ins, "main.e", "lakepg"), "range(0, 300) r(i)", "generate_series(0, 299) i"))
			check(duck, "lakepg")

			mine := newEncLake(t, kind)
			_, conn := mine.start(t, ctx)
			query(t, ctx, conn, `CREATE TABLE main.e (id integer, x text, w text)`)
			query(t, ctx, conn, `ALTER TABLE main.e SET SORTED BY (`+order+`)`)
			if _, err := conn.Exec(ctx, `ALTER TABLE main.e SET SORTED BY (nosuch(x))`); err == nil {
				t.Fatalf("SET SORTED BY an unknown function: no error")
			}
			in = mine.duck
			in.Attach = mine.attach + " (DATA_PATH " + sqlString(mine.data) + ", DATA_INLINING_ROW_LIMIT 0)"
			in.Queries = []duckQuery{}
			in.Steps = []string{fmt.Sprintf(ins, "lk.main.e", "duckdb")}
			runDuckDB(t, in)
			check(mine, "duckdb")
			// small inserts stay inlined; their flush writes one sorted file
			for i := 0; i < 6; i++ {
				query(t, ctx, conn, fmt.Sprintf(`INSERT INTO main.e VALUES (%d, '%s', 'flushed'), (%d, 'A0', 'flushed')`, 500+i, []string{"b1", "A2", "a0", "B3", "b0", "a1"}[i], 600+i))
			}
			query(t, ctx, conn, `CALL lakepg.flush_inlined_data()`)
			check(mine, "flushed")
			// merging keeps the order across the files it merges
			for i := 0; i < 3; i++ {
				query(t, ctx, conn, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
				query(t, ctx, conn, fmt.Sprintf(`INSERT INTO main.e SELECT i, CASE WHEN i %% 2 = 0 THEN 'Z' ELSE 'y' END || (i %% 5)::text, 'merged' FROM generate_series(%d, %d) i`, 700+i*50, 749+i*50))
			}
			query(t, ctx, conn, `CALL lakepg.merge_adjacent_files('main.e')`)
			check(mine, "merged")
		})
	}
}
