package difftest

import (
	"fmt"
	"sort"
	"strings"
)

// SQL leaves open which subexpressions a server evaluates and when: PostgreSQL runs an
// uncorrelated subquery only once a row needs it, drops unused columns of a subquery before
// folding their constants, and evaluates a join condition only on pairs of rows; lakepg may
// evaluate such expressions up front. When an expression errors on the data (1/0, a date
// out of range), one server then fails and the other answers, and neither is wrong.
//
// So when one side raises a data exception (class 22) and the other answers, the other
// server is made to evaluate the same expressions outright: each expression the query must
// evaluate whenever its clause runs, over the relations it reads. If that raises the same
// class, the difference is the order of evaluation; if not, one server raised an error the
// data does not justify (or failed to raise one it does), which is a finding.
//
// Expressions over aggregates are evaluated per group, over the same FROM, WHERE and GROUP
// BY (groupedProbes).
//
// The branches of CASE and the arguments of COALESCE after the first are left out: SQL
// promises to evaluate those only when needed, so an error from them is a finding. Their
// constant subexpressions and aggregates are kept: PostgreSQL's documentation warns that the
// planner may fold constants, and fail, even in a branch no row takes, and that aggregates
// are computed before the CASE around them is looked at.

// probe is a set of expressions over the same relations.
type probe struct {
	with  string   // the query's WITH clause, for its CTEs
	from  []string // FROM items, as declared in the query
	exprs []string
}

// firstConverted is COALESCE's first argument converted to the COALESCE's type, which
// it is whenever the COALESCE runs (a date to timestamp may fail): a CASE of the same
// arguments, so of the same type, whose other branches no server evaluates.
func firstConverted(c *fn) expr {
	ce := &caseE{els: c.args[0], t: c.t}
	for _, a := range c.args[1:] {
		ce.whens = append(ce.whens, &lit{text: "false", t: typ(kBool)}, a)
	}
	return ce
}

// forcedProbes lists the queries that evaluate q's unconditional expressions outright.
func forcedProbes(q query) []string {
	var out []string
	for _, p := range probesOf(q) {
		out = append(out, p.sql(p.exprs))
	}
	return out
}

// sql writes the probe query of exprs.
func (p *probe) sql(exprs []string) string {
	var sb strings.Builder
	sb.WriteString(p.with + "SELECT ")
	for i, e := range exprs {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "%s AS p%d", e, i)
	}
	if len(p.from) > 0 {
		sb.WriteString(" FROM " + strings.Join(p.from, ", "))
	}
	return sb.String()
}

// probesOf groups q's unconditional expressions by the relations they read.
func probesOf(q query) []*probe {
	decl := map[string]string{} // alias → its FROM item
	var with string
	if s, ok := q.(*selectQ); ok && len(s.with) > 0 {
		w := &selectQ{with: s.with, limit: -1, offset: -1}
		text := sqlOf(w)
		with = strings.TrimSuffix(text, "SELECT ") // the WITH clause alone
	}
	// consts maps a column of a derived table or CTE whose item is a constant to that
	// constant: PostgreSQL pulls such subqueries up and folds the constant into the outer
	// expression at plan time, so the probe does the same
	consts := map[[2]string]expr{}
	cteItems := map[string][]item{}
	if s, ok := q.(*selectQ); ok {
		for _, c := range s.with {
			if cs, ok := c.q.(*selectQ); ok && !cs.grouped() {
				cteItems[c.name] = cs.items
			}
		}
	}
	constItems := func(alias string, items []item) {
		for i, it := range items {
			if !anyCol(it.e) && standalone(it.e) {
				consts[[2]string{alias, fmt.Sprintf("c%d", i)}] = it.e
			}
		}
	}
	dv := &visitor{from: func(p *fromItem) {
		switch f := (*p).(type) {
		case *tableRef:
			decl[f.alias] = sqlOf(f)
			if items, ok := cteItems[f.table]; ok && f.isCTE {
				constItems(f.alias, items)
			}
		case *derived:
			decl[f.alias] = sqlOf(f)
			if ds, ok := f.q.(*selectQ); ok && !ds.grouped() {
				constItems(f.alias, ds.items)
			}
		}
	}}
	dv.walkQuery(&q)
	inline := func(x expr) expr {
		x = x.clone()
		v := &visitor{expr: func(p *expr) {
			if c, ok := (*p).(*col); ok {
				if k, found := consts[[2]string{c.rel, c.name}]; found {
					*p = k.clone()
				}
			}
		}}
		v.walkExpr(&x)
		return x
	}

	groups := map[string]*probe{}
	seen := map[string]bool{}
	var add func(x expr)
	// constants adds what a branch evaluated only when needed may evaluate all the same:
	// its constant subexpressions, and the arguments of its aggregates (which PostgreSQL
	// computes before it looks at the CASE around them)
	constants := func(x expr) {
		var v visitor
		v.expr = func(p *expr) {
			_, isAgg := (*p).(*agg)
			if isAgg || standalone(*p) && len(aliasesOf(*p)) == 0 {
				add(*p)
			}
		}
		v.walkExpr(&x)
	}
	add = func(x expr) {
		if x == nil {
			return
		}
		switch e := x.(type) {
		case *caseE:
			if e.operand != nil {
				add(e.operand)
			}
			for i, w := range e.whens {
				if i == 0 {
					add(w)
				} else {
					constants(w)
				}
			}
			if e.els != nil {
				constants(e.els)
			}
		case *fn:
			if e.name == "COALESCE" && len(e.args) > 0 {
				add(e.args[0])
				for _, a := range e.args[1:] {
					constants(a)
				}
				if len(e.args) > 1 {
					add(firstConverted(e))
				}
				return
			}
		case *agg, *win:
			for _, k := range x.kids() {
				add(*k)
			}
			return
		case *subq:
			if e.x != nil {
				add(e.x)
			}
			addQuery(e.q, add)
			return
		}
		if standalone(x) {
			x := inline(x)
			text := sqlOf(x)
			if _, isLit := x.(*lit); !isLit && !seen[text] {
				seen[text] = true
				var rels []string
				ok := true
				for a := range aliasesOf(x) {
					d, found := decl[a]
					if !found {
						ok = false
					}
					rels = append(rels, d)
				}
				if ok && len(rels) <= 3 {
					sort.Strings(rels)
					key := strings.Join(rels, ", ")
					if groups[key] == nil {
						groups[key] = &probe{with: with, from: rels}
					}
					groups[key].exprs = append(groups[key].exprs, text)
				}
			}
		}
		if _, isCase := x.(*caseE); isCase {
			return
		}
		for _, k := range x.kids() {
			add(*k)
		}
	}
	addQuery(q, add)

	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []*probe
	for _, k := range keys {
		out = append(out, groups[k])
	}
	return out
}

// addQuery feeds the expressions of q's clauses to add.
func addQuery(q query, add func(expr)) {
	switch s := q.(type) {
	case *setOp:
		addQuery(s.l, add)
		addQuery(s.r, add)
	case *selectQ:
		for _, c := range s.with {
			addQuery(c.q, add)
		}
		for _, it := range s.items {
			add(it.e)
		}
		var fromExprs func(f fromItem)
		fromExprs = func(f fromItem) {
			switch x := f.(type) {
			case *joinItem:
				fromExprs(x.l)
				fromExprs(x.r)
				add(x.on)
			case *derived:
				addQuery(x.q, add)
			}
		}
		for _, f := range s.from {
			fromExprs(f)
		}
		add(s.where)
		for _, g := range s.groupBy {
			add(g)
		}
		add(s.having)
		for _, o := range s.orderBy {
			add(o.e)
		}
	}
}

// standalone tells whether x can be evaluated on its own in a SELECT list: no aggregate,
// window, GROUPING() or subquery inside.
func standalone(x expr) bool {
	ok := true
	walkExpr(x, func(e expr) bool {
		switch f := e.(type) {
		case *agg, *win, *subq:
			ok = false
		case *fn:
			ok = f.name != "GROUPING"
		}
		return ok
	})
	return ok
}

func aliasesOf(x expr) map[string]bool {
	out := map[string]bool{}
	walkExpr(x, func(e expr) bool {
		if c, ok := e.(*col); ok && c.rel != "" {
			out[c.rel] = true
		}
		return true
	})
	return out
}

// evaluationOrder tells whether s raises an error of class class when made to evaluate q's
// unconditional expressions outright.
func (h *harness) evaluationOrder(q query, s *session, class string) bool {
	for _, sql := range groupedProbes(q) {
		if r := s.exec(sql); r.failed() && strings.HasPrefix(r.code, class) {
			return true
		}
	}
	for _, p := range probesOf(q) {
		r := s.exec(p.sql(p.exprs))
		if r.failed() && strings.HasPrefix(r.code, class) {
			return true
		}
		if !r.failed() || len(p.exprs) == 1 {
			continue
		}
		// another error (one expression the server cannot evaluate on its own) hides
		// the others': one at a time
		for _, e := range p.exprs {
			if r := s.exec(p.sql([]string{e})); r.failed() && strings.HasPrefix(r.code, class) {
				return true
			}
		}
	}
	return false
}

// groupedProbes evaluates outright, per group, the expressions over aggregates of each
// grouped SELECT in q (its select list and HAVING): SELECT e FROM … WHERE … GROUP BY ….
// Branches of CASE and later COALESCE arguments are left out, as in probesOf.
func groupedProbes(q query) []string {
	var out []string
	seen := map[string]bool{}
	v := &visitor{sel: func(s *selectQ) {
		if !s.grouped() {
			return
		}
		var add func(x expr)
		add = func(x expr) {
			if x == nil {
				return
			}
			switch e := x.(type) {
			case *caseE:
				if e.operand != nil {
					add(e.operand)
				}
				if len(e.whens) > 0 {
					add(e.whens[0])
				}
				return
			case *fn:
				if e.name == "COALESCE" && len(e.args) > 0 {
					add(e.args[0])
					return
				}
			case *agg, *win, *subq:
				return
			}
			hasAgg, ok := false, true
			walkExpr(x, func(e expr) bool {
				switch e.(type) {
				case *agg:
					hasAgg = true
					return false
				case *win, *subq:
					ok = false
				}
				return ok
			})
			if hasAgg && ok {
				p := &selectQ{from: s.from, where: s.where, groupBy: s.groupBy, grouping: s.grouping, sets: s.sets,
					items: []item{{e: x}}, limit: -1, offset: -1}
				if top, isSel := q.(*selectQ); isSel {
					p.with = top.with
				}
				if sql := sqlOf(p); !seen[sql] {
					seen[sql] = true
					out = append(out, sql)
				}
			}
			for _, k := range x.kids() {
				add(*k)
			}
		}
		for _, it := range s.items {
			add(it.e)
		}
		add(s.having)
	}}
	v.walkQuery(&q)
	return out
}
