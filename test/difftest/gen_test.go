package difftest

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// scopeCol is a column a query may reference.
type scopeCol struct {
	rel, name string
	t         sqlType
}

// scope is what an expression may reference.
type scope struct {
	cols []scopeCol
	// keys together identify a row (the ids of the base tables joined), so that ordering by
	// them after other keys makes row_number, lag or a ROWS frame defined; nil when the rows
	// come from a subquery and nothing identifies them.
	keys []expr
	// outer is the enclosing query's row scope: a subquery may correlate with it.
	outer *scope
	// grouped: leaves are the group keys, aggregates over rows and constants.
	grouped bool
	groups  []expr
	rows    *scope
	// windows may be used (in the select list of a query that is not grouped)
	windows bool
	// subqueries may be nested this much deeper
	subDepth int
}

// gen draws queries over one dataset. Every alias is unique in a query (a1, a2, …), so a
// reference never depends on scoping and the oracles can rename and move parts freely.
type gen struct {
	r     *rand.Rand
	ds    *dataset
	n     int
	ctes  []cteInfo
	pools map[kind]struct{ common, edge []string }
}

type cteInfo struct {
	name  string
	types []sqlType
}

func (g *gen) pct(p int) bool  { return g.r.IntN(100) < p }
func (g *gen) pick(n int) int  { return g.r.IntN(n) }
func (g *gen) alias() string   { g.n++; return fmt.Sprintf("a%d", g.n) }
func (g *gen) cteName() string { g.n++; return fmt.Sprintf("w%d", g.n) }

// testCase is a generated query with what the oracles need to know about it.
type testCase struct {
	q query
	// top is the scope of q's outermost SELECT (nil for a set operation): the ternary
	// logic partitioning oracle draws its predicate from it.
	top *scope
	// pred is the partitioning predicate of a TLP check
	pred expr
}

func (c *testCase) clone() *testCase {
	d := &testCase{q: c.q.clone(), top: c.top}
	if c.pred != nil {
		d.pred = c.pred.clone()
	}
	return d
}

// query draws a top-level query.
func (g *gen) query() *testCase {
	g.n = 0
	g.ctes = nil
	var with []cte
	if g.pct(12) {
		for i, n := 0, 1+g.pick(2); i < n; i++ {
			q, _ := g.selectQ(nil, 1, nil)
			name := g.cteName()
			with = append(with, cte{name: name, q: q, materialized: g.pct(30)})
			g.ctes = append(g.ctes, cteInfo{name: name, types: q.outTypes()})
		}
	}
	var q query
	var top *scope
	if g.pct(15) {
		q = g.setOp(nil, 2)
	} else {
		s, sc := g.selectQ(nil, 2, nil)
		q, top = s, sc
	}
	if len(with) > 0 {
		if s, ok := q.(*selectQ); ok {
			s.with = with
		} else {
			// WITH belongs to a SELECT: wrap the set operation
			s := &selectQ{with: with, limit: -1, offset: -1}
			a := g.alias()
			for i, t := range q.outTypes() {
				s.items = append(s.items, item{e: &col{rel: a, name: fmt.Sprintf("c%d", i), t: t}})
			}
			s.from = []fromItem{&derived{q: q, alias: a}}
			q = s
		}
	}
	g.orderLimit(q)
	return &testCase{q: q, top: top}
}

// orderLimit gives a top-level query an ORDER BY: over every output column (then the order
// is defined and compared, and LIMIT/OFFSET are allowed), over some, or none.
func (g *gen) orderLimit(q query) {
	n := len(q.outTypes())
	var order []orderItem
	full := false
	switch x := g.pick(100); {
	case x < 50:
		for _, i := range g.r.Perm(n) {
			order = append(order, g.orderOf(i+1))
		}
		full = true
	case x < 65:
		for _, i := range g.r.Perm(n)[:1+g.pick(n)] {
			order = append(order, g.orderOf(i+1))
		}
	}
	limit, offset := -1, -1
	if full && g.pct(40) {
		limit = g.pick(8)
	}
	if full && g.pct(20) {
		offset = g.pick(5)
	}
	switch x := q.(type) {
	case *selectQ:
		x.orderBy, x.limit, x.offset = order, limit, offset
	case *setOp:
		x.orderBy, x.limit = order, limit
	}
}

func (g *gen) orderOf(ord int) orderItem {
	o := orderItem{ord: ord, desc: g.pct(40)}
	switch g.pick(4) {
	case 0:
		o.nulls = "NULLS FIRST"
	case 1:
		o.nulls = "NULLS LAST"
	}
	return o
}

// setOp draws two SELECTs with the same column families joined by a set operator.
func (g *gen) setOp(outer *scope, depth int) query {
	l, _ := g.selectQ(outer, depth-1, nil)
	fams := make([]family, 0)
	for _, t := range l.outTypes() {
		fams = append(fams, t.k.family())
	}
	r, _ := g.selectQ(outer, depth-1, fams)
	ops := []string{"UNION", "UNION", "INTERSECT", "EXCEPT"}
	return &setOp{op: ops[g.pick(len(ops))], all: g.pct(50), l: l, r: r, limit: -1}
}

// selectQ draws a SELECT; want fixes the families of its columns (for the other side of a
// set operation, or a subquery compared with a value).
func (g *gen) selectQ(outer *scope, depth int, want []family) (*selectQ, *scope) {
	s := &selectQ{limit: -1, offset: -1}
	from, rows := g.from(outer, depth)
	s.from = from
	// a WHERE now and then, and shallow: most random conditions are false or NULL on
	// most rows, and a query whose answer is empty checks little
	if g.pct(40) {
		s.where = g.pred(rows, 1+g.pick(2))
	}
	ncols := len(want)
	if ncols == 0 {
		ncols = 1 + g.pick(4)
	}
	famOf := func(i int) family {
		if want != nil {
			return want[i]
		}
		return family(g.pick(int(nFamilies)))
	}
	switch x := g.pick(100); {
	case x < 35: // grouped
		sc := g.groupBy(s, rows)
		for i := 0; i < ncols; i++ {
			f := famOf(i)
			var keys []expr
			for _, k := range sc.groups {
				if k.typ().k.family() == f {
					keys = append(keys, k)
				}
			}
			if len(keys) > 0 && g.pct(50) {
				s.items = append(s.items, item{e: keys[g.pick(len(keys))].clone()})
			} else {
				s.items = append(s.items, item{e: g.expr(sc, f, 2)})
			}
		}
		if s.grouping != "" && g.pct(40) {
			var args []expr
			for _, k := range s.groupBy[:1+g.pick(len(s.groupBy))] {
				args = append(args, k.clone())
			}
			e := &fn{name: "GROUPING", args: args, t: typ(kInt)}
			if want == nil {
				s.items = append(s.items, item{e: e})
			}
		}
		if g.pct(30) {
			s.having = g.pred(sc, 2)
		}
		return s, sc
	case x < 45: // aggregates over all rows
		sc := &scope{grouped: true, rows: rows, subDepth: rows.subDepth}
		for i := 0; i < ncols; i++ {
			s.items = append(s.items, item{e: g.expr(sc, famOf(i), 2)})
		}
		if g.pct(20) {
			s.having = g.pred(sc, 1)
		}
		return s, sc
	}
	wsc := *rows
	wsc.windows = depth >= 1
	for i := 0; i < ncols; i++ {
		f := famOf(i)
		if wsc.windows && g.pct(20) {
			// windows deep in expressions are rare: give them items of their own too
			if w := g.window(&wsc, f); w != nil {
				s.items = append(s.items, item{e: w})
				continue
			}
		}
		s.items = append(s.items, item{e: g.expr(&wsc, f, 2)})
	}
	s.distinct = g.pct(15)
	return s, rows
}

// groupBy fills s's GROUP BY and returns the grouped scope of its select list.
func (g *gen) groupBy(s *selectQ, rows *scope) *scope {
	n := 1 + g.pick(3)
	for i := 0; i < n; i++ {
		var k expr
		if g.pct(70) || len(rows.cols) == 0 {
			k = g.leafCol(rows, func(sqlType) bool { return true })
		}
		if k == nil {
			k = g.expr(&scope{cols: rows.cols}, family(g.pick(int(nFamilies))), 1)
		}
		if !anyCol(k) {
			continue // a constant key groups nothing and PostgreSQL reads an integer as an ordinal
		}
		s.groupBy = append(s.groupBy, k)
	}
	if len(s.groupBy) == 0 {
		if c := g.leafCol(rows, func(sqlType) bool { return true }); c != nil {
			s.groupBy = append(s.groupBy, c)
		} else {
			s.groupBy = append(s.groupBy, &fn{name: "length", args: []expr{exprLit(typ(kText), value{s: "ab"})}, t: typ(kInt)})
		}
	}
	plain := true
	for _, k := range s.groupBy {
		if _, ok := k.(*col); !ok {
			plain = false
		}
	}
	if !plain {
		// PostgreSQL 15 mishandles a grouping set key it folds to a constant (it sorts by
		// it as a constant and does not NULL every reference to it; fixed in 18): grouping
		// sets get plain columns
		return &scope{grouped: true, groups: s.groupBy, rows: rows, subDepth: rows.subDepth}
	}
	switch x := g.pick(100); {
	case x < 10:
		s.grouping = "ROLLUP"
	case x < 18:
		s.grouping = "CUBE"
	case x < 28:
		s.grouping = "GROUPING SETS"
		for i, n := 0, 1+g.pick(3); i < n; i++ {
			var set []int
			for j := range s.groupBy {
				if g.pct(50) {
					set = append(set, j)
				}
			}
			s.sets = append(s.sets, set)
		}
		// a key in no set is no grouping expression: PostgreSQL then rejects the select
		// list's references to it
		for j := range s.groupBy {
			if !slices.ContainsFunc(s.sets, func(set []int) bool { return slices.Contains(set, j) }) {
				s.sets[0] = append(s.sets[0], j)
			}
		}
	}
	return &scope{grouped: true, groups: s.groupBy, rows: rows, subDepth: rows.subDepth}
}

// from draws a FROM clause: one join tree, sometimes two separated by a comma.
func (g *gen) from(outer *scope, depth int) ([]fromItem, *scope) {
	sc := &scope{outer: outer, subDepth: depth}
	var items []fromItem
	n := 1
	if g.pct(15) {
		n = 2
	}
	for i := 0; i < n; i++ {
		f, fs := g.joinTree(depth, 1+g.pick(3))
		items = append(items, f)
		sc.cols = append(sc.cols, fs.cols...)
		if i == 0 || sc.keys != nil {
			if fs.keys == nil {
				sc.keys = nil
			} else {
				sc.keys = append(sc.keys, fs.keys...)
			}
		}
	}
	return items, sc
}

func (g *gen) joinTree(depth, leaves int) (fromItem, *scope) {
	f, sc := g.leafFrom(depth)
	for i := 1; i < leaves; i++ {
		r, rs := g.leafFrom(depth)
		kinds := []string{"JOIN", "JOIN", "JOIN", "LEFT JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN"}
		j := &joinItem{kind: kinds[g.pick(len(kinds))], l: f, r: r}
		both := &scope{cols: append(slices.Clone(sc.cols), rs.cols...), subDepth: 0}
		if sc.keys != nil && rs.keys != nil {
			both.keys = append(slices.Clone(sc.keys), rs.keys...)
		}
		if j.kind != "CROSS JOIN" {
			j.on = g.joinCond(sc, rs, both, j.kind == "FULL JOIN")
			if j.on == nil {
				j.kind = "CROSS JOIN"
			}
		}
		f, sc = j, both
	}
	return f, sc
}

// joinCond draws ON: equalities between the sides, and for the other join kinds more
// conditions of any shape (one side only, non-equalities, OR). PostgreSQL runs FULL JOIN
// only on conditions it can hash or merge, so those get equalities alone.
func (g *gen) joinCond(l, r, both *scope, full bool) expr {
	var conj []expr
	for i, n := 0, []int{1, 1, 1, 2, 2, 3}[g.pick(6)]; i < n; i++ {
		if i == 0 || full || g.pct(50) {
			f := family(g.pick(int(nFamilies)))
			var le, re expr
			if i == 0 && g.pct(50) {
				// ids match across tables (1, 2, …): such joins keep rows
				f = fNum
				if g.pct(50) {
					le = keyOf(l)
				} else {
					re = keyOf(r)
				}
			}
			for try := 0; try < 4 && (le == nil || re == nil); try++ {
				if le == nil {
					le = g.leafCol(l, func(t sqlType) bool { return t.k.family() == f })
				}
				if re == nil {
					re = g.leafCol(r, func(t sqlType) bool { return t.k.family() == f })
				}
				if le == nil || re == nil {
					le, re = nil, nil
					f = family(g.pick(int(nFamilies)))
				}
			}
			if le == nil || re == nil {
				continue
			}
			if !full && g.pct(25) {
				le = g.expr(&scope{cols: l.cols}, le.typ().k.family(), 1)
			}
			conj = append(conj, &binop{op: "=", l: le, r: re, t: typ(kBool)})
			continue
		}
		conj = append(conj, g.pred(both, 1))
	}
	if len(conj) == 0 {
		return nil
	}
	e := conj[0]
	for _, c := range conj[1:] {
		op := "AND"
		if !full && g.pct(15) {
			op = "OR"
		}
		e = &binop{op: op, l: e, r: c, t: typ(kBool)}
	}
	return e
}

// keyOf is one of the row keys of sc (an id), or nil.
func keyOf(sc *scope) expr {
	if len(sc.keys) == 0 {
		return nil
	}
	return sc.keys[len(sc.keys)-1].clone()
}

// leafFrom draws a base table, a CTE or a derived table.
func (g *gen) leafFrom(depth int) (fromItem, *scope) {
	if len(g.ctes) > 0 && g.pct(30) {
		c := g.ctes[g.pick(len(g.ctes))]
		a := g.alias()
		sc := &scope{}
		for i, t := range c.types {
			sc.cols = append(sc.cols, scopeCol{rel: a, name: fmt.Sprintf("c%d", i), t: t})
		}
		return &tableRef{table: c.name, alias: a, isCTE: true}, sc
	}
	if depth > 0 && g.pct(10) {
		var q query
		if g.pct(20) {
			q = g.setOp(nil, depth-1)
		} else {
			q, _ = g.selectQ(nil, depth-1, nil)
		}
		a := g.alias()
		sc := &scope{}
		for i, t := range q.outTypes() {
			sc.cols = append(sc.cols, scopeCol{rel: a, name: fmt.Sprintf("c%d", i), t: t})
		}
		return &derived{q: q, alias: a}, sc
	}
	t := g.ds.tables[g.pick(len(g.ds.tables))]
	a := g.alias()
	sc := &scope{}
	for _, c := range t.cols {
		sc.cols = append(sc.cols, scopeCol{rel: a, name: c.name, t: c.t})
	}
	sc.keys = []expr{&col{rel: a, name: "id", t: typ(kInt)}}
	return &tableRef{table: t.name, alias: a}, sc
}

// leafCol picks a column of sc (or, in a grouped scope, a group key) whose type passes ok;
// nil when there is none.
func (g *gen) leafCol(sc *scope, ok func(sqlType) bool) expr {
	if sc == nil {
		return nil
	}
	if sc.grouped {
		var keys []expr
		for _, k := range sc.groups {
			if ok(k.typ()) {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			return nil
		}
		return keys[g.pick(len(keys))].clone()
	}
	var cands []scopeCol
	for _, c := range sc.cols {
		if ok(c.t) {
			cands = append(cands, c)
		}
	}
	if sc.outer != nil && g.pct(30) {
		// a correlated reference
		var outer []scopeCol
		for _, c := range sc.outer.cols {
			if ok(c.t) {
				outer = append(outer, c)
			}
		}
		if len(outer) > 0 {
			cands = outer
		}
	}
	if len(cands) == 0 {
		return nil
	}
	c := cands[g.pick(len(cands))]
	return &col{rel: c.rel, name: c.name, t: c.t}
}

// leaf draws a column, an aggregate (grouped scopes) or a constant of kind k (any kind of
// the family when !exact).
func (g *gen) leaf(sc *scope, k kind, exact bool) expr {
	ok := func(t sqlType) bool {
		if exact {
			return t.k == k
		}
		return t.k.family() == k.family()
	}
	if sc.grouped && g.pct(55) {
		if a := g.aggregate(sc.rows, k, exact); a != nil {
			return a
		}
	}
	if g.pct(75) {
		if c := g.leafCol(sc, ok); c != nil {
			return c
		}
	}
	return g.constant(k, exact)
}

func (g *gen) constant(k kind, exact bool) expr {
	if !exact && k.family() == fNum {
		k = []kind{kInt, kInt, kBig, kNum, kFloat}[g.pick(5)]
	} else if !exact && k.family() == fTime {
		k = []kind{kDate, kTS}[g.pick(2)]
	}
	t := typ(k)
	if g.pct(8) {
		return nullOf(t)
	}
	p := g.pools[k]
	if k == kNum {
		p.common, p.edge = numPool(12, 4)
		if g.pct(50) {
			p.common, p.edge = numPool(5, 0)
		}
	}
	vals := p.common
	if len(p.edge) > 0 && g.pct(15) {
		vals = p.edge
	}
	if len(vals) == 0 {
		return nullOf(t)
	}
	return exprLit(t, value{s: vals[g.pick(len(vals))]})
}

// expr draws an expression of family f.
func (g *gen) expr(sc *scope, f family, d int) expr {
	switch f {
	case fNum:
		return g.num(sc, d)
	case fText:
		return g.text(sc, d)
	case fBool:
		return g.pred(sc, d)
	}
	return g.temporal(sc, d)
}

func numType(op string, l, r sqlType) sqlType {
	t := l
	if r.k > t.k {
		t = r
	}
	t.prec = 0
	t.approx = l.approx || r.approx
	if t.k == kNum {
		sl, sr := l.numScale(), r.numScale()
		switch {
		case sl < 0 || sr < 0 || op == "/":
			t.scale = -1
		case op == "*":
			t.scale = sl + sr
		default:
			t.scale = max(sl, sr)
		}
	}
	return t
}

// num draws a number of any kind.
func (g *gen) num(sc *scope, d int) expr {
	if d <= 0 || g.pct(30) {
		return g.leaf(sc, kInt, false)
	}
	switch g.pick(15) {
	case 0, 1, 2:
		l, r := g.num(sc, d-1), g.num(sc, d-1)
		ops := []string{"+", "-", "*", "/", "%", "+", "-"}
		op := ops[g.pick(len(ops))]
		if op == "%" && (l.typ().k == kFloat || r.typ().k == kFloat) {
			op = "-"
		}
		return &binop{op: op, l: l, r: r, t: numType(op, l.typ(), r.typ())}
	case 3:
		x := g.num(sc, d-1)
		name := []string{"-", "abs"}[g.pick(2)]
		if name == "-" {
			return &unop{op: "-", x: x, t: x.typ()}
		}
		return &fn{name: "abs", args: []expr{x}, t: x.typ()}
	case 4:
		return g.caseOf(sc, fNum, d)
	case 5:
		return g.coalesce(sc, fNum, d)
	case 6:
		a, b := g.num(sc, d-1), g.num(sc, d-1)
		t := unify(a.typ(), b.typ())
		if t.k == kNum {
			t.scale = a.typ().numScale()
		}
		return &fn{name: "NULLIF", args: []expr{a, b}, t: t}
	case 7:
		return g.greatest(sc, fNum, d)
	case 8:
		return g.castNum(sc, d)
	case 9:
		if g.pct(50) {
			return &fn{name: "length", args: []expr{g.text(sc, d-1)}, t: typ(kInt)}
		}
		return &fn{name: "strpos", args: []expr{g.text(sc, d-1), g.text(sc, d-1)}, t: typ(kInt)}
	case 10:
		x := g.temporal(sc, d-1)
		if x.typ().k == kDate && g.pct(50) {
			return &binop{op: "-", l: x, r: g.exactKind(sc, kDate, d-1), t: typ(kInt)}
		}
		field := []string{"YEAR", "MONTH", "DAY"}[g.pick(3)]
		return &fn{name: "EXTRACT", pre: field + " FROM ", args: []expr{x}, t: sqlType{k: kNum, scale: 0}}
	case 11:
		x := g.num(sc, d-1)
		switch x.typ().k {
		case kFloat:
			return &fn{name: []string{"round", "trunc", "floor", "ceil"}[g.pick(4)], args: []expr{x}, t: x.typ()}
		case kNum:
			k := g.pick(4)
			return &fn{name: []string{"round", "trunc"}[g.pick(2)], args: []expr{x, exprLit(typ(kInt), value{s: fmt.Sprint(k)})},
				t: sqlType{k: kNum, scale: k, approx: x.typ().approx}}
		}
		return x
	case 12:
		if s := g.scalarSubquery(sc, kInt); s != nil {
			return s
		}
	case 13:
		if sc.windows {
			if w := g.window(sc, fNum); w != nil {
				return w
			}
		}
	}
	return g.leaf(sc, kInt, false)
}

// exactKind draws an expression of exactly kind k, for arguments PostgreSQL does not
// convert implicitly (date + integer, left(text, integer), date - date).
func (g *gen) exactKind(sc *scope, k kind, d int) expr {
	if d > 0 && g.pct(25) {
		switch k {
		case kInt:
			switch g.pick(3) {
			case 0:
				return &fn{name: "length", args: []expr{g.text(sc, d-1)}, t: typ(kInt)}
			case 1:
				l, r := g.exactKind(sc, kInt, d-1), g.exactKind(sc, kInt, d-1)
				op := []string{"+", "-", "*"}[g.pick(3)]
				return &binop{op: op, l: l, r: r, t: typ(kInt)}
			default:
				return &fn{name: "CAST", args: []expr{g.num(sc, d-1)}, t: typ(kInt)}
			}
		case kDate:
			if g.pct(50) {
				return &fn{name: "CAST", args: []expr{g.exactKind(sc, kTS, d-1)}, t: typ(kDate)}
			}
			return &binop{op: "+", l: g.exactKind(sc, kDate, d-1), r: g.smallInt(), t: typ(kDate)}
		}
	}
	return g.leaf(sc, k, true)
}

func (g *gen) smallInt() expr {
	return exprLit(typ(kInt), value{s: []string{"-1", "0", "1", "2", "3", "5"}[g.pick(6)]})
}

func (g *gen) castNum(sc *scope, d int) expr {
	var x expr
	switch g.pick(6) {
	case 0:
		x = g.pred(sc, d-1)
		return &fn{name: "CAST", args: []expr{x}, t: typ(kInt)}
	default:
		x = g.num(sc, d-1)
	}
	switch g.pick(5) {
	case 0:
		return &fn{name: "CAST", args: []expr{x}, t: typ(kInt)}
	case 1:
		return &fn{name: "CAST", args: []expr{x}, t: typ(kBig)}
	case 2:
		t := sqlType{k: kFloat, approx: x.typ().approx}
		return &fn{name: "CAST", args: []expr{x}, t: t}
	case 3:
		sh := numericShapes[g.pick(len(numericShapes))]
		return &fn{name: "CAST", args: []expr{x}, t: sqlType{k: kNum, prec: sh[0], scale: sh[1]}}
	}
	return &fn{name: "CAST", args: []expr{x}, t: sqlType{k: kNum, scale: x.typ().numScale()}}
}

func (g *gen) text(sc *scope, d int) expr {
	if d <= 0 || g.pct(30) {
		return g.leaf(sc, kText, true)
	}
	t := typ(kText)
	switch g.pick(14) {
	case 0:
		return &fn{name: []string{"lower", "upper", "btrim", "reverse"}[g.pick(4)], args: []expr{g.text(sc, d-1)}, t: t}
	case 1:
		return &binop{op: "||", l: g.text(sc, d-1), r: g.text(sc, d-1), t: t}
	case 2:
		if g.pct(50) {
			return &fn{name: "concat", args: []expr{g.text(sc, d-1), g.expr(sc, family(g.pick(int(nFamilies))), d-1)}, t: t}
		}
		return &fn{name: "concat_ws", args: []expr{exprLit(t, value{s: "-"}), g.text(sc, d-1), g.text(sc, d-1)}, t: t}
	case 3:
		return &fn{name: "substr", args: []expr{g.text(sc, d-1), g.exactKind(sc, kInt, d-1), g.smallInt()}, t: t}
	case 4:
		return &fn{name: []string{"left", "right"}[g.pick(2)], args: []expr{g.text(sc, d-1), g.exactKind(sc, kInt, d-1)}, t: t}
	case 5:
		return &fn{name: "replace", args: []expr{g.text(sc, d-1), g.constant(kText, true), g.constant(kText, true)}, t: t}
	case 6:
		return g.caseOf(sc, fText, d)
	case 7:
		return g.coalesce(sc, fText, d)
	case 8:
		return &fn{name: "NULLIF", args: []expr{g.text(sc, d-1), g.text(sc, d-1)}, t: t}
	case 9:
		f := []family{fNum, fNum, fTime, fBool}[g.pick(4)]
		x := g.expr(sc, f, d-1)
		if x.typ().approx {
			x = g.leaf(sc, kInt, false)
		}
		return &fn{name: "CAST", args: []expr{x}, t: t}
	case 10:
		return &fn{name: "lpad", args: []expr{g.text(sc, d-1), g.smallInt(), g.constant(kText, true)}, t: t}
	case 11:
		return g.greatest(sc, fText, d)
	case 12:
		if s := g.scalarSubquery(sc, kText); s != nil {
			return s
		}
	case 13:
		if sc.windows && g.pct(50) {
			if w := g.window(sc, fText); w != nil {
				return w
			}
		}
		return &fn{name: "repeat", args: []expr{g.text(sc, d-1), g.smallInt()}, t: t}
	}
	return g.leaf(sc, kText, true)
}

func (g *gen) temporal(sc *scope, d int) expr {
	if d <= 0 || g.pct(35) {
		return g.leaf(sc, kDate, false)
	}
	switch g.pick(8) {
	case 0:
		op := []string{"+", "-"}[g.pick(2)]
		return &binop{op: op, l: g.exactKind(sc, kDate, d-1), r: g.exactKind(sc, kInt, d-1), t: typ(kDate)}
	case 1:
		iv := []string{"INTERVAL '1 day'", "INTERVAL '-1 hour'", "INTERVAL '1 month'", "INTERVAL '1 year 2 seconds'"}[g.pick(4)]
		return &binop{op: []string{"+", "-"}[g.pick(2)], l: g.temporal(sc, d-1), r: &lit{text: iv, t: typ(kTS)}, t: typ(kTS)}
	case 2:
		field := []string{"year", "month", "day", "hour"}[g.pick(4)]
		return &fn{name: "date_trunc", args: []expr{exprLit(typ(kText), value{s: field}), g.exactKind(sc, kTS, d-1)}, t: typ(kTS)}
	case 3:
		x := g.temporal(sc, d-1)
		to := kDate
		if x.typ().k == kDate {
			to = kTS
		}
		return &fn{name: "CAST", args: []expr{x}, t: typ(to)}
	case 4:
		return g.caseOf(sc, fTime, d)
	case 5:
		return g.coalesce(sc, fTime, d)
	case 6:
		return g.greatest(sc, fTime, d)
	case 7:
		if sc.windows && g.pct(50) {
			if w := g.window(sc, fTime); w != nil {
				return w
			}
		}
		if s := g.scalarSubquery(sc, kDate); s != nil {
			return s
		}
	}
	return g.leaf(sc, kDate, false)
}

func (g *gen) caseOf(sc *scope, f family, d int) expr {
	c := &caseE{}
	if g.pct(25) {
		// CASE x WHEN v THEN …: the values compare with the operand
		of := family(g.pick(int(nFamilies)))
		c.operand = g.expr(sc, of, d-1)
		for i, n := 0, 1+g.pick(2); i < n; i++ {
			c.whens = append(c.whens, g.expr(sc, of, 0), g.expr(sc, f, d-1))
		}
	} else {
		for i, n := 0, 1+g.pick(2); i < n; i++ {
			c.whens = append(c.whens, g.pred(sc, d-1), g.expr(sc, f, d-1))
		}
	}
	if g.pct(70) {
		c.els = g.expr(sc, f, d-1)
	}
	c.t = c.whens[1].typ()
	for i := 3; i < len(c.whens); i += 2 {
		c.t = unify(c.t, c.whens[i].typ())
	}
	if c.els != nil {
		c.t = unify(c.t, c.els.typ())
	}
	return c
}

func (g *gen) coalesce(sc *scope, f family, d int) expr {
	n := 2 + g.pick(2)
	c := &fn{name: "COALESCE"}
	for i := 0; i < n; i++ {
		a := g.expr(sc, f, d-1)
		c.args = append(c.args, a)
		if i == 0 {
			c.t = a.typ()
		} else {
			c.t = unify(c.t, a.typ())
		}
	}
	return c
}

func (g *gen) greatest(sc *scope, f family, d int) expr {
	a, b := g.expr(sc, f, d-1), g.expr(sc, f, d-1)
	return &fn{name: []string{"GREATEST", "LEAST"}[g.pick(2)], args: []expr{a, b}, t: unify(a.typ(), b.typ())}
}

// pred draws a boolean.
func (g *gen) pred(sc *scope, d int) expr {
	b := typ(kBool)
	if d <= 0 || g.pct(15) {
		if g.pct(60) {
			return g.compare(sc, 0)
		}
		return g.leaf(sc, kBool, true)
	}
	switch g.pick(16) {
	case 0, 1, 2, 3:
		return g.compare(sc, d-1)
	case 4, 5:
		return &binop{op: []string{"AND", "OR"}[g.pick(2)], l: g.pred(sc, d-1), r: g.pred(sc, d-1), t: b}
	case 6:
		return &unop{op: "NOT", x: g.pred(sc, d-1), t: b}
	case 7:
		f := family(g.pick(int(nFamilies)))
		op := []string{"IS NULL", "IS NOT NULL"}[g.pick(2)]
		if f == fBool {
			op = []string{"IS NULL", "IS NOT NULL", "IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE", "IS UNKNOWN"}[g.pick(7)]
		}
		return &unop{op: op, x: g.expr(sc, f, d-1), post: true, t: b}
	case 8:
		f := family(g.pick(int(nFamilies)))
		op := []string{"IS DISTINCT FROM", "IS NOT DISTINCT FROM"}[g.pick(2)]
		return &binop{op: op, l: g.expr(sc, f, d-1), r: g.expr(sc, f, d-1), t: b}
	case 9:
		f := []family{fNum, fText, fTime}[g.pick(3)]
		return &between{x: g.expr(sc, f, d-1), lo: g.expr(sc, f, 0), hi: g.expr(sc, f, 0), not: g.pct(25), symmetric: g.pct(10)}
	case 10:
		f := family(g.pick(int(nFamilies)))
		n := &inList{x: g.expr(sc, f, d-1), not: g.pct(35)}
		for i, m := 0, 1+g.pick(4); i < m; i++ {
			n.list = append(n.list, g.expr(sc, f, 0))
		}
		return n
	case 11:
		pats := []string{"a%", "%b", "_", "%", "a_", "", "%a%", "A%", "%\\%%", "_b%"}
		op := []string{"LIKE", "NOT LIKE", "ILIKE"}[g.pick(3)]
		return &binop{op: op, l: g.text(sc, d-1), r: exprLit(typ(kText), value{s: pats[g.pick(len(pats))]}), t: b}
	case 12, 13:
		if s := g.subqueryPred(sc); s != nil {
			return s
		}
	case 14:
		if sc.windows && g.pct(30) {
			if w := g.window(sc, fBool); w != nil {
				return w
			}
		}
		return g.caseOf(sc, fBool, d)
	}
	return g.compare(sc, d-1)
}

func (g *gen) compare(sc *scope, d int) expr {
	f := []family{fNum, fNum, fNum, fText, fText, fTime, fBool}[g.pick(7)]
	ops := []string{"=", "=", "<>", "<", "<=", ">", ">="}
	return &binop{op: ops[g.pick(len(ops))], l: g.expr(sc, f, d), r: g.expr(sc, f, d), t: typ(kBool)}
}

// subquery draws a small SELECT of one column of family f over base tables, correlated
// with sc now and then.
func (g *gen) subquery(sc *scope, f family) (*selectQ, *scope) {
	outer := sc
	if sc.grouped {
		// a correlated subquery in a grouped query may only read group keys: keep it simple
		outer = nil
	}
	s := &selectQ{limit: -1, offset: -1}
	from, rows := g.joinTree(0, 1+g.pick(2))
	rows.outer = outer
	rows.subDepth = sc.subDepth - 1
	s.from = []fromItem{from}
	var conds []expr
	if outer != nil && g.pct(60) {
		// a correlation the planner can turn into a join key
		if ic := g.leafCol(&scope{cols: rows.cols}, func(t sqlType) bool { return true }); ic != nil {
			fam := ic.typ().k.family()
			if oc := g.leafCol(&scope{cols: outer.cols}, func(t sqlType) bool { return t.k.family() == fam }); oc != nil {
				conds = append(conds, &binop{op: "=", l: ic, r: oc, t: typ(kBool)})
			}
		}
	}
	if g.pct(50) {
		conds = append(conds, g.pred(rows, 1))
	}
	for _, c := range conds {
		if s.where == nil {
			s.where = c
		} else {
			s.where = &binop{op: "AND", l: s.where, r: c, t: typ(kBool)}
		}
	}
	s.items = []item{{e: g.expr(&scope{cols: rows.cols, outer: rows.outer, subDepth: rows.subDepth}, f, 1)}}
	return s, rows
}

func (g *gen) subqueryPred(sc *scope) expr {
	if sc.subDepth <= 0 {
		return nil
	}
	b := typ(kBool)
	switch g.pick(4) {
	case 0:
		s, _ := g.subquery(sc, fNum)
		s.items = []item{{e: exprLit(typ(kInt), value{s: "1"})}}
		e := expr(&subq{mode: "EXISTS", q: s, t: b})
		if g.pct(30) {
			e = &unop{op: "NOT", x: e, t: b}
		}
		return e
	case 1, 2:
		f := []family{fNum, fNum, fText, fTime}[g.pick(4)]
		s, _ := g.subquery(sc, f)
		mode := []string{"IN", "IN", "NOT IN"}[g.pick(3)]
		return &subq{mode: mode, x: g.expr(sc, f, 1), q: s, t: b}
	default:
		f := []family{fNum, fText, fTime}[g.pick(3)]
		s, _ := g.subquery(sc, f)
		ops := []string{"=", "<>", "<", ">=", ">"}
		return &subq{mode: []string{"ANY", "ALL"}[g.pick(2)], op: ops[g.pick(len(ops))], x: g.expr(sc, f, 1), q: s, t: b}
	}
}

// scalarSubquery draws (SELECT agg(x) …) or (SELECT x … ORDER BY x, id LIMIT 1): one row
// at most, and the same one on both servers.
func (g *gen) scalarSubquery(sc *scope, k kind) expr {
	if sc.subDepth <= 0 {
		return nil
	}
	f := k.family()
	s, rows := g.subquery(sc, f)
	x := s.items[0].e
	if g.pct(60) || rows.keys == nil {
		// the argument reads the subquery's own rows: an aggregate of outer columns only
		// would belong to the outer query
		x = g.expr(&scope{cols: rows.cols, subDepth: rows.subDepth}, f, 1)
		var a expr
		if f == fNum && g.pct(40) {
			a = &agg{name: "count", args: []expr{x}, t: typ(kBig)}
		} else {
			a = &agg{name: []string{"min", "max"}[g.pick(2)], args: []expr{x}, t: x.typ()}
		}
		s.items[0].e = a
		return &subq{mode: "scalar", q: s, t: a.typ()}
	}
	s.orderBy = nil
	if anyCol(x) {
		// PostgreSQL reads a constant ORDER BY key as an error or an ordinal
		s.orderBy = []orderItem{{e: x.clone(), desc: g.pct(50)}}
	}
	for _, key := range rows.keys {
		s.orderBy = append(s.orderBy, orderItem{e: key.clone()})
	}
	s.limit = 1
	return &subq{mode: "scalar", q: s, t: x.typ()}
}

// aggregate draws an aggregate over rows whose result is of kind k (any of its family when
// !exact); nil when none fits.
func (g *gen) aggregate(rows *scope, k kind, exact bool) expr {
	if rows == nil {
		return nil
	}
	inner := &scope{cols: rows.cols, subDepth: rows.subDepth}
	f := k.family()
	var a *agg
	switch f {
	case fNum:
		switch g.pick(6) {
		case 0:
			a = &agg{name: "count", star: true, t: typ(kBig)}
		case 1:
			a = &agg{name: "count", args: []expr{g.expr(inner, family(g.pick(int(nFamilies))), 1)}, distinct: g.pct(30), t: typ(kBig)}
		case 2, 3:
			x := g.num(inner, 1)
			a = &agg{name: "sum", args: []expr{x}, distinct: g.pct(15)}
			switch t := x.typ(); t.k {
			case kInt:
				a.t = typ(kBig)
			case kBig:
				a.t = sqlType{k: kNum, scale: 0}
			case kNum:
				a.t = sqlType{k: kNum, scale: t.scale}
			default:
				a.t = sqlType{k: kFloat, approx: true}
			}
		case 4:
			x := g.num(inner, 1)
			name := []string{"avg", "avg", "stddev_samp", "var_pop"}[g.pick(4)]
			a = &agg{name: name, args: []expr{x}}
			if x.typ().k == kFloat {
				a.t = sqlType{k: kFloat, approx: true}
			} else {
				a.t = sqlType{k: kNum, scale: -1}
			}
		default:
			x := g.num(inner, 1)
			a = &agg{name: []string{"min", "max"}[g.pick(2)], args: []expr{x}, t: x.typ()}
		}
	case fText:
		x := g.text(inner, 1)
		if g.pct(50) {
			a = &agg{name: []string{"min", "max"}[g.pick(2)], args: []expr{x}, t: x.typ()}
		} else {
			a = &agg{name: "string_agg", args: []expr{x, exprLit(typ(kText), value{s: ","})}, distinct: g.pct(25), t: typ(kText)}
			a.order = []orderItem{{e: x.clone(), desc: g.pct(30)}}
		}
	case fBool:
		a = &agg{name: []string{"bool_and", "bool_or"}[g.pick(2)], args: []expr{g.pred(inner, 1)}, t: typ(kBool)}
	case fTime:
		x := g.temporal(inner, 1)
		a = &agg{name: []string{"min", "max"}[g.pick(2)], args: []expr{x}, t: x.typ()}
	}
	if exact && a.t.k != k {
		return nil
	}
	if g.pct(15) {
		a.filter = g.pred(inner, 1)
	}
	return a
}

// window draws a window function of family f. Those whose result depends on the order of
// peers (row_number, lag, ROWS frames, …) are ordered by the row keys last; rank, dense_rank
// and aggregates over RANGE or GROUPS frames are defined by the order keys alone.
func (g *gen) window(sc *scope, f family) expr {
	inner := &scope{cols: sc.cols, subDepth: 0}
	w := &win{}
	for i, n := 0, g.pick(3); i < n; i++ {
		if c := g.leafCol(inner, func(sqlType) bool { return true }); c != nil {
			w.partition = append(w.partition, c)
		}
	}
	for i, n := 0, 1+g.pick(2); i < n; i++ {
		of := family(g.pick(int(nFamilies)))
		w.order = append(w.order, orderItem{e: g.expr(inner, of, 0), desc: g.pct(40), nulls: []string{"", "NULLS FIRST", "NULLS LAST"}[g.pick(3)]})
	}
	needsTotal := false
	pick := g.pick(9)
	if f != fNum && pick < 4 {
		pick = 4 + g.pick(5)
	}
	switch pick {
	case 0:
		w.name, w.t, needsTotal = "row_number", typ(kBig), true
	case 1:
		w.name, w.t = []string{"rank", "dense_rank"}[g.pick(2)], typ(kBig)
	case 2:
		w.name, w.t = []string{"percent_rank", "cume_dist"}[g.pick(2)], typ(kFloat)
	case 3:
		w.name, w.t, needsTotal = "ntile", typ(kInt), true
		w.args = []expr{exprLit(typ(kInt), value{s: fmt.Sprint(1 + g.pick(4))})}
	case 4:
		x := g.expr(inner, f, 1)
		w.name, w.t, needsTotal = []string{"lag", "lead"}[g.pick(2)], x.typ(), true
		w.args = []expr{x}
		if g.pct(40) {
			w.args = append(w.args, exprLit(typ(kInt), value{s: fmt.Sprint(1 + g.pick(3))}))
		}
	case 5:
		x := g.expr(inner, f, 1)
		w.name, w.t, needsTotal = []string{"first_value", "last_value"}[g.pick(2)], x.typ(), true
		w.args = []expr{x}
		w.frame = []string{"", "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING", "ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING"}[g.pick(3)]
	default:
		k := map[family]kind{fNum: kInt, fText: kText, fBool: kBool, fTime: kDate}[f]
		a := g.aggregate(inner, k, false)
		ag, ok := a.(*agg)
		if !ok || ag.filter != nil || ag.name == "string_agg" {
			// string_agg concatenates peers in an order SQL leaves open
			return nil
		}
		w.name, w.star, w.args, w.t = ag.name, ag.star, ag.args, ag.t
		switch g.pick(4) {
		case 0:
			w.order = nil // the whole partition
		case 1:
			w.frame = []string{"ROWS BETWEEN 1 PRECEDING AND CURRENT ROW", "ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
				"GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING"}[g.pick(3)]
			needsTotal = w.frame[0] == 'R'
		}
		if ag.distinct {
			// PostgreSQL has no DISTINCT inside window aggregates
			return nil
		}
		if w.t.k == kFloat {
			w.t.approx = true
		}
	}
	if needsTotal {
		if sc.keys == nil {
			return nil
		}
		for _, k := range sc.keys {
			w.order = append(w.order, orderItem{e: k.clone()})
		}
	}
	return w
}

func anyCol(x expr) bool {
	found := false
	walkExpr(x, func(e expr) bool {
		if _, ok := e.(*col); ok {
			found = true
		}
		_, sub := e.(*subq)
		return !found && !sub
	})
	return found
}
