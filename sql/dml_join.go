package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner"
	"github.com/lakepg/lakepg/types"
)

// UPDATE … FROM and UPDATE/DELETE whose SET or WHERE hold a correlated
// subquery are planned as a SELECT over the target table: the target's scan
// (with its position columns) is one FROM item, so the FROM items join it
// and the subqueries are decorrelated into joins exactly as in a SELECT
// (planner/plan_subquery.go). The query returns, per changed row, the new values of
// every column followed by the row's file ordinal, position and row id,
// which is the layout modify's plain plan produces.

// posColumns name the scan's WithPos columns in the target's scope; the
// NUL byte keeps them out of reach of SQL names.
var posColumns = []string{"\x00file", "\x00pos", "\x00rowid"}

// needsJoinedModify reports whether an UPDATE/DELETE needs the joined plan:
// FROM items, or a correlated subquery in SET or WHERE (an uncorrelated one
// runs once in the plain plan).
func needsJoinedModify(qc *planner.QueryCtx, from []*pg.Node, where *pg.Node, set []*pg.Node) (bool, error) {
	if len(from) > 0 {
		return true, nil
	}
	nodes := []*pg.Node{where}
	for _, tn := range set {
		nodes = append(nodes, tn.GetResTarget().Val)
	}
	for _, n := range nodes {
		var links []*pg.SubLink
		planner.Walk(n, func(x *pg.Node) bool {
			if sl := x.GetSubLink(); sl != nil {
				links = append(links, sl)
				return false
			}
			return true
		})
		for _, sl := range links {
			sel := sl.Subselect.GetSelectStmt()
			if sel == nil {
				continue
			}
			if _, ok, err := qc.Standalone(sel); err != nil {
				return false, err
			} else if !ok {
				return true, nil
			}
		}
	}
	return false, nil
}

// planJoinedModify plans the changed rows (see above). newVals are the new
// column values over the returned operator, nil for DELETE; fileOrd maps the
// scan's file ordinal to the index in the target's catalog file list (the
// query may have pruned files from the scan). With returning, a DELETE's
// rows carry the old values of the columns, and every row carries the FROM
// items' columns after the position columns: extras describes them.
func (s *Session) planJoinedModify(b *planner.Binder, src *planner.Source, rv *pg.RangeVar, alias string, from []*pg.Node, where *pg.Node, set []*pg.Node, returning bool) (exec.Operator, []exec.Expr, func(int) int, []planner.ScopeCol, error) {
	qc := b.Qc.(*planner.QueryCtx)
	ref := src.Ref
	scan := ref.Scan
	ncols := len(scan.Cols)
	for _, n := range posColumns {
		src.Sc.Cols = append(src.Sc.Cols, planner.ScopeCol{Table: alias, Name: n, T: types.Int64T, Hidden: true})
	}
	assign, err := setTargets(scan.Cols, set, ref.Table.Name)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	resTarget := func(n *pg.Node) *pg.Node {
		return &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n, Location: -1}}}
	}
	// a bare literal or parameter takes the column's type, as in PostgreSQL
	// (a query's output would make it text): bound apart from the query
	direct := func(rt *pg.ResTarget) bool {
		return rt != nil && (rt.Val.GetAConst() != nil || rt.Val.GetParamRef() != nil || rt.Val.GetSetToDefault() != nil)
	}
	var tl []*pg.Node
	for i, c := range scan.Cols {
		var val *pg.Node
		switch rt := assign[i]; {
		case set == nil && !returning:
			val = &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Isnull: true, Location: -1}}}
		case rt != nil && !direct(rt):
			if planner.ContainsAgg(rt.Val) {
				return nil, nil, nil, nil, planner.ErrAt(pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in UPDATE"), planner.NodeLoc(rt.Val))
			}
			val = rt.Val
		default:
			val = planner.ColRefNode(planner.ScopeCol{Table: alias, Name: c.Name})
		}
		tl = append(tl, resTarget(val))
	}
	for _, n := range posColumns {
		tl = append(tl, resTarget(planner.ColRefNode(planner.ScopeCol{Table: alias, Name: n})))
	}
	self := &pg.Node{Node: &pg.Node_RangeVar{RangeVar: rv}}
	sel := &pg.SelectStmt{TargetList: tl, FromClause: append([]*pg.Node{self}, from...), WhereClause: where, Op: pg.SetOperation_SETOP_NONE}
	tgt := &planner.DmlTarget{Rv: rv, Src: src, Sel: sel, Alias: alias, Returning: returning}
	qc.DmlTarget = tgt
	if u := s.upsert; u != nil {
		// ON CONFLICT DO UPDATE's proposed rows (upsert.go), MERGE's source
		// rows (merge.go)
		qc.Ctes = append(qc.Ctes, map[string]*planner.CteDef{u.name: {Name: u.name, Written: u.excluded}})
	}
	q, err := qc.PlanSelect(sel)
	qc.DmlTarget = nil
	if err != nil {
		return nil, nil, nil, nil, err
	}
	op := q.Op
	if len(from) > 0 {
		// a target row joined to several FROM rows changes once; PostgreSQL
		// too uses one of the joined rows
		pos := []order.SortKey{{Col: ncols}, {Col: ncols + 1}}
		op = &exec.DistinctOn{Input: &order.Sort{Input: op, Keys: pos}, Keys: []int{ncols, ncols + 1}}
	}
	var newVals []exec.Expr
	if set != nil {
		newVals = make([]exec.Expr, ncols)
		for i, c := range scan.Cols {
			rt := assign[i]
			var e exec.Expr = &exec.ColRef{Idx: i, T: q.Cols[i].Type}
			loc := int32(-1)
			switch {
			case rt != nil && rt.Val.GetSetToDefault() != nil:
				if newVals[i], err = s.defaultExpr(b, ref.Table.Columns[i], c.T); err != nil {
					op.Close()
					return nil, nil, nil, nil, err
				}
				continue
			case direct(rt):
				if e, err = b.Bind(rt.Val, &planner.Scope{}); err != nil {
					op.Close()
					return nil, nil, nil, nil, err
				}
			}
			if rt != nil {
				loc = planner.NodeLoc(rt.Val)
			}
			if newVals[i], err = b.CoerceAssign(e, c.T, c.Name, loc); err != nil {
				op.Close()
				return nil, nil, nil, nil, err
			}
		}
	}
	var ord []int
	fileOrd := func(f int) int {
		if ord == nil {
			// scan.Files is final once planned; ref.scanFiles is the unpruned list
			at := map[string]int{}
			for i, sf := range ref.ScanFiles {
				at[sf.Path] = i
			}
			ord = make([]int, len(scan.Files))
			for j, sf := range scan.Files {
				ord[j] = at[sf.Path]
			}
		}
		return ord[f]
	}
	return op, newVals, fileOrd, tgt.Extras, nil
}

// setTargets checks SET's targets against the table's columns and returns
// each column's assignment (nil when not assigned).
func setTargets(cols []exec.ScanCol, set []*pg.Node, table string) ([]*pg.ResTarget, error) {
	out := make([]*pg.ResTarget, len(cols))
	for _, tn := range set {
		rt := tn.GetResTarget()
		ci := -1
		for i, c := range cols {
			if c.Name == rt.Name {
				ci = i
			}
		}
		if ci < 0 {
			return nil, planner.ErrAt(pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, table), rt.Location)
		}
		if len(rt.Indirection) > 0 {
			return nil, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "subfield assignment is not supported"), rt.Location)
		}
		if out[ci] != nil {
			return nil, planner.ErrAt(pgerr.New(pgerr.SyntaxError, "multiple assignments to same column \"%s\"", rt.Name), rt.Location)
		}
		out[ci] = rt
	}
	return out, nil
}

// checkFromNames refuses a FROM (USING) item named like the target, as
// PostgreSQL does (42712): the target's columns would be ambiguous.
func checkFromNames(alias string, from []*pg.Node) error {
	var visit func(n *pg.Node) error
	visit = func(n *pg.Node) error {
		name, loc := "", int32(-1)
		switch x := n.Node.(type) {
		case *pg.Node_RangeVar:
			name, loc = x.RangeVar.Relname, x.RangeVar.Location
			if x.RangeVar.Alias != nil {
				name = x.RangeVar.Alias.Aliasname
			}
		case *pg.Node_RangeSubselect:
			if x.RangeSubselect.Alias != nil {
				name = x.RangeSubselect.Alias.Aliasname
			}
		case *pg.Node_RangeFunction:
			if x.RangeFunction.Alias != nil {
				name = x.RangeFunction.Alias.Aliasname
			}
		case *pg.Node_JoinExpr:
			if a := x.JoinExpr.Alias; a != nil {
				name = a.Aliasname
				break
			}
			if err := visit(x.JoinExpr.Larg); err != nil {
				return err
			}
			return visit(x.JoinExpr.Rarg)
		}
		if name == alias {
			return planner.ErrAt(pgerr.New(pgerr.DuplicateAlias, "table name \"%s\" specified more than once", name), loc)
		}
		return nil
	}
	for _, n := range from {
		if err := visit(n); err != nil {
			return err
		}
	}
	return nil
}
