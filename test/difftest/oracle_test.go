package difftest

import (
	"fmt"
	"slices"
)

// The metamorphic oracles need no reference: they run a query and equivalent forms of it
// on lakepg alone and compare the answers, which catches wrong results in features
// PostgreSQL cannot check for us (pruning by file statistics, delete files, inlined rows) and
// in plans the differential check never reaches.

// tlpParts builds the three queries of ternary logic partitioning: for a predicate p, the
// rows of a query are those where p is true, those where it is false and those where it is
// NULL, each exactly once. p goes into WHERE of an ungrouped query, into HAVING of a grouped
// one. ok is false for queries the identity does not hold for (windows see the other
// partitions' rows; LIMIT picks different rows; set operations have no WHERE).
func tlpParts(c *testCase) (base query, parts []query, distinct, ok bool) {
	s, isSel := c.q.(*selectQ)
	if !isSel || c.pred == nil || s.limit >= 0 || s.offset >= 0 || s.hasWindow() || len(s.from) == 0 {
		return nil, nil, false, false
	}
	b := s.cloneSelect()
	b.orderBy = nil
	having := b.grouped()
	if having != c.top.grouped {
		return nil, nil, false, false
	}
	bt := typ(kBool)
	forms := []expr{
		c.pred.clone(),
		&unop{op: "NOT", x: c.pred.clone(), t: bt},
		&unop{op: "IS NULL", x: c.pred.clone(), post: true, t: bt},
	}
	for _, p := range forms {
		q := b.cloneSelect()
		at := &q.where
		if having {
			at = &q.having
		}
		if *at == nil {
			*at = p
		} else {
			*at = &binop{op: "AND", l: *at, r: p, t: bt}
		}
		parts = append(parts, q)
	}
	return b, parts, b.distinct, true
}

// rewriteModes are the non-optimising rewrites: each must not change the answer.
var rewriteModes = []string{"barrier", "is-true", "subquery"}

// rewrite writes c's query in mode: every base table behind an OFFSET 0 barrier, every
// condition as (p) IS TRUE, or the FROM clause moved into a materialised CTE or a
// derived table with OFFSET 0 that the rest of the query reads (its WHERE, grouping,
// windows and ORDER BY then run over a relation the planner cannot look into).
func rewrite(c *testCase, mode string, ds *dataset, useCTE bool) (string, bool) {
	switch mode {
	case "barrier":
		w := &writer{barrier: true}
		c.q.write(w)
		return w.sb.String(), true
	case "is-true":
		w := &writer{isTrue: true}
		c.q.write(w)
		return w.sb.String(), true
	}
	s, ok := c.q.(*selectQ)
	if !ok || len(s.from) == 0 {
		return "", false
	}
	out := s.cloneSelect()
	inner := &selectQ{from: out.from, limit: -1, offset: -1}
	if !useCTE {
		inner.offset = 0
	}
	// the columns of every relation of FROM become the inner query's c0, c1, …
	names := map[[2]string]string{}
	var addRel func(f fromItem) bool
	addRel = func(f fromItem) bool {
		switch x := f.(type) {
		case *tableRef:
			var cols []string
			var types []sqlType
			if x.isCTE {
				for _, w := range s.with {
					if w.name == x.table {
						for i, t := range w.q.outTypes() {
							cols = append(cols, fmt.Sprintf("c%d", i))
							types = append(types, t)
						}
					}
				}
			} else {
				t := ds.table(x.table)
				if t == nil {
					return false
				}
				for _, cd := range t.cols {
					cols = append(cols, cd.name)
					types = append(types, cd.t)
				}
			}
			for i, cn := range cols {
				names[[2]string{x.alias, cn}] = fmt.Sprintf("c%d", len(inner.items))
				inner.items = append(inner.items, item{e: &col{rel: x.alias, name: cn, t: types[i]}})
			}
		case *derived:
			for i, t := range x.q.outTypes() {
				cn := fmt.Sprintf("c%d", i)
				names[[2]string{x.alias, cn}] = fmt.Sprintf("c%d", len(inner.items))
				inner.items = append(inner.items, item{e: &col{rel: x.alias, name: cn, t: t}})
			}
		case *joinItem:
			return addRel(x.l) && addRel(x.r)
		}
		return true
	}
	for _, f := range out.from {
		if !addRel(f) {
			return "", false
		}
	}
	if len(inner.items) == 0 {
		return "", false
	}
	const rel = "rw"
	if useCTE {
		out.with = append(out.with, cte{name: "rw_from", q: inner, materialized: true})
		out.from = []fromItem{&tableRef{table: "rw_from", alias: rel, isCTE: true}}
	} else {
		out.from = []fromItem{&derived{q: inner, alias: rel}}
	}
	v := &visitor{expr: func(p *expr) {
		if c, ok := (*p).(*col); ok {
			if n, found := names[[2]string{c.rel, c.name}]; found {
				*p = &col{rel: rel, name: n, t: c.t}
			}
		}
	}}
	// only the outer query's clauses: the moved FROM keeps its own references
	for i := range out.items {
		v.walkExpr(&out.items[i].e)
	}
	if out.where != nil {
		v.walkExpr(&out.where)
	}
	for i := range out.groupBy {
		v.walkExpr(&out.groupBy[i])
	}
	if out.having != nil {
		v.walkExpr(&out.having)
	}
	for _, p := range orderPtrs(out.orderBy) {
		v.walkExpr(p)
	}
	return sqlOf(out), true
}

// dedupe reduces rows to a set, for DISTINCT queries under TLP: values equal but written
// differently (1 and 1.0 of a numeric whose scale varies, -0 and 0) count as one, as
// DISTINCT counts them.
func dedupe(rows [][]string, m []colMode) [][]string {
	seen := map[string]bool{}
	var out [][]string
	for _, r := range rows {
		key := slices.Clone(r)
		for j, c := range key {
			switch {
			case c == nullCell || j >= len(m):
			case m[j] == byValue:
				key[j] = canonNumeric(c)
			case m[j] == float || m[j] == approx:
				key[j] = fmt.Sprint(parseFloat(c) + 0) // -0 + 0 is 0
			}
		}
		k := fmt.Sprintf("%q", key)
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}
