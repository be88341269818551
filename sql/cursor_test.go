package sql

import (
	"context"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

func mustTag(t *testing.T, s *Session, q, wantTag string, want ...string) {
	t.Helper()
	rows, tag, err := run(t, s, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if tag != wantTag || strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\n got %q %q\nwant %q %q", q, rows, tag, want, wantTag)
	}
}

func TestCursorFetchAndMove(t *testing.T) {
	s := setup(t)
	mustFail(t, s, `DECLARE c CURSOR FOR SELECT x FROM t`, "25P01")
	mustTag(t, s, `BEGIN`, "BEGIN")
	mustTag(t, s, `DECLARE c NO SCROLL CURSOR FOR SELECT x, g FROM t WHERE x IS NOT NULL ORDER BY x`, "DECLARE CURSOR")
	mustTag(t, s, `FETCH 2 FROM c`, "FETCH 2", "1|a", "2|b")
	mustTag(t, s, `FETCH NEXT IN c`, "FETCH 1", "3|a")
	mustTag(t, s, `FETCH c`, "FETCH 0")
	mustTag(t, s, `MOVE ALL IN c`, "MOVE 0")
	mustFail(t, s, `FETCH PRIOR FROM c`, "55000")
	mustFail(t, s, `FETCH c`, pgerr.InFailedTransaction)
	mustTag(t, s, `COMMIT`, "ROLLBACK") // the failed FETCH aborted the block
	mustFail(t, s, `FETCH nope`, pgerr.InvalidCursorName)

	mustTag(t, s, `BEGIN`, "BEGIN")
	mustTag(t, s, `DECLARE s CURSOR FOR SELECT g FROM generate_series(1, 100) g`, "DECLARE CURSOR")
	mustTag(t, s, `MOVE FORWARD 10 IN s`, "MOVE 10")
	mustTag(t, s, `FETCH FORWARD 2 s`, "FETCH 2", "11", "12")
	mustTag(t, s, `FETCH ABSOLUTE 20 FROM s`, "FETCH 1", "20")
	mustTag(t, s, `FETCH RELATIVE 5 FROM s`, "FETCH 1", "25")
	mustTag(t, s, `MOVE 70 IN s`, "MOVE 70")
	mustTag(t, s, `FETCH ALL FROM s`, "FETCH 5", "96", "97", "98", "99", "100")
	mustTag(t, s, `FETCH ABSOLUTE 200 FROM s`, "FETCH 0")
	mustTag(t, s, `CLOSE s`, "CLOSE CURSOR")
	mustFail(t, s, `CLOSE s`, pgerr.InvalidCursorName)
	mustTag(t, s, `ROLLBACK`, "ROLLBACK")
}

// TestCursorStreams fetches from a cursor over a query with no practical
// end: only a cursor that pulls the tree on demand can answer.
func TestCursorStreams(t *testing.T) {
	s := lake(t)
	mustTag(t, s, `BEGIN`, "BEGIN")
	mustTag(t, s, `DECLARE big CURSOR FOR SELECT g, g * 2 FROM generate_series(1, 1000000000000) g`, "DECLARE CURSOR")
	mustTag(t, s, `FETCH 3 FROM big`, "FETCH 3", "1|2", "2|4", "3|6")
	mustTag(t, s, `MOVE 5000 IN big`, "MOVE 5000")
	mustTag(t, s, `FETCH 1 FROM big`, "FETCH 1", "5004|10008")
	mustTag(t, s, `COMMIT`, "COMMIT")
	mustFail(t, s, `FETCH big`, pgerr.InvalidCursorName)
}

func TestCursorHoldAndTransactionEnd(t *testing.T) {
	s := setup(t)
	// WITH HOLD outside a block: the implicit transaction's end keeps it.
	mustTag(t, s, `DECLARE h1 CURSOR WITH HOLD FOR SELECT x FROM t WHERE x IS NOT NULL ORDER BY x`, "DECLARE CURSOR")
	mustTag(t, s, `FETCH h1`, "FETCH 1", "1")
	mustFail(t, s, `DECLARE h1 CURSOR WITH HOLD FOR SELECT 1`, "42P03")

	mustTag(t, s, `BEGIN`, "BEGIN")
	mustTag(t, s, `DECLARE plain CURSOR WITHOUT HOLD FOR SELECT 1`, "DECLARE CURSOR")
	mustTag(t, s, `DECLARE h2 CURSOR WITH HOLD FOR SELECT 2`, "DECLARE CURSOR")
	mustTag(t, s, `COMMIT`, "COMMIT")
	mustFail(t, s, `FETCH plain`, pgerr.InvalidCursorName)
	mustTag(t, s, `FETCH h2`, "FETCH 1", "2")

	// ROLLBACK closes the hold cursors of its block, not older ones.
	mustTag(t, s, `BEGIN`, "BEGIN")
	mustTag(t, s, `DECLARE h3 CURSOR WITH HOLD FOR SELECT 3`, "DECLARE CURSOR")
	mustTag(t, s, `FETCH h1`, "FETCH 1", "2")
	mustTag(t, s, `ROLLBACK`, "ROLLBACK")
	mustTag(t, s, `FETCH h1`, "FETCH 1", "3")

	// A failed block ends with ROLLBACK too.
	mustTag(t, s, `BEGIN`, "BEGIN")
	mustTag(t, s, `DECLARE h4 CURSOR WITH HOLD FOR SELECT 4`, "DECLARE CURSOR")
	mustFail(t, s, `SELECT * FROM nope`, pgerr.UndefinedTable)
	mustTag(t, s, `COMMIT`, "ROLLBACK")
	mustFail(t, s, `FETCH h3`, pgerr.InvalidCursorName)
	mustFail(t, s, `FETCH h4`, pgerr.InvalidCursorName)

	mustTag(t, s, `CLOSE ALL`, "CLOSE CURSOR ALL")
	mustFail(t, s, `FETCH h1`, pgerr.InvalidCursorName)
	mustFail(t, s, `FETCH h2`, pgerr.InvalidCursorName)
}

func TestCursorDescribeAndBinary(t *testing.T) {
	s := setup(t)
	ctx := context.Background()
	mustTag(t, s, `DECLARE b BINARY CURSOR WITH HOLD FOR SELECT x, g AS name FROM t ORDER BY x`, "DECLARE CURSOR")
	stmts, err := s.Prepare(ctx, `FETCH 2 FROM b`, nil)
	if err != nil {
		t.Fatal(err)
	}
	cols := stmts[0].Columns()
	if len(cols) != 2 || cols[0].Name != "x" || cols[1].Name != "name" {
		t.Errorf("FETCH describes %v, want the cursor's columns x, name", cols)
	}
	res, err := stmts[0].Execute(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Binary() {
		t.Errorf("FETCH from a BINARY cursor: Binary() = false")
	}
	res.Close()
	if stmts, _ := s.Prepare(ctx, `MOVE 1 IN b`, nil); stmts[0].Columns() != nil {
		t.Errorf("MOVE describes columns")
	}
	// Parameters of the cursor's query are inferred and bound.
	stmts, err = s.Prepare(ctx, `DECLARE p CURSOR WITH HOLD FOR SELECT g FROM t WHERE x = $1`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if oids := stmts[0].ParamTypes(); len(oids) != 1 || oids[0] != 23 {
		t.Errorf("DECLARE parameter types %v, want [23]", oids)
	}
	if _, err := stmts[0].Execute(ctx, [][]byte{[]byte("2")}); err != nil {
		t.Fatal(err)
	}
	mustTag(t, s, `FETCH ALL p`, "FETCH 1", "b")
	s.Close()
	if len(s.cursors) != 0 {
		t.Errorf("Close left cursors open: %v", s.cursors)
	}
}
