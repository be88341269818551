package difftest

import (
	"fmt"
	"slices"
	"strings"
)

// Queries are kept as trees rather than text so that the shrinker can drop clauses and
// replace expressions, and the metamorphic oracles can rewrite a query, without parsing SQL.

// kind is the family of a value's type as far as PostgreSQL's operator, CASE and UNION
// resolution care. The generator only combines kinds that resolve, so that every query it
// writes is valid for PostgreSQL 15 and a rejection is a generator bug, not a finding.
type kind uint8

const (
	kInt kind = iota
	kBig
	kNum
	kFloat
	kText
	kBool
	kDate
	kTS
	nKinds
)

var kindNames = [nKinds]string{"integer", "bigint", "numeric", "double precision", "text", "boolean", "date", "timestamp"}

// family groups kinds whose values compare with each other and unify in CASE and UNION.
type family uint8

const (
	fNum family = iota
	fText
	fBool
	fTime
	nFamilies
)

func (k kind) family() family {
	switch k {
	case kInt, kBig, kNum, kFloat:
		return fNum
	case kText:
		return fText
	case kBool:
		return fBool
	}
	return fTime
}

type sqlType struct {
	k kind
	// scale of a numeric: the scale all its values have, or -1 when values of one expression
	// may differ in scale. 1 and 1.00 are equal but print differently, so which of them a
	// GROUP BY, DISTINCT or max() shows is not defined: such columns compare by value.
	scale int
	prec  int // precision of a numeric column; 0 for unconstrained
	// approx marks a float summed over several rows: its last digits, and whether the sum
	// overflows on the way, depend on the order of summation, which SQL leaves open.
	approx bool
}

func typ(k kind) sqlType {
	if k == kNum {
		return sqlType{k: kNum, scale: -1}
	}
	return sqlType{k: k}
}

func (t sqlType) name() string {
	if t.k == kNum && t.prec > 0 {
		return fmt.Sprintf("numeric(%d,%d)", t.prec, t.scale)
	}
	return kindNames[t.k]
}

// numScale is the scale a value of t has once converted to numeric.
func (t sqlType) numScale() int {
	switch t.k {
	case kInt, kBig:
		return 0
	case kNum:
		return t.scale
	}
	return -1
}

// unify is the type PostgreSQL resolves CASE, COALESCE, GREATEST and UNION branches of
// types a and b to (same family): the wider number, with float8 preferred; timestamp over
// date.
func unify(a, b sqlType) sqlType {
	r := a
	if b.k > a.k {
		r = b
	}
	r.prec = 0
	r.approx = a.approx || b.approx
	if r.k == kNum {
		r.scale = -1
		if sa, sb := a.numScale(), b.numScale(); sa == sb {
			r.scale = sa
		}
	}
	return r
}

type expr interface {
	typ() sqlType
	write(w *writer)
	clone() expr
	// kids are the positions of the node's subexpressions (not those inside subqueries).
	kids() []*expr
}

// writer renders a tree. The flags change how every query of the tree is written, for the
// metamorphic oracles.
type writer struct {
	sb strings.Builder
	// barrier writes each base table as (SELECT * FROM t OFFSET 0): the optimiser may not
	// push predicates into such a scan, so pruning and pushdown are out of the picture.
	barrier bool
	// isTrue writes WHERE, ON and HAVING conditions as (p) IS TRUE, which keeps the same
	// rows but is no longer a conjunction the planner can split and push down.
	isTrue bool
}

func (w *writer) s(parts ...string) {
	for _, p := range parts {
		w.sb.WriteString(p)
	}
}

func (w *writer) e(x expr) { x.write(w) }

func (w *writer) cond(x expr) {
	if w.isTrue {
		w.s("(")
		x.write(w)
		w.s(") IS TRUE")
		return
	}
	x.write(w)
}

func sqlOf(x interface{ write(*writer) }) string {
	var w writer
	x.write(&w)
	return w.sb.String()
}

func cloneAll(xs []expr) []expr {
	if xs == nil {
		return nil
	}
	out := make([]expr, len(xs))
	for i, x := range xs {
		out[i] = x.clone()
	}
	return out
}

func ptrs(xs []expr) []*expr {
	out := make([]*expr, len(xs))
	for i := range xs {
		out[i] = &xs[i]
	}
	return out
}

// col is a column reference, always qualified by its relation's alias (aliases are unique in
// a whole query, so a reference never depends on scoping rules).
type col struct {
	rel, name string
	t         sqlType
}

func (c *col) typ() sqlType { return c.t }
func (c *col) write(w *writer) {
	if c.rel != "" {
		w.s(c.rel, ".")
	}
	w.s(c.name)
}
func (c *col) clone() expr   { d := *c; return &d }
func (c *col) kids() []*expr { return nil }

// lit is a constant, written as it must appear in SQL (typed, e.g. CAST('a' AS text)).
type lit struct {
	text string
	t    sqlType
}

func (l *lit) typ() sqlType    { return l.t }
func (l *lit) write(w *writer) { w.s(l.text) }
func (l *lit) clone() expr     { d := *l; return &d }
func (l *lit) kids() []*expr   { return nil }

func nullOf(t sqlType) *lit {
	t.approx = false
	return &lit{text: "CAST(NULL AS " + t.name() + ")", t: t}
}

// binop is an infix operator; comparisons, AND/OR, arithmetic, ||, LIKE, IS DISTINCT FROM.
type binop struct {
	op   string
	l, r expr
	t    sqlType
}

func (b *binop) typ() sqlType { return b.t }
func (b *binop) write(w *writer) {
	w.s("(")
	w.e(b.l)
	w.s(" ", b.op, " ")
	w.e(b.r)
	w.s(")")
}
func (b *binop) clone() expr   { return &binop{op: b.op, l: b.l.clone(), r: b.r.clone(), t: b.t} }
func (b *binop) kids() []*expr { return []*expr{&b.l, &b.r} }

// unop is a prefix operator (NOT, -) or a postfix one (IS NULL, IS TRUE, …) when post.
type unop struct {
	op   string
	x    expr
	post bool
	t    sqlType
}

func (u *unop) typ() sqlType { return u.t }
func (u *unop) write(w *writer) {
	w.s("(")
	if u.post {
		w.e(u.x)
		w.s(" ", u.op)
	} else {
		w.s(u.op, " ")
		w.e(u.x)
	}
	w.s(")")
}
func (u *unop) clone() expr   { return &unop{op: u.op, x: u.x.clone(), post: u.post, t: u.t} }
func (u *unop) kids() []*expr { return []*expr{&u.x} }

// fn is a function call, or a keyword form: CAST (name "CAST", t is the target), EXTRACT
// (pre is "YEAR FROM").
type fn struct {
	name string
	pre  string
	args []expr
	t    sqlType
}

func (f *fn) typ() sqlType { return f.t }
func (f *fn) write(w *writer) {
	if f.name == "CAST" {
		w.s("CAST(")
		w.e(f.args[0])
		w.s(" AS ", f.t.name(), ")")
		return
	}
	w.s(f.name, "(", f.pre)
	for i, a := range f.args {
		if i > 0 {
			w.s(", ")
		}
		w.e(a)
	}
	w.s(")")
}
func (f *fn) clone() expr   { return &fn{name: f.name, pre: f.pre, args: cloneAll(f.args), t: f.t} }
func (f *fn) kids() []*expr { return ptrs(f.args) }

// caseE is CASE [operand] WHEN … THEN … [ELSE …] END; whens alternates conditions (or
// values, with an operand) and results.
type caseE struct {
	operand expr
	whens   []expr
	els     expr
	t       sqlType
}

func (c *caseE) typ() sqlType { return c.t }
func (c *caseE) write(w *writer) {
	w.s("CASE")
	if c.operand != nil {
		w.s(" ")
		w.e(c.operand)
	}
	for i := 0; i+1 < len(c.whens); i += 2 {
		w.s(" WHEN ")
		w.e(c.whens[i])
		w.s(" THEN ")
		w.e(c.whens[i+1])
	}
	if c.els != nil {
		w.s(" ELSE ")
		w.e(c.els)
	}
	w.s(" END")
}
func (c *caseE) clone() expr {
	d := &caseE{whens: cloneAll(c.whens), t: c.t}
	if c.operand != nil {
		d.operand = c.operand.clone()
	}
	if c.els != nil {
		d.els = c.els.clone()
	}
	return d
}
func (c *caseE) kids() []*expr {
	k := ptrs(c.whens)
	if c.operand != nil {
		k = append(k, &c.operand)
	}
	if c.els != nil {
		k = append(k, &c.els)
	}
	return k
}

// inList is x [NOT] IN (a, b, …).
type inList struct {
	x    expr
	list []expr
	not  bool
}

func (n *inList) typ() sqlType { return typ(kBool) }
func (n *inList) write(w *writer) {
	w.s("(")
	w.e(n.x)
	if n.not {
		w.s(" NOT")
	}
	w.s(" IN (")
	for i, a := range n.list {
		if i > 0 {
			w.s(", ")
		}
		w.e(a)
	}
	w.s("))")
}
func (n *inList) clone() expr   { return &inList{x: n.x.clone(), list: cloneAll(n.list), not: n.not} }
func (n *inList) kids() []*expr { return append([]*expr{&n.x}, ptrs(n.list)...) }

// between is x [NOT] BETWEEN [SYMMETRIC] lo AND hi.
type between struct {
	x, lo, hi      expr
	not, symmetric bool
}

func (b *between) typ() sqlType { return typ(kBool) }
func (b *between) write(w *writer) {
	w.s("(")
	w.e(b.x)
	if b.not {
		w.s(" NOT")
	}
	w.s(" BETWEEN ")
	if b.symmetric {
		w.s("SYMMETRIC ")
	}
	w.e(b.lo)
	w.s(" AND ")
	w.e(b.hi)
	w.s(")")
}
func (b *between) clone() expr {
	return &between{x: b.x.clone(), lo: b.lo.clone(), hi: b.hi.clone(), not: b.not, symmetric: b.symmetric}
}
func (b *between) kids() []*expr { return []*expr{&b.x, &b.lo, &b.hi} }

// subq is a subquery expression: EXISTS (q), x [NOT] IN (q), x op ANY|ALL (q), or a scalar
// (q).
type subq struct {
	mode string // "EXISTS", "IN", "NOT IN", "ANY", "ALL", "scalar"
	x    expr
	op   string // for ANY and ALL
	q    query
	t    sqlType
}

func (s *subq) typ() sqlType { return s.t }
func (s *subq) write(w *writer) {
	switch s.mode {
	case "EXISTS":
		w.s("EXISTS (")
	case "IN", "NOT IN":
		w.s("(")
		w.e(s.x)
		w.s(" ", s.mode, " (")
	case "ANY", "ALL":
		w.s("(")
		w.e(s.x)
		w.s(" ", s.op, " ", s.mode, " (")
	default:
		w.s("(")
	}
	s.q.write(w)
	w.s(")")
	if s.x != nil {
		w.s(")")
	}
}
func (s *subq) clone() expr {
	d := &subq{mode: s.mode, op: s.op, q: s.q.clone(), t: s.t}
	if s.x != nil {
		d.x = s.x.clone()
	}
	return d
}
func (s *subq) kids() []*expr {
	if s.x != nil {
		return []*expr{&s.x}
	}
	return nil
}

type orderItem struct {
	e     expr // nil: the output column ord (1-based)
	ord   int
	desc  bool
	nulls string // "", "NULLS FIRST", "NULLS LAST"
}

func (o orderItem) clone() orderItem {
	if o.e != nil {
		o.e = o.e.clone()
	}
	return o
}

func writeOrder(w *writer, items []orderItem) {
	for i, o := range items {
		if i > 0 {
			w.s(", ")
		}
		if o.e != nil {
			w.e(o.e)
		} else {
			w.s(fmt.Sprint(o.ord))
		}
		if o.desc {
			w.s(" DESC")
		}
		if o.nulls != "" {
			w.s(" ", o.nulls)
		}
	}
}

func cloneOrder(items []orderItem) []orderItem {
	if items == nil {
		return nil
	}
	out := make([]orderItem, len(items))
	for i, o := range items {
		out[i] = o.clone()
	}
	return out
}

func orderPtrs(items []orderItem) []*expr {
	var out []*expr
	for i := range items {
		if items[i].e != nil {
			out = append(out, &items[i].e)
		}
	}
	return out
}

// agg is an aggregate call: name([DISTINCT] args [ORDER BY …]) [FILTER (WHERE …)], or
// name(*).
type agg struct {
	name     string
	distinct bool
	star     bool
	args     []expr
	order    []orderItem
	filter   expr
	t        sqlType
}

func (a *agg) typ() sqlType { return a.t }
func (a *agg) write(w *writer) {
	w.s(a.name, "(")
	if a.star {
		w.s("*")
	}
	if a.distinct {
		w.s("DISTINCT ")
	}
	for i, x := range a.args {
		if i > 0 {
			w.s(", ")
		}
		w.e(x)
	}
	if len(a.order) > 0 {
		w.s(" ORDER BY ")
		writeOrder(w, a.order)
	}
	w.s(")")
	if a.filter != nil {
		w.s(" FILTER (WHERE ")
		w.e(a.filter)
		w.s(")")
	}
}
func (a *agg) clone() expr {
	d := &agg{name: a.name, distinct: a.distinct, star: a.star, args: cloneAll(a.args), order: cloneOrder(a.order), t: a.t}
	if a.filter != nil {
		d.filter = a.filter.clone()
	}
	return d
}
func (a *agg) kids() []*expr {
	k := append(ptrs(a.args), orderPtrs(a.order)...)
	if a.filter != nil {
		k = append(k, &a.filter)
	}
	return k
}

// win is a window function call: name(args) OVER (PARTITION BY … ORDER BY … frame).
type win struct {
	name      string
	star      bool
	args      []expr
	partition []expr
	order     []orderItem
	frame     string
	t         sqlType
}

func (f *win) typ() sqlType { return f.t }
func (f *win) write(w *writer) {
	w.s(f.name, "(")
	if f.star {
		w.s("*")
	}
	for i, x := range f.args {
		if i > 0 {
			w.s(", ")
		}
		w.e(x)
	}
	w.s(") OVER (")
	sep := ""
	if len(f.partition) > 0 {
		w.s("PARTITION BY ")
		for i, x := range f.partition {
			if i > 0 {
				w.s(", ")
			}
			w.e(x)
		}
		sep = " "
	}
	if len(f.order) > 0 {
		w.s(sep, "ORDER BY ")
		writeOrder(w, f.order)
		sep = " "
	}
	if f.frame != "" && len(f.order) > 0 {
		w.s(sep, f.frame)
	}
	w.s(")")
}
func (f *win) clone() expr {
	return &win{name: f.name, star: f.star, args: cloneAll(f.args), partition: cloneAll(f.partition),
		order: cloneOrder(f.order), frame: f.frame, t: f.t}
}
func (f *win) kids() []*expr {
	return append(append(ptrs(f.args), ptrs(f.partition)...), orderPtrs(f.order)...)
}

// query is a SELECT or a set operation.
type query interface {
	write(w *writer)
	clone() query
	outTypes() []sqlType
	order() []orderItem
}

type item struct{ e expr }

type cte struct {
	name         string
	q            query
	materialized bool
}

type selectQ struct {
	with     []cte
	distinct bool
	items    []item
	from     []fromItem
	where    expr
	groupBy  []expr
	grouping string  // "", "ROLLUP", "CUBE" or "GROUPING SETS"
	sets     [][]int // the sets of GROUPING SETS, as indexes into groupBy
	having   expr
	orderBy  []orderItem
	limit    int // -1: none
	offset   int // -1: none
}

func (s *selectQ) outTypes() []sqlType {
	out := make([]sqlType, len(s.items))
	for i, it := range s.items {
		out[i] = it.e.typ()
	}
	return out
}

func (s *selectQ) order() []orderItem { return s.orderBy }

func (s *selectQ) write(w *writer) {
	if len(s.with) > 0 {
		w.s("WITH ")
		for i, c := range s.with {
			if i > 0 {
				w.s(", ")
			}
			w.s(c.name, "(")
			for j := range c.q.outTypes() {
				if j > 0 {
					w.s(", ")
				}
				w.s(fmt.Sprintf("c%d", j))
			}
			w.s(") AS ")
			if c.materialized {
				w.s("MATERIALIZED ")
			}
			w.s("(")
			c.q.write(w)
			w.s(")")
		}
		w.s(" ")
	}
	w.s("SELECT ")
	if s.distinct {
		w.s("DISTINCT ")
	}
	for i, it := range s.items {
		if i > 0 {
			w.s(", ")
		}
		w.e(it.e)
		w.s(fmt.Sprintf(" AS c%d", i))
	}
	if len(s.from) > 0 {
		w.s(" FROM ")
		for i, f := range s.from {
			if i > 0 {
				w.s(", ")
			}
			f.write(w)
		}
	}
	if s.where != nil {
		w.s(" WHERE ")
		w.cond(s.where)
	}
	if len(s.groupBy) > 0 {
		w.s(" GROUP BY ")
		switch s.grouping {
		case "":
			for i, g := range s.groupBy {
				if i > 0 {
					w.s(", ")
				}
				w.e(g)
			}
		case "GROUPING SETS":
			w.s("GROUPING SETS (")
			for i, set := range s.sets {
				if i > 0 {
					w.s(", ")
				}
				w.s("(")
				for j, g := range set {
					if j > 0 {
						w.s(", ")
					}
					w.e(s.groupBy[g])
				}
				w.s(")")
			}
			w.s(")")
		default:
			w.s(s.grouping, "(")
			for i, g := range s.groupBy {
				if i > 0 {
					w.s(", ")
				}
				w.e(g)
			}
			w.s(")")
		}
	}
	if s.having != nil {
		w.s(" HAVING ")
		w.cond(s.having)
	}
	if len(s.orderBy) > 0 {
		w.s(" ORDER BY ")
		writeOrder(w, s.orderBy)
	}
	if s.limit >= 0 {
		w.s(fmt.Sprintf(" LIMIT %d", s.limit))
	}
	if s.offset >= 0 {
		w.s(fmt.Sprintf(" OFFSET %d", s.offset))
	}
}

func (s *selectQ) clone() query { return s.cloneSelect() }

func (s *selectQ) cloneSelect() *selectQ {
	d := *s
	d.with = make([]cte, len(s.with))
	for i, c := range s.with {
		d.with[i] = cte{name: c.name, q: c.q.clone(), materialized: c.materialized}
	}
	d.items = make([]item, len(s.items))
	for i, it := range s.items {
		d.items[i] = item{e: it.e.clone()}
	}
	d.from = make([]fromItem, len(s.from))
	for i, f := range s.from {
		d.from[i] = f.clone()
	}
	if s.where != nil {
		d.where = s.where.clone()
	}
	d.groupBy = cloneAll(s.groupBy)
	d.sets = make([][]int, len(s.sets))
	for i, set := range s.sets {
		d.sets[i] = slices.Clone(set)
	}
	if s.having != nil {
		d.having = s.having.clone()
	}
	d.orderBy = cloneOrder(s.orderBy)
	return &d
}

func (s *selectQ) grouped() bool {
	if len(s.groupBy) > 0 || s.having != nil {
		return true
	}
	found := false
	for _, it := range s.items {
		walkExpr(it.e, func(x expr) bool {
			if _, ok := x.(*agg); ok {
				found = true
			}
			_, sub := x.(*subq)
			return !found && !sub
		})
	}
	return found
}

func (s *selectQ) hasWindow() bool {
	found := false
	for _, it := range s.items {
		walkExpr(it.e, func(x expr) bool {
			if _, ok := x.(*win); ok {
				found = true
			}
			_, sub := x.(*subq)
			return !found && !sub
		})
	}
	return found
}

// walkExpr calls f on x and, while f returns true, on its subexpressions (not into
// subqueries).
func walkExpr(x expr, f func(expr) bool) {
	if x == nil || !f(x) {
		return
	}
	for _, k := range x.kids() {
		walkExpr(*k, f)
	}
}

// setOp is l UNION|INTERSECT|EXCEPT [ALL] r [ORDER BY ordinals] [LIMIT n].
type setOp struct {
	op      string
	all     bool
	l, r    query
	orderBy []orderItem
	limit   int
}

func (s *setOp) outTypes() []sqlType {
	lt, rt := s.l.outTypes(), s.r.outTypes()
	out := make([]sqlType, len(lt))
	for i := range lt {
		out[i] = lt[i]
		if i < len(rt) {
			out[i] = unify(lt[i], rt[i])
		}
	}
	return out
}

func (s *setOp) order() []orderItem { return s.orderBy }

func (s *setOp) write(w *writer) {
	w.s("(")
	s.l.write(w)
	w.s(") ", s.op)
	if s.all {
		w.s(" ALL")
	}
	w.s(" (")
	s.r.write(w)
	w.s(")")
	if len(s.orderBy) > 0 {
		w.s(" ORDER BY ")
		writeOrder(w, s.orderBy)
	}
	if s.limit >= 0 {
		w.s(fmt.Sprintf(" LIMIT %d", s.limit))
	}
}

func (s *setOp) clone() query {
	return &setOp{op: s.op, all: s.all, l: s.l.clone(), r: s.r.clone(), orderBy: cloneOrder(s.orderBy), limit: s.limit}
}

type fromItem interface {
	write(w *writer)
	clone() fromItem
}

// tableRef is a base table or a CTE, always under an alias.
type tableRef struct {
	table, alias string
	isCTE        bool
}

func (t *tableRef) write(w *writer) {
	if w.barrier && !t.isCTE {
		w.s("(SELECT * FROM ", t.table, " OFFSET 0) AS ", t.alias)
		return
	}
	w.s(t.table, " AS ", t.alias)
}
func (t *tableRef) clone() fromItem { d := *t; return &d }

type joinItem struct {
	kind string // "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN"
	l, r fromItem
	on   expr
}

func (j *joinItem) write(w *writer) {
	w.s("(")
	j.l.write(w)
	w.s(" ", j.kind, " ")
	j.r.write(w)
	if j.kind != "CROSS JOIN" {
		w.s(" ON ")
		w.cond(j.on)
	}
	w.s(")")
}
func (j *joinItem) clone() fromItem {
	d := &joinItem{kind: j.kind, l: j.l.clone(), r: j.r.clone()}
	if j.on != nil {
		d.on = j.on.clone()
	}
	return d
}

// derived is a subquery in FROM; its columns are c0, c1, … as the subquery's items are.
type derived struct {
	q     query
	alias string
}

func (d *derived) write(w *writer) {
	w.s("(")
	d.q.write(w)
	w.s(") AS ", d.alias)
}
func (d *derived) clone() fromItem { return &derived{q: d.q.clone(), alias: d.alias} }

// ordered reports whether q's ORDER BY names every output column, so that rows it leaves
// in a tie are identical and the order of the result is defined.
func ordered(q query) bool {
	n := len(q.outTypes())
	seen := make([]bool, n+1)
	for _, o := range q.order() {
		if o.e == nil && o.ord >= 1 && o.ord <= n {
			seen[o.ord] = true
		}
	}
	for i := 1; i <= n; i++ {
		if !seen[i] {
			return false
		}
	}
	return n > 0
}
