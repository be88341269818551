package physical

import (
	"runtime"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner/logical"
	"github.com/lakepg/lakepg/types"
)

// window is the aggregate.Window of x: a Parallel window's partitions are
// dealt to as many workers as the process has cores.
func (b *Builder) window(x *logical.Window) (exec.Operator, error) {
	env := b.Env
	in, err := b.Build(x.Input)
	if err != nil {
		return nil, err
	}
	w := &aggregate.Window{Env: env, Input: in, PartitionBy: x.Partition}
	for _, k := range x.Order {
		w.OrderBy = append(w.OrderBy, order.SortKey{Col: k.Col, Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	for _, c := range x.Calls {
		f, err := WindowFunc(c)
		if err != nil {
			return nil, err
		}
		w.Funcs = append(w.Funcs, f)
	}
	if x.Parallel {
		w.Workers = runtime.GOMAXPROCS(0)
	}
	return w, nil
}

// WindowFunc is the executor's window function of call c.
func WindowFunc(c logical.WindowCall) (aggregate.WindowFunc, error) {
	if int(c.Func) >= len(winKinds) || c.Func == 0 {
		return aggregate.WindowFunc{}, pgerr.New(pgerr.Internal, "physical: window function %d", c.Func)
	}
	f := aggregate.WindowFunc{Kind: winKinds[c.Func], Args: c.Args, Frame: aggregate.Frame{
		Mode:    aggregate.FrameMode(c.Frame.Mode),
		Start:   frameBound(c.Frame.Start),
		End:     frameBound(c.Frame.End),
		Exclude: aggregate.FrameExclude(c.Frame.Exclude),
	}}
	if c.Func == logical.WinAgg {
		var err error
		if f.Agg, err = Agg(c.Agg); err != nil {
			return f, err
		}
	}
	return f, nil
}

// LogicalWindowCall is the logical call of the executor's window function
// f, whose result type is out.
func LogicalWindowCall(f aggregate.WindowFunc, out types.T) (logical.WindowCall, error) {
	c := logical.WindowCall{Args: f.Args, Out: out, Frame: logical.Frame{
		Mode:    logical.FrameMode(f.Frame.Mode),
		Start:   logicalBound(f.Frame.Start),
		End:     logicalBound(f.Frame.End),
		Exclude: logical.FrameExclude(f.Frame.Exclude),
	}}
	for k, kind := range winKinds {
		if k != 0 && kind == f.Kind {
			c.Func = logical.WinFunc(k)
		}
	}
	if c.Func == 0 {
		return c, pgerr.New(pgerr.Internal, "no logical window function of kind %d", f.Kind)
	}
	if c.Func == logical.WinAgg {
		var err error
		if c.Agg, err = LogicalAgg(f.Agg); err != nil {
			return c, err
		}
	}
	return c, nil
}

// winKinds are the executor's window functions of the logical ones.
var winKinds = [...]aggregate.WinKind{
	logical.WinRowNumber: aggregate.WinRowNumber, logical.WinRank: aggregate.WinRank,
	logical.WinDenseRank: aggregate.WinDenseRank, logical.WinPercentRank: aggregate.WinPercentRank,
	logical.WinCumeDist: aggregate.WinCumeDist, logical.WinNtile: aggregate.WinNtile,
	logical.WinLag: aggregate.WinLag, logical.WinLead: aggregate.WinLead,
	logical.WinFirstValue: aggregate.WinFirstValue, logical.WinLastValue: aggregate.WinLastValue,
	logical.WinNthValue: aggregate.WinNthValue, logical.WinAgg: aggregate.WinAgg,
}

func frameBound(b logical.FrameBound) aggregate.FrameBound {
	return aggregate.FrameBound{Kind: aggregate.BoundKind(b.Kind), Offset: b.Offset, OffsetF: b.OffsetF, OffsetIv: b.OffsetIv}
}

func logicalBound(b aggregate.FrameBound) logical.FrameBound {
	return logical.FrameBound{Kind: logical.BoundKind(b.Kind), Offset: b.Offset, OffsetF: b.OffsetF, OffsetIv: b.OffsetIv}
}
