package logical

import (
	"fmt"
	"strings"
	"time"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/types"
)

// String prints plan n as an indented tree, one node a line, inputs below
// their node. The text depends only on the plan (no addresses, no map
// order), so tests can compare it.
func String(n Node) string {
	var b strings.Builder
	printNode(&b, n, 0)
	return strings.TrimSuffix(b.String(), "\n")
}

func printNode(b *strings.Builder, n Node, depth int) {
	b.WriteString(strings.Repeat("  ", depth))
	b.WriteString(describe(n))
	b.WriteByte('\n')
	for _, in := range n.Inputs() {
		printNode(b, in, depth+1)
	}
}

func describe(n Node) string {
	switch x := n.(type) {
	case *Planned:
		op := fmt.Sprintf("%T", x.Op)
		op = op[strings.LastIndexByte(op, '.')+1:]
		s := "Planned " + op + " " + columns(x.Cols)
		if x.Distinct {
			s += " distinct"
		}
		return s
	case *Project:
		items := make([]string, len(x.Exprs))
		for i, e := range x.Exprs {
			items[i] = Expr(e)
			if x.Cols[i].Name != "" {
				items[i] += " AS " + x.Cols[i].Name
			}
		}
		return "Project " + strings.Join(items, ", ")
	case *Filter:
		return "Filter " + Expr(x.Pred)
	case *Distinct:
		return "Distinct"
	case *DistinctOn:
		items := make([]string, len(x.Keys))
		for i, k := range x.Keys {
			items[i] = fmt.Sprintf("#%d", k)
		}
		return "DistinctOn (" + strings.Join(items, ", ") + ")"
	case *Aggregate:
		items := make([]string, 0, x.NGroup+len(x.Aggs))
		for i := range x.NGroup {
			items = append(items, fmt.Sprintf("#%d", i))
		}
		s := "Aggregate group by (" + strings.Join(items, ", ") + ")"
		items = items[:0]
		for _, a := range x.Aggs {
			items = append(items, fmt.Sprintf("%s(#%d)", a.Func, a.Arg))
		}
		if len(items) > 0 {
			s += " " + strings.Join(items, ", ")
		}
		return s
	case *SetOp:
		s := "SetOp " + x.Kind.String()
		if x.All {
			s += " ALL"
		}
		return s + " " + columns(x.Cols)
	case *Sort:
		items := make([]string, len(x.Keys))
		for i, k := range x.Keys {
			items[i] = fmt.Sprintf("#%d", k.Col)
			if k.Desc {
				items[i] += " DESC"
			}
			if k.NullsFirst != k.Desc {
				items[i] += map[bool]string{true: " NULLS FIRST", false: " NULLS LAST"}[k.NullsFirst]
			}
		}
		return "Sort " + strings.Join(items, ", ")
	case *Limit:
		s := "Limit"
		if x.Count >= 0 {
			s += fmt.Sprintf(" %d", x.Count)
		} else {
			s += " ALL"
		}
		if x.Offset > 0 {
			s += fmt.Sprintf(" OFFSET %d", x.Offset)
		}
		if x.TieKeys != nil {
			items := make([]string, len(x.TieKeys))
			for i, k := range x.TieKeys {
				items[i] = fmt.Sprintf("#%d", k)
			}
			s += " WITH TIES (" + strings.Join(items, ", ") + ")"
		}
		return s
	}
	return fmt.Sprintf("%T", n)
}

func columns(cols []Column) string {
	items := make([]string, len(cols))
	for i, c := range cols {
		items[i] = c.Type.String()
		if c.Name != "" {
			items[i] = c.Name + " " + items[i]
		}
	}
	return "(" + strings.Join(items, ", ") + ")"
}

var cmpOps = [...]string{exec.EQ: "=", exec.NE: "<>", exec.LT: "<", exec.LE: "<=", exec.GT: ">", exec.GE: ">="}

// Expr prints a scalar expression: input columns as #i, constants typed,
// comparisons and casts written out; any other expression by its kind
// only, until expressions have a logical form of their own.
func Expr(e exec.Expr) string {
	switch x := e.(type) {
	case *exec.ColRef:
		return fmt.Sprintf("#%d", x.Idx)
	case *exec.Const:
		if x.IsNull() {
			return "NULL::" + x.Type().String()
		}
		v := string(x.V.AppendText(nil, 0, time.UTC))
		if x.Type().Storage() == types.StoreBytes {
			v = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		}
		return v + "::" + x.Type().String()
	case *exec.Cmp:
		op := "?"
		if int(x.Op) < len(cmpOps) {
			op = cmpOps[x.Op]
		}
		return "(" + Expr(x.L) + " " + op + " " + Expr(x.R) + ")"
	case *exec.Cast:
		return "(" + Expr(x.E) + ")::" + x.To.String()
	}
	s := fmt.Sprintf("%T", e)
	return s[strings.LastIndexByte(s, '.')+1:] + "(…)"
}
