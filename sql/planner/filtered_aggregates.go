package planner

import (
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// filteredAggregates is the rule filtered_aggregates: derived tables side
// by side in one FROM list that aggregate the same FROM into one row, and
// whose WHERE clauses differ only in some conjuncts, are computed by one
// scan. TPC-DS q88 counts store_sales in eight derived tables, one per
// half hour of the day, and q90 in two, one for the morning and one for
// the evening: each read the fact table and its joins again.
//
// Member i, SELECT agg(…), … FROM f WHERE c AND e_i, becomes
// SELECT (SELECT agg(…) FILTER (WHERE e_i) FROM f WHERE c AND (e_1 OR … OR
// e_n)), …: every member's subqueries then have the same FROM and WHERE,
// and the rule shared_subqueries runs them as one query (subquery_shared.go).
// An aggregate of no rows is the same with FILTER as with WHERE, and a row
// counts in member i exactly when c and e_i hold, so each value is what the
// member computed alone.
//
// A member is a plain SELECT of aggregate calls (count, sum, avg, min, max,
// without DISTINCT, FILTER, ORDER BY or OVER) over a FROM clause, with
// nothing volatile and no subquery; the rewrite needs shared_subqueries,
// which leaves a statement with WITH queries alone, and so does this rule.
// It returns a rewritten copy of sel, or sel itself, and how many derived
// tables it rewrote.
func filteredAggregates(sel *pg.SelectStmt) (*pg.SelectStmt, int) {
	hasWith := false
	EachMessage(sel.ProtoReflect(), func(m protoreflect.Message) {
		if _, ok := m.Interface().(*pg.WithClause); ok {
			hasWith = true
		}
	})
	if hasWith {
		return sel, 0
	}
	var visit func(s *pg.SelectStmt, apply bool) int
	visit = func(s *pg.SelectStmt, apply bool) int {
		if s == nil {
			return 0
		}
		n := visit(s.Larg, apply) + visit(s.Rarg, apply)
		groups := map[string][]*pg.RangeSubselect{}
		var keys []string
		for _, item := range s.FromClause {
			rs := item.GetRangeSubselect()
			if rs == nil {
				continue
			}
			sub := rs.Subquery.GetSelectStmt()
			if rs.Lateral || !aggregateOnly(sub) {
				n += visit(sub, apply)
				continue
			}
			key := deparseFrom(sub.FromClause)
			if _, ok := groups[key]; !ok {
				keys = append(keys, key)
			}
			groups[key] = append(groups[key], rs)
		}
		for _, key := range keys {
			if members := groups[key]; len(members) > 1 {
				if apply {
					shareFilteredAggregates(members)
				}
				n += len(members)
			}
		}
		return n
	}
	// look first, then rewrite a copy: the statement may be planned again
	if visit(sel, false) == 0 {
		return sel, 0
	}
	out := proto.Clone(sel).(*pg.SelectStmt)
	return out, visit(out, true)
}

// aggregateOnly reports whether sub is a member filteredAggregates takes.
func aggregateOnly(sub *pg.SelectStmt) bool {
	if sub == nil || sub.Op != pg.SetOperation_SETOP_NONE || len(sub.FromClause) == 0 || len(sub.TargetList) == 0 ||
		sub.WithClause != nil || sub.IntoClause != nil || len(sub.DistinctClause) > 0 || len(sub.GroupClause) > 0 ||
		sub.HavingClause != nil || len(sub.WindowClause) > 0 || len(sub.SortClause) > 0 || sub.LimitCount != nil ||
		sub.LimitOffset != nil || len(sub.LockingClause) > 0 || len(sub.ValuesLists) > 0 || callsVolatile(sub) ||
		hasSubLink(sub.WhereClause) {
		return false
	}
	for _, f := range sub.FromClause {
		if hasSubLink(f) {
			return false
		}
	}
	for _, t := range sub.TargetList {
		rt := t.GetResTarget()
		if rt == nil || rt.Val == nil {
			return false
		}
		fc := rt.Val.GetFuncCall()
		if fc == nil || len(fc.Funcname) != 1 || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 ||
			fc.AggWithinGroup || fc.Over != nil || fc.FuncVariadic || hasSubLink(rt.Val) {
			return false
		}
		switch strings.ToLower(fc.Funcname[0].GetString_().GetSval()) {
		case "count", "sum", "avg", "min", "max":
		default:
			return false
		}
	}
	return true
}

// deparseFrom is a FROM list's text, the members' grouping key: its items
// in any order, as the members select aggregates only, which the order of
// the items does not change (the merged query takes the first member's).
func deparseFrom(from []*pg.Node) string {
	parts := make([]string, len(from))
	for i, f := range from {
		parts[i] = DeparseExpr(&pg.Node{Node: &pg.Node_SubLink{SubLink: &pg.SubLink{SubLinkType: pg.SubLinkType_EXISTS_SUBLINK,
			Subselect: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{FromClause: []*pg.Node{f},
				Op: pg.SetOperation_SETOP_NONE, LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT}}}}}})
	}
	slices.Sort(parts)
	return strings.Join(parts, "\x00")
}

// conjuncts splits a WHERE clause at its top-level ANDs.
func conjuncts(n *pg.Node) []*pg.Node {
	if n == nil {
		return nil
	}
	if b := n.GetBoolExpr(); b != nil && b.Boolop == pg.BoolExprType_AND_EXPR {
		var out []*pg.Node
		for _, a := range b.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []*pg.Node{n}
}

func boolOf(op pg.BoolExprType, args []*pg.Node) *pg.Node {
	if len(args) == 1 {
		return args[0]
	}
	return &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: op, Args: args, Location: -1}}}
}

// shareFilteredAggregates rewrites members, derived tables over the same
// FROM, as described at filteredAggregates.
func shareFilteredAggregates(members []*pg.RangeSubselect) {
	type split struct {
		texts []string
		nodes []*pg.Node
	}
	splits := make([]split, len(members))
	for i, m := range members {
		for _, c := range conjuncts(m.Subquery.GetSelectStmt().WhereClause) {
			splits[i].nodes = append(splits[i].nodes, c)
			splits[i].texts = append(splits[i].texts, DeparseExpr(c))
		}
	}
	// the common conjuncts: those of the first member every other has
	var common []*pg.Node
	var commonText []string
	for j, t := range splits[0].texts {
		all := !slices.Contains(commonText, t)
		for _, s := range splits[1:] {
			all = all && slices.Contains(s.texts, t)
		}
		if all {
			common, commonText = append(common, splits[0].nodes[j]), append(commonText, t)
		}
	}
	// each member's own conditions; a member with none reads every row
	own := make([]*pg.Node, len(members))
	var anyOf []*pg.Node
	everyRow := false
	for i, s := range splits {
		var rest []*pg.Node
		for j, t := range s.texts {
			if !slices.Contains(commonText, t) {
				rest = append(rest, s.nodes[j])
			}
		}
		if len(rest) == 0 {
			everyRow = true
			continue
		}
		own[i] = boolOf(pg.BoolExprType_AND_EXPR, rest)
		anyOf = append(anyOf, own[i])
	}
	where := common
	if !everyRow {
		where = append(slices.Clone(common), boolOf(pg.BoolExprType_OR_EXPR, anyOf))
	}
	from := members[0].Subquery.GetSelectStmt().FromClause
	for i, m := range members {
		sub := m.Subquery.GetSelectStmt()
		var targets []*pg.Node
		for _, t := range sub.TargetList {
			rt := t.GetResTarget()
			fc := proto.Clone(rt.Val.GetFuncCall()).(*pg.FuncCall)
			if own[i] != nil {
				fc.AggFilter = proto.Clone(own[i]).(*pg.Node)
			}
			inner := &pg.SelectStmt{
				TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: &pg.Node{Node: &pg.Node_FuncCall{FuncCall: fc}}, Location: -1}}}},
				Op:         pg.SetOperation_SETOP_NONE, LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT,
			}
			for _, f := range from {
				inner.FromClause = append(inner.FromClause, proto.Clone(f).(*pg.Node))
			}
			if len(where) > 0 {
				inner.WhereClause = proto.Clone(boolOf(pg.BoolExprType_AND_EXPR, where)).(*pg.Node)
			}
			sl := &pg.Node{Node: &pg.Node_SubLink{SubLink: &pg.SubLink{SubLinkType: pg.SubLinkType_EXPR_SUBLINK,
				Subselect: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: inner}}, Location: -1}}}
			targets = append(targets, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Name: TargetName(rt), Val: sl, Location: rt.Location}}})
		}
		m.Subquery = &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{TargetList: targets,
			Op: pg.SetOperation_SETOP_NONE, LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT}}}
	}
}
