package difftest

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

var (
	// CI runs one fixed seed, so that a red run is the change's doing, not the dice's
	seedFlag    = flag.Uint64("difftest.seed", 1, "generator seed (0: a new one, printed)")
	budgetFlag  = flag.Duration("difftest.budget", 60*time.Second, "time for generated queries (shrinking included); the run stops at this or -difftest.queries, whichever comes first")
	queriesFlag = flag.Int("difftest.queries", 5000, "most generated queries to run")
	logFlag     = flag.String("difftest.log", "", "write every generated query to this file")
	reproFlag   = flag.Bool("difftest.repro", false, "shrink the data of allow-listed differences too and print every reproduction")
	timeoutFlag = flag.Duration("difftest.timeout", 10*time.Second, "time limit per statement")
)

const (
	allowListPath   = "allowlist.txt"
	queriesPerRound = 120 // then new tables, so that one unlucky draw of data does not shape a whole run
	// shrinkTime bounds one reduction; attempts bound it first on a machine of normal speed,
	// so that the reduced query, which the allow-list matches, does not depend on speed
	shrinkTime  = 60 * time.Second
	shrinkGrace = 20 * time.Second
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	testserver.RemoveBinary()
	os.Exit(code)
}

// session is one connection to a server, reopened (with its settings) after a timeout
// closed it or the server was restarted.
type session struct {
	name    string
	dsn     func() string
	conn    *pgconn.PgConn
	init    []string
	timeout time.Duration
	// revive restarts the server when a connection cannot be made (lakepg only)
	revive func()
	// failures counts connections that could not be made
	failures int
}

func (s *session) connect() error {
	if s.conn != nil {
		s.conn.Close(context.Background())
		s.conn = nil
	}
	cfg, err := pgconn.ParseConfig(s.dsn())
	if err != nil {
		return err
	}
	cfg.RuntimeParams["timezone"] = "UTC"
	cfg.RuntimeParams["application_name"] = "lakepg-difftest"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", s.name, err)
	}
	s.conn = conn
	for _, st := range s.init {
		if r := run(ctx, conn, st); r.err != nil || r.failed() {
			return fmt.Errorf("%s: %s: %v %s", s.name, st, r.err, r.msg)
		}
	}
	return nil
}

// exec runs one statement under the session's time limit.
func (s *session) exec(sql string) result {
	if s.conn == nil || s.conn.IsClosed() {
		err := s.connect()
		for try := 1; err != nil && try < 4; try++ {
			// the shared test PostgreSQL may be out of connections for a moment; lakepg
			// may have died and needs a restart
			if s.revive != nil && try == 1 {
				s.revive()
			}
			time.Sleep(time.Duration(try) * time.Second)
			err = s.connect()
		}
		if err != nil {
			s.failures++
			return result{err: err}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	r := run(ctx, s.conn, sql)
	if r.err != nil && ctx.Err() != nil {
		r.timedOut = true
	}
	return r
}

type stats struct {
	queries, sameRows, sameError, invalid, inconclusive, evalOrder, timeouts int
	nonEmpty, rows                                                           int
	tlp, rewrites, notApplicable, oracleInconclusive                         int
	literals, tables, rounds                                                 int
	shrinking                                                                time.Duration
}

// finding is a difference, reduced.
type finding struct {
	oracle string // postgres, tlp, rewrite:<mode>, literal, load
	kind   string
	sql    string // the queries compared, reduced (see comparedSQL)
	repro  string
	detail string
	entry  *allowEntry
	count  int
}

type harness struct {
	t        *testing.T
	srv      *testserver.Server
	pg, lk   *session
	ds       *dataset
	schema   string
	nschema  int
	allow    []*allowEntry
	found    []*finding
	byKey    map[string]*finding
	st       stats
	pools    map[kind]struct{ common, edge []string }
	log      io.Writer
	began    time.Time
	deadline time.Time
	stopped  string
	invalid  []string
}

func TestDiff(t *testing.T) {
	testserver.PostgresDSN(t)
	allow, err := readAllowList(allowListPath)
	if err != nil {
		t.Fatal(err)
	}
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("difftest seed %d (replay with -difftest.seed %d)", seed, seed)

	pgDSN := testserver.PostgresDatabase(t, "difftest")
	// the watchdog kills at 2 GiB of RSS: a budget of half that makes a
	// query whose state outgrows it spill, as PostgreSQL's sorts and
	// hashes do past work_mem, instead of growing into the watchdog
	// (lakepg's default budget is 80 % of RAM)
	srv := testserver.StartEnv(t, testserver.Binary(t), t.TempDir(), []string{"LAKEPG_MEMORY_LIMIT=1GiB"})
	srv.LimitMemory(2 << 30)
	h := &harness{
		t: t, srv: srv, allow: allow, byKey: map[string]*finding{},
		began: time.Now(),
	}
	h.deadline = h.began.Add(*budgetFlag)
	h.pg = &session{name: "PostgreSQL", dsn: func() string { return pgDSN }, timeout: *timeoutFlag + 5*time.Second,
		init: []string{fmt.Sprintf("SET statement_timeout = %d", timeoutFlag.Milliseconds())}}
	// DSN is read at each connection: a restart moves the server to another port
	h.lk = &session{name: "lakepg", dsn: srv.DSN, timeout: *timeoutFlag, revive: func() { srv.Restart(t) }}
	if *logFlag != "" {
		f, err := os.Create(*logFlag)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		h.log = f
	}
	h.pools = h.probePools()

	// Each round's tables and each query (with its oracles' choices) come from a stream
	// of their own, so that query i of round r is the same whatever the answers before it
	// were: a fixed bug does not change the queries that follow it.
	for round := uint64(0); !h.spent(); round++ {
		h.st.rounds++
		h.loadRound(genDataset(rand.New(rand.NewPCG(seed, round<<32)), h.pools))
		for i := uint64(1); i <= queriesPerRound && !h.spent(); i++ {
			g := &gen{r: rand.New(rand.NewPCG(seed, round<<32|i)), ds: h.ds, pools: h.pools}
			h.checkQuery(g.query(), g)
		}
	}
	h.report(seed)
}

func (h *harness) spent() bool {
	switch {
	case h.stopped != "":
	case h.pg.failures > 3 || h.lk.failures > 3:
		h.t.Fatalf("cannot connect to the servers (PostgreSQL %d times, lakepg %d times): stopping", h.pg.failures, h.lk.failures)
	case h.st.queries >= *queriesFlag:
		h.stopped = fmt.Sprintf("after %d queries (-difftest.queries)", h.st.queries)
	case time.Now().After(h.deadline):
		h.stopped = fmt.Sprintf("at the time budget of %v (-difftest.budget)", *budgetFlag)
	}
	return h.stopped != ""
}

// both runs sql on PostgreSQL and lakepg at once.
func (h *harness) both(sql string) (pg, lk result) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		pg = h.pg.exec(sql)
	}()
	lk = h.lk.exec(sql)
	wg.Wait()
	return pg, lk
}

func (h *harness) logSQL(sql string) {
	if h.log != nil {
		fmt.Fprintf(h.log, "%s;\n", sql)
	}
}

// invalidCode tells whether PostgreSQL rejected the query itself (a bad name or type, a
// feature it lacks) rather than failed running it.
func invalidCode(code string) bool {
	return strings.HasPrefix(code, "42") || strings.HasPrefix(code, "0A")
}

// differential runs c on both servers and compares; it also returns lakepg's result, the
// reference of the oracles.
func (h *harness) differential(c *testCase) (verdict, result) {
	sql := sqlOf(c.q)
	pg, lk := h.both(sql)
	switch {
	case pg.err != nil || pg.code == "57014":
		return verdict{timeout: true}, lk
	case lk.timedOut:
		return verdict{timeout: true}, lk
	case pg.failed() && invalidCode(pg.code):
		return verdict{invalid: true, detail: pg.code + " " + pg.msg}, lk
	}
	v := diffResults(pg, lk, c.q.outTypes(), ordered(c.q), sumsFloats(c.q), "PostgreSQL", "lakepg")
	switch {
	case v.inconclusive || v.kind == "":
	case lk.failed() && !pg.failed() && strings.HasPrefix(lk.code, "22"):
		v.evalOrder = h.evaluationOrder(c.q, h.pg, "22")
	case pg.failed() && !lk.failed() && strings.HasPrefix(pg.code, "22"):
		v.evalOrder = h.evaluationOrder(c.q, h.lk, "22")
	}
	v.inconclusive = v.inconclusive || v.evalOrder
	return v, lk
}

// oracleError judges a failing rewritten or partitioned query: a difference when
// PostgreSQL answers it, unless the error is a data exception that evaluating q's
// expressions outright raises on PostgreSQL too; else the predicate's own error and
// nothing to learn.
func (h *harness) oracleError(sql string, q query, got result) verdict {
	if got.timedOut {
		return verdict{timeout: true}
	}
	pg := h.pg.exec(sql)
	if pg.failed() || pg.err != nil {
		return verdict{inconclusive: true, kind: "error"}
	}
	if got.err != nil {
		return verdict{kind: "lakepg connection lost", detail: got.err.Error() + "\n" + sql}
	}
	v := verdict{kind: "lakepg error " + got.code, detail: "lakepg: " + got.msg + "\nPostgreSQL answers " + sql}
	switch {
	case got.code == "22003" && sumsFloats(q):
		v.inconclusive = true // a float sum overflowing in one order of summation only
	case strings.HasPrefix(got.code, "22") && h.evaluationOrder(q, h.pg, "22"):
		v.evalOrder, v.inconclusive = true, true
	}
	return v
}

func (h *harness) tlpCheck(c *testCase, ref *result) verdict {
	base, parts, distinct, ok := tlpParts(c)
	if !ok {
		return verdict{invalid: true}
	}
	var want result
	if ref != nil {
		want = *ref // the same query but for its ORDER BY, which a multiset ignores
	} else {
		want = h.lk.exec(sqlOf(base))
	}
	if want.err != nil || want.failed() {
		return verdict{invalid: true}
	}
	got := result{oids: want.oids}
	for _, p := range parts {
		sql := sqlOf(p)
		r := h.lk.exec(sql)
		if r.err != nil || r.failed() {
			return h.oracleError(sql, p, r)
		}
		got.rows = append(got.rows, r.rows...)
	}
	types := base.outTypes()
	if distinct {
		m := modes(want.oids, types)
		want.rows, got.rows = dedupe(want.rows, m), dedupe(got.rows, m)
	}
	return diffResults(want, got, types, false, sumsFloats(base), "the query itself", "the union of its partitions")
}

func (h *harness) rewriteCheck(c *testCase, mode string, ds *dataset, ref *result) verdict {
	sql, ok := rewrite(c, strings.TrimSuffix(strings.TrimSuffix(mode, "-cte"), "-offset0"), ds, strings.HasSuffix(mode, "-cte"))
	if !ok {
		return verdict{invalid: true}
	}
	var want result
	if ref != nil {
		want = *ref
	} else {
		want = h.lk.exec(sqlOf(c.q))
	}
	if want.err != nil || want.failed() {
		return verdict{invalid: true}
	}
	got := h.lk.exec(sql)
	if got.err != nil || got.failed() {
		return h.oracleError(sql, c.q, got)
	}
	return diffResults(want, got, c.q.outTypes(), ordered(c.q), sumsFloats(c.q), "the query itself", "its rewrite ("+mode+")")
}

// oracleCheck runs oracle on c over the loaded data ds.
func (h *harness) oracleCheck(oracle string, c *testCase, ds *dataset) verdict {
	switch {
	case oracle == "postgres", oracle == "load", oracle == "literal":
		v, _ := h.differential(c)
		return v
	case oracle == "tlp":
		return h.tlpCheck(c, nil)
	case strings.HasPrefix(oracle, "rewrite:"):
		return h.rewriteCheck(c, strings.TrimPrefix(oracle, "rewrite:"), ds, nil)
	}
	return verdict{invalid: true}
}

func (h *harness) checkQuery(c *testCase, g *gen) {
	h.st.queries++
	h.logSQL(sqlOf(c.q))
	v, lk := h.differential(c)
	switch {
	case v.timeout:
		h.st.timeouts++
		return
	case v.invalid:
		h.st.invalid++
		if len(h.invalid) < 40 {
			h.invalid = append(h.invalid, v.detail+"\n    "+sqlOf(c.q))
		}
		return
	case v.evalOrder:
		h.st.evalOrder++
		return
	case v.inconclusive:
		h.st.inconclusive++
		return
	case v.kind != "":
		h.report1("postgres", c, v, h.ds)
		return
	case lk.failed():
		h.st.sameError++
		return
	}
	h.st.sameRows++
	if len(lk.rows) > 0 {
		h.st.nonEmpty++
		h.st.rows += len(lk.rows)
	}

	// the oracles, on lakepg alone, for queries both servers answer alike
	if c.top != nil {
		tc := c.clone()
		tc.pred = g.pred(c.top, 2)
		h.logSQL(sqlOf(tc.pred))
		switch v := h.tlpCheck(tc, &lk); {
		case v.invalid:
			h.st.notApplicable++
		case v.timeout, v.inconclusive:
			h.st.oracleInconclusive++
			h.st.tlp++
		case v.kind != "":
			h.st.tlp++
			h.report1("tlp", tc, v, h.ds)
		default:
			h.st.tlp++
		}
	}
	modes := []string{"barrier", "is-true", "subquery-cte", "subquery-offset0"}
	mode := modes[g.pick(len(modes))]
	switch v := h.rewriteCheck(c, mode, h.ds, &lk); {
	case v.invalid:
		h.st.notApplicable++
	case v.timeout, v.inconclusive:
		h.st.oracleInconclusive++
		h.st.rewrites++
	case v.kind != "":
		h.st.rewrites++
		h.report1("rewrite:"+mode, c, v, h.ds)
	default:
		h.st.rewrites++
	}
}

// report1 reduces a difference, matches it against the allow-list and records it.
func (h *harness) report1(oracle string, c *testCase, v verdict, ds *dataset) {
	began := time.Now()
	defer func() { h.st.shrinking += time.Since(began) }()
	f := &finding{oracle: oracle, kind: v.kind, sql: comparedSQL(oracle, c, ds), detail: v.detail}
	// An entry that names lakepg's error message matches before reducing: the message says
	// what failed. Others match the reduced query, since a generated query holds much that
	// has nothing to do with the difference; but once reductions have taken their share of
	// the budget, a finding that matches an entry unreduced counts as that entry's, so that
	// a bug met often does not eat the budget of new queries.
	for _, e := range h.allow {
		if (e.message != nil || h.st.shrinking > *budgetFlag/3) && e.matches(f) && !*reproFlag {
			e.hits++
			h.record(f, e)
			return
		}
	}
	// past the budget, a reduction gets a little more time, not a whole reduction's
	limit := time.Now().Add(shrinkTime)
	if end := h.deadline.Add(shrinkGrace); !*reproFlag && end.Before(limit) && time.Now().Before(end) {
		limit = end
	}
	sh := &shrinker{deadline: limit, max: 800}
	persists := func(cand *testCase) bool {
		// most candidates that fail are invalid: PostgreSQL says so before lakepg is asked
		// (and a rewritten or partitioned form of an invalid query proves nothing)
		if r := h.pg.exec(sqlOf(cand.q)); r.err != nil || r.failed() && invalidCode(r.code) {
			return false
		}
		cv := h.oracleCheck(oracle, cand, ds)
		return cv.kind == v.kind && !cv.inconclusive && !cv.invalid && !cv.timeout
	}
	min := sh.shrinkCase(c, persists)
	f.sql = comparedSQL(oracle, min, ds)
	if fv := h.oracleCheck(oracle, min, ds); fv.kind == v.kind {
		f.detail = fv.detail
	}
	var entry *allowEntry
	for _, e := range h.allow {
		if e.matches(f) {
			entry = e
			break
		}
	}
	minData := ds
	if (entry == nil || *reproFlag) && oracle != "literal" {
		// the rows too, each candidate loaded afresh in a schema of its own
		limit = time.Now().Add(shrinkTime)
		if end := h.deadline.Add(shrinkGrace); !*reproFlag && end.Before(limit) && time.Now().Before(end) {
			limit = end
		}
		dsh := &shrinker{deadline: limit, max: 120}
		minData = dsh.shrinkData(min, ds, func(cand *dataset) bool {
			cv := h.withData(cand, func() verdict { return h.oracleCheck(oracle, min, cand) })
			return cv.kind == v.kind && !cv.inconclusive && !cv.invalid && !cv.timeout
		})
		if fv := h.withData(minData, func() verdict { return h.oracleCheck(oracle, min, minData) }); fv.kind == v.kind {
			f.detail = fv.detail
		}
	}
	f.repro = reproScript(oracle, min, minData)
	if entry != nil {
		entry.hits++
	}
	h.record(f, entry)
}

func (h *harness) record(f *finding, e *allowEntry) {
	key := f.oracle + "\x00" + f.kind + "\x00" + f.sql
	if e != nil {
		key = "entry\x00" + e.name
	}
	if old := h.byKey[key]; old != nil {
		old.count++
		return
	}
	f.entry, f.count = e, 1
	h.byKey[key] = f
	h.found = append(h.found, f)
	if e == nil {
		h.t.Logf("new difference (%s, %s):\n%s", f.oracle, f.kind, f.repro)
	}
}

// comparedSQL is the text of the queries a check compares, which the allow-list's query
// patterns read: the query, its partitions or its rewrite.
func comparedSQL(oracle string, c *testCase, ds *dataset) string {
	switch {
	case oracle == "tlp":
		if base, parts, _, ok := tlpParts(c); ok {
			out := sqlOf(base)
			for _, p := range parts {
				out += ";\n" + sqlOf(p)
			}
			return out
		}
	case strings.HasPrefix(oracle, "rewrite:"):
		mode := strings.TrimPrefix(oracle, "rewrite:")
		if sql, ok := rewrite(c, strings.TrimSuffix(strings.TrimSuffix(mode, "-cte"), "-offset0"), ds, strings.HasSuffix(mode, "-cte")); ok {
			return sqlOf(c.q) + ";\n" + sql
		}
	}
	return sqlOf(c.q)
}

// reproScript is what a person needs to see a difference: the tables as lakepg got them
// (PostgreSQL runs the same script) and the query, or the queries an oracle compares.
func reproScript(oracle string, c *testCase, ds *dataset) string {
	var sb strings.Builder
	used := tablesOf(c.q)
	for _, t := range ds.tables {
		if used[t.name] || oracle == "load" {
			for _, st := range t.lakepgScript() {
				sb.WriteString(st + ";\n")
			}
		}
	}
	switch {
	case oracle == "tlp":
		base, parts, _, ok := tlpParts(c)
		if ok {
			sb.WriteString("-- the query:\n" + sqlOf(base) + ";\n-- must have the rows of these three together:\n")
			for _, p := range parts {
				sb.WriteString(sqlOf(p) + ";\n")
			}
			return sb.String()
		}
	case strings.HasPrefix(oracle, "rewrite:"):
		mode := strings.TrimPrefix(oracle, "rewrite:")
		if sql, ok := rewrite(c, strings.TrimSuffix(strings.TrimSuffix(mode, "-cte"), "-offset0"), ds, strings.HasSuffix(mode, "-cte")); ok {
			sb.WriteString("-- the query:\n" + sqlOf(c.q) + ";\n-- must answer as its rewrite:\n" + sql + ";\n")
			return sb.String()
		}
	}
	sb.WriteString(sqlOf(c.q) + ";\n")
	return sb.String()
}

// useSchema points both sessions at schema.
func (h *harness) useSchema(schema string) {
	set := "SET search_path = " + schema
	for _, s := range []*session{h.pg, h.lk} {
		s.init = append(s.init[:0:0], s.init...)
		kept := s.init[:0]
		for _, st := range s.init {
			if !strings.HasPrefix(st, "SET search_path") {
				kept = append(kept, st)
			}
		}
		s.init = append(kept, set)
		s.exec(set)
	}
}

// useData loads ds into a fresh schema on both servers and points the sessions at it;
// false when a statement of the load fails.
func (h *harness) useData(ds *dataset) bool {
	h.nschema++
	schema := fmt.Sprintf("s%d", h.nschema)
	ok := true
	for _, s := range []*session{h.pg, h.lk} {
		if r := s.exec("CREATE SCHEMA " + schema); r.failed() || r.err != nil {
			ok = false
		}
	}
	h.useSchema(schema)
	for _, t := range ds.tables {
		for _, st := range t.lakepgScript() {
			if r := h.lk.exec(st); r.failed() || r.err != nil {
				ok = false
			}
		}
		for _, st := range t.postgresScript() {
			if r := h.pg.exec(st); r.failed() || r.err != nil {
				ok = false
			}
		}
	}
	return ok
}

// withData runs f over ds loaded in a scratch schema, which it drops afterwards.
func (h *harness) withData(ds *dataset, f func() verdict) verdict {
	defer func() {
		h.useSchema(h.schema)
		scratch := fmt.Sprintf("s%d", h.nschema)
		h.pg.exec("DROP SCHEMA " + scratch + " CASCADE")
		h.lk.exec("DROP SCHEMA " + scratch + " CASCADE")
	}()
	if !h.useData(ds) {
		return verdict{}
	}
	return f()
}

// loadRound loads a round's tables and checks that both servers hold the same rows; a
// table they disagree on is a difference (of loading) and is left out of the round.
func (h *harness) loadRound(ds *dataset) {
	old := h.schema
	h.useData(ds)
	h.schema = fmt.Sprintf("s%d", h.nschema)
	if old != "" {
		h.pg.exec("DROP SCHEMA " + old + " CASCADE")
		h.lk.exec("DROP SCHEMA " + old + " CASCADE")
	}
	h.ds = ds
	var keep []*table
	for _, t := range ds.tables {
		h.st.tables++
		c := tableQuery(t)
		v, _ := h.differential(c)
		if v.kind != "" || v.invalid || v.timeout {
			if v.kind == "" {
				v.kind = "lakepg cannot load the table"
				if v.detail == "" {
					v.detail = "timed out"
				}
			}
			h.report1("load", c, v, ds)
			h.pg.exec("DROP TABLE " + t.name)
			h.lk.exec("DROP TABLE " + t.name)
			continue
		}
		keep = append(keep, t)
	}
	if len(keep) == 0 {
		// nothing to query: a table of ids alone, which both hold alike
		t := &table{name: "t_ids", cols: []colDef{{name: "id", t: typ(kInt)}}}
		h.pg.exec(t.createSQL(t.name))
		h.lk.exec(t.createSQL(t.name))
		keep = append(keep, t)
	}
	h.ds = &dataset{tables: keep}
}

// tableQuery reads a whole table in a defined order.
func tableQuery(t *table) *testCase {
	s := &selectQ{limit: -1, offset: -1, from: []fromItem{&tableRef{table: t.name, alias: "a1"}}}
	for i, c := range t.cols {
		s.items = append(s.items, item{e: &col{rel: "a1", name: c.name, t: c.t}})
		s.orderBy = append(s.orderBy, orderItem{ord: i + 1})
	}
	return &testCase{q: s}
}

// probePools casts every pool value on both servers; values whose text differs are
// findings of their own and are left out of the data, so that one known difference does
// not turn up in every query.
func (h *harness) probePools() map[kind]struct{ common, edge []string } {
	out := map[kind]struct{ common, edge []string }{}
	for k := kind(0); k < nKinds; k++ {
		p := pools[k]
		t := typ(k)
		keep := func(vals []string) []string {
			var kept []string
			for _, v := range vals {
				h.st.literals++
				s := &selectQ{limit: -1, offset: -1, items: []item{{e: &fn{name: "CAST", args: []expr{&lit{text: quote(v), t: t}}, t: t}}}}
				c := &testCase{q: s}
				if v2, _ := h.differential(c); v2.kind != "" {
					h.report1("literal", c, v2, &dataset{})
					continue
				}
				kept = append(kept, v)
			}
			return kept
		}
		out[k] = struct{ common, edge []string }{keep(p.common), keep(p.edge)}
	}
	return out
}

func (h *harness) report(seed uint64) {
	var sb strings.Builder
	elapsed := time.Since(h.began).Round(100 * time.Millisecond)
	st := h.st
	fmt.Fprintf(&sb, "Randomized differential test against PostgreSQL, seed %d: stopped %s, %v in all.\n", seed, h.stopped, elapsed)
	fmt.Fprintf(&sb, "%d rounds of generated tables (%d tables), %d pool values cast on both servers.\n", st.rounds, st.tables, st.literals)
	fmt.Fprintf(&sb, "queries checked against PostgreSQL: %d (same rows %d, same error class %d; an error one side avoided by not evaluating %d; float sums apart %d; timed out %d; rejected by PostgreSQL %d)\n",
		st.queries, st.sameRows, st.sameError, st.evalOrder, st.inconclusive, st.timeouts, st.invalid)
	fmt.Fprintf(&sb, "of the queries answered alike, %d had rows (%d rows in all)\n", st.nonEmpty, st.rows)
	fmt.Fprintf(&sb, "oracle checks on lakepg alone: %d (ternary logic partitioning %d, rewrites %d; inconclusive %d; not applicable %d)\n",
		st.tlp+st.rewrites, st.tlp, st.rewrites, st.oracleInconclusive, st.notApplicable)
	var known, fresh []*finding
	for _, f := range h.found {
		if f.entry != nil {
			known = append(known, f)
		} else {
			fresh = append(fresh, f)
		}
	}
	total := 0
	for _, f := range h.found {
		total += f.count
	}
	fmt.Fprintf(&sb, "differences: %d (%d distinct: %d allow-listed, %d new); reducing them took %v\n", total, len(h.found), len(known), len(fresh), st.shrinking.Round(100*time.Millisecond))
	sort.Slice(known, func(i, j int) bool { return known[i].entry.name < known[j].entry.name })
	for _, f := range known {
		fmt.Fprintf(&sb, "  %4d× %-32s %s\n", f.count, f.entry.name, f.entry.why)
		if *reproFlag {
			fmt.Fprintf(&sb, "    [%s, %s]\n%s    %s\n", f.oracle, f.kind, indent(f.repro), strings.ReplaceAll(f.detail, "\n", "\n    "))
		}
	}
	for _, f := range fresh {
		fmt.Fprintf(&sb, "\nNEW DIFFERENCE (%s: %s), %d×, not in %s:\n%s    %s\n", f.oracle, f.kind, f.count, allowListPath,
			indent(f.repro), strings.ReplaceAll(f.detail, "\n", "\n    "))
	}
	if len(h.invalid) > 0 {
		sb.WriteString("\nqueries PostgreSQL rejected (generator bugs):\n")
		for _, q := range h.invalid {
			sb.WriteString("  " + q + "\n")
		}
	}
	testserver.Report(h.t, "difftest", sb.String())
	if len(fresh) > 0 {
		h.t.Errorf("%d new differences between lakepg and PostgreSQL (or lakepg's oracles); each is printed above with its reproduction: fix it or add it to %s with a why", len(fresh), allowListPath)
	}
}

func indent(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return "    " + strings.ReplaceAll(s, "\n", "\n    ") + "\n"
}
