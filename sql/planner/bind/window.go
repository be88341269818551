package bind

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// PostgreSQL's FRAMEOPTION_* bits (parsenodes.h).
const (
	frameRange                 = 0x2
	frameRows                  = 0x4
	frameGroups                = 0x8
	frameStartUnboundedPrec    = 0x20
	frameEndUnboundedFollowing = 0x100
	frameStartCurrentRow       = 0x200
	frameEndCurrentRow         = 0x400
	frameStartOffsetPreceding  = 0x800
	frameEndOffsetPreceding    = 0x1000
	frameStartOffsetFollowing  = 0x2000
	frameEndOffsetFollowing    = 0x4000
	frameExcludeCurrentRow     = 0x8000
	frameExcludeGroup          = 0x10000
	frameExcludeTies           = 0x20000
	frameEndUnboundedPrec      = 0x40
	frameStartUnboundedFollow  = 0x80
)

// winRefBase marks column references to window results until the
// window operators are placed and their output positions known.
const WinRefBase = 1 << 24

// WindowSpec is one distinct PARTITION BY / ORDER BY: one logical.Window
// (the planner builds it, windowNode).
type WindowSpec struct {
	key       string
	Partition []int // indexes into windowCollector.exprs
	Order     []order.SortKey
	Funcs     []aggregate.WindowFunc
	Refs      []int // the placeholder id of each function (WinRefBase + id)
}

// WindowCollector gathers the window functions of a SELECT. Their inputs
// are extra expressions computed over the pre-window rows.
type WindowCollector struct {
	Named map[string]*pg.WindowDef
	Exprs []exec.Expr
	Specs []*WindowSpec
	nrefs int
	types []types.T // result type per winRef
}

// RefType is the result type of the window function of placeholder id
// ref.
func (w *WindowCollector) RefType(ref int) types.T { return w.types[ref] }

// NRefs is the number of window function calls collected.
func (w *WindowCollector) NRefs() int { return w.nrefs }

var winKinds = map[string]aggregate.WinKind{
	"row_number": aggregate.WinRowNumber, "rank": aggregate.WinRank, "dense_rank": aggregate.WinDenseRank,
	"percent_rank": aggregate.WinPercentRank, "cume_dist": aggregate.WinCumeDist, "ntile": aggregate.WinNtile,
	"lag": aggregate.WinLag, "lead": aggregate.WinLead, "first_value": aggregate.WinFirstValue,
	"last_value": aggregate.WinLastValue, "nth_value": aggregate.WinNthValue,
}

func (w *WindowCollector) expr(e exec.Expr) int {
	w.Exprs = append(w.Exprs, e)
	return len(w.Exprs) - 1
}

// resolveDef merges a window definition with the named window it refers to.
func (w *WindowCollector) resolveDef(d *pg.WindowDef) (*pg.WindowDef, error) {
	name := d.Refname
	if name == "" && d.Name != "" && len(d.PartitionClause) == 0 && len(d.OrderClause) == 0 && d.FrameOptions&1 == 0 {
		name = d.Name // OVER w
	}
	if name == "" {
		return d, nil
	}
	base, ok := w.Named[name]
	if !ok {
		return nil, ErrAt(pgerr.New(pgerr.UndefinedObject, "window \"%s\" does not exist", name), d.Location)
	}
	out := &pg.WindowDef{PartitionClause: base.PartitionClause, OrderClause: base.OrderClause, FrameOptions: base.FrameOptions, StartOffset: base.StartOffset, EndOffset: base.EndOffset, Location: d.Location}
	if len(d.OrderClause) > 0 {
		out.OrderClause = d.OrderClause
	}
	if d.FrameOptions&1 != 0 {
		out.FrameOptions, out.StartOffset, out.EndOffset = d.FrameOptions, d.StartOffset, d.EndOffset
	}
	return out, nil
}

// add binds a window function call and returns a placeholder reference.
func (w *WindowCollector) add(b *Binder, f *pg.FuncCall, sc *Scope) (exec.Expr, error) {
	name := FuncName(f)
	def, err := w.resolveDef(f.Over)
	if err != nil {
		return nil, err
	}
	inner := *b
	inner.Win = nil
	inner.NoAggMsg = ""
	bindExpr := func(n *pg.Node) (exec.Expr, error) {
		e, err := inner.Bind(n, sc)
		if err != nil {
			return nil, err
		}
		if e.Type().ID == types.Unknown {
			return b.Cast(e, types.TextT, false, NodeLoc(n))
		}
		return e, nil
	}
	// the spec
	var part []int
	var keys []order.SortKey
	key := ""
	for _, p := range def.PartitionClause {
		e, err := bindExpr(p)
		if err != nil {
			return nil, err
		}
		part = append(part, w.expr(e))
		key += "p" + DeparseExpr(p) + ";"
	}
	var orderTypes []types.T
	for _, o := range def.OrderClause {
		sb := o.GetSortBy()
		e, err := bindExpr(sb.Node)
		if err != nil {
			return nil, err
		}
		desc := sb.SortbyDir == pg.SortByDir_SORTBY_DESC
		nullsFirst := desc
		switch sb.SortbyNulls {
		case pg.SortByNulls_SORTBY_NULLS_FIRST:
			nullsFirst = true
		case pg.SortByNulls_SORTBY_NULLS_LAST:
			nullsFirst = false
		}
		keys = append(keys, order.SortKey{Col: w.expr(e), Desc: desc, NullsFirst: nullsFirst})
		orderTypes = append(orderTypes, e.Type())
		// the sort item's expression: a SortBy node does not deparse alone
		key += fmt.Sprintf("o%s %d %d;", DeparseExpr(sb.Node), sb.SortbyDir, sb.SortbyNulls)
	}
	frame, err := b.frame(def, orderTypes)
	if err != nil {
		return nil, err
	}
	// the function
	var wf aggregate.WindowFunc
	wf.Frame = frame
	var argTypes []types.T
	if kind, ok := winKinds[name]; ok {
		wf.Kind = kind
		for i, a := range f.Args {
			e, err := bindExpr(a)
			if err != nil {
				return nil, err
			}
			if (kind == aggregate.WinLag || kind == aggregate.WinLead) && i == 1 || kind == aggregate.WinNthValue && i == 1 || kind == aggregate.WinNtile {
				if e, err = b.Cast(e, types.Int64T, false, f.Location); err != nil {
					return nil, err
				}
			}
			if (kind == aggregate.WinLag || kind == aggregate.WinLead) && i == 2 && len(argTypes) > 0 {
				if e, err = b.Cast(e, argTypes[0], false, f.Location); err != nil {
					return nil, err
				}
			}
			wf.Args = append(wf.Args, w.expr(e))
			argTypes = append(argTypes, e.Type())
		}
	} else if IsAggregate(name) {
		// an aggregate over the frame: bind it like a grouped aggregate, on
		// the window's extra expressions
		coll := &AggCollector{overWindow: true}
		ab := *b
		ab.Aggs, ab.Win = coll, nil
		plain := proto.Clone(f).(*pg.FuncCall)
		plain.Over = nil
		if _, err := coll.Add(&ab, plain, sc); err != nil {
			return nil, err
		}
		agg := coll.aggs[0]
		base := len(w.Exprs)
		for _, e := range coll.inputs {
			w.expr(e)
		}
		if len(agg.Order) > 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ORDER BY inside an aggregate used as a window function is not supported")
		}
		agg.Arg += base
		if agg.Kind == aggregate.AggStringAgg {
			agg.Arg2 += base
		}
		if agg.Filter > 0 {
			agg.Filter += base
		}
		wf.Kind, wf.Agg = aggregate.WinAgg, agg
	} else {
		return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "function %s is not a window function", name), f.Location)
	}
	var spec *WindowSpec
	for _, s := range w.Specs {
		if s.key == key {
			spec = s
		}
	}
	if spec == nil {
		spec = &WindowSpec{key: key, Partition: part, Order: keys}
		w.Specs = append(w.Specs, spec)
	}
	ref := w.nrefs
	w.nrefs++
	spec.Funcs = append(spec.Funcs, wf)
	spec.Refs = append(spec.Refs, ref)
	// result type: over the extra expressions' types
	ts := make([]types.T, len(w.Exprs))
	for i, e := range w.Exprs {
		ts[i] = e.Type()
	}
	t, err := aggregate.WindowResultType(wf, ts)
	if err != nil {
		if pe, ok := pgerr.As(err); ok {
			return nil, ErrAt(pe, f.Location)
		}
		return nil, err
	}
	w.types = append(w.types, t)
	return &exec.ColRef{Idx: WinRefBase + ref, T: t}, nil
}

// frame converts a window definition's frame clause.
func (b *Binder) frame(def *pg.WindowDef, orderTypes []types.T) (aggregate.Frame, error) {
	o := def.FrameOptions
	if o&1 == 0 {
		return aggregate.Frame{}, nil
	}
	var f aggregate.Frame
	switch {
	case o&frameExcludeCurrentRow != 0:
		f.Exclude = aggregate.ExcludeCurrentRow
	case o&frameExcludeGroup != 0:
		f.Exclude = aggregate.ExcludeGroup
	case o&frameExcludeTies != 0:
		f.Exclude = aggregate.ExcludeTies
	}
	switch {
	case o&frameRows != 0:
		f.Mode = aggregate.FrameRows
	case o&frameGroups != 0:
		f.Mode = aggregate.FrameGroups
	default:
		f.Mode = aggregate.FrameRange
	}
	offset := func(n *pg.Node) (aggregate.FrameBound, error) {
		var fb aggregate.FrameBound
		e, err := b.Bind(n, &Scope{})
		if err != nil {
			return fb, err
		}
		k, ok := e.(*exec.Const)
		if !ok || k.IsNull() {
			// a constant the binder could not fold fails with its own error
			if err := exec.FoldError(b.Env, e); err != nil {
				return fb, err
			}
			return fb, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "frame offsets must be constants"), def.Location)
		}
		if f.Mode != aggregate.FrameRange {
			v, err := exec.CastVector(b.Env, k.V, 1, types.Int64T, false)
			if err != nil {
				return fb, err
			}
			if v.I64[0] < 0 {
				return fb, pgerr.New("22013", "frame starting offset must not be negative")
			}
			fb.Offset = v.I64[0]
			return fb, nil
		}
		if len(orderTypes) != 1 {
			return fb, ErrAt(pgerr.New(pgerr.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column"), def.Location)
		}
		ot := orderTypes[0]
		switch {
		case ot.IsFloat():
			v, err := exec.CastVector(b.Env, k.V, 1, types.Float64T, false)
			if err != nil {
				return fb, err
			}
			fb.OffsetF = v.F64[0]
		case ot.IsInteger() || ot.ID == types.Numeric && ot.Scale >= 0:
			v, err := exec.CastVector(b.Env, k.V, 1, types.T{ID: types.Numeric, Precision: 18, Scale: max(ot.Scale, 0)}, false)
			if err != nil {
				return fb, err
			}
			fb.Offset = v.I64[0]
		case ot.ID == types.Date || ot.ID == types.Timestamp || ot.ID == types.Timestamptz:
			v, err := exec.CastVector(b.Env, k.V, 1, types.IntervalT, false)
			if err != nil {
				return fb, err
			}
			iv := v.Iv[0]
			fb.OffsetIv = iv
		default:
			return fb, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "RANGE with offset is not supported for type %s", ot), def.Location)
		}
		return fb, nil
	}
	var err error
	switch {
	case o&frameStartUnboundedPrec != 0:
		f.Start.Kind = aggregate.BoundUnboundedPreceding
	case o&frameStartCurrentRow != 0:
		f.Start.Kind = aggregate.BoundCurrentRow
	case o&frameStartOffsetPreceding != 0:
		f.Start, err = offset(def.StartOffset)
		f.Start.Kind = aggregate.BoundPreceding
	case o&frameStartOffsetFollowing != 0:
		f.Start, err = offset(def.StartOffset)
		f.Start.Kind = aggregate.BoundFollowing
	case o&frameStartUnboundedFollow != 0:
		return f, ErrAt(pgerr.New(pgerr.WindowingError, "frame start cannot be UNBOUNDED FOLLOWING"), def.Location)
	}
	if err != nil {
		return f, err
	}
	switch {
	case o&frameEndUnboundedFollowing != 0:
		f.End.Kind = aggregate.BoundUnboundedFollowing
	case o&frameEndOffsetPreceding != 0:
		f.End, err = offset(def.EndOffset)
		f.End.Kind = aggregate.BoundPreceding
	case o&frameEndOffsetFollowing != 0:
		f.End, err = offset(def.EndOffset)
		f.End.Kind = aggregate.BoundFollowing
	case o&frameEndUnboundedPrec != 0:
		return f, ErrAt(pgerr.New(pgerr.WindowingError, "frame end cannot be UNBOUNDED PRECEDING"), def.Location)
	default:
		f.End.Kind = aggregate.BoundCurrentRow
	}
	return f, err
}

// lateSubRef + k stands for the value of the k-th grouped subquery until
// the aggregate's width is known (above window references, winRefBase),
// lateWinRef + k for the k-th subquery above the window operators.
const (
	LateSubRef = 1 << 28
	LateWinRef = 1 << 29
)
