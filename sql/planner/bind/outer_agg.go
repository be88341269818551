package bind

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/pgerr"
)

// Outer-level aggregates. An aggregate call inside a subquery whose
// arguments read only columns of an enclosing query belongs to that query,
// as PostgreSQL's parse_agg.c decides (the aggregate's level is the lowest
// level its variables come from): SELECT (SELECT max(t.x)) FROM t is one
// row, the maximum. The enclosing query is then grouped (one group without
// GROUP BY), computes the aggregate with its own, and the subquery reads
// it as an outer value through the grouped-subquery path (sql/planner/apply_plan.go).
//
// The subquery is rewritten on a copy: each such call becomes a reference
// to a synthetic column name, which the grouped scope binds to the
// aggregate's output. Deciding that a column belongs to the enclosing
// query needs no binding of the subquery: a qualified name whose table is
// not one of the subquery's FROM names (at any level in between), or an
// unqualified one when no level in between has a FROM clause, and in both
// cases a name the enclosing scope resolves. Anything else stays with the
// subquery, as before.

// outerAggPrefix starts the synthetic column names; no SQL name holds NUL.
const outerAggPrefix = "\x00outer agg "

// OuterAggLink is a subquery rewritten to read enclosing-level aggregates.
type OuterAggLink struct {
	Sel *pg.SelectStmt
	// Test is the left operand of IN/ANY/ALL with the query's aggregates
	// as synthetic columns (nil when it has none): the operand is
	// evaluated per group, beside the subquery, not over the input rows
	Test *pg.Node
	aggs []outerAgg // in the order met, so plans come out the same every time
}

// outerAgg is one enclosing-level aggregate call and its synthetic name.
type outerAgg struct {
	name string
	call *pg.FuncCall // bound in the enclosing scope
}

// OuterAggregates rewrites the subqueries of the target list, HAVING and
// ORDER BY of sel that hold aggregates of sel itself; nil when none does.
func (b *Binder) OuterAggregates(sel *pg.SelectStmt, in *Scope) map[*pg.SubLink]*OuterAggLink {
	nodes := []*pg.Node{sel.HavingClause}
	for _, t := range sel.TargetList {
		nodes = append(nodes, t.GetResTarget().Val)
	}
	for _, sb := range sel.SortClause {
		nodes = append(nodes, sb.GetSortBy().Node)
	}
	return b.outerAggregatesIn(nodes, in)
}

// OuterAggInWhere finds an aggregate of the query in a subquery of its
// WHERE clause, which PostgreSQL rejects (42803) as it rejects one written
// in WHERE directly.
func (b *Binder) OuterAggInWhere(where *pg.Node, in *Scope) error {
	for _, link := range b.outerAggregatesIn([]*pg.Node{where}, in) {
		f := link.aggs[0].call
		return ErrAt(pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in WHERE"), f.Location)
	}
	return nil
}

func (b *Binder) outerAggregatesIn(nodes []*pg.Node, in *Scope) map[*pg.SubLink]*OuterAggLink {
	var out map[*pg.SubLink]*OuterAggLink
	for _, n := range nodes {
		Walk(n, func(x *pg.Node) bool {
			sl := x.GetSubLink()
			if sl == nil {
				return !IsAggCall(x)
			}
			if sl.Subselect.GetSelectStmt() == nil {
				return false
			}
			link := &OuterAggLink{Sel: sl.Subselect.GetSelectStmt()}
			// look first, copy and rewrite only when there is something to do
			probe := &outerAggRewriter{b: b, in: in, dry: true}
			probe.visit(sl.Subselect.ProtoReflect(), nil)
			if len(probe.aggs) > 0 {
				clone := proto.Clone(sl.Subselect).(*pg.Node)
				rw := &outerAggRewriter{b: b, in: in}
				rw.visit(clone.ProtoReflect(), nil)
				link.Sel, link.aggs = clone.GetSelectStmt(), rw.aggs
			}
			if ContainsAgg(sl.Testexpr) {
				// the calls bound are the tree's own (subqueries in their
				// arguments are prepared by node), replaced in a copy
				var calls []*pg.FuncCall
				aggCalls(sl.Testexpr, func(x *pg.Node) { calls = append(calls, x.GetFuncCall()) })
				link.Test = proto.Clone(sl.Testexpr).(*pg.Node)
				aggCalls(link.Test, func(x *pg.Node) {
					a := outerAgg{name: outerAggPrefix + DeparseExpr(x), call: calls[0]}
					calls = calls[1:]
					link.aggs = append(link.aggs, a)
					toColumnRef(x, a)
				})
			}
			if len(link.aggs) > 0 {
				if out == nil {
					out = map[*pg.SubLink]*OuterAggLink{}
				}
				out[sl] = link
			}
			return false
		})
	}
	return out
}

type outerAggRewriter struct {
	b    *Binder
	in   *Scope
	dry  bool // only find the calls, change nothing
	aggs []outerAgg
}

// fromNames are the names a subquery level's FROM clause brings in.
type fromNames struct {
	any   bool // the level has a FROM clause
	names map[string]bool
}

func (r *outerAggRewriter) visit(m protoreflect.Message, levels []fromNames) {
	switch x := m.Interface().(type) {
	case *pg.SelectStmt:
		levels = append(levels, fromOf(x))
	case *pg.Node:
		if f := x.GetFuncCall(); f != nil && len(levels) > 0 && f.Over == nil && IsAggregate(FuncName(f)) && r.outer(f, levels) {
			name := outerAggPrefix + DeparseExpr(x)
			r.aggs = append(r.aggs, outerAgg{name: name, call: f})
			if r.dry {
				return
			}
			toColumnRef(x, r.aggs[len(r.aggs)-1])
			return
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil || fd.IsMap():
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				r.visit(l.Get(i).Message(), levels)
			}
		default:
			r.visit(v.Message(), levels)
		}
		return true
	})
}

// aggCalls calls fn on the aggregate calls of n at its own level, in
// order.
func aggCalls(n *pg.Node, fn func(*pg.Node)) {
	Walk(n, func(x *pg.Node) bool {
		if !IsAggCall(x) {
			return x.GetSubLink() == nil
		}
		fn(x)
		return false
	})
}

// toColumnRef turns the node holding a's call into a reference to its
// synthetic column.
func toColumnRef(x *pg.Node, a outerAgg) {
	x.Node = &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{
		Fields:   []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: a.name}}}},
		Location: a.call.Location,
	}}
}

// outer reports whether every column f reads belongs to the enclosing
// query (and it reads at least one).
func (r *outerAggRewriter) outer(f *pg.FuncCall, levels []fromNames) bool {
	refs := 0
	ok := true
	var check func(m protoreflect.Message)
	check = func(m protoreflect.Message) {
		if !ok {
			return
		}
		switch x := m.Interface().(type) {
		case *pg.SelectStmt:
			ok = false // a subquery in the arguments: leave it to the subquery
			return
		case *pg.ColumnRef:
			refs++
			var names []string
			for _, fl := range x.Fields {
				s := fl.GetString_()
				if s == nil {
					ok = false // t.*
					return
				}
				names = append(names, s.Sval)
			}
			for _, lv := range levels {
				if len(names) == 1 && lv.any || len(names) > 1 && lv.names[names[len(names)-2]] {
					ok = false
					return
				}
			}
			if _, err := r.b.FindColumn(r.in, names, -1); err != nil {
				ok = false
			}
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Message() == nil || fd.IsMap():
			case fd.IsList():
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					check(l.Get(i).Message())
				}
			default:
				check(v.Message())
			}
			return ok
		})
	}
	check(f.ProtoReflect())
	return ok && refs > 0
}

// fromOf lists the relation and alias names of a SELECT's FROM clause.
func fromOf(sel *pg.SelectStmt) fromNames {
	fn := fromNames{any: len(sel.FromClause) > 0, names: map[string]bool{}}
	var add func(n *pg.Node)
	add = func(n *pg.Node) {
		switch x := n.Node.(type) {
		case *pg.Node_RangeVar:
			// an alias hides the table's own name
			if a := x.RangeVar.Alias; a != nil {
				fn.names[a.Aliasname] = true
			} else {
				fn.names[x.RangeVar.Relname] = true
			}
		case *pg.Node_RangeSubselect:
			if a := x.RangeSubselect.Alias; a != nil {
				fn.names[a.Aliasname] = true
			}
		case *pg.Node_RangeFunction:
			if a := x.RangeFunction.Alias; a != nil {
				fn.names[a.Aliasname] = true
			}
			fn.any = true
		case *pg.Node_JoinExpr:
			add(x.JoinExpr.Larg)
			add(x.JoinExpr.Rarg)
			if a := x.JoinExpr.Alias; a != nil {
				fn.names[a.Aliasname] = true
			}
		default:
			fn.any = true
		}
	}
	for _, n := range sel.FromClause {
		add(n)
	}
	// CTEs of the level are names too
	if w := sel.WithClause; w != nil {
		for _, c := range w.Ctes {
			if ce := c.GetCommonTableExpr(); ce != nil {
				fn.names[ce.Ctename] = true
			}
		}
	}
	return fn
}

// BindOuterAggs adds the enclosing-level aggregates of link to coll and
// returns them as scope columns named by their synthetic names, each at
// its output position.
func (c *AggCollector) BindOuterAggs(b *Binder, link *OuterAggLink, in *Scope, into []AggScopeCol) ([]AggScopeCol, error) {
	for _, a := range link.aggs {
		e, err := c.Add(b, a.call, in)
		if err != nil {
			return nil, err
		}
		cr, ok := e.(*exec.ColRef)
		if !ok {
			return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "outer-level aggregate %s in a subquery is not supported", FuncName(a.call)), a.call.Location)
		}
		into = append(into, AggScopeCol{Name: a.name, Col: cr})
	}
	return into, nil
}

// AggScopeCol is an aggregate output column as a subquery sees it.
type AggScopeCol struct {
	Name string
	Col  *exec.ColRef
}
