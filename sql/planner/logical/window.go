package logical

import "github.com/lakepg/lakepg/types"

// WinFunc is a window function of Window: the ranking and offset
// functions by name, WinAgg for an aggregate over the frame.
type WinFunc uint8

const (
	WinRowNumber WinFunc = iota + 1
	WinRank
	WinDenseRank
	WinPercentRank
	WinCumeDist
	WinNtile      // ntile(Args[0])
	WinLag        // lag(Args[0] [, Args[1] offset [, Args[2] default]])
	WinLead       // lead(Args[0] [, Args[1] offset [, Args[2] default]])
	WinFirstValue // first_value(Args[0])
	WinLastValue  // last_value(Args[0])
	WinNthValue   // nth_value(Args[0], Args[1])
	WinAgg        // WindowCall.Agg over the frame
)

var winFuncNames = [...]string{WinRowNumber: "row_number", WinRank: "rank", WinDenseRank: "dense_rank",
	WinPercentRank: "percent_rank", WinCumeDist: "cume_dist", WinNtile: "ntile", WinLag: "lag", WinLead: "lead",
	WinFirstValue: "first_value", WinLastValue: "last_value", WinNthValue: "nth_value", WinAgg: "agg"}

func (f WinFunc) String() string {
	if int(f) < len(winFuncNames) && winFuncNames[f] != "" {
		return winFuncNames[f]
	}
	return "?"
}

// FrameMode is a frame's unit: RANGE (the zero value), ROWS or GROUPS.
type FrameMode uint8

const (
	FrameRange FrameMode = iota
	FrameRows
	FrameGroups
)

// BoundKind is where a frame starts or ends.
type BoundKind uint8

const (
	BoundUnboundedPreceding BoundKind = iota
	BoundPreceding                    // Offset PRECEDING
	BoundCurrentRow
	BoundFollowing // Offset FOLLOWING
	BoundUnboundedFollowing
)

// FrameBound is one end of a frame. Offset counts rows (ROWS) or peer
// groups (GROUPS), or for RANGE is a distance in the ORDER BY column's
// stored units; OffsetF is a RANGE distance over a float column and
// OffsetIv over a date or timestamp column.
type FrameBound struct {
	Kind     BoundKind
	Offset   int64
	OffsetF  float64
	OffsetIv types.IntervalValue
}

// FrameExclude is a frame's EXCLUDE clause: NO OTHERS (the zero value),
// CURRENT ROW, GROUP (the row and its peers) or TIES (its peers only).
type FrameExclude uint8

const (
	ExcludeNoOthers FrameExclude = iota
	ExcludeCurrentRow
	ExcludeGroup
	ExcludeTies
)

// Frame is a window frame; the zero Frame is SQL's default (RANGE
// BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), as the executor reads it.
type Frame struct {
	Mode       FrameMode
	Start, End FrameBound
	Exclude    FrameExclude
}

// WindowCall is one window function call of Window over input columns.
type WindowCall struct {
	Func WinFunc
	Args []int
	// Agg is the aggregate of a WinAgg call (over input columns; no
	// DISTINCT, no ordered-set aggregates), as the binder gave it.
	Agg   Agg
	Frame Frame
	// Out is the call's result type.
	Out types.T
}

// Window computes Calls over the partitions of its rows by Partition
// (NULLs equal), each partition ordered by Order: its columns are its
// input's, then one per call. Its rows come out ordered by Partition
// (in its columns' order) then Order, unless Parallel: then a worker's
// share of partitions after another's, each partition still in order.
// Parallel is set by the planner where nothing above owes the partition
// order (its rule parallel_windows); physical planning deals the
// partitions to every core.
type Window struct {
	Input     Node
	Partition []int
	Order     []SortKey
	Calls     []WindowCall
	Parallel  bool
	Cols      []Column
}

// NewWindow is a Window with its columns filled in: its input's, then
// one named after each call's function.
func NewWindow(in Node, partition []int, order []SortKey, calls []WindowCall, parallel bool) *Window {
	ic := in.Columns()
	cols := append(make([]Column, 0, len(ic)+len(calls)), ic...)
	for _, c := range calls {
		name := c.Func.String()
		if c.Func == WinAgg {
			name = c.Agg.Func.String()
		}
		cols = append(cols, Column{Name: name, Type: c.Out})
	}
	return &Window{Input: in, Partition: partition, Order: order, Calls: calls, Parallel: parallel, Cols: cols}
}

func (n *Window) Columns() []Column { return n.Cols }
func (n *Window) Inputs() []Node    { return []Node{n.Input} }
