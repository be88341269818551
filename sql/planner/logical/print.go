package logical

import (
	"fmt"
	"strconv"
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
	case *Get:
		return "Get " + x.Scan.Label + " " + columns(x.Cols)
	case *JoinGraph:
		return describeGraph(x)
	case *Join:
		return describeJoin(x)
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
		s := "Aggregate "
		if x.Partial {
			s += "partial "
		}
		s += "group by (" + strings.Join(items, ", ") + ")"
		if x.Sets != nil {
			sets := make([]string, len(x.Sets))
			for i, set := range x.Sets {
				cols := make([]string, len(set))
				for j, c := range set {
					cols[j] = fmt.Sprintf("#%d", c)
				}
				sets[i] = "(" + strings.Join(cols, ", ") + ")"
			}
			s += " sets (" + strings.Join(sets, ", ") + ")"
		}
		items = items[:0]
		for _, a := range x.Aggs {
			items = append(items, aggCall(a))
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
		return "Sort " + sortKeys(x.Keys)
	case *Window:
		return describeWindow(x)
	case *Apply:
		s := "Apply " + x.Kind.String() + " (" + x.Cols[len(x.Cols)-1].Type.String() + ")"
		if x.Test != nil {
			s += " test " + Expr(x.Test)
		}
		return s
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

// describeGraph prints a join graph's predicates and estimates:
// "JoinGraph rows (1000, 20) on (#0 = #5) sel 0.05, …".
func describeGraph(x *JoinGraph) string {
	rows := make([]string, len(x.Rows))
	for i, r := range x.Rows {
		rows[i] = strconv.FormatFloat(r, 'g', 4, 64)
	}
	s := "JoinGraph rows (" + strings.Join(rows, ", ") + ")"
	if len(x.Preds) == 0 {
		return s
	}
	preds := make([]string, len(x.Preds))
	for i, p := range x.Preds {
		if p.Hash {
			preds[i] = "(" + Expr(p.KeyA) + " = " + Expr(p.KeyB) + ")"
		} else {
			preds[i] = Expr(p.Cond)
		}
		preds[i] += " sel " + strconv.FormatFloat(p.Sel, 'g', 3, 64)
	}
	return s + " on " + strings.Join(preds, ", ")
}

// describeJoin prints a join's keys (left's columns, then right's, each
// numbered from 0), its filters and its estimated rows.
func describeJoin(x *Join) string {
	s := "Join"
	if x.Kind != InnerJoin {
		s = joinKindNames[x.Kind] + "Join"
	}
	if len(x.LeftKeys) == 0 {
		s += " nested loop"
	} else {
		keys := make([]string, len(x.LeftKeys))
		for i := range x.LeftKeys {
			keys[i] = Expr(x.LeftKeys[i]) + " = " + Expr(x.RightKeys[i])
		}
		s += " hash (" + strings.Join(keys, ", ") + ")"
	}
	if x.On != nil {
		s += " on " + Expr(x.On)
	}
	if len(x.Filters) > 0 {
		fs := make([]string, len(x.Filters))
		for i, f := range x.Filters {
			fs[i] = Expr(f)
		}
		s += " filter " + strings.Join(fs, ", ")
	}
	if x.Rows == 0 {
		return s // a join the planner placed, not one join ordering chose
	}
	return s + " rows " + strconv.FormatFloat(x.Rows, 'g', 4, 64)
}

// describeWindow prints a Window as its OVER clause and its calls:
// "Window (PARTITION BY #0 ORDER BY #1 DESC) rank(), sum(#2) ROWS …".
func describeWindow(x *Window) string {
	var over []string
	if len(x.Partition) > 0 {
		items := make([]string, len(x.Partition))
		for i, c := range x.Partition {
			items[i] = fmt.Sprintf("#%d", c)
		}
		over = append(over, "PARTITION BY "+strings.Join(items, ", "))
	}
	if len(x.Order) > 0 {
		over = append(over, "ORDER BY "+sortKeys(x.Order))
	}
	// a RANGE offset over a numeric ORDER BY column is in its scaled units
	scale := 0
	if len(x.Order) == 1 {
		if t := x.Input.Columns()[x.Order[0].Col].Type; t.ID == types.Numeric && t.Scale > 0 {
			scale = t.Scale
		}
	}
	calls := make([]string, len(x.Calls))
	for i, c := range x.Calls {
		calls[i] = windowCall(c, scale)
	}
	s := "Window (" + strings.Join(over, " ") + ") " + strings.Join(calls, ", ")
	if x.Parallel {
		s += " parallel"
	}
	return s
}

// windowCall prints a window function call over input columns, its frame
// when it is not the default one (RANGE offsets of scale digits).
func windowCall(c WindowCall, scale int) string {
	var s string
	if c.Func == WinAgg {
		s = aggCall(c.Agg)
	} else {
		items := make([]string, len(c.Args))
		for i, a := range c.Args {
			items[i] = fmt.Sprintf("#%d", a)
		}
		s = c.Func.String() + "(" + strings.Join(items, ", ") + ")"
	}
	if c.Frame != (Frame{}) {
		s += " " + frame(c.Frame, scale)
	}
	return s
}

var frameModes = [...]string{FrameRange: "RANGE", FrameRows: "ROWS", FrameGroups: "GROUPS"}

var frameExcludes = [...]string{ExcludeCurrentRow: " EXCLUDE CURRENT ROW", ExcludeGroup: " EXCLUDE GROUP", ExcludeTies: " EXCLUDE TIES"}

// frame prints a frame clause as SQL writes it, a RANGE offset of scale
// digits after the point.
func frame(f Frame, scale int) string {
	bound := func(b FrameBound, dir string) string {
		switch b.Kind {
		case BoundUnboundedPreceding:
			return "UNBOUNDED PRECEDING"
		case BoundUnboundedFollowing:
			return "UNBOUNDED FOLLOWING"
		case BoundCurrentRow:
			return "CURRENT ROW"
		}
		if b.Kind == BoundFollowing {
			dir = "FOLLOWING"
		}
		switch {
		case b.OffsetIv != (types.IntervalValue{}):
			return "'" + string(types.AppendInterval(nil, b.OffsetIv)) + "' " + dir
		case b.OffsetF != 0:
			return fmt.Sprintf("%g %s", b.OffsetF, dir)
		}
		if f.Mode == FrameRange && scale > 0 {
			v := strconv.FormatInt(b.Offset, 10)
			for len(v) <= scale {
				v = "0" + v
			}
			return v[:len(v)-scale] + "." + v[len(v)-scale:] + " " + dir
		}
		return fmt.Sprintf("%d %s", b.Offset, dir)
	}
	s := "?"
	if int(f.Mode) < len(frameModes) {
		s = frameModes[f.Mode]
	}
	s += " BETWEEN " + bound(f.Start, "PRECEDING") + " AND " + bound(f.End, "PRECEDING")
	if int(f.Exclude) < len(frameExcludes) {
		s += frameExcludes[f.Exclude]
	}
	return s
}

// aggCall prints an aggregate call over input columns, in SQL's shape.
func aggCall(a Agg) string {
	if a.Func == AggCountStar {
		return "count(*)" + aggFilter(a)
	}
	var b strings.Builder
	b.WriteString(a.Func.String())
	b.WriteByte('(')
	if a.Distinct {
		b.WriteString("DISTINCT ")
	}
	switch a.Func {
	case AggPercentileCont, AggPercentileDisc:
		fmt.Fprintf(&b, "#%d) WITHIN GROUP (ORDER BY #%d", a.Arg2, a.Arg)
	case AggMode:
		fmt.Fprintf(&b, ") WITHIN GROUP (ORDER BY #%d", a.Arg)
	case AggStringAgg:
		fmt.Fprintf(&b, "#%d, #%d", a.Arg, a.Arg2)
	default:
		fmt.Fprintf(&b, "#%d", a.Arg)
	}
	if a.Desc {
		b.WriteString(" DESC")
	}
	if len(a.Order) > 0 {
		b.WriteString(" ORDER BY " + sortKeys(a.Order))
	}
	b.WriteByte(')')
	return b.String() + aggFilter(a)
}

func aggFilter(a Agg) string {
	if a.Filter == 0 {
		return ""
	}
	return fmt.Sprintf(" FILTER (#%d)", a.Filter-1)
}

func sortKeys(keys []SortKey) string {
	items := make([]string, len(keys))
	for i, k := range keys {
		items[i] = fmt.Sprintf("#%d", k.Col)
		if k.Desc {
			items[i] += " DESC"
		}
		if k.NullsFirst != k.Desc {
			items[i] += map[bool]string{true: " NULLS FIRST", false: " NULLS LAST"}[k.NullsFirst]
		}
	}
	return strings.Join(items, ", ")
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
