package estimate

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Exact counts for small tables. A filtered dimension table decides join
// order (TPC-DS: date_dim filtered to one quarter keeps 90 of its 73,049
// rows), and without distinct counts an equality on a string is guessed
// at 0.1, thirty times too many, so the fact table was joined with a
// bigger table first. A table of at most exactRows rows is small enough
// to count exactly while planning when its filter compares text: the
// filter runs over the columns it reads, and the count replaces the guess.
// There is no time budget: a count given up under load in one planning
// but not in the next gave one query two plans (the TPC-H and TPC-DS
// tests that plan a query in several spellings saw it in CI); the size
// limits below bound the work instead. (Counting every small filtered table cost
// the short TPC-DS queries 10-20 ms each, more than their better plans
// gave back.)

const (
	exactRows  = 100_000
	exactFiles = 8
	// exactTerms bounds the filter counted: TPC-DS q41's OR of dozens of
	// comparisons over item took as long to count as the query to run
	exactTerms = 24
)

// exactCount counts the rows of base that pred keeps, when base is a scan
// of a small table and pred a deterministic expression over its columns.
func (e *Estimator) exactCount(base exec.Operator, pred exec.Expr) (float64, bool) {
	o, ok := base.(*exec.TableScan)
	if e.Env == nil || !ok || o.WithPos || len(o.Files) > exactFiles || e.catalogRows(o).Rows > exactRows {
		return 0, false
	}
	need := make([]bool, len(o.Cols))
	if !exactCountable(pred, need) || !guessesText(pred) || exprSize(pred) > exactTerms {
		return 0, false
	}
	probe := &exec.TableScan{Store: o.Store, Snapshot: o.Snapshot, Label: o.Label, Files: o.Files,
		Cols: o.Cols, Needed: need, Keep: o.Keep, Inlined: o.Inlined}
	op := &exec.Filter{Env: e.Env, Input: probe, Pred: exec.MapColumns(pred, func(i int) int { return i })}
	defer op.Close()
	n := 0
	if err := exec.Drain(e.ctx, op, func(b *vec.Batch) error { n += b.N; return nil }); err != nil {
		return 0, false // the filter fails on some row, or the statement was cancelled: keep the guess
	}
	return float64(n), true
}

// guessesText reports whether p compares text, which the estimates can
// only guess at (ranges of numbers and dates they take from the
// catalog's min and max): only then is counting worth its reading.
func guessesText(p exec.Expr) bool {
	text := func(x exec.Expr) bool {
		t := x.Type()
		return t.Storage() == types.StoreBytes && t.ID != types.Numeric
	}
	switch x := p.(type) {
	case *exec.Logic:
		for _, a := range x.Args {
			if guessesText(a) {
				return true
			}
		}
	case *exec.Not:
		return guessesText(x.E)
	case *exec.Cmp:
		return text(x.L) || text(x.R)
	case *exec.InList:
		return text(x.E)
	case *exec.Like:
		return true
	}
	return false
}

// exprSize counts the comparisons, LIKEs and IN lists of p.
func exprSize(p exec.Expr) int {
	switch x := p.(type) {
	case *exec.Logic:
		n := 0
		for _, a := range x.Args {
			n += exprSize(a)
		}
		return n
	case *exec.Not:
		return exprSize(x.E)
	}
	return 1
}

// exactCountable reports whether p can be evaluated ahead of the query
// (only columns of the scan, no volatile function, nothing known only at
// run time), marking the columns it reads in need.
func exactCountable(p exec.Expr, need []bool) bool {
	all := func(xs ...exec.Expr) bool {
		for _, x := range xs {
			if x != nil && !exactCountable(x, need) {
				return false
			}
		}
		return true
	}
	switch x := p.(type) {
	case *exec.ColRef:
		if x.Idx < 0 || x.Idx >= len(need) {
			return false
		}
		need[x.Idx] = true
		return true
	case *exec.Const:
		return true
	case *exec.Cmp:
		return all(x.L, x.R)
	case *exec.Logic:
		return all(x.Args...)
	case *exec.Not:
		return all(x.E)
	case *exec.IsNull:
		return all(x.E)
	case *exec.Neg:
		return all(x.E)
	case *exec.Like:
		return all(x.E, x.Pattern)
	case *exec.InList:
		return all(x.E)
	case *exec.Cast:
		return all(x.E)
	case *exec.Arith:
		return all(x.L, x.R)
	case *exec.Coalesce:
		return all(x.Args...)
	case *exec.Case:
		return all(x.When...) && all(x.Then...) && all(x.Else)
	case *exec.FnCall:
		return !x.O.Volatile && all(x.Args...)
	}
	return false
}
