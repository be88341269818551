package planner

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// sharedDerivedTables is the rule shared_derived_tables: derived tables
// written twice or more, word for word, in the FROM clauses of one
// statement become one WITH query that each of them reads, so the rows are
// computed once (a WITH query read several times is kept in memory).
// TPC-DS q65 aggregates the same year of store_sales per store and item
// in two derived tables, one of them inside a third.
//
// Only derived tables reached from the statement through FROM clauses
// count: there they cannot read an enclosing query's columns, so the WITH
// query means the same in every place. Anything volatile, LATERAL, a
// nested WITH (its names would not reach the statement's level) or a
// derived table without an alias is left alone. It returns a rewritten
// copy of sel, or sel itself when nothing is shared.
func sharedDerivedTables(sel *pg.SelectStmt) (*pg.SelectStmt, int) {
	// places in pre-order, each with the place it is inside (-1: none)
	type place struct {
		node   *pg.Node
		key    string
		parent int
	}
	var places []place
	count := map[string]int{}
	var visitSel func(s *pg.SelectStmt, top bool, parent int)
	var visitFrom func(n *pg.Node, parent int)
	visitFrom = func(n *pg.Node, parent int) {
		switch x := n.Node.(type) {
		case *pg.Node_JoinExpr:
			visitFrom(x.JoinExpr.Larg, parent)
			visitFrom(x.JoinExpr.Rarg, parent)
		case *pg.Node_RangeSubselect:
			rs := x.RangeSubselect
			sub := rs.Subquery.GetSelectStmt()
			if rs.Lateral || sub == nil || rs.Alias == nil || sub.WithClause != nil || callsVolatile(sub) {
				return
			}
			key := DeparseExpr(&pg.Node{Node: &pg.Node_SubLink{SubLink: &pg.SubLink{SubLinkType: pg.SubLinkType_EXPR_SUBLINK, Subselect: rs.Subquery}}})
			places = append(places, place{n, key, parent})
			count[key]++
			visitSel(sub, false, len(places)-1)
		}
	}
	visitSel = func(s *pg.SelectStmt, top bool, parent int) {
		if s == nil || (!top && s.WithClause != nil) {
			return
		}
		if s.Op != pg.SetOperation_SETOP_NONE {
			visitSel(s.Larg, false, parent)
			visitSel(s.Rarg, false, parent)
			return
		}
		for _, f := range s.FromClause {
			visitFrom(f, parent)
		}
	}
	visitSel(sel, true, -1)
	shared := 0
	for _, p := range places {
		if count[p.key] > 1 {
			shared++
		}
	}
	if shared == 0 {
		return sel, 0
	}
	// the rewrite works on a copy: the statement's tree may be planned
	// again (a prepared statement), and the places are found anew in it
	out := proto.Clone(sel).(*pg.SelectStmt)
	places, count = places[:0], map[string]int{}
	visitSel(out, true, -1)
	names := map[string]string{}
	var ctes []*pg.Node
	replaced := make([]bool, len(places))
	for i, p := range places {
		if p.parent >= 0 && replaced[p.parent] {
			replaced[i] = true // it went with its parent, into a WITH query or away
			continue
		}
		if count[p.key] < 2 {
			continue
		}
		replaced[i] = true
		rs := p.node.GetRangeSubselect()
		name, ok := names[p.key]
		if !ok {
			// a NUL cannot be written in SQL: no name of the user's meets it
			name = fmt.Sprintf("derived\x00%d", len(names)+1)
			names[p.key] = name
			ctes = append(ctes, &pg.Node{Node: &pg.Node_CommonTableExpr{CommonTableExpr: &pg.CommonTableExpr{
				Ctename: name, Ctequery: rs.Subquery, Location: -1}}})
		}
		p.node.Node = &pg.Node_RangeVar{RangeVar: &pg.RangeVar{Relname: name, Inh: true, Relpersistence: "p",
			Alias: rs.Alias, Location: -1}}
	}
	if out.WithClause == nil {
		out.WithClause = &pg.WithClause{Location: -1}
	}
	out.WithClause.Ctes = append(out.WithClause.Ctes, ctes...)
	return out, len(ctes)
}
