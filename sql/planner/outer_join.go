package planner

import (
	"errors"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/sql/planner/optimize"
	"github.com/lakepg/lakepg/sql/planner/physical"
	"github.com/lakepg/lakepg/sql/planner/rewrite"
)

// wherePending are the WHERE conjuncts of a query not yet placed while its
// FROM is planned, and those placed below an outer join.
type wherePending struct {
	conj   []*pg.Node
	pushed []*pg.Node
}

// reorderableOuter is a LEFT or RIGHT join whose sides can be planned
// apart and joined by outerJoin: no USING or NATURAL (merged columns), no
// alias over the join, no LATERAL side.
func reorderableOuter(j *pg.JoinExpr) bool {
	if j.Jointype != pg.JoinType_JOIN_LEFT && j.Jointype != pg.JoinType_JOIN_RIGHT {
		return false
	}
	if len(j.UsingClause) > 0 || j.IsNatural || j.Alias != nil {
		return false
	}
	for _, side := range []*pg.Node{j.Larg, j.Rarg} {
		if rs := side.GetRangeSubselect(); rs != nil && rs.Lateral {
			return false
		}
		if rf := side.GetRangeFunction(); rf != nil && rf.Lateral {
			return false
		}
	}
	return true
}

// outerJoin plans a LEFT or RIGHT join so that both sides get a join
// order of their own (inner joins below an outer join are flattened and
// ordered like the FROM list) and WHERE conjuncts over the preserved side
// alone filter it before the join, as they would after it: the join keeps
// every preserved row and adds none. When a WHERE conjunct rejects the
// NULLs the join adds for the other side, the join is an inner join:
// inner is then true and src is only the planned nullable side, for the
// caller to join with the preserved side and the ON condition freely.
func (qc *QueryCtx) outerJoin(j *pg.JoinExpr, where *wherePending) (src *Source, inner bool, err error) {
	keep, null := j.Larg, j.Rarg
	if j.Jointype == pg.JoinType_JOIN_RIGHT {
		keep, null = j.Rarg, j.Larg
	}
	// nothing of WHERE may go below the join into the nullable side, only
	// what it implies there through the ON condition
	var implied []*pg.Node
	if where != nil && qc.ruleOn(ruleImpliedCondition) {
		if implied = rewrite.ImpliedConstants(splitAnd(j.Quals), where.conj); len(implied) > 0 {
			qc.fired(ruleImpliedCondition)
		}
	}
	ns, err := qc.planJoinTreeWith(null, implied)
	if err != nil {
		return nil, false, err
	}
	if where != nil && qc.ruleOn(ruleOuterToInner) {
		for _, c := range where.conj {
			if rewrite.RejectsNulls(c, ns.Sc.Resolves) {
				qc.fired(ruleOuterToInner)
				return ns, true, nil
			}
		}
	}
	items, conj, err := qc.flattenFrom([]*pg.Node{keep}, where)
	if err != nil {
		return nil, false, err
	}
	if where != nil && qc.ruleOn(RuleOuterPushdown) {
		all := append(slices.Clone(items), ns)
		var rest []*pg.Node
		for _, c := range where.conj {
			refs, outer := refItems(c, all)
			if outer || len(refs) == 0 || refs[len(items)] || hasSubLink(c) {
				rest = append(rest, c)
				continue
			}
			conj = append(conj, c)
			where.pushed = append(where.pushed, c)
			qc.fired(RuleOuterPushdown)
		}
		where.conj = rest
	}
	ks, err := qc.joinItems(items, conj)
	if err != nil {
		return nil, false, err
	}
	if j.Jointype == pg.JoinType_JOIN_RIGHT {
		src, err = qc.joinPlanned(j, ns, ks)
		return src, false, err
	}
	anti := qc.antiJoinConjunct(j, where, ks, ns)
	if src, err = qc.joinPlanned(j, ks, ns); err != nil || anti < 0 {
		return src, false, err
	}
	// the join as the anti join outer_join_to_anti makes, a node the rules
	// over the FROM list see (outer_join_reorder)
	if jn, ok := src.node.(*logical.Join); ok && src.op == src.nodeOp && len(jn.LeftKeys) > 0 {
		node := optimize.AntiJoin(jn)
		if src.op, err = physical.Build(qc.env, node); err != nil {
			return nil, false, err
		}
		src.node, src.nodeOp = node, src.op
		where.conj = slices.Delete(where.conj, anti, anti+1)
		qc.fired(ruleOuterToAnti)
	}
	return src, false, nil
}

// antiJoinConjunct finds the WHERE conjunct col IS NULL (rule
// outer_join_to_anti) where col is a column of the nullable side of the
// LEFT JOIN j that an equality of its ON condition compares: every row the
// join matches has col non-NULL, so WHERE keeps exactly the preserved rows
// that matched nothing, with the nullable side NULL. -1 for none.
func (qc *QueryCtx) antiJoinConjunct(j *pg.JoinExpr, where *wherePending, keep, null *Source) int {
	if where == nil || !qc.ruleOn(ruleOuterToAnti) {
		return -1
	}
	for i, c := range where.conj {
		nt := c.GetNullTest()
		if nt == nil || nt.Nulltesttype != pg.NullTestType_IS_NULL || nt.Arg.GetColumnRef() == nil {
			continue
		}
		t, name, ok := refNames(nt.Arg.GetColumnRef())
		if !ok || !null.Sc.Resolves(t, name) || keep.Sc.Resolves(t, name) {
			continue
		}
		col := DeparseExpr(nt.Arg)
		for _, q := range splitAnd(j.Quals) {
			if !isEquality(q) {
				continue
			}
			if a := q.GetAExpr(); DeparseExpr(a.Lexpr) == col || DeparseExpr(a.Rexpr) == col {
				return i
			}
		}
	}
	return -1
}

// planJoinTreeWith plans one FROM entry with the inner joins in it
// ordered, filtered by implied: conditions that hold for every row of it
// that can matter (rewrite.ImpliedConstants), placed where they filter most (into
// subqueries too) or dropped where they cannot be placed.
func (qc *QueryCtx) planJoinTreeWith(n *pg.Node, implied []*pg.Node) (*Source, error) {
	pending := &wherePending{conj: implied}
	items, conj, err := qc.flattenFrom([]*pg.Node{n}, pending)
	if err != nil {
		return nil, err
	}
	for _, c := range pending.conj {
		if refs, outer := refItems(c, items); !outer && len(refs) > 0 {
			conj = append(conj, c)
		}
	}
	return qc.joinItems(items, conj)
}

// checkPushed reports an ambiguous column in a WHERE conjunct placed below
// an outer join: it was bound against the preserved side alone, while
// PostgreSQL resolves it against all of FROM.
func (qc *QueryCtx) checkPushed(pushed []*pg.Node, sc *Scope) error {
	b := qc.binder()
	for _, c := range pushed {
		for _, cr := range columnRefs(c) {
			if _, err := b.FindColumn(sc, StrNodes(cr.Fields), cr.Location); err != nil {
				var pe *pgerr.Error
				if errors.As(err, &pe) && pe.Code == pgerr.AmbiguousColumn {
					return err
				}
			}
		}
	}
	return nil
}
