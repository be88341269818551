package sql

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/sql/planner"
)

// manyFilesLake has table facts (id bigint, v double) with 20 real files of
// 100 rows (ids 0-1999) and extra more registered in the catalog directly,
// copies of the last real file's rows with id ranges above 1,000,000 (so a
// filter on the real ranges prunes them; they name files that do not
// exist, so reading one fails).
func manyFilesLake(t testing.TB, extra int) *Session {
	s := lake(t.(*testing.T))
	ctx := context.Background()
	must(t.(*testing.T), s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t.(*testing.T), s, `CREATE TABLE facts (id bigint, v double precision)`)
	for i := 0; i < 20; i++ {
		must(t.(*testing.T), s, fmt.Sprintf(`INSERT INTO facts SELECT n, n * 0.5 FROM generate_series(%d, %d) g(n)`, i*100, i*100+99))
	}
	if extra == 0 {
		return s
	}
	db := s.eng.DB.SQL()
	var tableID, fileID, nextRow, nextFile int64
	if err := db.QueryRowContext(ctx, `SELECT t.table_id, max(f.data_file_id) FROM ducklake_table t JOIN ducklake_data_file f ON f.table_id = t.table_id
WHERE t.table_name = 'facts' AND t.end_snapshot IS NULL GROUP BY t.table_id`).Scan(&tableID, &fileID); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, `SELECT next_row_id FROM ducklake_table_stats WHERE table_id = ?`, tableID).Scan(&nextRow); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, `SELECT next_file_id FROM ducklake_snapshot ORDER BY snapshot_id DESC LIMIT 1`).Scan(&nextFile); err != nil {
		t.Fatal(err)
	}
	series := fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) `, extra)
	base := nextFile - 1
	for _, st := range []string{
		series + fmt.Sprintf(`INSERT INTO ducklake_data_file (data_file_id, table_id, begin_snapshot, end_snapshot, file_order, path,
 path_is_relative, file_format, record_count, file_size_bytes, footer_size, row_id_start, partition_id, encryption_key, mapping_id, partial_max)
SELECT %d + i, f.table_id, f.begin_snapshot, NULL, NULL, f.path || '.copy' || CAST(i AS VARCHAR), f.path_is_relative, f.file_format, f.record_count,
 f.file_size_bytes, f.footer_size, %d + (i - 1) * 100, f.partition_id, f.encryption_key, f.mapping_id, f.partial_max
FROM n, ducklake_data_file f WHERE f.data_file_id = %d`, base, nextRow, fileID),
		series + fmt.Sprintf(`INSERT INTO ducklake_file_column_stats (data_file_id, table_id, column_id, column_size_bytes,
 value_count, null_count, min_value, max_value, contains_nan, extra_stats)
SELECT %d + i, s.table_id, s.column_id, s.column_size_bytes, s.value_count, s.null_count,
 CASE WHEN s.column_id = (SELECT min(column_id) FROM ducklake_file_column_stats WHERE data_file_id = %d) THEN CAST(1000000 + i * 100 AS VARCHAR) ELSE s.min_value END,
 CASE WHEN s.column_id = (SELECT min(column_id) FROM ducklake_file_column_stats WHERE data_file_id = %d) THEN CAST(1000000 + i * 100 + 99 AS VARCHAR) ELSE s.max_value END,
 s.contains_nan, s.extra_stats
FROM n, ducklake_file_column_stats s WHERE s.data_file_id = %d`, base, fileID, fileID, fileID),
		fmt.Sprintf(`UPDATE ducklake_table_stats SET record_count = record_count + %d, next_row_id = %d WHERE table_id = %d`, extra*100, nextRow+int64(extra)*100, tableID),
		fmt.Sprintf(`UPDATE ducklake_snapshot SET next_file_id = %d WHERE snapshot_id = (SELECT max(snapshot_id) FROM ducklake_snapshot)`, nextFile+int64(extra)),
	} {
		if _, err := db.ExecContext(ctx, st); err != nil {
			t.Fatalf("%s: %v", strings.SplitN(st, "\n", 2)[0], err)
		}
	}
	return s
}

// TestPlanManyFilesTiming plans a selective query over a table of 3,000
// registered files (LAKEPG_TEST_MANY_FILES more, for a measurement by
// hand), checks what it keeps and logs how long planning took.
func TestPlanManyFilesTiming(t *testing.T) {
	extra := 3000
	if n := os.Getenv("LAKEPG_TEST_MANY_FILES"); n != "" {
		if _, err := fmt.Sscan(n, &extra); err != nil || extra < 1 {
			t.Fatalf("LAKEPG_TEST_MANY_FILES=%q", n)
		}
	}
	s := manyFilesLake(t, extra)
	q := `SELECT count(*), sum(v) FROM facts WHERE id BETWEEN 200 AND 499`
	must(t, s, q, "300|52425")
	want := fmt.Sprintf("Files: 3 scanned, %d pruned", extra+17)
	for i := 0; i < 20; i++ {
		t0 := time.Now()
		got := filesLine(t, s, q)
		if got != want {
			t.Fatalf("%s: %s, want %s", q, got, want)
		}
		if i%5 == 0 {
			t.Logf("EXPLAIN over %d files: %.1f ms", extra+20, float64(time.Since(t0).Microseconds())/1000)
		}
	}
}

// filesLine is the "Files:" line of q's plan.
func filesLine(t *testing.T, s *Session, q string) string {
	t.Helper()
	for _, l := range explainLines(t, s, "EXPLAIN "+q) {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "Files:") {
			return l
		}
	}
	t.Fatalf("%s: no Files line", q)
	return ""
}

// TestManyFilesPruningFromCachedOrder: over a table with enough files for
// the cached order of files by bounds (planner/filezones.go), filters keep and
// prune the same files and give the same answers as checking every file
// would, across a commit that changes the list
// and inside a transaction block.
func TestManyFilesPruningFromCachedOrder(t *testing.T) {
	const extra = 2100 // registered files: ids 1,000,100 .. 1,210,099
	s := manyFilesLake(t, extra)
	for round := 0; round < 2; round++ { // the second from the cached structures
		for _, c := range []struct{ q, files string }{
			{`SELECT count(*), sum(v) FROM facts WHERE id BETWEEN 200 AND 499`, "Files: 3 scanned, 2117 pruned"},
			{`SELECT count(*) FROM facts WHERE id = 1999`, "Files: 1 scanned, 2119 pruned"},
			{`SELECT count(*) FROM facts WHERE id < 100`, "Files: 1 scanned, 2119 pruned"},
			{`SELECT count(*) FROM facts WHERE id <= 100 AND id > 99`, "Files: 1 scanned, 2119 pruned"},
			{`SELECT count(*) FROM facts WHERE 1950 <= id AND 5000 > id AND v < 1000`, "Files: 1 scanned, 2119 pruned"},
			{`SELECT count(*) FROM facts WHERE id IN (5, 1500) AND id < 2000`, "Files: 2 scanned, 2118 pruned"},
			{`SELECT count(*) FROM facts WHERE id > 1210099`, "Files: 0 scanned, 2120 pruned"},
			{`SELECT count(*) FROM facts WHERE id >= 1210000 AND id < 1000000`, "Files: 0 scanned, 2120 pruned"},
			{`SELECT count(*) FROM facts WHERE id > -5 AND id < 0`, "Files: 0 scanned, 2120 pruned"},
		} {
			if got := filesLine(t, s, c.q); got != c.files {
				t.Errorf("round %d, %s: %s, want %s", round, c.q, got, c.files)
			}
		}
		must(t, s, `SELECT count(*), sum(v) FROM facts WHERE id BETWEEN 200 AND 499`, "300|52425")
		must(t, s, `SELECT count(*) FROM facts WHERE id IN (5, 1500) AND id < 2000`, "2")
		must(t, s, `SELECT count(*) FROM facts WHERE id < 0`, "0")
	}
	// a commit adds a file: the list, and what is derived from it, are new
	must(t, s, `INSERT INTO facts SELECT n, 1 FROM generate_series(-50, -1) g(n)`)
	if got := filesLine(t, s, `SELECT count(*) FROM facts WHERE id < 0`); got != "Files: 1 scanned, 2120 pruned" {
		t.Errorf("after an insert: %s", got)
	}
	must(t, s, `SELECT count(*), min(id) FROM facts WHERE id < 0`, "50|-50")
	// a transaction block sees its own rows over the same files
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO facts VALUES (-100, 0)`)
	must(t, s, `SELECT count(*) FROM facts WHERE id < 0`, "51")
	must(t, s, `SELECT count(*) FROM facts WHERE id BETWEEN 0 AND 9`, "10")
	must(t, s, `ROLLBACK`)
	must(t, s, `SELECT count(*) FROM facts WHERE id < 0`, "50")
}

// TestCachedScanFilesStayShared: with the derived structures kept for any
// list (zonesMinFiles lowered), pruning from the cached order and scanning
// from the cached scan descriptions give the right answers statement after
// statement, with inlined file deletes (marked on a statement's copy of
// the descriptions) and in and out of a transaction block.
func TestCachedScanFilesStayShared(t *testing.T) {
	old := planner.ZonesMinFiles
	planner.ZonesMinFiles = 1
	t.Cleanup(func() { planner.ZonesMinFiles = old })
	s := manyFilesLake(t, 0)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '10')`)
	for i := 0; i < 2; i++ {
		if got := filesLine(t, s, `SELECT count(*) FROM facts WHERE id BETWEEN 150 AND 250`); got != "Files: 2 scanned, 18 pruned" {
			t.Errorf("%s", got)
		}
		must(t, s, `SELECT count(*), sum(id) FROM facts WHERE id BETWEEN 150 AND 250`, "101|20200")
	}
	must(t, s, `DELETE FROM facts WHERE id IN (7, 8, 1234)`)
	for i := 0; i < 3; i++ {
		must(t, s, `SELECT count(*) FROM facts`, "1997")
		must(t, s, `SELECT count(*) FROM facts WHERE id BETWEEN 0 AND 9`, "8")
		must(t, s, `SELECT count(*) FROM facts WHERE id >= 1200 AND id < 1300`, "99")
	}
	must(t, s, `BEGIN`)
	must(t, s, `DELETE FROM facts WHERE id = 9`)
	must(t, s, `SELECT count(*) FROM facts WHERE id BETWEEN 0 AND 9`, "7")
	must(t, s, `ROLLBACK`)
	must(t, s, `SELECT count(*) FROM facts WHERE id BETWEEN 0 AND 9`, "8")
	must(t, s, `DELETE FROM facts WHERE id = 9`)
	must(t, s, `SELECT count(*) FROM facts WHERE id BETWEEN 0 AND 9`, "7")
	must(t, s, `SELECT count(*) FROM facts`, "1996")
}
