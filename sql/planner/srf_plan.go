package planner

import (
	"strings"
	"sync/atomic"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/sql/planner/bind"
	"github.com/lakepg/lakepg/types"
)

// corrOuter is the outer query of a correlated subquery while the
// subquery's FROM is planned. A function there whose arguments read the
// outer row (psql's \d: generate_series(0, array_upper(pr.prattrs, 1)))
// runs over a numbered copy of the outer rows and keeps the number; the
// subquery is then joined back to the outer rows on that number, one more
// correlation key, so the decorrelation of plan_subquery.go applies as is.
type corrOuter struct {
	cur *Source
	mat *exec.Materialized // the numbered outer rows, once a function needs them
	// hidden names of the row number on the outer side and in the function
	outerRN, innerRN string
}

var rnNames atomic.Int64

// numbered is the outer rows with their row number appended, shared by
// the function's input and the outer side of the final join.
func (c *corrOuter) numbered() *Source {
	if c.mat == nil {
		c.mat = &exec.Materialized{Input: &exec.RowNumber{Input: c.cur.op}}
		n := Itoa(int(rnNames.Add(1)))
		c.outerRN, c.innerRN = "\x00rn.outer"+n, "\x00rn.inner"+n
	}
	sc := &Scope{Cols: append(append([]ScopeCol{}, c.cur.Sc.Cols...), ScopeCol{Name: c.outerRN, T: types.Int64T})}
	return &Source{op: c.mat.Reader(), Sc: sc, scans: c.cur.scans, rows: c.cur.rows}
}

// SrfValue is the value of a set-returning call that prepareSRFs has
// already run below the SELECT list.
func (qc *QueryCtx) SrfValue(f *pg.FuncCall) (exec.Expr, bool) {
	if qc == nil || qc.srfCols == nil {
		return nil, false
	}
	e, ok := qc.srfCols[f]
	return e, ok
}

// prepareSRFs runs the set-returning calls of a SELECT list (nodes) in one
// lateralCall over src and remembers their values for the binder.
func (qc *QueryCtx) prepareSRFs(src *Source, nodes []*pg.Node) (*Source, error) {
	calls := srfCalls(nodes)
	if len(calls) == 0 {
		return src, nil
	}
	// correlated subqueries in the calls' arguments become columns of src
	// first (pgcli's foreign-key query unnests one per row)
	for _, fc := range calls {
		for _, a := range fc.Args {
			if hasSubLink(a) {
				var err error
				if src, err = qc.prepareScalarSubLinks(src, a); err != nil {
					return nil, err
				}
			}
		}
	}
	b := qc.binder()
	var bound []*bind.Srf
	for _, fc := range calls {
		f, _, err := b.BindSRF(fc, src.Sc)
		if err != nil {
			return nil, err
		}
		bound = append(bound, f)
	}
	sc := &Scope{Cols: append([]ScopeCol{}, src.Sc.Cols...)}
	for k, f := range bound {
		first := len(sc.Cols)
		var args []exec.Expr
		for i, c := range f.Cols {
			sc.Cols = append(sc.Cols, ScopeCol{Name: "\x00srf", T: c.Type})
			args = append(args, &exec.ColRef{Idx: first + i, T: c.Type})
		}
		if f.Record {
			qc.srfCols[calls[k]] = &bind.RecordExpr{Fields: f.Cols, Args: args}
		} else {
			qc.srfCols[calls[k]] = args[0]
		}
	}
	op := &bind.LateralCall{Env: qc.env, Input: src.op, Calls: bound}
	return &Source{op: op, Sc: sc, scans: src.scans, rows: src.rows * 10}, nil
}

// srfCalls lists the set-returning calls in nodes (not inside subqueries
// or other set-returning calls).
func srfCalls(nodes []*pg.Node) []*pg.FuncCall {
	var calls []*pg.FuncCall
	for _, n := range nodes {
		Walk(n, func(x *pg.Node) bool {
			if fc := x.GetFuncCall(); fc != nil && fc.Over == nil && IsSRF(FuncName(fc)) {
				calls = append(calls, fc)
				return false
			}
			return x.GetSubLink() == nil
		})
	}
	return calls
}

// errSRFWithAggregates: lakepg runs SELECT-list set-returning functions
// only without grouping.
func errSRFWithAggregates(loc int32) error {
	return ErrAt(pgerr.New(pgerr.FeatureNotSupported, "set-returning functions in a SELECT list with aggregates or GROUP BY are not supported yet"), loc)
}

// fromFunction plans a function in FROM that rangeFunction does not serve
// itself: a set-returning function, or a scalar function (one row), over
// constant arguments, over the FROM items before it (an implicit LATERAL
// call, as PostgreSQL makes every function in FROM), or over the outer row
// of a correlated subquery (corr). It returns the new item list and
// pending conjuncts; ok is false when rangeFunction should plan it.
func (qc *QueryCtx) fromFunction(rf *pg.RangeFunction, items []*Source, conj []*pg.Node, corr *corrOuter) ([]*Source, []*pg.Node, bool, error) {
	if len(rf.Functions) != 1 {
		return items, conj, false, nil
	}
	list := rf.Functions[0].GetList()
	if list == nil || len(list.Items) == 0 {
		return items, conj, false, nil
	}
	fc := list.Items[0].GetFuncCall()
	if fc == nil {
		return items, conj, false, nil
	}
	name := FuncName(fc)
	if strings.HasPrefix(name, "lakepg.") || name == "read_parquet" || name == "ducklake_table_changes" {
		return items, conj, false, nil
	}
	if _, ok := pgcatalog.TableFunction(strings.TrimPrefix(name, "pg_catalog.")); ok {
		return items, conj, false, nil
	}
	var refs []*pg.ColumnRef
	for _, a := range fc.Args {
		refs = append(refs, columnRefs(a)...)
	}
	if len(refs) == 0 && name == "generate_series" && !rf.Ordinality {
		return items, conj, false, nil // constant bounds: rangeFunction's series
	}
	resolvesIn := func(sc *Scope) bool {
		for _, cr := range refs {
			t, c, ok := refNames(cr)
			if !ok || !sc.Resolves(t, c) {
				return false
			}
		}
		return true
	}
	var in *Source
	correlated := false
	switch {
	case len(refs) == 0:
		in = &Source{op: &exec.Values{Env: qc.env, Rows: [][]exec.Expr{{}}}, Sc: &Scope{}, rows: 1}
	case len(items) > 0 && resolvesIn(concatScopes(items)):
		cur, err := qc.joinItems(items, conj)
		if err != nil {
			return nil, nil, true, err
		}
		in, items, conj = cur, nil, nil
	case len(items) == 0 && corr != nil && resolvesIn(corr.cur.Sc):
		in, correlated = corr.numbered(), true
	default:
		// arguments reading what is not in reach: binding says what is missing
		in = &Source{op: &exec.Values{Env: qc.env, Rows: [][]exec.Expr{{}}}, Sc: &Scope{}, rows: 1}
		if len(items) > 0 {
			in = &Source{Sc: concatScopes(items)}
		}
	}
	b := qc.binder()
	zip, ok, err := b.BindUnnestZip(fc, in.Sc, rf.Ordinality) // bind/srf_zip.go
	if err != nil {
		return nil, nil, true, err
	}
	var call *bind.Srf
	if ok {
		call = zip[0]
	} else if call, ok, err = b.BindSRF(fc, in.Sc); err != nil {
		return nil, nil, true, err
	}
	short := name[strings.LastIndexByte(name, '.')+1:]
	if !ok {
		e, err := b.Bind(&pg.Node{Node: &pg.Node_FuncCall{FuncCall: fc}}, in.Sc)
		if err != nil {
			return nil, nil, true, err
		}
		if e.Type().ID == types.Unknown {
			if e, err = b.Cast(e, types.TextT, false, fc.Location); err != nil {
				return nil, nil, true, err
			}
		}
		call = bind.ScalarSRF(short, e)
	}
	if rf.Ordinality {
		call = bind.WithOrdinality(call)
	}
	if in.op == nil {
		return nil, nil, true, ErrAt(pgerr.New(pgerr.UndefinedColumn, "function %s cannot read these columns here", name), fc.Location)
	}
	alias := short
	var colAliases []string
	if rf.Alias != nil {
		alias, colAliases = rf.Alias.Aliasname, StrNodes(rf.Alias.Colnames)
	}
	var fcols []ScopeCol
	for _, c := range call.Cols {
		fcols = append(fcols, ScopeCol{Table: alias, Name: c.Name, T: c.Type})
	}
	for _, z := range zip[min(1, len(zip)):] {
		fcols = append(fcols, ScopeCol{Table: alias, Name: short, T: z.Cols[0].Type})
	}
	if !call.Record && zip == nil {
		fcols[0].Name = short
		if rf.Alias != nil {
			fcols[0].Name = alias // a single-column function takes its alias as column name
		}
	}
	fsc := &Scope{Cols: fcols}
	if err := renameCols(fsc, colAliases, alias); err != nil {
		return nil, nil, true, err
	}
	calls := []*bind.Srf{call}
	if zip != nil {
		calls = zip
	}
	var op exec.Operator = &bind.LateralCall{Env: qc.env, Input: in.op, Calls: calls}
	nIn := len(in.Sc.Cols)
	sc := &Scope{Cols: append(append([]ScopeCol{}, in.Sc.Cols...), fsc.Cols...)}
	if correlated {
		// keep the row number and the function's columns only
		ts := op.Types()
		outs := []exec.Expr{&exec.ColRef{Idx: nIn - 1, T: types.Int64T}}
		sc = &Scope{Cols: []ScopeCol{{Name: corr.innerRN, T: types.Int64T}}}
		for i, c := range fsc.Cols {
			outs = append(outs, &exec.ColRef{Idx: nIn + i, T: ts[nIn+i]})
			sc.Cols = append(sc.Cols, c)
		}
		op = &exec.Project{Env: qc.env, Input: op, Exprs: outs}
	}
	src := &Source{op: op, Sc: sc, scans: in.scans, rows: max(in.rows, 1) * 10}
	return append(items, src), conj, true, nil
}

func concatScopes(items []*Source) *Scope {
	sc := &Scope{}
	for _, it := range items {
		sc.Cols = append(sc.Cols, it.Sc.Cols...)
	}
	return sc
}

// withCorrelation finishes planning a correlated subquery's FROM: when a
// function there read the outer row, the outer side becomes the numbered
// outer rows and the row numbers must match, one more correlated
// equality.
func (cr *correlated) withCorrelation(corr *corrOuter) {
	if corr.mat == nil {
		return
	}
	num := corr.numbered()
	cr.cur = num
	eq := &pg.Node{Node: &pg.Node_AExpr{AExpr: &pg.A_Expr{Kind: pg.A_Expr_Kind_AEXPR_OP,
		Name:  []*pg.Node{pg.MakeStrNode("=")},
		Lexpr: ColRefNode(ScopeCol{Name: corr.outerRN}), Rexpr: ColRefNode(ScopeCol{Name: corr.innerRN}), Location: -1}}}
	cr.outer = append(cr.outer, eq)
}

// dropColumn removes column i from a planned source (the row number a
// correlated function added), so that it never shows in SELECT *.
func (qc *QueryCtx) dropColumn(src *Source, i int) *Source {
	var outs []exec.Expr
	sc := &Scope{}
	for k, c := range src.Sc.Cols {
		if k == i {
			continue
		}
		outs = append(outs, &exec.ColRef{Idx: k, T: c.T})
		sc.Cols = append(sc.Cols, c)
	}
	return &Source{op: &exec.Project{Env: qc.env, Input: src.op, Exprs: outs}, Sc: sc, scans: src.scans, rows: src.rows}
}
