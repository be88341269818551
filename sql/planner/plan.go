package planner

import (
	"context"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/sql/planner/bind"
	"github.com/lakepg/lakepg/sql/planner/estimate"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/sql/planner/optree"
	"github.com/lakepg/lakepg/sql/planner/physical"
	"github.com/lakepg/lakepg/types"
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// QueryCtx is the state of planning one statement: parameters, the CTEs in
// scope, and whether we only describe (no files listed, nothing run).
type QueryCtx struct {
	s            *Session
	ctx          context.Context
	params       *Params
	env          *exec.Env
	DescribeOnly bool
	Ctes         []map[string]*CteDef // innermost last
	// top is the statement's outermost SELECT block: the client sees its
	// rows in the order they come, so without ORDER BY its windows keep
	// PostgreSQL's partition order (window_parallel.go)
	top *pg.SelectStmt
	// subCols maps correlated scalar subqueries, already joined in, to the
	// column holding their value
	subCols map[*pg.SubLink]exec.Expr
	// srfCols maps set-returning calls of a SELECT list, already run by a
	// lateralCall below it, to their value (srf_plan.go)
	srfCols map[*pg.FuncCall]exec.Expr
	// corr is the outer query of the correlated subquery whose FROM is
	// being planned, for functions there that read its row (srf_plan.go)
	corr *corrOuter
	// DmlTarget is the table an UPDATE/DELETE planned as a query changes
	// (sql/dml_join.go)
	DmlTarget *DmlTarget
	// outer are the rows of enclosing queries that a subquery planned per
	// outer key reads, innermost last; tables keeps the table sources of
	// such plans for the next keys (apply_plan.go)
	outer  []*outerFrame
	tables map[*pg.RangeVar]*Source
	// tableOID, xmin: the statement names tableoid or xmin, so base
	// relations carry that system column (syscols.go)
	tableOID, xmin bool
	// chains are the pipelines of the Parallels made for subqueries run
	// while planning (EXPLAIN prints them)
	chains map[*exec.Parallel]exec.Operator
	// est estimates rows for join ordering (join_order.go); kept are the
	// aggregations it estimates as before eager_aggregation split them
	// (keepEstimates)
	est  *estimate.Estimator
	kept map[exec.Operator]bool
	// joins and rulesFired are for EXPLAIN (VERBOSE) (rules.go)
	joins      []joinBlock
	rulesFired map[string]int
	// viewDepth counts the views being expanded around the current
	// planning (sql/views.go)
	viewDepth int
	// shared are the scalar subqueries run together (subquery_shared.go)
	shared map[*pg.SubLink]*SharedScalars
	// built are the operators of the logical nodes planned so far: the
	// FROM items, joins and filters are built as they are planned (their
	// estimates, and the subqueries decorrelated over them, are the
	// operators'), and physical planning of the SELECT block above them
	// gets those same operators back (builder)
	built map[logical.Node]exec.Operator
	// catalog is the pg_catalog Context of the statement's tables and
	// functions, made once for the metadata it was made for (CatalogContext)
	catalog *pgcatalog.Context
}

// Context is the context of the statement being planned.
func (qc *QueryCtx) Context() context.Context { return qc.ctx }

// CteDef is a WITH entry; each reference plans it afresh (inlining), which
// keeps scans pruned per use.
type CteDef struct {
	Name      string
	Query     *pg.Node
	Colps     []string
	Recursive bool
	work      *exec.WorkTable // set while planning the recursive term
	cols      []Column        // the recursive CTE's columns
	// refs counts the references to a non-recursive CTE; with more than
	// one, it is planned once and materialized (mat), and each reference
	// reads the rows (matQ describes them).
	refs int
	// inline: planned into each reference all the same (cte_inline.go)
	inline bool
	mat    *exec.Materialized
	matQ   *query
	// Materialized: written AS MATERIALIZED, so no conjunct is pushed in
	Materialized    bool
	notMaterialized bool // written AS NOT MATERIALIZED
	// scopes are where the references are (the statement and the other
	// WITH queries); shared is the body run once for all of them with
	// their conjuncts' disjunction pushed in (cte_filter.go), nil when the
	// rule does not apply, computed once (sharedDone)
	scopes     []protoreflect.Message
	shared     *pg.SelectStmt
	sharedDone bool
	// Written: a data-modifying query the statement ran (sql/with_write.go)
	Written *WrittenCTE
}

func (s *Session) NewQueryCtx(ctx context.Context, p *Params, describeOnly bool) *QueryCtx {
	if p == nil {
		p = &Params{}
	}
	qc := &QueryCtx{s: s, ctx: ctx, params: p, env: s.NewEnv(), DescribeOnly: describeOnly, subCols: map[*pg.SubLink]exec.Expr{},
		srfCols: map[*pg.FuncCall]exec.Expr{}, built: map[logical.Node]exec.Operator{}, kept: map[exec.Operator]bool{}}
	if s.StmtCTEs != nil {
		// the WITH queries of the UPDATE or DELETE being planned (sql/with_write.go)
		qc.Ctes = []map[string]*CteDef{s.StmtCTEs}
	}
	return qc
}

// builder builds logical plans into operators, each node once for the
// statement (QueryCtx.built).
func (qc *QueryCtx) builder() *physical.Builder {
	return &physical.Builder{Env: qc.env, Built: qc.built}
}

func (qc *QueryCtx) binder() *Binder {
	return &Binder{Sess: qc.s, Env: qc.env, Params: qc.params, Qc: qc}
}

// PlanQuery plans a top-level SELECT.
func (s *Session) PlanQuery(ctx context.Context, sel *pg.SelectStmt, p *Params, describeOnly bool) (*query, error) {
	if s.scanRefs == nil && !describeOnly {
		s.scanRefs = map[*exec.TableScan]*TableRef{}
		defer func() { s.scanRefs = nil }()
	}
	qc := s.NewQueryCtx(ctx, p, describeOnly)
	qc.tableOID = mentionsColumn(sel.ProtoReflect(), tableOIDColumn)
	qc.xmin = mentionsColumn(sel.ProtoReflect(), xminColumn)
	if qc.ruleOn(ruleSharedDerived) {
		var n int
		if sel, n = sharedDerivedTables(sel); n > 0 {
			qc.rulesFired = map[string]int{ruleSharedDerived: n}
		}
	}
	if !describeOnly && qc.ruleOn(ruleSharedSubqueries) {
		if qc.ruleOn(ruleFilteredAggs) {
			var n int
			if sel, n = filteredAggregates(sel); n > 0 {
				if qc.rulesFired == nil {
					qc.rulesFired = map[string]int{}
				}
				qc.rulesFired[ruleFilteredAggs] = n
			}
		}
		qc.shared = GroupScalarSubqueries(sel)
		// the members are bound in copies of qc: they count here
		if qc.rulesFired == nil {
			qc.rulesFired = map[string]int{}
		}
	}
	qc.top = sel
	q, err := qc.PlanSelect(sel)
	if err != nil {
		return nil, err
	}
	q.Op, _ = optree.PruneColumns(q.Op, optree.All(len(q.Cols)))
	if !describeOnly {
		qc.dynamicFilters(q.Op)
		qc.outerJoinKeyFilters(q.Op)
		qc.forgetKeptEstimates()
		qc.presizeAggregations(q.Op) // agg_presize.go
		if err := optree.FoldErrors(qc.env, q.Op); err != nil {
			return nil, err
		}
		s.minMaxFromStats(q.Op)
		if qc.ruleOn(ruleCommonSubexprs) {
			for range optree.CommonSubexpressions(q.Op) {
				qc.fired(ruleCommonSubexprs)
			}
		}
		if qc.ruleOn(ruleAggregateHaving) {
			for range optree.AggregateHaving(q.Op) {
				qc.fired(ruleAggregateHaving)
			}
		}
		q.chains = qc.chains
		q.joins, q.rulesFired = qc.joins, qc.rulesFired
		if q.chains == nil {
			q.chains = map[*exec.Parallel]exec.Operator{}
		}
		q.Op = optree.Parallelize(q.Op, q.chains)
		q.Op = s.Host.Admit(q.Op, q.chains)
	}
	return q, nil
}

func (qc *QueryCtx) lookupCTE(name string) *CteDef {
	for i := len(qc.Ctes) - 1; i >= 0; i-- {
		if c, ok := qc.Ctes[i][name]; ok {
			return c
		}
	}
	return nil
}

// PlanSelect plans any SELECT: WITH, set operations, VALUES or a simple select.
func (qc *QueryCtx) PlanSelect(sel *pg.SelectStmt) (*query, error) {
	if sel.WithClause != nil {
		frame := map[string]*CteDef{}
		qc.Ctes = append(qc.Ctes, frame)
		defer func() { qc.Ctes = qc.Ctes[:len(qc.Ctes)-1] }()
		for _, c := range sel.WithClause.Ctes {
			cte := c.GetCommonTableExpr()
			if _, dup := frame[cte.Ctename]; dup {
				return nil, ErrAt(pgerr.New(pgerr.DuplicateAlias, "WITH query name \"%s\" specified more than once", cte.Ctename), cte.Location)
			}
			frame[cte.Ctename] = &CteDef{Name: cte.Ctename, Query: cte.Ctequery, Colps: StrNodes(cte.Aliascolnames), Recursive: sel.WithClause.Recursive,
				Materialized:    cte.Ctematerialized == pg.CTEMaterialize_CTEMaterializeAlways,
				notMaterialized: cte.Ctematerialized == pg.CTEMaterialize_CTEMaterializeNever}
			if IsWriteNode(cte.Ctequery) {
				frame[cte.Ctename].Written = qc.s.WrittenCTEs[cte.Ctename] // sql/with_write.go
			}
		}
		qc.s.WrittenCTEs = nil // only the top-level WITH runs writes
		inner := proto.Clone(sel).(*pg.SelectStmt)
		inner.WithClause = nil
		if qc.top == sel {
			qc.top = inner
		}
		if !sel.WithClause.Recursive {
			for name, def := range frame {
				def.scopes = []protoreflect.Message{inner.ProtoReflect()}
				for _, other := range frame {
					if other != def {
						def.scopes = append(def.scopes, other.Query.ProtoReflect())
					}
				}
				for _, sc := range def.scopes {
					def.refs += countReferences(sc, name)
				}
			}
			for _, def := range frame {
				def.inline = qc.inlineCTE(def) // cte_inline.go
			}
		}
		return qc.PlanSelect(inner)
	}
	lq, err := qc.selectNode(sel)
	if err != nil {
		return nil, err
	}
	return qc.physicalQuery(lq)
}

// orderLimitNode is the ORDER BY / LIMIT / OFFSET of a set operation or
// VALUES list (sel) over its rows (lq): the sort keys are its columns, by
// position or name, or expressions over them.
func (qc *QueryCtx) orderLimitNode(sel *pg.SelectStmt, lq *logicalQuery) (*logicalQuery, error) {
	if len(sel.SortClause) == 0 && sel.LimitCount == nil && sel.LimitOffset == nil {
		return lq, nil
	}
	sc := &Scope{}
	names := make([]string, len(lq.cols))
	outs := make([]exec.Expr, len(lq.cols))
	for i, c := range lq.cols {
		sc.Cols = append(sc.Cols, ScopeCol{Name: c.Name, T: c.Type})
		names[i] = c.Name
		outs[i] = &exec.ColRef{Idx: i, T: c.Type}
	}
	b := qc.binder()
	hidden, keys, err := qc.s.bindOrder(sel, names, outs, func(n *pg.Node) (exec.Expr, error) { return b.Bind(n, sc) })
	if err != nil {
		return nil, err
	}
	bare := &pg.SelectStmt{SortClause: sel.SortClause, LimitCount: sel.LimitCount, LimitOffset: sel.LimitOffset, LimitOption: sel.LimitOption}
	return qc.finishNode(bare, b, lq.node, names, outs, hidden, keys, lq.scans, nil)
}

var setOpKinds = map[pg.SetOperation]logical.SetOpKind{pg.SetOperation_SETOP_UNION: logical.Union, pg.SetOperation_SETOP_INTERSECT: logical.Intersect,
	pg.SetOperation_SETOP_EXCEPT: logical.Except}

// setOpNode plans UNION / INTERSECT / EXCEPT [ALL]: both inputs cast to
// their columns' common types, then the ORDER BY / LIMIT that follows.
func (qc *QueryCtx) setOpNode(sel *pg.SelectStmt) (*logicalQuery, error) {
	lq, err := qc.inputNode(sel.Larg)
	if err != nil {
		return nil, err
	}
	rq, err := qc.inputNode(sel.Rarg)
	if err != nil {
		return nil, err
	}
	lcols, rcols := lq.cols, rq.cols
	kind := setOpKinds[sel.Op]
	opName := kind.String()
	if len(lcols) != len(rcols) {
		return nil, pgerr.New(pgerr.SyntaxError, "each %s query must have the same number of columns", opName)
	}
	b := qc.binder()
	lcast, rcast := make([]exec.Expr, len(lcols)), make([]exec.Expr, len(rcols))
	cols := make([]logical.Column, len(lcols))
	qcols := make([]Column, len(lcols))
	names, rnames := make([]string, len(lcols)), make([]string, len(rcols))
	for i := range lcols {
		le := exec.Expr(&exec.ColRef{Idx: i, T: lcols[i].Type})
		re := exec.Expr(&exec.ColRef{Idx: i, T: rcols[i].Type})
		lo, ro := setOpOperand(sel.Larg, i, le), setOpOperand(sel.Rarg, i, re)
		t, err := bind.CommonType([]exec.Expr{lo, ro}, opName, -1)
		if err != nil {
			return nil, err
		}
		if t.ID == types.Numeric && (lo != le || ro != re) {
			t = types.NumericAnyT // a literal has no typmod: nor does the result
		}
		if t.ID == types.Unknown {
			t = types.TextT
		}
		if lcast[i], err = b.Cast(le, t, false, -1); err != nil {
			return nil, err
		}
		if rcast[i], err = b.Cast(re, t, false, -1); err != nil {
			return nil, err
		}
		cols[i] = logical.Column{Name: lcols[i].Name, Type: t}
		qcols[i] = Column{Name: lcols[i].Name, Type: t}
		names[i], rnames[i] = lcols[i].Name, rcols[i].Name
	}
	n := &logical.SetOp{Kind: kind, All: sel.All, Left: logical.NewProject(lq.node, lcast, names), Right: logical.NewProject(rq.node, rcast, rnames), Cols: cols}
	return qc.orderLimitNode(sel, &logicalQuery{node: n, cols: qcols, scans: append(lq.scans, rq.scans...)})
}

// planRecursive plans WITH RECURSIVE name AS (base UNION [ALL] step).
func (qc *QueryCtx) planRecursive(cte *CteDef, sel *pg.SelectStmt) (*query, error) {
	if sel.Op == pg.SetOperation_SETOP_UNION && referencesName(sel.Larg, cte.Name) {
		return nil, pgerr.New(pgerr.InvalidRecursion, "recursive reference to query \"%s\" must not appear within its non-recursive term", cte.Name)
	}
	if sel.Op != pg.SetOperation_SETOP_UNION || !referencesName(sel.Rarg, cte.Name) {
		if referencesName(sel, cte.Name) {
			// planning it would recurse forever
			return nil, pgerr.New(pgerr.InvalidRecursion, "recursive query \"%s\" does not have the form non-recursive-term UNION [ALL] recursive-term", cte.Name)
		}
		return qc.PlanSelect(sel)
	}
	base, err := qc.PlanSelect(sel.Larg)
	if err != nil {
		return nil, err
	}
	cols := append([]Column{}, base.Cols...)
	ts := make([]types.T, len(cols))
	for i := range cols {
		if i < len(cte.Colps) {
			cols[i].Name = cte.Colps[i]
		}
		if cols[i].Type.ID == types.Unknown {
			cols[i].Type = types.TextT
		}
		ts[i] = cols[i].Type
	}
	work := &exec.WorkTable{T: ts}
	// the step is re-planned at every iteration, after this WITH's planning
	// has returned: keep the CTEs it sees
	stack := append([]map[string]*CteDef{}, qc.Ctes...)
	step := func() (exec.Operator, error) {
		saved := qc.Ctes
		qc.Ctes = stack
		cte.work, cte.cols = work, cols
		defer func() { cte.work, qc.Ctes = nil, saved }()
		q, err := qc.PlanSelect(sel.Rarg)
		if err != nil {
			return nil, err
		}
		if len(q.Cols) != len(cols) {
			return nil, pgerr.New(pgerr.SyntaxError, "each UNION query must have the same number of columns")
		}
		b := qc.binder()
		casts := make([]exec.Expr, len(cols))
		for i, c := range q.Cols {
			if casts[i], err = b.Cast(&exec.ColRef{Idx: i, T: c.Type}, ts[i], false, -1); err != nil {
				return nil, err
			}
		}
		return &exec.Project{Env: qc.env, Input: q.Op, Exprs: casts}, nil
	}
	// plan the step once now so errors surface at planning time
	first, err := step()
	if err != nil {
		return nil, err
	}
	first.Close()
	b := qc.binder()
	casts := make([]exec.Expr, len(cols))
	for i, c := range base.Cols {
		if casts[i], err = b.Cast(&exec.ColRef{Idx: i, T: c.Type}, ts[i], false, -1); err != nil {
			return nil, err
		}
	}
	op := &exec.RecursiveUnion{Base: &exec.Project{Env: qc.env, Input: base.Op, Exprs: casts}, Step: step, Work: work, All: sel.All}
	return &query{Op: op, Cols: cols, scans: base.scans}, nil
}

// referencesName reports whether a query mentions relation name anywhere.
func referencesName(sel *pg.SelectStmt, name string) bool {
	return countReferences(sel.ProtoReflect(), name) > 0
}

// countReferences counts the unqualified mentions of relation name in a
// parse tree (inner WITH queries of the same name shadowing it are rare
// enough to count too: the cost is only a materialization).
func countReferences(m protoreflect.Message, name string) int {
	n := 0
	var visit func(m protoreflect.Message)
	visit = func(m protoreflect.Message) {
		if rv, ok := m.Interface().(*pg.RangeVar); ok && rv.Schemaname == "" && rv.Relname == name {
			n++
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					visit(l.Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				visit(v.Message())
			}
			return true
		})
	}
	visit(m)
	return n
}

// DmlTarget is the target table of the statement being planned: its FROM
// entry plans to this source instead of a fresh scan.
type DmlTarget struct {
	Rv  *pg.RangeVar
	Src *Source
	// with returning, the query also returns every column of the FROM
	// items (extras, after the position columns), which the RETURNING list
	// may name (sql/returning.go); sel and alias find them in planSimple
	Sel       *pg.SelectStmt
	Alias     string
	Returning bool
	Extras    []ScopeCol
}
