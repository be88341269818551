package integration

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSpillUnderMemoryLimit runs an ORDER BY, a GROUP BY of many groups, a
// DISTINCT and a WITH query read several times whose state is several
// times --memory-limit: they spill to
// --temp-dir and answer, and the temp directory is empty afterwards. The
// same sort with --max-temp-size too small fails with 53200, which is what
// every one of them did before operators spilled.
func TestSpillUnderMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	start := func(maxTemp string) *server { return startLimited(t, dir, "24MiB", tmp, maxTemp) }
	srv := start("0")
	const n = 600000
	srv.mustPsql(t, "create table t as select g, md5(g::text) as h from generate_series(1, "+strconv.Itoa(n)+") g")

	r := srv.psql(t, "-At", "-c", "select h, g from t order by h")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("ORDER BY: exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("ORDER BY returned %d rows, want %d", len(lines), n)
	}
	if !sort.StringsAreSorted(lines) {
		t.Fatal("ORDER BY output is not sorted")
	}

	one := func(sql string) string {
		t.Helper()
		r := srv.psql(t, "-At", "-c", sql)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%s: exit %d: %s", sql, r.code, r.stderr)
		}
		return strings.TrimSpace(r.stdout)
	}
	if got := one("select count(*), sum(c), sum(gs) from (select h, count(*) as c, sum(g) as gs from t group by h) s"); got != "600000|600000|180000300000" {
		t.Fatalf("GROUP BY of %d groups: %q", n, got)
	}
	if got := one("select count(*), sum(k) from (select distinct h, g % 3 as k from t) s"); got != "600000|600000" {
		t.Fatalf("DISTINCT: %q", got)
	}
	// a WITH query read twice keeps its rows once: in a spill file here
	if got := one("with w as materialized (select h, g from t) select (select count(*) from w), (select sum(g) from w where h > ''), (select count(*) from w a join w b on a.g = b.g + 1)"); got != "600000|180000300000|599999" {
		t.Fatalf("materialized WITH query: %q", got)
	}
	// rows that fit are given back when the statement ends, also when a
	// plan made only to learn a subquery's shape took a reader of them and
	// dropped it: ten statements of 60,000 rows each fit in 24 MiB
	for i := 0; i < 10; i++ {
		if got := one("with w as materialized (select h, g from t where g <= 60000) select (select count(*) from w), (select sum(g) from w)"); got != "60000|1800030000" {
			t.Fatalf("run %d of a WITH query read by two subqueries: %q", i, got)
		}
	}
	requireNoSpillFiles(t, tmp)
	srv.stop(t)

	srv = start("1MiB")
	r = srv.psqlC(t, "select h, g from t order by h")
	if r.code == 0 || !strings.Contains(r.stderr, "53200") || !strings.Contains(r.stderr, "temp space") {
		t.Fatalf("ORDER BY with 1MiB of temp space: exit %d, stderr %q; want 53200 saying temp space ran out", r.code, r.stderr)
	}
	requireNoSpillFiles(t, tmp)
	srv.stop(t)
}

// requireNoSpillFiles fails if any file is left under the temp directory.
func requireNoSpillFiles(t *testing.T, tmp string) {
	t.Helper()
	var left []string
	filepath.Walk(tmp, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Fatalf("spill files left after the queries: %v", left)
	}
}

// TestJoinSpillUnderMemoryLimit runs hash joins of every kind whose build
// sides are several times --memory-limit, and window functions over
// partitioned inputs as big: they spill to --temp-dir (with
// --max-temp-size too small the same join fails with 53200 saying temp
// space ran out) and give the answers the same server gives without a
// limit, leaving the temp directory empty.
func TestJoinSpillUnderMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	start := func(limit, maxTemp string) *server { return startLimited(t, dir, limit, tmp, maxTemp) }
	srv := start("", "0")
	srv.mustPsql(t, "create table a as select g, md5(g::text) as h from generate_series(1, 500000) g")
	srv.mustPsql(t, "create table b as select g, md5(g::text) as h from generate_series(250001, 750000) g union all select null, null")
	srv.mustPsql(t, "create table bn as select g, h from b where g is not null")
	queries := []string{
		"select count(*), sum(a.g), sum(b.g) from a join b on a.h = b.h",
		"select count(*), count(b.g), sum(a.g) from a left join b on a.h = b.h",
		"select count(*), count(a.g), sum(b.g) from a right join b on a.h = b.h",
		"select count(*), count(a.g), count(b.g) from a full join b on a.h = b.h and a.g % 7 <> 3",
		"select count(*), sum(g) from a where h in (select h from b)",
		"select count(*), sum(g) from a where not exists (select 1 from b where b.h = a.h)",
		"select count(*) from a where g not in (select g from b)",
		"select count(*), sum(g) from a where g not in (select g from bn)",
		"select count(*), sum(g) from a where exists (select 1 from b where b.g = a.g and b.h <> a.h || 'x')",
		// windows: a few thousand partitions, each computed whole
		"select count(*), sum(rn), sum(rk), sum(s), sum(length(l)), sum(ld) from (select row_number() over w as rn, rank() over (partition by g % 3000 order by left(h, 2)) as rk, " +
			"sum(g) over (w rows between 2 preceding and 1 following) as s, lag(h) over w as l, lead(g, 2) over w as ld from a window w as (partition by g % 3000 order by h)) x",
		"select sum(c) from (select count(*) over (partition by left(h, 4)) * g as c from a) x",
		// windows over one partition bigger than the limit, with and
		// without PARTITION BY: computed from temp files
		"select count(*), sum(rn), sum(rk), sum(s), sum(m), sum(length(fv)), sum(c), sum(nt), sum(length(lv)) from (select row_number() over w as rn, dense_rank() over (order by left(h, 3)) as rk, " +
			"sum(g) over (w rows between 5 preceding and 5 following) as s, max(g % 1000) over (w range between 100 preceding and 10 following) as m, " +
			"first_value(h) over (w groups between 1 preceding and current row exclude current row) as fv, count(*) over (w range between current row and unbounded following) as c, " +
			"ntile(7) over w as nt, last_value(h) over (order by left(h, 2) groups between current row and 1 following) as lv from a window w as (order by g desc)) x",
		"select count(*), sum(s), sum(a), sum(length(l)) from (select sum(g) over (partition by g > 10 order by h) as s, avg(g) over (partition by g > 10 order by h rows between 3 preceding and 3 following)::bigint as a, " +
			"lead(h, 3, 'none') over (partition by g > 10 order by h) as l from a) x",
	}
	one := func(s *server, sql string) string {
		t.Helper()
		r := s.psql(t, "-At", "-c", sql)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%s: exit %d: %s", sql, r.code, r.stderr)
		}
		return strings.TrimSpace(r.stdout)
	}
	want := make([]string, len(queries))
	for i, q := range queries {
		want[i] = one(srv, q)
	}
	srv.stop(t)

	srv = start("24MiB", "0")
	for i, q := range queries {
		if got := one(srv, q); got != want[i] {
			t.Errorf("%s under a 24MiB limit: %q, without a limit %q", q, got, want[i])
		}
	}
	requireNoSpillFiles(t, tmp)
	srv.stop(t)

	srv = start("24MiB", "1MiB")
	r := srv.psqlC(t, queries[0])
	if r.code == 0 || !strings.Contains(r.stderr, "53200") || !strings.Contains(r.stderr, "temp space") {
		t.Fatalf("join with 1MiB of temp space: exit %d, stderr %q; want 53200 saying temp space ran out", r.code, r.stderr)
	}
	requireNoSpillFiles(t, tmp)
	srv.stop(t)
}

// TestWorkMem: SET work_mem is every operator's own budget. With a server
// limit far above the data and 1MiB of temp space, a sort, an aggregation,
// a join and an INTERSECT run in memory; after SET work_mem = '1MB' each spills (and so
// runs out of temp space, 53200); with temp space they answer as before.
// SHOW prints work_mem as PostgreSQL does, and bad values fail with 22023.
func TestWorkMem(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	start := func(maxTemp string) *server { return startLimited(t, dir, "1GiB", tmp, maxTemp) }
	srv := start("1MiB")
	srv.mustPsql(t, "create table t as select g, md5(g::text) as h from generate_series(1, 200000) g")
	queries := []string{
		"select sum(length(x)) from (select h || g as x from t order by h) s",
		"select count(*), sum(c) from (select h, count(*) as c from t group by h) s",
		"select count(*), sum(a.g) from t a join t b on a.h = b.h",
		// the set operation's own aggregation (setop_aggregate), over
		// inputs left as they are
		"set lakepg.disabled_rules = 'setop_distinct_inputs'; select count(*), sum(g) from (select h, g from t intersect select h, g from t where g % 3 > 0) s",
	}
	run := func(s *server, sets ...string) []psqlResult {
		var out []psqlResult
		for _, q := range queries {
			args := []string{"-At"}
			for _, set := range sets {
				args = append(args, "-c", set)
			}
			out = append(out, s.psql(t, append(args, "-c", q)...))
		}
		return out
	}
	base := run(srv)
	for i, r := range base {
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%s without work_mem: exit %d: %s", queries[i], r.code, r.stderr)
		}
	}
	for i, r := range run(srv, "set work_mem = '1MB'") {
		if r.code == 0 || !strings.Contains(r.stderr, "53200") || !strings.Contains(r.stderr, "temp space") {
			t.Errorf("%s with work_mem 1MB and 1MiB of temp space: exit %d, %q; want 53200, temp space", queries[i], r.code, r.stderr)
		}
	}
	requireNoSpillFiles(t, tmp)
	if got := srv.psqlValue(t, "show work_mem"); got != "4MB" {
		t.Errorf("show work_mem: %q, want 4MB", got)
	}
	for set, want := range map[string]string{"'1MB'": "1MB", "4096": "4MB", "'1500kB'": "1500kB", "'2GB'": "2GB", "'65536 kB'": "64MB"} {
		r := srv.psql(t, "-At", "-c", "set work_mem = "+set, "-c", "show work_mem")
		if got := strings.TrimSpace(strings.TrimPrefix(r.stdout, "SET\n")); r.code != 0 || got != want {
			t.Errorf("set work_mem = %s; show: exit %d, %q %q; want %q", set, r.code, got, r.stderr, want)
		}
	}
	srv.expectPsqlError(t, "set work_mem = '10'", "22023")
	srv.expectPsqlError(t, "set work_mem = '4mb'", "22023")
	srv.expectPsqlError(t, "set work_mem = 'lots'", "22023")
	srv.stop(t)

	srv = start("0")
	for i, r := range run(srv, "set work_mem = '1MB'") {
		if r.code != 0 || r.stderr != "" || strings.TrimPrefix(r.stdout, "SET\n") != base[i].stdout {
			t.Errorf("%s with work_mem 1MB: exit %d, %q %q; without: %q", queries[i], r.code, r.stdout, r.stderr, base[i].stdout)
		}
	}
	requireNoSpillFiles(t, tmp)
	srv.stop(t)
}

// TestConcurrentSortsUnderMemoryLimit: eight clients at once each sort a
// table bigger than --memory-limit; a sort that cannot get memory while the
// others hold it waits for it instead of failing, so all eight finish with
// every row in order.
func TestConcurrentSortsUnderMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	port := freePort(t)
	srv := launch(t, dir, port, []string{
		"--listen", "127.0.0.1:" + strconv.Itoa(port),
		"--catalog", "sqlite:" + filepath.Join(dir, "catalog.sqlite"),
		"--data", filepath.Join(dir, "data"),
		"--memory-limit", "16MiB", "--temp-dir", tmp, "--max-active-queries", "8",
	}, nil)
	const n = 200000
	srv.mustPsql(t, "create table t as select g, md5(g::text) as h from generate_series(1, "+strconv.Itoa(n)+") g")
	var wg sync.WaitGroup
	for c := 0; c < 8; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := srv.psql(t, "-At", "-c", "select h, g from t order by h")
			if r.code != 0 || r.stderr != "" {
				t.Errorf("client %d: exit %d: %s", c, r.code, r.stderr)
				return
			}
			lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			if len(lines) != n || !sort.StringsAreSorted(lines) {
				t.Errorf("client %d: %d rows, sorted %v; want %d sorted", c, len(lines), sort.StringsAreSorted(lines), n)
			}
		}()
	}
	wg.Wait()
	requireNoSpillFiles(t, tmp)
	srv.stop(t)
}

// startLimited starts a server on the lake in dir under a memory limit
// ("": the default), spilling into tmp up to maxTemp ("0": no limit).
func startLimited(t *testing.T, dir, limit, tmp, maxTemp string) *server {
	port := freePort(t)
	args := []string{
		"--listen", "127.0.0.1:" + strconv.Itoa(port),
		"--catalog", "sqlite:" + filepath.Join(dir, "catalog.sqlite"),
		"--data", filepath.Join(dir, "data"),
		"--temp-dir", tmp, "--max-temp-size", maxTemp,
	}
	if limit != "" {
		args = append(args, "--memory-limit", limit)
	}
	return launch(t, dir, port, args, nil)
}

// TestOtherOperatorsSpillUnderMemoryLimit runs nested-loop joins (joins
// and EXISTS without an equality key), INTERSECT ALL and EXCEPT ALL, WITH
// RECURSIVE queries whose work table or UNION's set of rows produced, and
// a temporary table whose rows are
// several times --memory-limit: they give the answers the same server
// gives without a limit and leave the temp directory empty, and with
// --max-temp-size too small each fails with 53200 saying temp space ran
// out, so each did spill. A spilling nested-loop join ended by
// statement_timeout leaves no file either.
func TestOtherOperatorsSpillUnderMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	start := func(limit, maxTemp string) *server { return startLimited(t, dir, limit, tmp, maxTemp) }
	srv := start("", "0")
	srv.mustPsql(t, "create table a as select g, md5(g::text) as h from generate_series(1, 500000) g")
	srv.mustPsql(t, "create table b as select g, md5(g::text) as h from generate_series(250001, 750000) g union all select null, null")
	srv.mustPsql(t, "create table s as select g, g * 1000 as lo, g * 1000 + 10 as hi from generate_series(1, 30) g")
	queries := []string{
		// nested loops whose right side (a, with its text) is buffered
		"select count(*), sum(a.g), sum(length(a.h)), count(s.g) from s left join a on a.g between s.lo and s.hi",
		"select count(*), count(s.g), count(a.g), sum(length(a.h)) from s full join a on a.g between s.lo and s.hi and a.h > s.g::text",
		"select count(*), sum(g) from s where exists (select 1 from a where a.g between s.lo and s.hi and a.h > s.g::text)",
		"select count(*), sum(g) from s where not exists (select 1 from a where a.g between s.lo and s.hi and a.h > s.g::text)",
		// set operations with ALL keep every row's count
		"select count(*), sum(g) from (select h, g from a except all select h, g from b) x",
		"select count(*), sum(g) from (select h, g from a intersect all select h, g from b) x",
		"with recursive r(n, h) as (select g, h from a union all select n + 500000, h from r where n <= 500000) select count(*), sum(n), sum(length(h)) from r",
		// UNION's set of 734,481 rows produced, checked from files
		"with recursive r(n, h) as (select g, h from a where g <= 50000 union select n / 2, h from r where n > 1) select count(*), sum(n), sum(length(h)) from r",
	}
	// a temporary table's statements, in one session
	temp := []string{"create temp table tt as select * from a", "select count(*), sum(g), sum(length(h)) from tt",
		"delete from tt where g % 2 = 0", "update tt set h = 'x' where g % 3 = 0",
		"select count(*), sum(g), sum(length(h)) from tt", "select count(*), sum(tt.g) from tt join s on tt.g = s.lo + 1"}
	one := func(s *server, sql ...string) psqlResult {
		t.Helper()
		args := []string{"-At"}
		for _, q := range sql {
			args = append(args, "-c", q)
		}
		return s.psql(t, args...)
	}
	want := make([]string, len(queries)+1)
	for i, q := range append(queries, "") {
		sql := []string{q}
		if q == "" {
			sql = temp
		}
		r := one(srv, sql...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%s: exit %d: %s", sql, r.code, r.stderr)
		}
		want[i] = r.stdout
	}
	srv.stop(t)

	// the files of a session's temporary tables go when the session
	// closes, which the server sees a moment after psql exits
	noFiles := func() {
		t.Helper()
		for i := 0; i < 100 && spillFileCount(tmp) > 0; i++ {
			time.Sleep(100 * time.Millisecond)
		}
		requireNoSpillFiles(t, tmp)
	}
	srv = start("24MiB", "0")
	for i, q := range append(queries, "") {
		sql := []string{q}
		if q == "" {
			sql = temp
		}
		if r := one(srv, sql...); r.code != 0 || r.stderr != "" || r.stdout != want[i] {
			t.Errorf("%s under a 24MiB limit: exit %d, %q %q; without a limit %q", sql, r.code, r.stdout, r.stderr, want[i])
		}
		noFiles()
	}
	r := one(srv, "set statement_timeout = '3s'", "select count(*) from a x join a y on x.h < y.h")
	if r.code == 0 || !strings.Contains(r.stderr, "57014") {
		t.Errorf("a nested loop of 250 billion pairs under statement_timeout: exit %d, %q", r.code, r.stderr)
	}
	noFiles()
	srv.stop(t)

	srv = start("24MiB", "1MiB")
	for _, q := range append(queries, "") {
		sql := []string{q}
		if q == "" {
			sql = temp[:1]
		}
		r := one(srv, sql...)
		if r.code == 0 || !strings.Contains(r.stderr, "53200") || !strings.Contains(r.stderr, "temp space") {
			t.Errorf("%s with 1MiB of temp space: exit %d, stderr %q; want 53200 saying temp space ran out", sql, r.code, r.stderr)
		}
		noFiles()
	}
	srv.stop(t)
}

// spillFileCount counts the files under the temp directory.
func spillFileCount(tmp string) int {
	n := 0
	filepath.Walk(tmp, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n++
		}
		return nil
	})
	return n
}
