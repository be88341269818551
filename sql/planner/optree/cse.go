package optree

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/exec"
)

// Common subexpressions of a projection are computed once: an arithmetic
// expression, negation or cast written several times among a Project's
// outputs — TPC-H Q1's l_extendedprice * (1 - l_discount) in two sums,
// TPC-DS q62's and q99's cs_ship_date_sk - cs_sold_date_sk in nine
// conditions of five CASEs — moves to a Project below, as a column the
// outputs read. Only an expression evaluated for every row somewhere (not
// only in a CASE branch, after COALESCE's first argument or a later AND/OR
// argument, nor in a function's arguments) moves: computed for rows where
// it was not before, an expression that fails on them (a division by zero,
// an overflow, a cast) would fail the query.

// CommonSubexpressions rewrites the Projects of op's tree in place and
// returns how many expressions it moved.
func CommonSubexpressions(op exec.Operator) int {
	moved := 0
	EachOnce(op, func(op exec.Operator) {
		if p, ok := op.(*exec.Project); ok {
			moved += shareSubexpressions(p)
		}
	})
	return moved
}

// shareSubexpressions moves p's common subexpressions to a Project below
// it, largest first: once a larger one is a column, the smaller ones inside
// it are counted again.
func shareSubexpressions(p *exec.Project) int {
	nin := len(p.Input.Types())
	var lower []exec.Expr
	exprs := slices.Clone(p.Exprs) // the slice may be another operator's too
	for {
		c := &cseCount{n: map[string]int{}, uncond: map[string]bool{}, expr: map[string]exec.Expr{}}
		for _, e := range exprs {
			c.walk(e, true)
		}
		best := ""
		for k, n := range c.n {
			if n >= 2 && c.uncond[k] && (len(k) > len(best) || len(k) == len(best) && k < best) {
				best = k
			}
		}
		if best == "" {
			break
		}
		e := c.expr[best]
		col := &exec.ColRef{Idx: nin + len(lower), T: e.Type()}
		lower = append(lower, e)
		for i, x := range exprs {
			exprs[i] = replaceSubexpr(x, best, col)
		}
	}
	if len(lower) == 0 {
		return 0
	}
	pass := make([]exec.Expr, 0, nin+len(lower))
	for i, t := range p.Input.Types() {
		pass = append(pass, &exec.ColRef{Idx: i, T: t})
	}
	p.Input = &exec.Project{Env: p.Env, Input: p.Input, Exprs: append(pass, lower...), Shared: len(lower)}
	p.Exprs = exprs
	return len(lower)
}

// cseCount counts the shareable subexpressions of a Project's outputs by
// key, and whether some occurrence is evaluated for every row.
type cseCount struct {
	n      map[string]int
	uncond map[string]bool
	expr   map[string]exec.Expr
}

// walk counts e's shareable subexpressions; uncond says whether e is
// evaluated for every row of the batch.
func (c *cseCount) walk(e exec.Expr, uncond bool) {
	if k, ok := subexprKey(e); ok && shareable(e) {
		c.n[k]++
		c.uncond[k] = c.uncond[k] || uncond
		if c.expr[k] == nil {
			c.expr[k] = e
		}
	}
	switch x := e.(type) {
	case *exec.Arith:
		c.walk(x.L, uncond)
		c.walk(x.R, uncond)
	case *exec.Neg:
		c.walk(x.E, uncond)
	case *exec.Cast:
		c.walk(x.E, uncond)
	case *exec.Cmp:
		c.walk(x.L, uncond)
		c.walk(x.R, uncond)
	case *exec.Not:
		c.walk(x.E, uncond)
	case *exec.IsNull:
		c.walk(x.E, uncond)
	case *exec.Logic:
		for i, a := range x.Args {
			c.walk(a, uncond && i == 0)
		}
	case *exec.Case:
		for i, w := range x.When {
			c.walk(w, uncond && i == 0)
		}
		for _, t := range x.Then {
			c.walk(t, false)
		}
		if x.Else != nil {
			c.walk(x.Else, false)
		}
	case *exec.Coalesce:
		for i, a := range x.Args {
			c.walk(a, uncond && i == 0)
		}
	}
}

// shareable is an expression worth computing once: arithmetic, a negation
// or a cast (not a column or constant, which cost nothing).
func shareable(e exec.Expr) bool {
	switch e.(type) {
	case *exec.Arith, *exec.Neg, *exec.Cast:
		return true
	}
	return false
}

// subexprKey is a text that equal expressions share: columns, constants,
// arithmetic, negations and casts of them; ok is false for anything else.
func subexprKey(e exec.Expr) (string, bool) {
	var b strings.Builder
	if !appendSubexprKey(&b, e) {
		return "", false
	}
	return b.String(), true
}

func appendSubexprKey(b *strings.Builder, e exec.Expr) bool {
	switch x := e.(type) {
	case *exec.ColRef:
		b.WriteString("$")
		b.WriteString(strconv.Itoa(x.Idx))
		b.WriteString(":")
		b.WriteString(x.T.String())
	case *exec.Const:
		if x.V.Len() != 1 {
			return false
		}
		b.WriteString("c:")
		b.WriteString(x.V.Type.String())
		if x.V.IsNull(0) {
			b.WriteString(":null")
		} else {
			b.WriteString("=")
			b.WriteString(strconv.Quote(string(x.V.AppendText(nil, 0, time.UTC))))
		}
	case *exec.Arith:
		b.WriteString("(")
		b.WriteString(strconv.Itoa(int(x.Op)))
		b.WriteString(":")
		b.WriteString(x.T.String())
		b.WriteString(" ")
		if !appendSubexprKey(b, x.L) {
			return false
		}
		b.WriteString(" ")
		if !appendSubexprKey(b, x.R) {
			return false
		}
		b.WriteString(")")
	case *exec.Neg:
		b.WriteString("(-")
		if !appendSubexprKey(b, x.E) {
			return false
		}
		b.WriteString(")")
	case *exec.Cast:
		b.WriteString("(cast ")
		if !appendSubexprKey(b, x.E) {
			return false
		}
		b.WriteString(" as ")
		b.WriteString(x.To.String())
		if x.Assign {
			b.WriteString(" assign")
		}
		b.WriteString(")")
	default:
		return false
	}
	return true
}

// replaceSubexpr returns e with every subexpression of key k replaced by
// col; nodes on the way are copied, the rest shared.
func replaceSubexpr(e exec.Expr, k string, col *exec.ColRef) exec.Expr {
	if e == nil {
		return nil
	}
	if shareable(e) {
		if ek, ok := subexprKey(e); ok && ek == k {
			return col
		}
	}
	r := func(x exec.Expr) exec.Expr { return replaceSubexpr(x, k, col) }
	rs := func(xs []exec.Expr) []exec.Expr {
		out := make([]exec.Expr, len(xs))
		for i, x := range xs {
			out[i] = r(x)
		}
		return out
	}
	switch x := e.(type) {
	case *exec.Arith:
		return &exec.Arith{Op: x.Op, L: r(x.L), R: r(x.R), T: x.T}
	case *exec.Neg:
		return &exec.Neg{E: r(x.E)}
	case *exec.Cast:
		return &exec.Cast{E: r(x.E), To: x.To, Assign: x.Assign}
	case *exec.Cmp:
		return &exec.Cmp{Op: x.Op, L: r(x.L), R: r(x.R)}
	case *exec.Not:
		return &exec.Not{E: r(x.E)}
	case *exec.IsNull:
		return &exec.IsNull{E: r(x.E), Not: x.Not}
	case *exec.Logic:
		return &exec.Logic{And: x.And, Args: rs(x.Args)}
	case *exec.Case:
		return &exec.Case{When: rs(x.When), Then: rs(x.Then), Else: r(x.Else), T: x.T}
	case *exec.Coalesce:
		return &exec.Coalesce{Args: rs(x.Args), T: x.T}
	}
	return e
}
