package difftest

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The tests here need no server: they check the generator, the comparison, the oracles'
// rewrites, the shrinker and the allow-list on their own.

func testGen(seed uint64) *gen {
	r := rand.New(rand.NewPCG(seed, 1))
	return &gen{r: r, ds: genDataset(r, pools), pools: pools}
}

// The same seed must give the same queries, or a failure could not be replayed.
func TestGeneratorDeterministic(t *testing.T) {
	a, b := testGen(7), testGen(7)
	for i := 0; i < 200; i++ {
		qa, qb := sqlOf(a.query().q), sqlOf(b.query().q)
		if qa != qb {
			t.Fatalf("query %d differs for the same seed:\n%s\n%s", i, qa, qb)
		}
	}
}

// An alias names one relation in a whole query (a copy of a subquery, as an aggregate's
// ORDER BY repeats its argument, declares the same relation again): the oracles' renaming
// relies on it.
func TestGeneratorAliasesUnique(t *testing.T) {
	g := testGen(3)
	for i := 0; i < 300; i++ {
		c := g.query()
		seen := map[string]string{}
		v := &visitor{from: func(p *fromItem) {
			var a string
			switch f := (*p).(type) {
			case *tableRef:
				a = f.alias
			case *derived:
				a = f.alias
			}
			text := sqlOf(*p)
			if old, ok := seen[a]; a != "" && ok && old != text {
				t.Fatalf("alias %s names two relations in\n%s", a, sqlOf(c.q))
			}
			seen[a] = text
		}}
		v.walkQuery(&c.q)
		if strings.Contains(sqlOf(c.q), "--") {
			t.Fatalf("a comment sequence in\n%s", sqlOf(c.q))
		}
	}
}

func TestFitNumeric(t *testing.T) {
	for _, c := range []struct {
		v    string
		p, s int
		want string
	}{
		{"3.14", 5, 2, "3.14"}, {"0.5", 3, 3, "0.500"}, {"1", 3, 3, ""}, {"-2.25", 10, 0, "-2"},
		{"123.456789123", 5, 2, "123.45"}, {"0.5", 10, 0, "0"},
	} {
		if got := fitNumeric(c.v, c.p, c.s); got != c.want {
			t.Errorf("fitNumeric(%s, %d, %d) = %q, want %q", c.v, c.p, c.s, got, c.want)
		}
	}
}

func rows(rs ...string) [][]string {
	var out [][]string
	for _, r := range rs {
		cells := strings.Split(r, "|")
		for i, c := range cells {
			if c == "NULL" {
				cells[i] = nullCell
			}
		}
		out = append(out, cells)
	}
	return out
}

func TestDiffResults(t *testing.T) {
	ok := func(r [][]string, oids ...uint32) result { return result{oids: oids, rows: r} }
	fail := func(code string) result { return result{code: code, msg: "x"} }
	intT, numFixed, numVar, floatT, approxT := typ(kInt), sqlType{k: kNum, scale: 2}, typ(kNum), typ(kFloat), sqlType{k: kFloat, approx: true}
	for _, c := range []struct {
		name      string
		want, got result
		types     []sqlType
		ordered   bool
		kind      string
		inconcl   bool
	}{
		{"same multiset", ok(rows("1|a", "2|NULL"), 23, 25), ok(rows("2|NULL", "1|a"), 23, 25), []sqlType{intT, typ(kText)}, false, "", false},
		{"order matters when ordered", ok(rows("1", "2"), 23), ok(rows("2", "1"), 23), []sqlType{intT}, true, "wrong result", false},
		{"a missing duplicate", ok(rows("1", "1"), 23), ok(rows("1"), 23), []sqlType{intT}, false, "wrong result", false},
		{"NULL is not empty", ok(rows("NULL"), 25), ok(rows(""), 25), []sqlType{typ(kText)}, false, "wrong result", false},
		{"float within tolerance", ok(rows("0.3"), 701), ok(rows("0.30000000000000004"), 701), []sqlType{floatT}, false, "", false},
		{"float beyond tolerance", ok(rows("0.3"), 701), ok(rows("0.31"), 701), []sqlType{floatT}, false, "wrong result", false},
		{"NaN equals NaN", ok(rows("NaN"), 701), ok(rows("NaN"), 701), []sqlType{floatT}, false, "", false},
		{"summed float only", ok(rows("1|1e+16"), 23, 701), ok(rows("1|1.0000000000000002e+16"), 23, 701), []sqlType{intT, approxT}, false, "", false},
		{"summed float far off", ok(rows("1|1"), 23, 701), ok(rows("1|0"), 23, 701), []sqlType{intT, approxT}, false, "wrong result", true},
		{"fixed numeric scale counts", ok(rows("1.00"), 1700), ok(rows("1.0"), 1700), []sqlType{numFixed}, false, "wrong result", false},
		{"varying numeric scale does not", ok(rows("1.00"), 1700), ok(rows("1"), 1700), []sqlType{numVar}, false, "", false},
		{"column type", ok(rows("1"), 23), ok(rows("1"), 20), []sqlType{intT}, false, "column types", false},
		{"same error class", fail("22012"), fail("22003"), nil, false, "", false},
		{"other error class", fail("22012"), fail("42883"), nil, false, "lakepg error 42883, PostgreSQL error 22012", false},
		{"error on one side", ok(rows("1"), 23), fail("XX000"), []sqlType{intT}, false, "lakepg error XX000", false},
		{"no error on one side", fail("22012"), ok(rows("1"), 23), []sqlType{intT}, false, "lakepg no error, PostgreSQL error 22012", false},
	} {
		v := diffResults(c.want, c.got, c.types, c.ordered, false, "PostgreSQL", "lakepg")
		if v.kind != c.kind || v.inconclusive != c.inconcl {
			t.Errorf("%s: kind %q inconclusive %v, want %q %v (%s)", c.name, v.kind, v.inconclusive, c.kind, c.inconcl, v.detail)
		}
	}
	// an overflow of a float sum on one side only is the order of summation
	v := diffResults(result{oids: []uint32{701}, rows: rows("1")}, result{code: "22003"}, []sqlType{floatT}, false, true, "PostgreSQL", "lakepg")
	if !v.inconclusive {
		t.Errorf("overflow of a summed float: %+v, want inconclusive", v)
	}
}

// handQuery is SELECT a1.a_i1, count(*) FROM t0 AS a1 JOIN t1 AS a2 ON a1.id = a2.id
// WHERE a2.b_s1 <> 'x' GROUP BY a1.a_i1 ORDER BY 1, 2.
func handQuery() (*testCase, *dataset) {
	ds := &dataset{tables: []*table{
		{name: "t0", cols: []colDef{{name: "id", t: typ(kInt)}, {name: "a_i1", t: typ(kInt)}}},
		{name: "t1", cols: []colDef{{name: "id", t: typ(kInt)}, {name: "b_s1", t: typ(kText)}}},
	}}
	ai1 := &col{rel: "a1", name: "a_i1", t: typ(kInt)}
	s := &selectQ{
		items: []item{{e: ai1}, {e: &agg{name: "count", star: true, t: typ(kBig)}}},
		from: []fromItem{&joinItem{kind: "JOIN", l: &tableRef{table: "t0", alias: "a1"}, r: &tableRef{table: "t1", alias: "a2"},
			on: &binop{op: "=", l: &col{rel: "a1", name: "id", t: typ(kInt)}, r: &col{rel: "a2", name: "id", t: typ(kInt)}, t: typ(kBool)}}},
		where:   &binop{op: "<>", l: &col{rel: "a2", name: "b_s1", t: typ(kText)}, r: exprLit(typ(kText), value{s: "x"}), t: typ(kBool)},
		groupBy: []expr{ai1.clone()},
		orderBy: []orderItem{{ord: 1}, {ord: 2}},
		limit:   -1, offset: -1,
	}
	sc := &scope{grouped: true, groups: s.groupBy}
	return &testCase{q: s, top: sc}, ds
}

func TestRewrites(t *testing.T) {
	c, ds := handQuery()
	for _, tc := range []struct {
		mode   string
		useCTE bool
		want   string
	}{
		{"barrier", false, "SELECT a1.a_i1 AS c0, count(*) AS c1 FROM ((SELECT * FROM t0 OFFSET 0) AS a1 JOIN (SELECT * FROM t1 OFFSET 0) AS a2 ON (a1.id = a2.id)) WHERE (a2.b_s1 <> 'x'::text) GROUP BY a1.a_i1 ORDER BY 1, 2"},
		{"is-true", false, "SELECT a1.a_i1 AS c0, count(*) AS c1 FROM (t0 AS a1 JOIN t1 AS a2 ON ((a1.id = a2.id)) IS TRUE) WHERE ((a2.b_s1 <> 'x'::text)) IS TRUE GROUP BY a1.a_i1 ORDER BY 1, 2"},
		{"subquery", true, "WITH rw_from(c0, c1, c2, c3) AS MATERIALIZED (SELECT a1.id AS c0, a1.a_i1 AS c1, a2.id AS c2, a2.b_s1 AS c3 FROM (t0 AS a1 JOIN t1 AS a2 ON (a1.id = a2.id))) SELECT rw.c1 AS c0, count(*) AS c1 FROM rw_from AS rw WHERE (rw.c3 <> 'x'::text) GROUP BY rw.c1 ORDER BY 1, 2"},
		{"subquery", false, "SELECT rw.c1 AS c0, count(*) AS c1 FROM (SELECT a1.id AS c0, a1.a_i1 AS c1, a2.id AS c2, a2.b_s1 AS c3 FROM (t0 AS a1 JOIN t1 AS a2 ON (a1.id = a2.id)) OFFSET 0) AS rw WHERE (rw.c3 <> 'x'::text) GROUP BY rw.c1 ORDER BY 1, 2"},
	} {
		got, ok := rewrite(c, tc.mode, ds, tc.useCTE)
		if !ok || got != tc.want {
			t.Errorf("rewrite %s (cte %v):\n got %s\nwant %s", tc.mode, tc.useCTE, got, tc.want)
		}
	}
	if sqlOf(c.q) != "SELECT a1.a_i1 AS c0, count(*) AS c1 FROM (t0 AS a1 JOIN t1 AS a2 ON (a1.id = a2.id)) WHERE (a2.b_s1 <> 'x'::text) GROUP BY a1.a_i1 ORDER BY 1, 2" {
		t.Errorf("rewriting changed the original: %s", sqlOf(c.q))
	}
}

func TestTLPParts(t *testing.T) {
	c, _ := handQuery()
	c.pred = &binop{op: ">", l: &agg{name: "count", star: true, t: typ(kBig)}, r: exprLit(typ(kInt), value{s: "1"}), t: typ(kBool)}
	base, parts, distinct, ok := tlpParts(c)
	if !ok || distinct || len(parts) != 3 {
		t.Fatalf("tlpParts: ok %v distinct %v parts %d", ok, distinct, len(parts))
	}
	if got := sqlOf(base); strings.Contains(got, "ORDER BY") || strings.Contains(got, "HAVING") {
		t.Errorf("base %s: want no ORDER BY and no HAVING", got)
	}
	for i, suffix := range []string{"HAVING (count(*) > 1)", "HAVING (NOT (count(*) > 1))", "HAVING ((count(*) > 1) IS NULL)"} {
		if got := sqlOf(parts[i]); !strings.HasSuffix(got, suffix) {
			t.Errorf("part %d: %s\nwant it to end in %s", i, got, suffix)
		}
	}
	// windows see the rows of the other partitions: no TLP
	s := c.q.(*selectQ).cloneSelect()
	s.groupBy = nil
	s.items = []item{{e: &win{name: "row_number", t: typ(kBig)}}}
	c2 := &testCase{q: s, top: &scope{}, pred: c.pred}
	if _, _, _, ok := tlpParts(c2); ok {
		t.Errorf("TLP applied to a query with a window function")
	}
}

// The shrinker keeps what the predicate needs and drops the rest, and leaves the row keys
// that order a window alone.
func TestShrinkCase(t *testing.T) {
	g := testGen(11)
	tried := 0
	for i := 0; i < 400 && tried < 20; i++ {
		c := g.query()
		sql := sqlOf(c.q)
		if !strings.Contains(sql, "NULLIF(") {
			continue
		}
		tried++
		sh := &shrinker{max: 5000}
		sh.deadline = sh.deadline.AddDate(3000, 0, 0)
		min := sh.shrinkCase(c, func(c *testCase) bool { return strings.Contains(sqlOf(c.q), "NULLIF(") })
		got := sqlOf(min.q)
		if !strings.Contains(got, "NULLIF(") {
			t.Fatalf("shrunk query lost what the predicate needs: %s", got)
		}
		if len(got) > 200 {
			t.Errorf("shrunk query still long (%d bytes):\n%s\nfrom\n%s", len(got), got, sql)
		}
	}
	if tried == 0 {
		t.Fatal("no generated query has NULLIF")
	}

	// a row_number's ORDER BY keeps its row keys, whatever the predicate
	w := &win{name: "row_number", t: typ(kBig), order: []orderItem{{e: &col{rel: "a1", name: "a_i1", t: typ(kInt)}}, {e: &col{rel: "a1", name: "id", t: typ(kInt)}}}}
	s := &selectQ{items: []item{{e: w}}, from: []fromItem{&tableRef{table: "t0", alias: "a1"}}, limit: -1, offset: -1}
	sh := &shrinker{max: 1000}
	sh.deadline = sh.deadline.AddDate(3000, 0, 0)
	min := sh.shrinkCase(&testCase{q: s}, func(c *testCase) bool { return strings.Contains(sqlOf(c.q), "row_number") })
	if got := sqlOf(min.q); !strings.Contains(got, "ORDER BY a1.a_i1, a1.id") {
		t.Errorf("the window's ORDER BY changed: %s", got)
	}
}

func TestAllowListFile(t *testing.T) {
	entries, err := readAllowList(allowListPath)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		if names[e.name] {
			t.Errorf("%s: entry %s twice", allowListPath, e.name)
		}
		names[e.name] = true
		if strings.Contains(e.why, "\n") || len(e.why) > 300 {
			t.Errorf("%s: entry %s: why: must be one line", allowListPath, e.name)
		}
		if e.repro == "" {
			t.Errorf("%s: entry %s has no repro:", allowListPath, e.name)
		}
	}
	f := &finding{oracle: "tlp", kind: "lakepg error 0A000", sql: "SELECT (0 BETWEEN SYMMETRIC 0 AND 0) AS c0", detail: "lakepg: operator kind AEXPR_BETWEEN_SYM is not supported yet"}
	matched := false
	for _, e := range entries {
		if e.matches(f) {
			matched = true
		}
	}
	if !matched && names["between-symmetric"] {
		t.Errorf("the between-symmetric entry does not match its own reproduction")
	}
}

// The forced-evaluation probes read each expression over the relations it names, and leave
// out what SQL evaluates only when needed (a CASE's branches on their own).
func TestForcedProbes(t *testing.T) {
	a6g1 := &col{rel: "a6", name: "a_g1", t: typ(kBig)}
	div := &binop{op: "/", l: exprLit(typ(kInt), value{s: "0"}), r: a6g1, t: typ(kBig)}
	inner := &selectQ{items: []item{{e: div}}, from: []fromItem{&tableRef{table: "t0", alias: "a6"}}, limit: -1, offset: -1}
	branch := &binop{op: "/", l: exprLit(typ(kInt), value{s: "1"}), r: &col{rel: "a2", name: "id", t: typ(kInt)}, t: typ(kInt)}
	cond := &binop{op: "=", l: &col{rel: "a2", name: "id", t: typ(kInt)}, r: exprLit(typ(kInt), value{s: "0"}), t: typ(kBool)}
	q := &selectQ{
		items: []item{
			{e: &subq{mode: "scalar", q: inner, t: typ(kBig)}},
			{e: &caseE{whens: []expr{cond, exprLit(typ(kInt), value{s: "0"})}, els: branch, t: typ(kInt)}},
		},
		from:  []fromItem{&tableRef{table: "t2", alias: "a2"}},
		limit: -1, offset: -1,
	}
	got := strings.Join(forcedProbes(q), "\n")
	// the CASE as a whole (PostgreSQL then takes the branch it needs), not its ELSE alone
	want := "SELECT (0 / a6.a_g1) AS p0, a6.a_g1 AS p1 FROM t0 AS a6\n" +
		"SELECT (a2.id = 0) AS p0, a2.id AS p1, CASE WHEN (a2.id = 0) THEN 0 ELSE (1 / a2.id) END AS p2 FROM t2 AS a2"
	if got != want {
		t.Errorf("probes:\n%s\nwant:\n%s", got, want)
	}
}

// A COALESCE's first argument is probed also converted to the COALESCE's type (a date to
// timestamp fails past 294276), its other arguments not at all (seeds 1 and 23).
func TestForcedProbesCoalesce(t *testing.T) {
	d := &col{rel: "a5", name: "b_d3", t: typ(kDate)}
	ts := &lit{text: "TIMESTAMP '2000-01-01 00:00:00'", t: typ(kTS)}
	q := &selectQ{items: []item{{e: &fn{name: "COALESCE", args: []expr{d, ts}, t: typ(kTS)}}},
		from: []fromItem{&tableRef{table: "t1", alias: "a5"}}, limit: -1, offset: -1}
	got := strings.Join(forcedProbes(q), "\n")
	want := "SELECT a5.b_d3 AS p0, CASE WHEN false THEN TIMESTAMP '2000-01-01 00:00:00' ELSE a5.b_d3 END AS p1 FROM t1 AS a5"
	if got != want {
		t.Errorf("probes:\n%s\nwant:\n%s", got, want)
	}
}

// An expression over an aggregate is probed per group, with the query's FROM and GROUP BY.
func TestGroupedProbes(t *testing.T) {
	cnt := &agg{name: "count", star: true, t: typ(kBig)}
	mod := &binop{op: "%", l: exprLit(typ(kInt), value{s: "0"}), r: cnt, t: typ(kBig)}
	having := &binop{op: "AND", l: &lit{text: "false", t: typ(kBool)},
		r: &binop{op: "=", l: exprLit(typ(kInt), value{s: "0"}), r: mod, t: typ(kBool)}, t: typ(kBool)}
	s := &selectQ{items: []item{{e: exprLit(typ(kText), value{s: "a"})}}, from: []fromItem{&tableRef{table: "t0", alias: "a1"}},
		having: having, limit: -1, offset: -1}
	got := strings.Join(groupedProbes(s), "\n")
	want := "SELECT (false AND (0 = (0 % count(*)))) AS c0 FROM t0 AS a1\n" +
		"SELECT (0 = (0 % count(*))) AS c0 FROM t0 AS a1\n" +
		"SELECT (0 % count(*)) AS c0 FROM t0 AS a1"
	if got != want {
		t.Errorf("grouped probes:\n%s\nwant:\n%s", got, want)
	}
}
