package integration

import (
	"fmt"
	"reflect"
	"regexp"
	"testing"

	"github.com/jackc/pgx/v5"
)

var (
	pagesLine  = regexp.MustCompile(`Pages: (\d+) of the filtered columns' (\d+) pruned by the page index`)
	actualLine = regexp.MustCompile(`Actual: (\d+) row groups read, (\d+) pruned; (\d+) pages decoded, (\d+) skipped \((\d+) rows ruled out by the page index\); (\d+) bytes read`)
)

// TestPagePruning: a table of one file of five row groups, each of several
// pages, with deleted rows. A filter on the sorted column (or on a column
// with a long run of NULLs) skips pages inside the row groups it reads:
// EXPLAIN counts the pages its filtered columns lose, EXPLAIN ANALYZE the
// pages and rows actually skipped and the bytes read, and every answer
// equals the one of the same query written so that nothing can be pruned
// (id + 0 is not a column, so no statistics apply to it).
func TestPagePruning(t *testing.T) {
	srv := startServer(t, t.TempDir())
	conn := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, conn, "CREATE SCHEMA px")
	mustExec(t, conn, `CREATE TABLE px.big AS SELECT g AS id, g % 97 AS k, 'row ' || g AS label,
		CASE WHEN g BETWEEN 150000 AND 450000 THEN NULL ELSE g END AS sparse
		FROM generate_series(1, 600000) g`)
	mustExec(t, conn, "DELETE FROM px.big WHERE id % 1000 = 7")

	for _, c := range []struct {
		pruned, unpruned string
		rowsAtMost       int64 // rows a scan should be left with
		prunes           bool  // whether pages are pruned
		fewerBytes       bool  // and bytes read (pages of NULLs are next to nothing)
	}{
		{"SELECT count(*), sum(k), min(label), max(label) FROM px.big WHERE id BETWEEN 250000 AND 251000",
			"SELECT count(*), sum(k), min(label), max(label) FROM px.big WHERE id + 0 BETWEEN 250000 AND 251000", 60_000, true, true},
		{"SELECT id, k, label FROM px.big WHERE id = 300007 OR id = 300008 ORDER BY id",
			"SELECT id, k, label FROM px.big WHERE id + 0 IN (300007, 300008) ORDER BY id", 600_000, false, false}, // OR is no bound
		{"SELECT id, label FROM px.big WHERE id IN (5, 599999, 123456) ORDER BY id",
			"SELECT id, label FROM px.big WHERE id + 0 IN (5, 599999, 123456) ORDER BY id", 130_000, true, true},
		{"SELECT count(*), sum(sparse), min(sparse) FROM px.big WHERE sparse > 100",
			"SELECT count(*), sum(sparse), min(sparse) FROM px.big WHERE sparse + 0 > 100", 450_000, true, false},
		{"SELECT count(*) FROM px.big WHERE id > 599990",
			"SELECT count(*) FROM px.big WHERE id + 0 > 599990", 30_000, true, true},
	} {
		got, want := tableRows(t, conn, c.pruned), tableRows(t, conn, c.unpruned)
		if !reflect.DeepEqual(got, want) || len(got) == 0 {
			t.Errorf("%s:\n got %q\nwant %q", c.pruned, got, want)
		}
		plan := explain(t, conn, c.pruned)
		rows := rowsLine.FindStringSubmatch(plan)
		if rows == nil || int64(atoi(rows[2])) > c.rowsAtMost {
			t.Errorf("EXPLAIN %s: want at most %d rows estimated after pruning:\n%s", c.pruned, c.rowsAtMost, plan)
		}
		analyzed := explain(t, conn, "ANALYZE "+c.pruned)
		base := explain(t, conn, "ANALYZE "+c.unpruned)
		a, b := actualLine.FindStringSubmatch(analyzed), actualLine.FindStringSubmatch(base)
		if a == nil || b == nil {
			t.Errorf("EXPLAIN ANALYZE: no Actual line:\n%s\n%s", analyzed, base)
			continue
		}
		if !c.prunes {
			continue
		}
		if m := pagesLine.FindStringSubmatch(plan); m == nil || atoi(m[1]) == 0 {
			t.Errorf("EXPLAIN %s: no pages pruned:\n%s", c.pruned, plan)
		}
		skipped, rowsOut, bytes, baseBytes := atoi(a[4]), atoi(a[5]), atoi(a[6]), atoi(b[6])
		if skipped == 0 || rowsOut == 0 || c.fewerBytes && bytes >= baseBytes || atoi(b[4]) != 0 {
			t.Errorf("EXPLAIN ANALYZE %s: %s (unpruned: %s)", c.pruned, a[0], b[0])
		}
		t.Logf("%s\n  %s\n  unpruned: %s", c.pruned, a[0], b[0])
	}
	if n := queryInt(t, conn, "SELECT count(*) FROM px.big WHERE id BETWEEN 250000 AND 251000"); n != 1000 {
		t.Errorf("count in [250000, 251000] = %d, want 1000 (1001 less the deleted 250007)", n)
	}
	// a past snapshot, before the DELETE, reads its own pages
	before := queryInt(t, conn, "SELECT max(snapshot_id) FROM lakepg.snapshots") - 1
	q := fmt.Sprintf("SELECT count(*) FROM lakepg.at_version('px.big', %d) WHERE id BETWEEN 250000 AND 251000", before)
	if n := queryInt(t, conn, q); n != 1001 {
		t.Errorf("%s = %d, want 1001", q, n)
	}
}
