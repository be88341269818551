package rewrite

import (
	"math/big"
	"sort"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/sql/planner/bind"
)

// MergeOrRanges is the rule or_ranges: an OR whose branches each bound one
// and the same column by numeric constants (BETWEEN, <, <=, =, >=, >, or
// an AND of those) is the union of their ranges; when that union is one
// range, it is written as one condition. TPC-DS q13 and q48 filter
// store_sales by OR'ed price and profit ranges that touch end to end
// ([50,100] ∪ [100,150] ∪ [150,200]): one BETWEEN is one check per row
// where the OR was three, and it prunes row groups. Both forms are NULL
// for a NULL column, so the rewrite holds in any condition; ok is false
// when the OR has another shape.
func MergeOrRanges(c *pg.Node) (*pg.Node, bool) {
	be := c.GetBoolExpr()
	if be == nil || be.Boolop != pg.BoolExprType_OR_EXPR || len(be.Args) < 2 {
		return nil, false
	}
	var col *pg.Node
	var key string
	var ranges []valueRange
	for _, a := range be.Args {
		var r valueRange
		first := true
		for _, x := range SplitAnd(a) {
			cr, ok := rangeOf(x)
			if !ok {
				return nil, false
			}
			k := bind.DeparseExpr(cr.col)
			if col == nil {
				col, key = cr.col, k
			} else if k != key {
				return nil, false
			}
			if first {
				r, first = cr.valueRange, false
			} else {
				r = r.intersect(cr.valueRange)
			}
		}
		ranges = append(ranges, r)
	}
	u, ok := unionOne(ranges)
	if !ok || (u.lo == nil && u.hi == nil) {
		return nil, false
	}
	return u.condition(col, be.Location), true
}

// valueRange is an interval of a column's values with constant ends; nil
// is unbounded. loNode and hiNode are the constants as written.
type valueRange struct {
	lo, hi         *big.Rat
	loIncl, hiIncl bool
	loNode, hiNode *pg.Node
	empty          bool
}

type colRange struct {
	col *pg.Node
	valueRange
}

// rangeOf reads a comparison of a column with numeric constants.
func rangeOf(x *pg.Node) (colRange, bool) {
	a := x.GetAExpr()
	if a == nil {
		return colRange{}, false
	}
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_BETWEEN:
		bounds := a.Rexpr.GetList().GetItems()
		if a.Lexpr.GetColumnRef() == nil || len(bounds) != 2 {
			return colRange{}, false
		}
		lo, okLo := numericConst(bounds[0])
		hi, okHi := numericConst(bounds[1])
		if !okLo || !okHi {
			return colRange{}, false
		}
		return colRange{col: a.Lexpr, valueRange: valueRange{lo: lo, hi: hi, loIncl: true, hiIncl: true, loNode: bounds[0], hiNode: bounds[1]}}, true
	case pg.A_Expr_Kind_AEXPR_OP:
		op := bind.StrNodes(a.Name)
		if len(op) != 1 {
			return colRange{}, false
		}
		colNode, k := a.Lexpr, a.Rexpr
		o := op[0]
		if colNode.GetColumnRef() == nil {
			colNode, k = a.Rexpr, a.Lexpr
			o = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}[o]
		}
		v, ok := numericConst(k)
		if colNode.GetColumnRef() == nil || !ok {
			return colRange{}, false
		}
		r := valueRange{}
		switch o {
		case "=":
			r = valueRange{lo: v, hi: v, loIncl: true, hiIncl: true, loNode: k, hiNode: k}
		case ">", ">=":
			r = valueRange{lo: v, loIncl: o == ">=", loNode: k}
		case "<", "<=":
			r = valueRange{hi: v, hiIncl: o == "<=", hiNode: k}
		default:
			return colRange{}, false
		}
		return colRange{col: colNode, valueRange: r}, true
	}
	return colRange{}, false
}

// numericConst reads an integer or decimal literal.
func numericConst(n *pg.Node) (*big.Rat, bool) {
	c := n.GetAConst()
	if c == nil || c.Isnull {
		return nil, false
	}
	switch v := c.Val.(type) {
	case *pg.A_Const_Ival:
		return new(big.Rat).SetInt64(int64(v.Ival.Ival)), true
	case *pg.A_Const_Fval:
		return new(big.Rat).SetString(v.Fval.Fval)
	}
	return nil, false
}

// intersect is r ∩ s.
func (r valueRange) intersect(s valueRange) valueRange {
	if s.lo != nil && (r.lo == nil || s.lo.Cmp(r.lo) > 0 || (s.lo.Cmp(r.lo) == 0 && !s.loIncl)) {
		r.lo, r.loIncl, r.loNode = s.lo, s.loIncl, s.loNode
	}
	if s.hi != nil && (r.hi == nil || s.hi.Cmp(r.hi) < 0 || (s.hi.Cmp(r.hi) == 0 && !s.hiIncl)) {
		r.hi, r.hiIncl, r.hiNode = s.hi, s.hiIncl, s.hiNode
	}
	if r.lo != nil && r.hi != nil {
		c := r.lo.Cmp(r.hi)
		r.empty = r.empty || c > 0 || (c == 0 && !(r.loIncl && r.hiIncl))
	}
	return r
}

// unionOne is the union of rs when it is one interval. Empty ranges add
// nothing; if all are empty there is no single range to write.
func unionOne(rs []valueRange) (valueRange, bool) {
	var live []valueRange
	for _, r := range rs {
		if !r.empty {
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return valueRange{}, false
	}
	// by lower end, unbounded first, an included end before an excluded one
	sort.SliceStable(live, func(i, j int) bool {
		a, b := live[i], live[j]
		if a.lo == nil || b.lo == nil {
			return a.lo == nil && b.lo != nil
		}
		if c := a.lo.Cmp(b.lo); c != 0 {
			return c < 0
		}
		return a.loIncl && !b.loIncl
	})
	u := live[0]
	for _, r := range live[1:] {
		if u.hi == nil {
			break
		}
		c := r.lo.Cmp(u.hi)
		if c > 0 || (c == 0 && !u.hiIncl && !r.loIncl) {
			return valueRange{}, false // a gap
		}
		if r.hi == nil {
			u.hi, u.hiIncl, u.hiNode = nil, false, nil
			continue
		}
		if d := r.hi.Cmp(u.hi); d > 0 || (d == 0 && r.hiIncl) {
			u.hi, u.hiIncl, u.hiNode = r.hi, r.hiIncl, r.hiNode
		}
	}
	return u, true
}

// condition writes the range as a condition on col.
func (r valueRange) condition(col *pg.Node, loc int32) *pg.Node {
	if r.lo != nil && r.hi != nil && r.loIncl && r.hiIncl {
		return &pg.Node{Node: &pg.Node_AExpr{AExpr: &pg.A_Expr{Kind: pg.A_Expr_Kind_AEXPR_BETWEEN,
			Name: []*pg.Node{pg.MakeStrNode("BETWEEN")}, Lexpr: col,
			Rexpr: &pg.Node{Node: &pg.Node_List{List: &pg.List{Items: []*pg.Node{r.loNode, r.hiNode}}}}, Location: loc}}}
	}
	cmp := func(op string, k *pg.Node) *pg.Node {
		return &pg.Node{Node: &pg.Node_AExpr{AExpr: &pg.A_Expr{Kind: pg.A_Expr_Kind_AEXPR_OP,
			Name: []*pg.Node{pg.MakeStrNode(op)}, Lexpr: col, Rexpr: k, Location: loc}}}
	}
	var parts []*pg.Node
	if r.lo != nil {
		op := ">"
		if r.loIncl {
			op = ">="
		}
		parts = append(parts, cmp(op, r.loNode))
	}
	if r.hi != nil {
		op := "<"
		if r.hiIncl {
			op = "<="
		}
		parts = append(parts, cmp(op, r.hiNode))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR, Args: parts, Location: loc}}}
}

// SplitAnd is the conjuncts of an AND tree (n itself otherwise).
func SplitAnd(n *pg.Node) []*pg.Node {
	if n == nil {
		return nil
	}
	if be := n.GetBoolExpr(); be != nil && be.Boolop == pg.BoolExprType_AND_EXPR {
		var out []*pg.Node
		for _, a := range be.Args {
			out = append(out, SplitAnd(a)...)
		}
		return out
	}
	return []*pg.Node{n}
}
