package sql

import (
	"strings"
	"testing"
)

// TestWindowOrder: windows whose sort keys begin with another's run after
// it (window_order), a partition-only window taking its columns in the
// earlier window's order, and the answers are PostgreSQL 15's with the
// rule on and off.
func TestWindowOrder(t *testing.T) {
	s := joinLake(t)
	q := `SELECT md5(string_agg(id || ':' || s || ':' || r || ':' || c || ':' || rn, ',' ORDER BY id)) FROM (
SELECT id, sum(qty) OVER (PARTITION BY dk, wk) s, rank() OVER (PARTITION BY wk, dk ORDER BY qty DESC) r, count(*) OVER (PARTITION BY wk) c, row_number() OVER (PARTITION BY wk, dk ORDER BY qty DESC, id) rn FROM fact) x`
	for _, disabled := range []string{"", "window_order"} {
		must(t, s, `SET lakepg.disabled_rules = '`+disabled+`'`)
		must(t, s, q, "29dcc33e6f864ef35c3efa0b24139374")
		plan := strings.Join(explainLines(t, s, "EXPLAIN (VERBOSE) "+q), "\n")
		if fired := strings.Contains(plan, "window_order (1)"); fired != (disabled == "") {
			t.Errorf("disabled %q: window_order fired %v:\n%s", disabled, fired, plan)
		}
	}
	must(t, s, `RESET lakepg.disabled_rules`)
}

// TestParallelWindowsOrder: the outermost SELECT's windows keep
// PostgreSQL's partition order without ORDER BY (its rows reach the client
// as they come), so they run on one worker there; under an ORDER BY, or
// in a derived table, they are dealt to the workers, with the same rows.
func TestParallelWindowsOrder(t *testing.T) {
	s := joinLake(t)
	win := `SELECT wk, qty, row_number() OVER (PARTITION BY wk ORDER BY qty, id) rn FROM fact`
	parallel := func(q string) bool {
		return strings.Contains(strings.Join(explainLines(t, s, "EXPLAIN "+q), "\n"), "partitions dealt")
	}
	if parallel(win) {
		t.Errorf("the outermost SELECT's window without ORDER BY is dealt to workers")
	}
	rows, _, err := run(t, s, win)
	if err != nil {
		t.Fatal(err)
	}
	// 20,000 rows in (wk, qty, rn) order, as PostgreSQL's sort gives them
	prev := []int{-1, -1, -1}
	for i, r := range rows {
		var cur []int
		for _, f := range strings.Split(r, "|") {
			n := 0
			for _, c := range f {
				n = n*10 + int(c-'0')
			}
			cur = append(cur, n)
		}
		if cur[0] < prev[0] || cur[0] == prev[0] && (cur[1] < prev[1] || cur[1] == prev[1] && cur[2] <= prev[2]) {
			t.Fatalf("row %d %q after %v: not in partition order", i, r, prev)
		}
		prev = cur
	}
	if len(rows) != 20000 {
		t.Fatalf("%d rows, want 20000", len(rows))
	}
	for _, q := range []string{win + ` ORDER BY wk, qty, rn`, `SELECT count(*), sum(rn) FROM (` + win + `) x`} {
		if !parallel(q) {
			t.Errorf("%s: the window is not dealt to workers", q)
		}
	}
	must(t, s, `SELECT count(*), sum(rn) FROM (`+win+`) x`, "20000|28581429")
}

// TestWindowOrderUnderOperators: windows under what is still planned into
// operators above them (a subquery whose left operand holds a window call,
// or a correlated subquery over the groups) are reordered by the same
// rule, and the expressions above them follow their columns. The answers
// are PostgreSQL 15's on the same tables.
func TestWindowOrderUnderOperators(t *testing.T) {
	s := joinLake(t)
	for _, c := range []struct{ q, want string }{
		{`SELECT md5(string_agg(id || ':' || r || ':' || t, ',' ORDER BY id)) FROM (SELECT id, rank() OVER (PARTITION BY wk ORDER BY qty, id) r,
			max(qty) OVER (PARTITION BY wk) IN (SELECT r.reason + 8 FROM ret r WHERE r.id = f.id) t FROM fact f) x`, "b92040d04829a3aa04d213dab54a1905"},
		{`SELECT md5(string_agg(wk || ':' || dk || ':' || round(a, 6) || ':' || r || ':' || c, ',' ORDER BY wk, dk)) FROM (SELECT wk, dk,
			avg(sum(qty)) OVER (PARTITION BY wk) a, rank() OVER (PARTITION BY wk ORDER BY sum(qty), dk) r, (SELECT count(*) FROM ret WHERE ret.reason = f.wk) c
			FROM fact f GROUP BY wk, dk) x`, "cd3a5bece64b4b9c3bcdd41c3cf5c8b2"},
	} {
		for _, disabled := range []string{"", "window_order"} {
			must(t, s, `SET lakepg.disabled_rules = '`+disabled+`'`)
			must(t, s, c.q, c.want)
			plan := strings.Join(explainLines(t, s, "EXPLAIN (VERBOSE) "+c.q), "\n")
			if fired := strings.Contains(plan, "window_order (1)"); fired != (disabled == "") {
				t.Errorf("disabled %q: window_order fired %v:\n%s", disabled, fired, plan)
			}
		}
	}
	must(t, s, `RESET lakepg.disabled_rules`)
}
