package planner

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner/bind"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

// query is a planned SELECT: the root operator and its visible columns.
type query struct {
	Op   exec.Operator
	Cols []Column
	// node is the logical plan Op was built from (nil: none), which a
	// query read as a FROM item brings into the plan reading it
	node  logical.Node
	scans []*exec.TableScan // for EXPLAIN
	// chains maps each parallel pipeline to the serial plan it replaced (EXPLAIN)
	chains map[*exec.Parallel]exec.Operator
	// joins and rulesFired: the planner's join orderings and rewrites (rules.go)
	joins      []joinBlock
	rulesFired map[string]int
}

// Source is a planned FROM clause.
type Source struct {
	op    exec.Operator
	Sc    *Scope
	scans []*exec.TableScan
	Ref   *TableRef // set for a single base table
	rows  float64   // estimated row count, for join ordering
	// node is the logical plan of op when op is still what it built
	// (nodeOp): an explicit JOIN, for the rules over its FROM list
	node   logical.Node
	nodeOp exec.Operator
}

// planSimple plans a SELECT without set operations: the SELECT block up
// to its select list into operators, its tail (DISTINCT, ORDER BY, LIMIT)
// as logical nodes over them.
func (s *Session) planSimple(qc *QueryCtx, sel *pg.SelectStmt) (*logicalQuery, error) {
	env := qc.env
	p := qc.params
	b := qc.binder()
	src, err := qc.planFromWhere(sel.FromClause, sel.WhereClause)
	if err != nil {
		return nil, err
	}
	sc := src.Sc
	if sel.WhereClause != nil {
		if err := b.OuterAggInWhere(sel.WhereClause, sc); err != nil { // bind/outer_agg.go
			return nil, err
		}
	}

	// expand the target list
	type target struct {
		node *pg.Node
		name string
		col  int            // >= 0 for expanded stars: scope column
		orig bind.ColOrigin // a plain column of a lake table
	}
	var targets []target
	for _, t := range sel.TargetList {
		rt := t.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			qual := ""
			if len(cr.Fields) > 1 {
				qual = cr.Fields[len(cr.Fields)-2].GetString_().Sval
			}
			n := 0
			for i, c := range sc.Cols {
				if qual == "" && !c.Hidden || qual != "" && c.Table == qual && !c.System {
					if c.Used != nil {
						*c.Used = true
					}
					targets = append(targets, target{name: c.Name, col: i, orig: c.Orig})
					n++
				}
			}
			if qual != "" && n == 0 {
				return nil, ErrAt(pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table \"%s\"", qual), cr.Location)
			}
			if qual == "" && len(sc.Cols) == 0 && len(sel.FromClause) == 0 {
				return nil, ErrAt(pgerr.New(pgerr.SyntaxError, "SELECT * with no tables specified is not valid"), cr.Location)
			}
			continue
		}
		tg := target{node: rt.Val, name: TargetName(rt), col: -1}
		if cr := rt.Val.GetColumnRef(); cr != nil {
			// a bare column keeps its origin; errors are the binding's to report
			if i, err := b.FindColumn(sc, StrNodes(cr.Fields), -1); err == nil {
				tg.orig = sc.Cols[i].Orig
			}
		}
		targets = append(targets, tg)
	}
	if t := qc.DmlTarget; t != nil && t.Sel == sel && t.Returning {
		// the FROM items' columns, for the RETURNING list (sql/dml_join.go)
		for i, c := range sc.Cols {
			if c.Table == t.Alias || c.System {
				continue
			}
			if c.Used != nil {
				*c.Used = true
			}
			targets = append(targets, target{name: c.Name, col: i, orig: c.Orig})
			t.Extras = append(t.Extras, c)
		}
	}

	names := make([]string, len(targets))
	origins := make([]bind.ColOrigin, len(targets))
	for i, t := range targets {
		names[i], origins[i] = t.name, t.orig
	}
	wc := &bind.WindowCollector{Named: map[string]*pg.WindowDef{}}
	for _, w := range sel.WindowClause {
		if d := w.GetWindowDef(); d != nil {
			wc.Named[d.Name] = d
		}
	}
	hasAgg := len(sel.GroupClause) > 0 || sel.HavingClause != nil
	for _, t := range targets {
		if t.node != nil && ContainsAgg(t.node) {
			hasAgg = true
		}
	}
	for _, sb := range sel.SortClause {
		if ContainsAgg(sb.GetSortBy().Node) {
			hasAgg = true
		}
	}
	// aggregates of this query inside its subqueries group it too (bind/outer_agg.go)
	outerAggs := b.OuterAggregates(sel, sc)
	if outerAggs != nil {
		hasAgg = true
	}

	// outExprs are bound against the scope of `op` after this block
	var outExprs []exec.Expr
	var bindOut func(n *pg.Node) (exec.Expr, error)
	var targetNodes []*pg.Node
	for _, t := range targets {
		if t.node != nil {
			targetNodes = append(targetNodes, t.node)
		}
	}
	orderNodes := make([]*pg.Node, 0, len(sel.SortClause))
	for _, sb := range sel.SortClause {
		orderNodes = append(orderNodes, sb.GetSortBy().Node)
	}
	if calls := srfCalls(targetNodes); len(calls) > 0 && hasAgg {
		return nil, errSRFWithAggregates(calls[0].Location)
	}
	if hasAgg {
		// correlated subqueries inside aggregate arguments run per input row
		if src, err = qc.prepareAggregateSubLinks(src, sel); err != nil { // apply_plan.go
			return nil, err
		}
		sc = src.Sc
		coll := &bind.AggCollector{}
		// group keys: ordinals and output names refer to the target list
		resolveGroup := func(g *pg.Node) (*pg.Node, error) {
			gn := g
			if c := g.GetAConst(); c != nil && c.GetIval() != nil {
				k := int(c.GetIval().Ival)
				if k < 1 || k > len(targets) {
					return nil, ErrAt(pgerr.New(pgerr.InvalidColumnReference, "GROUP BY position %d is not in select list", k), c.Location)
				}
				if targets[k-1].node == nil {
					gn = ColRefNode(sc.Cols[targets[k-1].col])
				} else {
					gn = targets[k-1].node
				}
			} else if cr := g.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
				name := cr.Fields[0].GetString_().Sval
				if _, err := b.FindColumn(sc, []string{name}, -1); err != nil {
					for _, t := range targets {
						if t.name == name && t.node != nil {
							gn = t.node
							break
						}
					}
				}
			}
			return gn, nil
		}
		groupNodes, sets, err := expandGroupBy(sel.GroupClause, resolveGroup)
		if err != nil {
			return nil, err
		}
		coll.Sets = sets
		for _, gn := range groupNodes {
			gb := qc.binder()
			gb.NoAggMsg = "aggregate functions are not allowed in GROUP BY"
			e, err := gb.Bind(gn, sc)
			if err != nil {
				return nil, err
			}
			coll.GroupKeys = append(coll.GroupKeys, DeparseExpr(gn))
			col := -1
			if cr, ok := e.(*exec.ColRef); ok {
				col = cr.Idx
			}
			coll.GroupCols = append(coll.GroupCols, col)
			coll.Groups = append(coll.Groups, e)
		}
		{
			var nodes []*pg.Node // the select list as nodes, stars as columns
			var cols []int
			for _, t := range targets {
				if t.node == nil {
					cols = append(cols, t.col)
				} else {
					nodes = append(nodes, t.node)
				}
			}
			qc.addDependentGroups(coll, sc, sel, nodes, cols) // groupby_pk.go
		}
		pb := &postBinder{Binder: Binder{Sess: s, Env: env, Params: p, Aggs: coll, Qc: qc, Win: wc}, coll: coll, in: sc}
		bindOut = pb.BindPost
		windowTests, err := qc.windowTestSubLinks(append(targetNodes[:len(targetNodes):len(targetNodes)], orderNodes...), sc)
		if err != nil {
			return nil, err
		}
		grouped, err := qc.prepareGroupedSubLinks(sel, sc, coll, &pb.Binder, outerAggs) // apply_plan.go
		if err != nil {
			return nil, err
		}
		late, err := qc.planWindowTests(windowTests, grouped.sc, grouped.beyond, pb.BindPost)
		if err != nil {
			return nil, err
		}
		for _, t := range targets {
			var e exec.Expr
			var err error
			if t.node == nil {
				e, err = pb.BindPost(ColRefNode(sc.Cols[t.col]))
			} else {
				e, err = pb.BindPost(t.node)
			}
			if err != nil {
				return nil, err
			}
			outExprs = append(outExprs, e)
		}
		var having exec.Expr
		if sel.HavingClause != nil {
			pb.Win = nil
			h, err := pb.BindPost(sel.HavingClause)
			pb.Win = wc
			if err != nil {
				return nil, err
			}
			if having, err = b.CoerceBool(h, sel.HavingClause, "argument of HAVING"); err != nil {
				return nil, err
			}
		}
		// ORDER BY expressions may add aggregates; bind them before building the agg
		sortExprs, sortKeys, err := s.bindOrder(sel, names, outExprs, bindOut)
		if err != nil {
			return nil, err
		}
		agg, err := qc.aggregateNode(coll, itemNode(src))
		if err != nil {
			return nil, err
		}
		// everything bound over the groups may hold the placeholders for the
		// grouping id and for grouped subqueries: the select list, ORDER BY,
		// HAVING, and the window functions' inputs (their PARTITION BY,
		// ORDER BY and arguments, which run over the aggregate's output too)
		tests := late.tests()
		above := [][]exec.Expr{outExprs, sortExprs, wc.Exprs, tests}
		if coll.Gid != nil {
			remap := func(i int) int {
				if i == gidRef {
					return coll.Gid.Idx
				}
				return i
			}
			for _, l := range above {
				for i, e := range l {
					l[i] = exec.MapColumns(e, remap)
				}
			}
			if having != nil {
				having = exec.MapColumns(having, remap)
			}
		}
		// the correlated subqueries over the groups, then HAVING, then the
		// windows
		rows, err := grouped.nodes(agg, above, &having)
		if err != nil {
			return nil, err
		}
		if having != nil {
			rows = &logical.Filter{Input: rows, Pred: having}
		}
		// the windows, then the subqueries testing a window call's value
		if rows, err = qc.windowNode(sel, wc, rows, outExprs, sortExprs, tests); err != nil {
			return nil, err
		}
		late.setTests(tests)
		if rows, err = late.nodes(rows, [][]exec.Expr{outExprs, sortExprs}, &having); err != nil {
			return nil, err
		}
		q, err := qc.finishNode(sel, b, rows, names, outExprs, sortExprs, sortKeys, src.scans, bindOut)
		return withOrigins(q, err, origins)
	}
	if src, err = qc.prepareSRFs(src, targetNodes); err != nil {
		return nil, err
	}
	windowTests, err := qc.windowTestSubLinks(append(targetNodes[:len(targetNodes):len(targetNodes)], orderNodes...), src.Sc)
	if err != nil {
		return nil, err
	}
	for _, t := range targets {
		if t.node != nil && hasSubLink(t.node) {
			if src, err = qc.prepareScalarSubLinks(src, t.node); err != nil {
				return nil, err
			}
		}
	}
	for _, n := range orderNodes {
		if hasSubLink(n) {
			if src, err = qc.prepareScalarSubLinks(src, n); err != nil {
				return nil, err
			}
		}
	}
	sc = src.Sc
	b.Win = wc
	late, err := qc.planWindowTests(windowTests, sc, nil, func(n *pg.Node) (exec.Expr, error) { return b.Bind(n, sc) })
	if err != nil {
		return nil, err
	}
	bindOut = func(n *pg.Node) (exec.Expr, error) { return b.Bind(n, sc) }
	for _, t := range targets {
		if t.node == nil {
			outExprs = append(outExprs, &exec.ColRef{Idx: t.col, T: sc.Cols[t.col].T})
			continue
		}
		e, err := b.Bind(t.node, sc)
		if err != nil {
			return nil, err
		}
		outExprs = append(outExprs, e)
	}
	sortExprs, sortKeys, err := s.bindOrder(sel, names, outExprs, bindOut)
	if err != nil {
		return nil, err
	}
	// the windows, then the subqueries testing a window call's value
	tests := late.tests()
	rows, err := qc.windowNode(sel, wc, itemNode(src), outExprs, sortExprs, tests)
	if err != nil {
		return nil, err
	}
	late.setTests(tests)
	var noHaving exec.Expr
	if rows, err = late.nodes(rows, [][]exec.Expr{outExprs, sortExprs}, &noHaving); err != nil {
		return nil, err
	}
	q, err := qc.finishNode(sel, b, rows, names, outExprs, sortExprs, sortKeys, src.scans, bindOut)
	return withOrigins(q, err, origins)
}

func ColRefNode(c ScopeCol) *pg.Node {
	fields := []*pg.Node{}
	if c.Table != "" {
		fields = append(fields, pg.MakeStrNode(c.Table))
	}
	fields = append(fields, pg.MakeStrNode(c.Name))
	return &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: fields, Location: -1}}}
}

// bindOrder binds ORDER BY items: output ordinals, output names, or
// expressions over the input. Returns extra hidden expressions appended
// after the outputs and the sort keys over outputs+hidden.
func (s *Session) bindOrder(sel *pg.SelectStmt, names []string, outs []exec.Expr, bindOut func(*pg.Node) (exec.Expr, error)) ([]exec.Expr, []order.SortKey, error) {
	var hidden []exec.Expr
	var keys []order.SortKey
	for _, item := range sel.SortClause {
		sb := item.GetSortBy()
		col := -1
		if c := sb.Node.GetAConst(); c != nil && c.GetIval() != nil {
			k := int(c.GetIval().Ival)
			if k < 1 || k > len(outs) {
				return nil, nil, ErrAt(pgerr.New(pgerr.InvalidColumnReference, "ORDER BY position %d is not in select list", k), c.Location)
			}
			col = k - 1
		} else if cr := sb.Node.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			name := cr.Fields[0].GetString_().Sval
			for i, n := range names {
				if n == name {
					if col >= 0 {
						return nil, nil, ErrAt(pgerr.New(pgerr.AmbiguousColumn, "ORDER BY \"%s\" is ambiguous", name), cr.Location)
					}
					col = i
				}
			}
		}
		if col < 0 {
			e, err := bindOut(sb.Node)
			if err != nil {
				return nil, nil, err
			}
			col = len(outs) + len(hidden)
			hidden = append(hidden, e)
		}
		desc := sb.SortbyDir == pg.SortByDir_SORTBY_DESC
		if sb.SortbyDir == pg.SortByDir_SORTBY_USING {
			// the btree operators of every type lakepg sorts: < is ASC, > DESC
			switch op := StrNodes(sb.UseOp); op[len(op)-1] {
			case "<":
			case ">":
				desc = true
			default:
				e := pgerr.New("42809", "operator %s is not a valid ordering operator", op[len(op)-1])
				e.Hint = "Ordering operators must be \"<\" or \">\" members of btree operator families."
				return nil, nil, ErrAt(e, sb.Location)
			}
		}
		nullsFirst := desc
		switch sb.SortbyNulls {
		case pg.SortByNulls_SORTBY_NULLS_FIRST:
			nullsFirst = true
		case pg.SortByNulls_SORTBY_NULLS_LAST:
			nullsFirst = false
		}
		keys = append(keys, order.SortKey{Col: col, Desc: desc, NullsFirst: nullsFirst})
	}
	return hidden, keys, nil
}

// finishNode is the tail of a SELECT block over its rows (in): the
// projection of the select list (outs) and the hidden ORDER BY
// expressions, DISTINCT or DISTINCT ON, ORDER BY (keys over outs+hidden),
// LIMIT / OFFSET, and the projection dropping the hidden columns.
func (qc *QueryCtx) finishNode(sel *pg.SelectStmt, b *Binder, in logical.Node, names []string, outs, hidden []exec.Expr, keys []order.SortKey, scans []*exec.TableScan, bindD func(*pg.Node) (exec.Expr, error)) (*logicalQuery, error) {
	// unknown-typed outputs (bare string literals) become text, as PostgreSQL does
	for i, e := range outs {
		if e.Type().ID == types.Unknown {
			outs[i], _ = b.Cast(e, types.TextT, false, -1)
		}
	}
	if len(sel.DistinctClause) > 0 && (sel.DistinctClause[0] == nil || sel.DistinctClause[0].Node == nil) && len(hidden) > 0 {
		if k, ok := sortByOutputs(outs, hidden, keys); ok {
			keys, hidden = k, nil
		}
	}
	all := append(append([]exec.Expr{}, outs...), hidden...)
	distinctOn := len(sel.DistinctClause) > 0 && sel.DistinctClause[0] != nil && sel.DistinctClause[0].Node != nil
	n := in
	if !distinctOn {
		n = logical.NewProject(in, all, names)
	}
	if distinctOn {
		// DISTINCT ON (exprs): sort by the ORDER BY (which must start with
		// the exprs), then keep each group's first row
		var dkeys []int
		for _, dn := range sel.DistinctClause {
			k := -1
			if c := dn.GetAConst(); c != nil && c.GetIval() != nil {
				k = int(c.GetIval().Ival) - 1
			} else if bindD != nil {
				e, err := bindD(dn)
				if err != nil {
					return nil, err
				}
				k = len(all)
				all = append(all, e)
			}
			if k < 0 || k >= len(all) {
				return nil, pgerr.New(pgerr.InvalidColumnReference, "SELECT DISTINCT ON position is not in select list")
			}
			dkeys = append(dkeys, k)
		}
		n = logical.NewProject(in, all, names)
		sortKeys := logicalKeys(keys)
		if len(sortKeys) == 0 {
			for _, k := range dkeys {
				sortKeys = append(sortKeys, logical.SortKey{Col: k})
			}
		}
		n = &logical.DistinctOn{Input: &logical.Sort{Input: n, Keys: sortKeys}, Keys: dkeys}
		keys = nil
		hidden = all[len(outs):]
	} else if len(sel.DistinctClause) > 0 {
		if len(hidden) > 0 {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
		}
		n = &logical.Distinct{Input: n}
	}
	if len(keys) > 0 {
		n = &logical.Sort{Input: n, Keys: logicalKeys(keys)}
	}
	if sel.LimitCount != nil || sel.LimitOffset != nil {
		lim := &logical.Limit{Input: n, Count: -1}
		var err error
		if sel.LimitCount != nil {
			if lim.Count, err = qc.s.constInt(b, sel.LimitCount, "LIMIT", true); err != nil {
				return nil, err
			}
		}
		if sel.LimitOffset != nil {
			if lim.Offset, err = qc.s.constInt(b, sel.LimitOffset, "OFFSET", false); err != nil {
				return nil, err
			}
		}
		if sel.LimitOption == pg.LimitOption_LIMIT_OPTION_WITH_TIES {
			if len(keys) == 0 {
				return nil, pgerr.New(pgerr.SyntaxError, "WITH TIES cannot be specified without ORDER BY clause")
			}
			lim.TieKeys = make([]int, len(keys))
			for i, k := range keys {
				lim.TieKeys[i] = k.Col
			}
		}
		n = lim
	}
	if len(hidden) > 0 {
		proj := make([]exec.Expr, len(outs))
		for i, e := range outs {
			proj[i] = &exec.ColRef{Idx: i, T: e.Type()}
		}
		n = logical.NewProject(n, proj, names)
	}
	cols := make([]Column, len(outs))
	for i, e := range outs {
		cols[i] = Column{Name: names[i], Type: e.Type(), Rec: bind.RecordFields(e)}
	}
	return &logicalQuery{node: n, cols: cols, scans: scans}, nil
}

func logicalKeys(keys []order.SortKey) []logical.SortKey {
	lk := make([]logical.SortKey, len(keys))
	for i, k := range keys {
		lk[i] = logical.SortKey{Col: k.Col, Desc: k.Desc, NullsFirst: k.NullsFirst}
	}
	return lk
}

func (s *Session) constInt(b *Binder, n *pg.Node, what string, allowNull bool) (int64, error) {
	if c := n.GetAConst(); c != nil && c.Isnull && allowNull {
		return -1, nil
	}
	e, err := b.Bind(n, &Scope{})
	if err != nil {
		return 0, err
	}
	if e, err = b.Cast(e, types.Int64T, false, NodeLoc(n)); err != nil {
		return 0, err
	}
	v, err := e.Eval(b.Env, &vec.Batch{N: 1})
	if err != nil {
		return 0, err
	}
	if v.IsNull(0) {
		if allowNull {
			return -1, nil
		}
		return 0, nil
	}
	if v.I64[0] < 0 {
		code := "2201W"
		if what == "OFFSET" {
			code = "2201X"
		}
		return 0, pgerr.New(code, "%s must not be negative", what)
	}
	return v.I64[0], nil
}

func (s *Session) planValues(b *Binder, lists []*pg.Node) (*query, error) {
	var rows [][]exec.Expr
	width := -1
	for _, l := range lists {
		items := l.GetList().Items
		if width >= 0 && len(items) != width {
			return nil, pgerr.New(pgerr.SyntaxError, "VALUES lists must all be the same length")
		}
		width = len(items)
		var row []exec.Expr
		for _, it := range items {
			e, err := b.Bind(it, &Scope{})
			if err != nil {
				return nil, err
			}
			row = append(row, e)
		}
		rows = append(rows, row)
	}
	ts := make([]types.T, width)
	cols := make([]Column, width)
	for c := 0; c < width; c++ {
		var col []exec.Expr
		for _, r := range rows {
			col = append(col, r[c])
		}
		t, err := bind.CommonType(col, "VALUES", -1)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if r[c], err = b.Cast(r[c], t, false, -1); err != nil {
				return nil, err
			}
		}
		ts[c] = t
		cols[c] = Column{Name: "column" + Itoa(c+1), Type: t}
	}
	return &query{Op: &exec.Values{Env: b.Env, Rows: rows, T: ts}, Cols: cols}, nil
}

func TargetName(rt *pg.ResTarget) string {
	if rt.Name != "" {
		return rt.Name
	}
	return exprName(rt.Val)
}

func exprName(n *pg.Node) string {
	name, strength := figureName(n)
	if strength == 0 {
		return "?column?"
	}
	return name
}

// figureName is PostgreSQL's FigureColname: the name an expression gives
// its column and how strongly (0: none, ?column?; 1: a type's name or
// "case", which an enclosing cast or CASE replaces; 2: a column's,
// function's or subquery column's name, even ?column?, which they keep).
func figureName(n *pg.Node) (string, int) {
	switch x := n.Node.(type) {
	case *pg.Node_ColumnRef:
		f := x.ColumnRef.Fields[len(x.ColumnRef.Fields)-1]
		if s := f.GetString_(); s != nil {
			return s.Sval, 2
		}
	case *pg.Node_FuncCall:
		names := StrNodes(x.FuncCall.Funcname)
		return names[len(names)-1], 2
	case *pg.Node_TypeCast:
		if name, strength := figureName(x.TypeCast.Arg); strength == 2 {
			return name, 2
		}
		names := StrNodes(x.TypeCast.TypeName.Names)
		return names[len(names)-1], 1
	case *pg.Node_CaseExpr:
		// named after its ELSE result when that has a name of its own
		if d := x.CaseExpr.Defresult; d != nil {
			if name, strength := figureName(d); strength == 2 {
				return name, 2
			}
		}
		return "case", 1
	case *pg.Node_CoalesceExpr:
		return "coalesce", 2
	case *pg.Node_MinMaxExpr:
		if x.MinMaxExpr.Op == pg.MinMaxOp_IS_LEAST {
			return "least", 2
		}
		return "greatest", 2
	case *pg.Node_GroupingFunc:
		return "grouping", 2
	case *pg.Node_AArrayExpr:
		return "array", 2
	case *pg.Node_RowExpr:
		return "row", 2
	case *pg.Node_SqlvalueFunction:
		return strings.ToLower(strings.TrimPrefix(x.SqlvalueFunction.Op.String(), "SVFOP_")), 2
	case *pg.Node_AExpr:
		if x.AExpr.Kind == pg.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif", 2
		}
	case *pg.Node_AIndirection:
		// (record).field is named after the field, arr[i] after arr
		ind := x.AIndirection.Indirection
		if s := ind[len(ind)-1].GetString_(); s != nil {
			return s.Sval, 2
		}
		return figureName(x.AIndirection.Arg)
	case *pg.Node_SubLink:
		switch x.SubLink.SubLinkType {
		case pg.SubLinkType_EXISTS_SUBLINK:
			return "exists", 2
		case pg.SubLinkType_ARRAY_SUBLINK:
			return "array", 2
		case pg.SubLinkType_EXPR_SUBLINK:
			sel := x.SubLink.Subselect.GetSelectStmt()
			for sel != nil && sel.Op != pg.SetOperation_SETOP_NONE {
				sel = sel.Larg // a set operation's columns are named by its first branch
			}
			if sel != nil && len(sel.TargetList) == 1 {
				return TargetName(sel.TargetList[0].GetResTarget()), 2
			}
		}
	}
	return "", 0
}

// postBinder binds expressions above an aggregation: group keys and
// aggregates become references to the aggregate's output.
type postBinder struct {
	Binder
	coll *bind.AggCollector
	in   *Scope
}

func (pb *postBinder) BindPost(n *pg.Node) (exec.Expr, error) {
	key := DeparseExpr(n)
	for i, k := range pb.coll.GroupKeys {
		if k == key {
			return &exec.ColRef{Idx: i, T: pb.coll.Groups[i].Type()}, nil
		}
	}
	if gf := n.GetGroupingFunc(); gf != nil {
		return pb.bindGrouping(gf.Args, gf.Location)
	}
	if cr := n.GetColumnRef(); cr != nil {
		var names []string
		for _, f := range cr.Fields {
			if f.GetString_() != nil {
				names = append(names, f.GetString_().Sval)
			}
		}
		idx, err := pb.FindColumn(pb.in, names, cr.Location)
		if err != nil {
			if e, ok, oerr := pb.OuterColumn(names, cr.Location, err); ok || oerr != nil {
				return e, oerr // an enclosing query's value (apply_plan.go)
			}
			return nil, err
		}
		for i, gc := range pb.coll.GroupCols {
			if gc == idx {
				return &exec.ColRef{Idx: i, T: pb.coll.Groups[i].Type()}, nil
			}
		}
		c := pb.in.Cols[idx]
		name := c.Name
		if c.Table != "" {
			name = c.Table + "." + c.Name
		}
		return nil, ErrAt(pgerr.New(pgerr.GroupingError, "column \"%s\" must appear in the GROUP BY clause or be used in an aggregate function", name), cr.Location)
	}
	if f := n.GetFuncCall(); f != nil {
		if bind.IsAggregate(FuncName(f)) && f.Over == nil {
			return pb.coll.Add(&pb.Binder, f, pb.in)
		}
	}
	// any other expression: bind its children through bindPost by
	// rebinding with a scope-less binder whose leaves resolve here
	return pb.bindComposite(n)
}

// bindComposite binds n with the regular binder, but with column references
// and aggregates resolved through bindPost.
func (pb *postBinder) bindComposite(n *pg.Node) (exec.Expr, error) {
	b := pb.Binder
	b.Post = pb
	return b.Bind(n, pb.in)
}

// Intercepts reports whether BindPost must resolve n itself.
func (pb *postBinder) Intercepts(n *pg.Node) bool {
	if n.GetGroupingFunc() != nil {
		return true
	}
	if n.GetColumnRef() != nil {
		return true
	}
	if f := n.GetFuncCall(); f != nil {
		if bind.IsAggregate(FuncName(f)) && f.Over == nil {
			return true
		}
	}
	key := DeparseExpr(n)
	for _, k := range pb.coll.GroupKeys {
		if k == key {
			return true
		}
	}
	return false
}

// withOrigins sets the result columns' origins of a planned SELECT list.
func withOrigins(q *logicalQuery, err error, origins []bind.ColOrigin) (*logicalQuery, error) {
	if err != nil {
		return nil, err
	}
	for i := range q.cols {
		if i < len(origins) {
			q.cols[i].TableOID, q.cols[i].Attnum = origins[i].Rel, origins[i].Att
		}
	}
	return q, nil
}
