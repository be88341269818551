package bench

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestCompareRuns: the TPC-DS summary's ratios, bounds, counts and row checks.
func TestCompareRuns(t *testing.T) {
	to := 10 * time.Second
	ok := func(s float64, rows int) qResult { return qResult{times: []float64{s}, rows: rows} }
	lk := &queryRun{system: "lakepg", q: []qResult{
		ok(2, 5),               // 2×
		ok(1, 5),               // 0.5×, rows differ
		{timeout: true},        // > 10×
		{err: "not supported"}, // n/a
		ok(3, 1),               // 3×
	}}
	dk := &queryRun{system: "DuckDB", q: []qResult{ok(1, 5), ok(2, 6), ok(1, 0), ok(1, 0), ok(1, 1)}}
	c := compareRuns(lk, dk, to)
	if c.both != 3 {
		t.Errorf("both = %d, want 3", c.both)
	}
	if got := c.ratios[2].ratioString(); got != "> 10.00×" {
		t.Errorf("timeout ratio %s, want > 10.00×", got)
	}
	if c.ratios[3].ok {
		t.Errorf("an error has a ratio: %v", c.ratios[3])
	}
	if math.Abs(c.gm.v-math.Cbrt(3)) > 1e-9 || c.gm.lower || c.sumA != 6 || c.sumB != 4 {
		t.Errorf("gm %v, sums %v %v: want the cube root of 3 over the three both answered, 6 and 4", c.gm, c.sumA, c.sumB)
	}
	if len(c.over2) != 2 || c.over2[0] != 2 || c.over2[1] != 4 {
		t.Errorf("over2 = %v, want [2 4] (2× is not above 2×)", c.over2)
	}
	if len(c.worst) != 4 || c.worst[0] != 2 || c.worst[3] != 1 {
		t.Errorf("worst = %v, want [2 4 0 1]", c.worst)
	}
	if len(c.rowsDiffer) != 1 || c.rowsDiffer[0] != 1 {
		t.Errorf("rowsDiffer = %v, want [1]", c.rowsDiffer)
	}
	if len(c.errs[0]) != 1 || len(c.timeouts[0]) != 1 || len(c.errs[1])+len(c.timeouts[1]) != 0 {
		t.Errorf("errors %v, timeouts %v", c.errs, c.timeouts)
	}
	if got := rowsCell(lk.q[1], dk.q[1]); got != "rows differ: lakepg 5, DuckDB 6" {
		t.Errorf("rowsCell = %q", got)
	}
	if got := rowsCell(lk.q[2], dk.q[2]); got != "0" {
		t.Errorf("rowsCell of a lakepg timeout = %q, want DuckDB's 0", got)
	}
}

// TestTPCDSQueries: the 99 queries of the shared material read without their semicolons.
func TestTPCDSQueries(t *testing.T) {
	r := &Runner{}
	shared, err := r.sharedDir()
	if err != nil {
		t.Skip(err)
	}
	qs, err := readTPCDSQueries(shared + "/tpcds")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 99 || qs[0].name != "Q1" || qs[98].name != "Q99" {
		t.Fatalf("%d queries, first %q, last %q", len(qs), qs[0].name, qs[len(qs)-1].name)
	}
	for _, q := range qs {
		if strings.HasSuffix(q.sql, ";") || !strings.Contains(strings.ToLower(q.sql), "select") {
			t.Errorf("%s: %.60q…", q.name, q.sql)
		}
	}
}
