package difftest

import (
	"slices"
	"time"
)

// A difference is reported with the smallest query and data that still show it: the
// shrinker tries simpler forms one at a time (a clause dropped, a join replaced by one of
// its sides, an expression replaced by one of its operands or a constant) and keeps each one
// under which the same difference persists, until no simpler form does. Rows are dropped
// the same way afterwards, by halves, then quarters, down to single rows.
//
// No step may make a query's answer undefined, or a difference would "persist" for the
// wrong reason: the ORDER BY of a query with LIMIT, and ORDER BY lists inside windows and
// aggregates (the row keys that make row_number or string_agg defined), are left alone.

// slot is one position of a case's tree the shrinker may change.
type slot struct {
	e *expr
	q *query
	s *selectQ
	f *fromItem
}

func collectSlots(c *testCase) []slot {
	var out []slot
	frozen := map[*expr]bool{}
	freeze := func(items []orderItem) {
		for _, p := range orderPtrs(items) {
			v := &visitor{expr: func(p *expr) { frozen[p] = true }}
			v.walkExpr(p)
		}
	}
	v := &visitor{
		query: func(p *query) { out = append(out, slot{q: p}) },
		sel: func(s *selectQ) {
			out = append(out, slot{s: s})
			if s.limit >= 0 || s.offset >= 0 {
				freeze(s.orderBy)
			}
		},
		from: func(p *fromItem) { out = append(out, slot{f: p}) },
		expr: func(p *expr) {
			switch x := (*p).(type) {
			case *win:
				freeze(x.order)
			case *agg:
				freeze(x.order)
			}
			if !frozen[p] {
				out = append(out, slot{e: p})
			}
		},
	}
	v.walkQuery(&c.q)
	if c.pred != nil {
		v.walkExpr(&c.pred)
	}
	return out
}

// alternatives lists the simpler forms of what sl holds, simplest first. Coarse ones
// (a clause, a column, a join side or a whole expression gone) come at level 0: a first
// round of those removes most of a large query in few attempts; level 1 adds the fine
// ones (an expression replaced by one of its operands, a list shortened).
func alternatives(sl slot, level int) []func() {
	var alts []func()
	switch {
	case sl.q != nil:
		if so, ok := (*sl.q).(*setOp); ok {
			alts = append(alts, func() { *sl.q = so.l }, func() { *sl.q = so.r })
			if n := len(so.outTypes()); n > 1 {
				for i := 0; i < n; i++ {
					alts = append(alts, func() { dropColumn(so, i) })
				}
			}
		}
	case sl.s != nil:
		s := sl.s
		if len(s.with) > 0 {
			for i := range s.with {
				alts = append(alts, func() { s.with = slices.Delete(slices.Clone(s.with), i, i+1) })
			}
		}
		if len(s.from) > 1 {
			for i := range s.from {
				alts = append(alts, func() { s.from = slices.Delete(slices.Clone(s.from), i, i+1) })
			}
		}
		if len(s.from) > 0 {
			alts = append(alts, func() { s.from = nil })
		}
		if s.where != nil {
			alts = append(alts, func() { s.where = nil })
		}
		if s.having != nil {
			alts = append(alts, func() { s.having = nil })
		}
		if s.grouping != "" {
			alts = append(alts, func() { s.grouping, s.sets = "", nil })
		}
		if len(s.groupBy) > 0 {
			alts = append(alts, func() { s.groupBy, s.grouping, s.sets = nil, "", nil })
			if len(s.groupBy) > 1 {
				for i := range s.groupBy {
					alts = append(alts, func() { dropGroupKey(s, i) })
				}
			}
		}
		if s.limit >= 0 || s.offset >= 0 {
			alts = append(alts, func() { s.limit, s.offset = -1, -1 })
			if s.offset >= 0 {
				alts = append(alts, func() { s.offset = -1 })
			}
		} else if len(s.orderBy) > 0 {
			alts = append(alts, func() { s.orderBy = nil })
			if len(s.orderBy) > 1 {
				for i := range s.orderBy {
					alts = append(alts, func() { s.orderBy = slices.Delete(slices.Clone(s.orderBy), i, i+1) })
				}
			}
		}
		if s.distinct {
			alts = append(alts, func() { s.distinct = false })
		}
		if len(s.items) > 1 {
			for i := range s.items {
				alts = append(alts, func() { dropColumn(s, i) })
			}
		}
	case sl.f != nil:
		if j, ok := (*sl.f).(*joinItem); ok {
			alts = append(alts, func() { *sl.f = j.l }, func() { *sl.f = j.r })
			if level > 0 && j.kind != "JOIN" && j.kind != "CROSS JOIN" {
				alts = append(alts, func() { j.kind = "JOIN" })
			}
		}
	case sl.e != nil:
		x := *sl.e
		switch l := x.(type) {
		case *col:
		case *lit:
			if l.text == "true" || l.text == "false" || len(l.text) < 4 {
				return alts
			}
		default:
			for _, c := range simpleConstants(x.typ()) {
				alts = append(alts, func() { *sl.e = c })
			}
		}
		if level == 0 {
			return alts
		}
		if _, isCol := x.(*col); isCol {
			for _, c := range simpleConstants(x.typ()) {
				alts = append(alts, func() { *sl.e = c })
			}
		}
		fam := x.typ().k.family()
		for _, k := range x.kids() {
			if (*k).typ().k.family() == fam {
				k := *k
				alts = append(alts, func() { *sl.e = k })
			}
		}
		switch a := x.(type) {
		case *agg:
			if a.filter != nil {
				alts = append(alts, func() { a.filter = nil })
			}
			if a.distinct {
				alts = append(alts, func() { a.distinct = false })
			}
		case *win:
			if len(a.partition) > 0 {
				alts = append(alts, func() { a.partition = nil })
			}
			if a.frame != "" {
				alts = append(alts, func() { a.frame = "" })
			}
		case *caseE:
			if a.els != nil {
				alts = append(alts, func() { a.els = nil })
			}
			if len(a.whens) > 2 {
				for i := 0; i+1 < len(a.whens); i += 2 {
					alts = append(alts, func() { a.whens = slices.Delete(slices.Clone(a.whens), i, i+2) })
				}
			}
		case *fn:
			if (a.name == "COALESCE" || a.name == "concat") && len(a.args) > 2 {
				for i := range a.args {
					alts = append(alts, func() { a.args = slices.Delete(slices.Clone(a.args), i, i+1) })
				}
			}
		case *inList:
			if len(a.list) > 1 {
				for i := range a.list {
					alts = append(alts, func() { a.list = slices.Delete(slices.Clone(a.list), i, i+1) })
				}
			}
		}
	}
	return alts
}

// simpleConstants are the constants an expression of type t may be replaced by.
func simpleConstants(t sqlType) []expr {
	switch t.k.family() {
	case fBool:
		return []expr{&lit{text: "true", t: typ(kBool)}, &lit{text: "false", t: typ(kBool)}, nullOf(typ(kBool))}
	case fNum:
		return []expr{&lit{text: "0", t: sqlType{k: kInt}}, &lit{text: "1", t: sqlType{k: kInt}}, nullOf(t)}
	case fText:
		return []expr{exprLit(typ(kText), value{s: "a"}), nullOf(t)}
	}
	return []expr{exprLit(typ(kDate), value{s: "2000-01-01"}), nullOf(t)}
}

// dropColumn removes output column i of q (on both sides of a set operation) and renumbers
// the ORDER BY ordinals after it.
func dropColumn(q query, i int) {
	fix := func(order []orderItem) []orderItem {
		var out []orderItem
		for _, o := range order {
			switch {
			case o.e != nil || o.ord < i+1:
				out = append(out, o)
			case o.ord > i+1:
				o.ord--
				out = append(out, o)
			}
		}
		return out
	}
	switch x := q.(type) {
	case *selectQ:
		x.items = slices.Delete(slices.Clone(x.items), i, i+1)
		x.orderBy = fix(x.orderBy)
	case *setOp:
		dropColumn(x.l, i)
		dropColumn(x.r, i)
		x.orderBy = fix(x.orderBy)
	}
}

func dropGroupKey(s *selectQ, i int) {
	s.groupBy = slices.Delete(slices.Clone(s.groupBy), i, i+1)
	var sets [][]int
	for _, set := range s.sets {
		var ns []int
		for _, g := range set {
			switch {
			case g < i:
				ns = append(ns, g)
			case g > i:
				ns = append(ns, g-1)
			}
		}
		sets = append(sets, ns)
	}
	s.sets = sets
}

// shrinker bounds the work of one reduction.
type shrinker struct {
	deadline time.Time
	attempts int
	max      int
}

func (sh *shrinker) spent() bool {
	return sh.attempts >= sh.max || time.Now().After(sh.deadline)
}

// shrinkCase reduces c while persists holds. A pass tries every position in order; a
// position that took a simpler form is tried again before moving on. Coarse passes run
// until they change nothing, then a fine one; the fine one may open the way to more coarse
// steps.
func (sh *shrinker) shrinkCase(c *testCase, persists func(*testCase) bool) *testCase {
	cur := c
	text := func(c *testCase) string {
		if c.pred == nil {
			return sqlOf(c.q)
		}
		return sqlOf(c.q) + "\x00" + sqlOf(c.pred)
	}
	pass := func(level int) bool {
		changed := false
		for i := 0; i < len(collectSlots(cur)) && !sh.spent(); i++ {
			for j := 0; !sh.spent(); j++ {
				cand := cur.clone()
				slots := collectSlots(cand)
				if i >= len(slots) {
					break
				}
				alts := alternatives(slots[i], level)
				if j >= len(alts) {
					break
				}
				alts[j]()
				if text(cand) == text(cur) {
					continue
				}
				sh.attempts++
				if persists(cand) {
					cur, changed = cand, true
					j = -1 // the same position again, in its new form
				}
			}
		}
		return changed
	}
	for !sh.spent() {
		for pass(0) && !sh.spent() {
		}
		if !pass(1) {
			break
		}
	}
	return cur
}

// shrinkData reduces the rows (and columns and layout) of the tables c reads while
// persists holds; persists loads the candidate data itself.
func (sh *shrinker) shrinkData(c *testCase, ds *dataset, persists func(*dataset) bool) *dataset {
	used := tablesOf(c.q)
	cols := columnsOf(c)
	cur := &dataset{}
	for _, t := range ds.tables {
		if used[t.name] {
			cur.tables = append(cur.tables, t.clone())
		}
	}
	try := func(cand *dataset) bool {
		if sh.spent() {
			return false
		}
		sh.attempts++
		if persists(cand) {
			cur = cand
			return true
		}
		return false
	}
	// the columns the query does not name
	cand := cur.clone()
	for _, t := range cand.tables {
		keep := []int{0}
		for ci := 1; ci < len(t.cols); ci++ {
			if cols[t.cols[ci].name] {
				keep = append(keep, ci)
			}
		}
		t.project(keep)
	}
	try(cand)
	// every table empty: many differences need no rows at all
	cand = cur.clone()
	for _, t := range cand.tables {
		t.rows, t.part, t.pre, t.junk = nil, nil, nil, nil
	}
	try(cand)
	for ti := range cur.tables {
		// junk (deleted) rows, then the rows by halves, quarters, …
		if len(cur.tables[ti].junk) > 0 {
			cand := cur.clone()
			cand.tables[ti].junk = nil
			try(cand)
		}
		for chunk := max(1, len(cur.tables[ti].rows)); chunk >= 1 && !sh.spent(); chunk /= 2 {
			for start := 0; start < len(cur.tables[ti].rows) && !sh.spent(); {
				cand := cur.clone()
				cand.tables[ti].dropRows(start, start+chunk)
				if !try(cand) {
					start += chunk
				}
			}
			if chunk == 1 {
				break
			}
		}
		cand := cur.clone()
		cand.tables[ti].plain()
		try(cand)
	}
	return cur
}

// project keeps the columns at idx of the table (idx[0] is id).
func (t *table) project(idx []int) {
	pick := func(row []value) []value {
		if row == nil {
			return nil
		}
		out := make([]value, len(idx))
		for i, j := range idx {
			out[i] = row[j]
		}
		return out
	}
	var cols []colDef
	for _, j := range idx {
		cols = append(cols, t.cols[j])
	}
	t.cols = cols
	for i := range t.rows {
		t.rows[i] = pick(t.rows[i])
		t.pre[i] = pick(t.pre[i])
	}
	for i := range t.junk {
		t.junk[i] = pick(t.junk[i])
	}
}

func (t *table) dropRows(from, to int) {
	to = min(to, len(t.rows))
	t.rows = slices.Delete(t.rows, from, to)
	t.part = slices.Delete(t.part, from, to)
	t.pre = slices.Delete(t.pre, from, to)
}
