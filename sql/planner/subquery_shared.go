package planner

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Uncorrelated scalar subqueries that read the same rows — the same FROM and
// WHERE, differing only in the one value they select — run as one query that
// selects all their values. TPC-DS q9 has fifteen such subqueries over
// store_sales through five filters: five scans instead of fifteen.
//
// The grouping is decided on the statement's text before planning; whether a
// group may run as one is decided when its first member is bound: the merged
// query must be uncorrelated there, which means every name in it resolves
// inside the shared FROM, so each member means the same in its own place.
// A statement with WITH queries is left alone, since a name in FROM could
// then mean a WITH query in one place and a table in another.

// SharedScalars is a group of subqueries computed together.
type SharedScalars struct {
	Sel    *pg.SelectStmt      // the shared FROM and WHERE, every member's value
	col    map[*pg.SubLink]int // which value of sel is each member's
	run    bool                // sel was tried
	row    *vec.Batch          // its one row (N is 0 for no row); nil: members run alone
	colTyp []types.T
}

// GroupScalarSubqueries finds the groups of two or more uncorrelated-looking
// scalar subqueries in stmt with the same FROM and WHERE.
func GroupScalarSubqueries(stmt proto.Message) map[*pg.SubLink]*SharedScalars {
	var subs []*pg.SubLink
	hasWith := false
	EachMessage(stmt.ProtoReflect(), func(m protoreflect.Message) { // sql/views.go
		switch n := m.Interface().(type) {
		case *pg.WithClause:
			hasWith = true
		case *pg.SubLink:
			if shareable(n) {
				subs = append(subs, n)
			}
		}
	})
	if hasWith || len(subs) < 2 {
		return nil
	}
	byRows := map[string][]*pg.SubLink{}
	var order []string
	for _, sl := range subs {
		sel := sl.Subselect.GetSelectStmt()
		rows := proto.Clone(sel).(*pg.SelectStmt)
		rows.TargetList = nil
		key := DeparseExpr(&pg.Node{Node: &pg.Node_SubLink{SubLink: &pg.SubLink{SubLinkType: pg.SubLinkType_EXISTS_SUBLINK,
			Subselect: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: rows}}}}})
		if _, ok := byRows[key]; !ok {
			order = append(order, key)
		}
		byRows[key] = append(byRows[key], sl)
	}
	groups := map[*pg.SubLink]*SharedScalars{}
	for _, key := range order {
		members := byRows[key]
		if len(members) < 2 {
			continue
		}
		first := members[0].Subselect.GetSelectStmt()
		g := &SharedScalars{Sel: &pg.SelectStmt{FromClause: first.FromClause, WhereClause: first.WhereClause,
			Op: pg.SetOperation_SETOP_NONE, LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT}, col: map[*pg.SubLink]int{}}
		byValue := map[string]int{}
		for _, sl := range members {
			t := sl.Subselect.GetSelectStmt().TargetList[0]
			v := DeparseExpr(t.GetResTarget().Val)
			c, ok := byValue[v]
			if !ok {
				c = len(g.Sel.TargetList)
				byValue[v] = c
				g.Sel.TargetList = append(g.Sel.TargetList, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: t.GetResTarget().Val}}})
			}
			g.col[sl] = c
			groups[sl] = g
		}
	}
	return groups
}

// shareable: a scalar subquery that is a plain SELECT of one value from
// something, with nothing volatile and no subquery of its own.
func shareable(sl *pg.SubLink) bool {
	if sl.SubLinkType != pg.SubLinkType_EXPR_SUBLINK {
		return false
	}
	sel := sl.Subselect.GetSelectStmt()
	if sel == nil || sel.Op != pg.SetOperation_SETOP_NONE || len(sel.TargetList) != 1 || len(sel.FromClause) == 0 ||
		sel.WithClause != nil || sel.IntoClause != nil || len(sel.DistinctClause) > 0 || len(sel.GroupClause) > 0 ||
		sel.HavingClause != nil || len(sel.WindowClause) > 0 || len(sel.SortClause) > 0 || sel.LimitCount != nil ||
		sel.LimitOffset != nil || len(sel.LockingClause) > 0 || len(sel.ValuesLists) > 0 {
		return false
	}
	rt := sel.TargetList[0].GetResTarget()
	if rt == nil || rt.Val == nil {
		return false
	}
	if cr := rt.Val.GetColumnRef(); cr != nil && len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
		return false // * may stand for several columns
	}
	return !callsVolatile(sel) && !hasSubLink(rt.Val)
}

// sharedScalar is sl's value from its group's query, run when the group's
// first member is bound; ok is false when the group cannot run as one there
// and sl runs alone.
func (qc *QueryCtx) sharedScalar(g *SharedScalars, sl *pg.SubLink, sc *Scope) (exec.Expr, bool, error) {
	if !g.run {
		g.run = true
		q, ok, err := qc.standaloneIn(g.Sel, sc)
		if err != nil || !ok {
			return nil, false, nil // alone, each member gives its own answer or error
		}
		rows, err := qc.runSubquery(q)
		if err != nil {
			return nil, false, err
		}
		if rows.N > 1 {
			return nil, false, pgerr.New(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
		}
		g.row = rows
		qc.fired(ruleSharedSubqueries)
		for _, c := range q.Cols {
			t := c.Type
			if t.ID == types.Unknown {
				t = types.TextT
			}
			g.colTyp = append(g.colTyp, t)
		}
	}
	if g.row == nil {
		return nil, false, nil
	}
	c := g.col[sl]
	if g.row.N == 0 {
		return exec.NullConst(g.colTyp[c]), true, nil
	}
	return exec.ParamConst(g.row.Vecs[c]), true, nil
}
