package integration

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

var (
	filesLine     = regexp.MustCompile(`Files: (\d+) scanned, (\d+) pruned`)
	rowGroupsLine = regexp.MustCompile(`Row groups: (\d+) scanned, (\d+) pruned`)
	rowsLine      = regexp.MustCompile(`Rows: (\d+) in the files read \(catalog counts\), (\d+) estimated after pruning`)
	bytesLine     = regexp.MustCompile(`Bytes to read: (\d+) of the needed columns, (\d+) in the files`)
)

// TestExplainPruning builds a table of four files with disjoint id ranges (one INSERT
// each) and checks that EXPLAIN reports the files a range predicate skips by the catalog's
// min/max, that the answers stay right, and that pruning also applies to a past snapshot.
func TestExplainPruning(t *testing.T) {
	srv := startServer(t, t.TempDir())
	conn := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
	// The test is about pruning Parquet files: its 10-row INSERTs must write files, not be
	// inlined into the catalog.
	mustExec(t, conn, "CALL lakepg.set_option('data_inlining_row_limit', '0')")
	mustExec(t, conn, "CREATE SCHEMA ex")
	mustExec(t, conn, "CREATE TABLE ex.events (id integer, label text)")
	for f := 0; f < 4; f++ {
		var values []string
		for id := f*10 + 1; id <= f*10+10; id++ {
			values = append(values, fmt.Sprintf("(%d, 'event %d')", id, id))
		}
		mustExec(t, conn, "INSERT INTO ex.events VALUES "+strings.Join(values, ", "))
	}
	twoFiles := queryInt(t, conn, "SELECT max(snapshot_id) FROM lakepg.snapshots") - 2 // after the second INSERT

	for _, c := range []struct {
		query          string
		count          int64 // rows the query returns
		scanned, total int
	}{
		{"SELECT * FROM ex.events", 40, 4, 4},
		{"SELECT * FROM ex.events WHERE id > 25", 15, 2, 4},
		{"SELECT id FROM ex.events WHERE id BETWEEN 12 AND 18", 7, 1, 4},
		{"SELECT label FROM ex.events WHERE id < 11", 10, 1, 4},
		{"SELECT * FROM ex.events WHERE id = 100", 0, 0, 4},
		{"SELECT * FROM ex.events WHERE id >= 15 AND id <= 21", 7, 2, 4},
		{fmt.Sprintf("SELECT * FROM lakepg.at_version('ex.events', %d) WHERE id > 5", twoFiles), 15, 2, 2},
		{fmt.Sprintf("SELECT * FROM lakepg.at_version('ex.events', %d) WHERE id > 25", twoFiles), 0, 0, 2},
	} {
		if n := int64(len(tableRows(t, conn, c.query))); n != c.count {
			t.Errorf("%s: %d rows, want %d", c.query, n, c.count)
		}
		plan := explain(t, conn, c.query)
		m := filesLine.FindAllStringSubmatch(plan, -1)
		if len(m) != 1 {
			t.Errorf("EXPLAIN %s: want one line with \"Files: N scanned, M pruned\", plan:\n%s", c.query, plan)
			continue
		}
		if scanned, pruned := atoi(m[0][1]), atoi(m[0][2]); scanned != c.scanned || pruned != c.total-c.scanned {
			t.Errorf("EXPLAIN %s: Files: %d scanned, %d pruned; want %d scanned, %d pruned; plan:\n%s",
				c.query, scanned, pruned, c.scanned, c.total-c.scanned, plan)
		}
		// Each file is one small row group with no rows to skip inside it, so row groups are
		// scanned exactly in the scanned files; those of pruned files count as pruned or not
		// at all.
		rg := rowGroupsLine.FindAllStringSubmatch(plan, -1)
		if len(rg) != 1 {
			t.Errorf("EXPLAIN %s: want one line with \"Row groups: N scanned, M pruned\", plan:\n%s", c.query, plan)
			continue
		}
		if scanned, pruned := atoi(rg[0][1]), atoi(rg[0][2]); scanned != c.scanned || (pruned != 0 && pruned != c.total-c.scanned) {
			t.Errorf("EXPLAIN %s: Row groups: %d scanned, %d pruned; want %d scanned, 0 or %d pruned; plan:\n%s",
				c.query, scanned, pruned, c.scanned, c.total-c.scanned, plan)
		}
		// estimated rows: 10 per scanned file; bytes: some, fewer than the files hold
		// when columns or files are left out
		rows, bytes := rowsLine.FindStringSubmatch(plan), bytesLine.FindStringSubmatch(plan)
		if rows == nil || bytes == nil {
			t.Errorf("EXPLAIN %s: want the Rows and Bytes to read lines, plan:\n%s", c.query, plan)
			continue
		}
		if files, est := atoi(rows[1]), atoi(rows[2]); files != 10*c.scanned || est != 10*c.scanned {
			t.Errorf("EXPLAIN %s: %s; want %d rows in the files read and estimated", c.query, rows[0], 10*c.scanned)
		}
		if needed, total := atoi(bytes[1]), atoi(bytes[2]); (c.scanned > 0) != (needed > 0) || needed > total {
			t.Errorf("EXPLAIN %s: %s", c.query, bytes[0])
		}
	}

	// psql shows the single "QUERY PLAN" column.
	out := srv.mustPsql(t, "EXPLAIN SELECT * FROM ex.events WHERE id > 25")
	if first := strings.SplitN(out, "\n", 2)[0]; strings.TrimSpace(first) != "QUERY PLAN" {
		t.Errorf("psql EXPLAIN header %q, want QUERY PLAN", first)
	}
	if !strings.Contains(out, "Files: 2 scanned, 2 pruned") {
		t.Errorf("psql EXPLAIN output lacks \"Files: 2 scanned, 2 pruned\":\n%s", out)
	}
}

// explain runs EXPLAIN query and returns its lines, checking the result is the single
// text column "QUERY PLAN".
func explain(t *testing.T, conn *pgx.Conn, query string) string {
	t.Helper()
	rows, err := conn.Query(testCtx(t), "EXPLAIN "+query)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", query, err)
	}
	defer rows.Close()
	fds := rows.FieldDescriptions()
	if len(fds) != 1 || fds[0].Name != "QUERY PLAN" || fds[0].DataTypeOID != pgtype.TextOID {
		t.Errorf("EXPLAIN %s: columns %+v, want one text column \"QUERY PLAN\"", query, fds)
	}
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatalf("EXPLAIN %s: %v", query, err)
		}
		lines = append(lines, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("EXPLAIN %s: %v", query, err)
	}
	return strings.Join(lines, "\n")
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}
