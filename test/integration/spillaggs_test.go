package integration

import (
	"crypto/md5"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestGroupingSetsAndTopNSpillUnderMemoryLimit runs grouping sets (ROLLUP,
// CUBE, GROUPING SETS, with DISTINCT and ordinary aggregates and
// grouping()), aggregates that collect their rows (DISTINCT, percentiles,
// mode, string_agg with ORDER BY) without GROUP BY and with few groups,
// and ORDER BY … LIMIT with a big LIMIT and OFFSET whose state
// is several times --memory-limit: they spill to --temp-dir (before, each
// failed with 53200) and give the answers the same server gives without a
// limit, leaving the temp directory empty.
func TestGroupingSetsAndTopNSpillUnderMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	srv := startLimited(t, dir, "4GiB", tmp, "0")
	srv.mustPsql(t, "create table t as select g, md5(g::text) as h from generate_series(1, 500000) g")
	queries := []string{
		// rolled up from the finest set, then frozen set by set
		"select count(*), sum(c), sum(s), sum(gr), sum(length(b)), count(distinct a) from (select a, b, count(*) as c, sum(g) as s, grouping(a, b) as gr " +
			"from (select g % 200000 as a, h as b, g from t) x group by rollup (a, b)) y",
		// a DISTINCT aggregate: every set reads the input
		"select count(*), sum(c), sum(d), sum(gr), sum(length(b)) from (select a, b, count(*) as c, count(distinct g % 7) as d, grouping(a, b) as gr " +
			"from (select g % 150000 as a, left(h, 20) as b, g from t) x group by cube (a, b)) y",
		"select count(*), sum(c), sum(m), sum(length(b)), sum(gr) from (select a, b, count(*) filter (where g % 3 = 0) as c, max(g) as m, grouping(a, b) as gr " +
			"from (select g % 250000 as a, h as b, g from t) x group by grouping sets ((b), (a), ())) y",
		// states that collect their rows, without GROUP BY and with few groups
		"select count(distinct h), sum(distinct g % 100000), percentile_cont(0.3) within group (order by g), percentile_disc(0.7) within group (order by h desc), " +
			"mode() within group (order by g % 1000), md5(string_agg(left(h, 4), ',' order by right(h, 3), g desc)), length(string_agg(distinct left(h, 5), '')) from t",
		"select g % 3, count(distinct h), percentile_cont(0.5) within group (order by g), md5(string_agg(left(h, 3), ',' order by h)) from t group by 1 order by 1",
		// top-N past the budget: a full sort whose first rows are sent
		"select h, g from t order by left(h, 3), g desc limit 400000",
		"select h, g from t order by h desc limit 300000 offset 100000",
	}
	one := func(s *server, sql string) string {
		t.Helper()
		r := s.psql(t, "-At", "-c", sql)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%s: exit %d: %s", sql, r.code, r.stderr)
		}
		if len(r.stdout) > 1000 {
			return fmt.Sprintf("%d lines, md5 %x", strings.Count(r.stdout, "\n"), md5.Sum([]byte(r.stdout)))
		}
		return strings.TrimSpace(r.stdout)
	}
	want := make([]string, len(queries))
	for i, q := range queries {
		want[i] = one(srv, q)
	}
	srv.stop(t)

	srv = startLimited(t, dir, "24MiB", tmp, "0")
	for i, q := range queries {
		if got := one(srv, q); got != want[i] {
			t.Errorf("%s under a 24MiB limit: %q, without a limit %q", q, got, want[i])
		}
	}
	requireNoSpillFiles(t, tmp)
	srv.stop(t)

	// the same statements need temp space: with 1MiB they run out of it
	srv = startLimited(t, dir, "24MiB", tmp, "1MiB")
	for _, q := range []string{queries[0], queries[3], queries[5]} {
		r := srv.psqlC(t, q)
		if r.code == 0 || !strings.Contains(r.stderr, "53200") || !strings.Contains(r.stderr, "temp space") {
			t.Fatalf("%s with 1MiB of temp space: exit %d, stderr %q; want 53200 saying temp space ran out", q, r.code, r.stderr)
		}
	}
	requireNoSpillFiles(t, tmp)
	srv.stop(t)
}
