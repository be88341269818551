package estimate

import (
	"math"

	"github.com/lakepg/lakepg/exec"
)

// The selectivity of a join's equality, for join ordering
// (sql/planner/join_order.go).

// EquiSelectivity is the fraction of pairs an equality between two items'
// columns keeps: 1 / the larger number of distinct values of the two keys
// (each value of the side with fewer finds its matches among the other's);
// without statistics the larger item stands in for the key's distinct
// values, as for a foreign key into a primary key.
func EquiSelectivity(ndvA, ndvB, rowsA, rowsB float64) float64 {
	if d := math.Max(ndvA, ndvB); d > 0 {
		return 1 / d
	}
	return 1 / math.Max(1, math.Max(rowsA, rowsB))
}

// KeyDomain is the number of distinct values of the join key on the side
// where the key is unique (a primary key: as many distinct values as its
// table has rows), counted before that side's filters; 0 when neither or
// both sides are such keys. A foreign key then finds its one match among
// them, so the join keeps |L|·|R| / that: the catalog's min/max overstate
// the distinct values of a sparse foreign key (TPC-H's l_orderkey spans
// 1…6 M but holds 1.5 M values, and lineitem ⋈ orders of one year was
// taken for 230,000 rows instead of 910,000). It is at most the foreign
// key's own distinct values where those are known: a fact table's keys
// cover a part of its dimension (TPC-DS store_sales sold on 1,823 of
// date_dim's 73,049 dates), and the dimension's filter picks rows of that
// part (a year of sales), so counting the whole domain took store_sales ⋈
// a year of dates for 5,000 rows instead of 550,000 and built it.
func (e *Estimator) KeyDomain(lk exec.Expr, l exec.Operator, rk exec.Expr, r exec.Operator) float64 {
	unique := func(k exec.Expr, op exec.Operator) float64 {
		base := unfiltered(op)
		n := e.N(base)
		if ci := e.ExprColumn(k, base); n > 0 && ci.NDV >= n {
			return ci.NDV
		}
		return 0
	}
	a, b := unique(lk, l), unique(rk, r)
	if (a > 0) == (b > 0) {
		return 0
	}
	d, fk, fop := a, rk, r
	if b > 0 {
		d, fk, fop = b, lk, l
	}
	if ndv := e.ExprColumn(fk, unfiltered(fop)).NDV; ndv > 0 && ndv < d {
		return ndv
	}
	return d
}

// unfiltered is op below its filters.
func unfiltered(op exec.Operator) exec.Operator {
	for {
		f, ok := op.(*exec.Filter)
		if !ok {
			return op
		}
		op = f.Input
	}
}
