package difftest

// visitor is called for every position of a query tree, parents before children. A callback
// may replace what its position holds; the walk then goes into the new node.
type visitor struct {
	expr  func(p *expr)
	query func(p *query)
	sel   func(s *selectQ)
	from  func(p *fromItem)
}

func (v *visitor) walkQuery(p *query) {
	if v.query != nil {
		v.query(p)
	}
	switch q := (*p).(type) {
	case *selectQ:
		v.walkSelect(q)
	case *setOp:
		v.walkQuery(&q.l)
		v.walkQuery(&q.r)
	}
}

func (v *visitor) walkSelect(s *selectQ) {
	if v.sel != nil {
		v.sel(s)
	}
	for i := range s.with {
		v.walkQuery(&s.with[i].q)
	}
	for i := range s.items {
		v.walkExpr(&s.items[i].e)
	}
	for i := range s.from {
		v.walkFrom(&s.from[i])
	}
	if s.where != nil {
		v.walkExpr(&s.where)
	}
	for i := range s.groupBy {
		v.walkExpr(&s.groupBy[i])
	}
	if s.having != nil {
		v.walkExpr(&s.having)
	}
	for _, p := range orderPtrs(s.orderBy) {
		v.walkExpr(p)
	}
}

func (v *visitor) walkFrom(p *fromItem) {
	if v.from != nil {
		v.from(p)
	}
	switch f := (*p).(type) {
	case *joinItem:
		v.walkFrom(&f.l)
		v.walkFrom(&f.r)
		if f.on != nil {
			v.walkExpr(&f.on)
		}
	case *derived:
		v.walkQuery(&f.q)
	}
}

func (v *visitor) walkExpr(p *expr) {
	if v.expr != nil {
		v.expr(p)
	}
	for _, k := range (*p).kids() {
		v.walkExpr(k)
	}
	if s, ok := (*p).(*subq); ok {
		v.walkQuery(&s.q)
	}
}

// anyExpr reports whether some expression of q passes f.
func anyExpr(q query, f func(expr) bool) bool {
	found := false
	v := &visitor{expr: func(p *expr) {
		if !found && f(*p) {
			found = true
		}
	}}
	v.walkQuery(&q)
	return found
}

// sumsFloats reports whether q sums floats over rows anywhere, so that an overflow error
// on one side only may be the order of summation.
func sumsFloats(q query) bool {
	return anyExpr(q, func(x expr) bool {
		switch a := x.(type) {
		case *agg:
			return a.t.approx
		case *win:
			return a.t.approx
		}
		return false
	})
}

// tablesOf lists the base tables q reads.
func tablesOf(q query) map[string]bool {
	out := map[string]bool{}
	v := &visitor{from: func(p *fromItem) {
		if t, ok := (*p).(*tableRef); ok && !t.isCTE {
			out[t.table] = true
		}
	}}
	v.walkQuery(&q)
	return out
}

// columnsOf lists the column names q references.
func columnsOf(c *testCase) map[string]bool {
	out := map[string]bool{}
	v := &visitor{expr: func(p *expr) {
		if c, ok := (*p).(*col); ok {
			out[c.name] = true
		}
	}}
	v.walkQuery(&c.q)
	if c.pred != nil {
		v.walkExpr(&c.pred)
	}
	return out
}
