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
