package sql

import (
	"errors"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/pgerr"
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
func (qc *queryCtx) outerJoin(j *pg.JoinExpr, where *wherePending) (src *source, inner bool, err error) {
	keep, null := j.Larg, j.Rarg
	if j.Jointype == pg.JoinType_JOIN_RIGHT {
		keep, null = j.Rarg, j.Larg
	}
	// nothing of WHERE may go below the join into the nullable side
	ns, err := qc.planJoinTree(null)
	if err != nil {
		return nil, false, err
	}
	if where != nil {
		for _, c := range where.conj {
			if rejectsNulls(c, ns) {
				return ns, true, nil
			}
		}
	}
	items, conj, err := qc.flattenFrom([]*pg.Node{keep}, where)
	if err != nil {
		return nil, false, err
	}
	if where != nil {
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
		}
		where.conj = rest
	}
	ks, err := qc.joinItems(items, conj)
	if err != nil {
		return nil, false, err
	}
	if j.Jointype == pg.JoinType_JOIN_RIGHT {
		src, err = qc.joinPlanned(j, ns, ks)
	} else {
		src, err = qc.joinPlanned(j, ks, ns)
	}
	return src, false, err
}

// planJoinTree plans one FROM entry with the inner joins in it ordered.
func (qc *queryCtx) planJoinTree(n *pg.Node) (*source, error) {
	items, conj, err := qc.flattenFrom([]*pg.Node{n}, nil)
	if err != nil {
		return nil, err
	}
	return qc.joinItems(items, conj)
}

// rejectsNulls reports whether conjunct c is false or NULL whenever the
// columns of src it reads are NULL: a comparison, IN, LIKE or IS NOT NULL
// with a bare column of src on one side.
func rejectsNulls(c *pg.Node, src *source) bool {
	var operands []*pg.Node
	switch {
	case c.GetAExpr() != nil:
		a := c.GetAExpr()
		switch a.Kind {
		case pg.A_Expr_Kind_AEXPR_OP:
			op := strNodes(a.Name)
			if len(op) == 0 || a.Lexpr == nil {
				return false
			}
			switch op[len(op)-1] {
			case "=", "<>", "!=", "<", ">", "<=", ">=", "~~", "!~~", "~~*":
			default:
				return false
			}
			operands = []*pg.Node{a.Lexpr, a.Rexpr}
		case pg.A_Expr_Kind_AEXPR_IN, pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE,
			pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
			operands = []*pg.Node{a.Lexpr}
		default:
			return false
		}
	case c.GetNullTest() != nil:
		nt := c.GetNullTest()
		if nt.Nulltesttype != pg.NullTestType_IS_NOT_NULL {
			return false
		}
		operands = []*pg.Node{nt.Arg}
	default:
		return false
	}
	for _, o := range operands {
		for o.GetTypeCast() != nil {
			o = o.GetTypeCast().Arg
		}
		cr := o.GetColumnRef()
		if cr == nil {
			continue
		}
		if t, col, ok := refNames(cr); ok && src.sc.resolves(t, col) {
			return true
		}
	}
	return false
}

// checkPushed reports an ambiguous column in a WHERE conjunct placed below
// an outer join: it was bound against the preserved side alone, while
// PostgreSQL resolves it against all of FROM.
func (qc *queryCtx) checkPushed(pushed []*pg.Node, sc *scope) error {
	b := qc.binder()
	for _, c := range pushed {
		for _, cr := range columnRefs(c) {
			if _, err := b.findColumn(sc, strNodes(cr.Fields), cr.Location); err != nil {
				var pe *pgerr.Error
				if errors.As(err, &pe) && pe.Code == pgerr.AmbiguousColumn {
					return err
				}
			}
		}
	}
	return nil
}
