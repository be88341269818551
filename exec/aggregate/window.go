package aggregate

import (
	"context"
	"math"
	"sort"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/fn"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// WinKind names a window function.
type WinKind uint8

const (
	WinRowNumber   WinKind = iota // row_number()
	WinRank                       // rank()
	WinDenseRank                  // dense_rank()
	WinPercentRank                // percent_rank()
	WinCumeDist                   // cume_dist()
	WinNtile                      // ntile(Args[0])
	WinLag                        // lag(Args[0] [, Args[1] offset [, Args[2] default]])
	WinLead                       // lead(Args[0] [, Args[1] offset [, Args[2] default]])
	WinFirstValue                 // first_value(Args[0])
	WinLastValue                  // last_value(Args[0])
	WinNthValue                   // nth_value(Args[0], Args[1])
	WinAgg                        // an aggregate (WindowFunc.Agg) over the frame
)

// FrameMode is ROWS, RANGE or GROUPS.
type FrameMode uint8

const (
	FrameRange FrameMode = iota
	FrameRows
	FrameGroups
)

// BoundKind is one end of a frame.
type BoundKind uint8

const (
	BoundUnboundedPreceding BoundKind = iota
	BoundPreceding                    // Offset PRECEDING
	BoundCurrentRow
	BoundFollowing // Offset FOLLOWING
	BoundUnboundedFollowing
)

// FrameBound is a frame start or end. Offset counts rows (ROWS) or peer
// groups (GROUPS); for RANGE it is a distance in the ORDER BY column's
// stored units — integers, days for dates, microseconds for timestamps,
// scaled units for numeric(p,s) — and OffsetF is used instead when the
// column is a float.
//
// For date, timestamp and timestamptz columns the RANGE offset is an
// interval, OffsetIv, as in PostgreSQL; month arithmetic follows the
// calendar (and the session time zone for timestamptz).
type FrameBound struct {
	Kind     BoundKind
	Offset   int64
	OffsetF  float64
	OffsetIv types.IntervalValue
}

// Frame is a window frame. The zero Frame is PostgreSQL's default: RANGE
// BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, whose end includes the
// current row's peers (all rows when there is no ORDER BY).
type Frame struct {
	Mode       FrameMode
	Start, End FrameBound
	Exclude    FrameExclude // window_exclude.go
}

// DefaultFrame is the frame the zero Frame stands for.
var DefaultFrame = Frame{Mode: FrameRange, Start: FrameBound{Kind: BoundUnboundedPreceding}, End: FrameBound{Kind: BoundCurrentRow}}

func (f Frame) resolved() Frame {
	if f == (Frame{}) {
		return DefaultFrame
	}
	return f
}

// WindowFunc is one window function call.
type WindowFunc struct {
	Kind WinKind
	// Args are input columns, in the SQL call's argument order (see WinKind).
	Args []int
	// Agg is the aggregate for WinAgg; its Arg/Arg2/Filter are input
	// columns. DISTINCT and ordered-set aggregates are not window functions.
	Agg   Agg
	Frame Frame // used by WinFirstValue, WinLastValue, WinNthValue and WinAgg
}

// Window computes window functions. Output: the input columns, then one
// column per function, with rows ordered by PartitionBy then OrderBy.
//
// It buffers its input (accounted against Mem), sorts it once through
// normalised keys, and evaluates each function a partition at a time over
// the sorted columns. Aggregates reuse the HashAgg states with a single
// group: a frame that only grows is accumulated incrementally, a frame
// whose start moves is updated by removing rows when the state is exactly
// invertible (count, integer and numeric sums) and recomputed otherwise, as
// PostgreSQL does.
type Window struct {
	Env         *exec.Env
	Input       exec.Operator
	PartitionBy []int
	OrderBy     []order.SortKey
	Funcs       []WindowFunc
	Mem         *memory.Memory
	// Workers > 1 lets a window with PARTITION BY evaluate its partitions
	// on that many goroutines, with the windows directly below it that
	// share a partition column (windowpar.go).
	Workers int

	started bool
	ts      []types.T
	data    *memory.ColBuf // sorted input
	res     *memory.ColBuf // function results
	out     *memory.ColBuf
	view    []vec.Vector // out's columns: views of data and res
	pos     int
	mem     memory.Reservation
	// per-row partition and peer-group structure of the sorted input
	partEnd  []int32 // end of the row's partition
	peerBeg  []int32 // start of the row's peer group
	peerEnd  []int32 // end of the row's peer group
	groupIdx []int32 // peer group number within the partition
	iota     []int32
	zeros    []int32

	rts    []types.T
	stream *winStream // the input outgrew memory (windowspill.go)
	pg     *pagedPart // the spilled partition being emitted (windowpaged.go)

	// windowpar.go: the shares evaluated in parallel; rows (and a batch
	// that did not fit) a window above buffered for this one; whether the
	// window is past deciding
	par      *winPar
	seed     *memory.ColBuf
	seedOver *vec.Batch
	noPar    bool
}

// WindowResultType is the result type of f over input columns of types in.
func WindowResultType(f WindowFunc, in []types.T) (types.T, error) {
	switch f.Kind {
	case WinRowNumber, WinRank, WinDenseRank:
		return types.Int64T, nil
	case WinNtile:
		return types.Int32T, nil
	case WinPercentRank, WinCumeDist:
		return types.Float64T, nil
	case WinLag, WinLead, WinFirstValue, WinLastValue, WinNthValue:
		if len(f.Args) == 0 {
			return types.T{}, pgerr.New(pgerr.UndefinedFunction, "window function needs an argument")
		}
		return in[f.Args[0]], nil
	case WinAgg:
		if f.Agg.Distinct {
			return types.T{}, pgerr.New(pgerr.FeatureNotSupported, "DISTINCT is not implemented for window functions")
		}
		if f.Agg.Kind.orderedSet() {
			return types.T{}, pgerr.New("42809", "OVER is not supported for ordered-set aggregate %s", f.Agg.Kind.Name())
		}
		return aggOut(f.Agg)
	}
	return types.T{}, pgerr.New(pgerr.UndefinedFunction, "unknown window function")
}

func (w *Window) Types() []types.T {
	if w.ts == nil {
		in := w.Input.Types()
		w.ts = append([]types.T{}, in...)
		for _, f := range w.Funcs {
			t, _ := WindowResultType(f, in)
			w.ts = append(w.ts, t)
		}
	}
	return w.ts
}

func (w *Window) Close() error {
	parErr := w.closePar()
	w.seed, w.seedOver = nil, nil
	w.mem.Release()
	w.pg.Close()
	w.pg = nil
	if w.stream != nil {
		w.stream.paged.Close()
		w.stream.paged = nil
		w.stream.sorted.Close()
	}
	if err := w.Input.Close(); err != nil {
		return err
	}
	return parErr
}

func (w *Window) Next(ctx context.Context) (*vec.Batch, error) {
	if !w.started {
		w.started = true
		if err := w.compute(ctx); err != nil {
			return nil, err
		}
		w.out = &memory.ColBuf{}
	}
	if w.par != nil {
		return w.nextPar(ctx)
	}
	if w.stream != nil {
		return w.nextStreamed(ctx)
	}
	n := w.data.N
	if w.pos >= n {
		w.mem.Release()
		return nil, nil
	}
	return w.emit(), nil
}

// emit returns the next batch of computed rows: views of the sorted input
// and the results, not copies. Their capacity ends at the batch, so a
// consumer that appends to a column gets a copy and cannot overwrite the
// rows after it.
func (w *Window) emit() *vec.Batch {
	n := w.data.N
	lo, hi := w.pos, min(w.pos+vec.BatchSize, n)
	w.pos = hi
	nin := len(w.data.Vecs)
	if w.view == nil {
		w.view = make([]vec.Vector, nin+len(w.res.Vecs))
		w.out.Vecs = make([]*vec.Vector, len(w.view))
		for i := range w.view {
			w.out.Vecs[i] = &w.view[i]
		}
	}
	for c, v := range w.data.Vecs {
		v.SliceInto(&w.view[c], lo, hi)
	}
	for c, v := range w.res.Vecs {
		v.SliceInto(&w.view[nin+c], lo, hi)
	}
	w.out.N = hi - lo
	return &w.out.Batch
}

func (w *Window) compute(ctx context.Context) error {
	w.Mem = memory.MemFor(ctx, w.Mem)
	w.mem.Mem = w.Mem
	w.mem.Cap = memory.WorkMemOf(ctx)
	in := w.Input.Types()
	var rts []types.T
	for _, f := range w.Funcs {
		t, err := WindowResultType(f, in)
		if err != nil {
			return err
		}
		rts = append(rts, t)
	}
	w.rts = rts
	if stack, cols := w.parStack(); stack != nil {
		done, err := w.computeParallel(ctx, stack, cols)
		if done || err != nil {
			return err
		}
	}
	w.noPar = true
	buf := memory.NewColBuf(in, vec.BatchSize)
	// sort by partition, then order; the keys are reserved with the rows
	keys := w.sortKeys()
	// sorted partitions can be computed a few at a time, and one too big
	// from temp files, so a window that outgrows its reservation goes
	// through an external sort instead (windowspill.go)
	w.mem.Spill = true
	var over *vec.Batch
	add := func(b *vec.Batch) error {
		if err := memory.ErrCanceled(ctx); err != nil {
			return err
		}
		if err := w.mem.Grow(memory.AppendCost(buf, b, b.N) + order.SortKeyCost(keys, b, b.N)); err != nil {
			if w.mem.Spill && pgerr.Code(err) == memory.OutOfMemory {
				over = b
				return errWindowOver
			}
			return err
		}
		buf.AppendBatch(b, 0, b.N)
		return nil
	}
	var err error
	if w.seed != nil {
		// rows a window above buffered for this one (windowpar.go)
		var held *vec.Batch
		held, err = w.takeSeed(ctx, keys, &buf, add)
		if held != nil {
			over = held
		}
	}
	if err == nil {
		err = exec.Drain(ctx, w.Input, add)
	}
	if err == errWindowOver {
		w.startStream(buf, over)
		return nil
	}
	if err != nil {
		return err
	}
	w.mem.Spill = false
	// the rows fit; their sort or evaluation may not: then stream too
	tooBig := func(err error) bool {
		if pgerr.Code(err) == memory.OutOfMemory {
			w.startStream(buf, nil)
			return true
		}
		return false
	}
	n := buf.N
	if len(keys) > 0 && n > 1 {
		var enc order.KeyEncoder
		enc.Init(keys, buf.Vecs)
		enc.DropNullMarkers(buf.Vecs, n)
		enc.Encode(buf.Vecs, n)
		if enc.InOrder(n) {
			// the input comes sorted (a window below sorted by these keys
			// and more): the stable sort would keep every row in place
			w.mem.Shrink(int64(len(enc.Arena)) + order.SortRowCost*int64(n))
			enc = order.KeyEncoder{}
			goto eval
		}
		perm := enc.Order(n)
		w.mem.Shrink(int64(len(enc.Arena)) + (order.SortRowCost-4)*int64(n))
		enc = order.KeyEncoder{}
		// reorder a column at a time, each unsorted column let go once
		// copied: the rows are held about once, not twice
		var widest int64
		for _, v := range buf.Vecs {
			widest = max(widest, memory.VecBytes(v, 0, n))
		}
		if err := w.mem.Grow(widest); err != nil {
			if tooBig(err) {
				return nil
			}
			return err
		}
		sorted := &memory.ColBuf{Batch: vec.Batch{Vecs: make([]*vec.Vector, len(in))}, Spare: make([][]bool, len(in))}
		for c, v := range buf.Vecs {
			sorted.Vecs[c] = vec.New(in[c], n)
			sorted.Gather(c, v, perm)
			buf.Vecs[c] = sorted.Vecs[c]
			w.mem.Shrink(max(memory.VecCapBytes(v)-memory.VecBytes(sorted.Vecs[c], 0, n), 0))
		}
		w.mem.Shrink(widest + 4*int64(n))
		sorted.N = n
		buf = sorted
	}
eval:
	if err := w.mem.Grow(winRowCost(len(w.Funcs)) * int64(n)); err != nil {
		if tooBig(err) {
			return nil
		}
		return err
	}
	return w.evalSorted(ctx, buf)
}

// sortKeys are the partition keys, then the order keys.
func (w *Window) sortKeys() []order.SortKey {
	var keys []order.SortKey
	for _, c := range w.PartitionBy {
		keys = append(keys, order.SortKey{Col: c})
	}
	return append(keys, w.OrderBy...)
}

// winRowCost is what a row costs the evaluation: the partition and peer
// structure and one result per function.
func winRowCost(funcs int) int64 { return 16 * int64(funcs+2) }

// evalSorted computes every function over buf, sorted by partition and
// order and holding whole partitions.
func (w *Window) evalSorted(ctx context.Context, buf *memory.ColBuf) error {
	n := buf.N
	w.data = buf
	w.pos = 0
	w.structure()
	w.res = memory.NewColBuf(w.rts, n)
	for fi, f := range w.Funcs {
		if err := memory.ErrCanceled(ctx); err != nil {
			return err
		}
		if err := w.evalFunc(fi, f); err != nil {
			return err
		}
	}
	return nil
}

// structure finds partitions and peer groups in the sorted rows.
func (w *Window) structure() {
	n := w.data.N
	w.partEnd = make([]int32, n)
	w.peerBeg = make([]int32, n)
	w.peerEnd = make([]int32, n)
	w.groupIdx = make([]int32, n)
	w.iota = make([]int32, n)
	w.zeros = make([]int32, n)
	for i := range w.iota {
		w.iota[i] = int32(i)
	}
	// where a partition and where a peer group starts, a column at a time
	// in typed loops: comparing row by row through nullableEqual was most
	// of the evaluation of a rank over 500 k rows (TPC-DS q67)
	partStart := make([]bool, n)
	for _, c := range w.PartitionBy {
		markChanges(partStart, w.data.Vecs[c], n)
	}
	peerStart := append([]bool(nil), partStart...)
	for _, k := range w.OrderBy {
		markChanges(peerStart, w.data.Vecs[k.Col], n)
	}
	ps := 0
	for ps < n {
		pe := ps + 1
		for pe < n && !partStart[pe] {
			pe++
		}
		g := int32(0)
		for gs := ps; gs < pe; {
			ge := gs + 1
			for ge < pe && !peerStart[ge] {
				ge++
			}
			for i := gs; i < ge; i++ {
				w.partEnd[i], w.peerBeg[i], w.peerEnd[i], w.groupIdx[i] = int32(pe), int32(gs), int32(ge), g
			}
			g++
			gs = ge
		}
		ps = pe
	}
}

// markChanges sets chg[i] for the rows i in [1, n) whose value of v is not
// that of row i-1 (two NULLs are the same), leaving rows already marked.
func markChanges(chg []bool, v *vec.Vector, n int) {
	var nulls []bool
	if v.Nulls != nil {
		nulls = v.Nulls[:n]
	}
	switch st := v.Type.Storage(); {
	case st == types.StoreInt:
		markChangesT(chg[:n], v.I64[:n], nulls)
	case st == types.StoreBool:
		markChangesT(chg[:n], v.B[:n], nulls)
	case st == types.StoreBytes && !v.Type.DynNumeric():
		markChangesT(chg[:n], v.S[:n], nulls)
	default:
		// floats (NaNs are peers), intervals, numerics of any scale
		for i := 1; i < n; i++ {
			if !chg[i] && !memory.NullableEqual(v, i, v, i-1) {
				chg[i] = true
			}
		}
	}
}

func markChangesT[T comparable](chg []bool, x []T, nulls []bool) {
	if nulls == nil {
		for i := 1; i < len(x); i++ {
			chg[i] = chg[i] || x[i] != x[i-1]
		}
		return
	}
	for i := 1; i < len(x); i++ {
		a := nulls[i]
		chg[i] = chg[i] || a != nulls[i-1] || !a && x[i] != x[i-1]
	}
}

func (w *Window) evalFunc(fi int, f WindowFunc) error {
	out := w.res.Vecs[fi]
	n := w.data.N
	for ps := 0; ps < n; {
		pe := int(w.partEnd[ps])
		var err error
		switch f.Kind {
		case WinRowNumber, WinRank, WinDenseRank, WinPercentRank, WinCumeDist:
			w.ranking(out, f.Kind, ps, pe)
		case WinNtile:
			err = w.ntile(out, f, ps, pe)
		case WinLag, WinLead:
			err = w.lagLead(out, f, ps, pe)
		case WinFirstValue, WinLastValue, WinNthValue:
			err = w.valueAt(out, f, ps, pe)
		case WinAgg:
			err = w.aggregate(out, f, ps, pe)
		}
		if err != nil {
			return err
		}
		ps = pe
	}
	return nil
}

func (w *Window) ranking(out *vec.Vector, k WinKind, ps, pe int) {
	cnt := float64(pe - ps)
	for i := ps; i < pe; i++ {
		rank := int64(w.peerBeg[i]) - int64(ps) + 1
		switch k {
		case WinRowNumber:
			out.AppendInt(int64(i - ps + 1))
		case WinRank:
			out.AppendInt(rank)
		case WinDenseRank:
			out.AppendInt(int64(w.groupIdx[i]) + 1)
		case WinPercentRank:
			if cnt <= 1 {
				out.AppendFloat(0)
			} else {
				out.AppendFloat(float64(rank-1) / (cnt - 1))
			}
		case WinCumeDist:
			out.AppendFloat(float64(int(w.peerEnd[i])-ps) / cnt)
		}
	}
}

// intArg reads an integer argument of row i (NULL: ok false).
func (w *Window) intArg(col, i int) (int64, bool) {
	v := w.data.Vecs[col]
	if v.IsNull(i) {
		return 0, false
	}
	if v.Type.Storage() == types.StoreFloat {
		return int64(v.F64[i]), true
	}
	return v.I64[i], true
}

// ntile follows PostgreSQL's window_ntile: the bucket count is read at the
// partition's first row (re-read while it is NULL), and the leading
// buckets get one extra row when the rows do not divide evenly.
func (w *Window) ntile(out *vec.Vector, f WindowFunc, ps, pe int) error {
	var b ntileBuckets
	for i := ps; i < pe; i++ {
		if !b.started() {
			nb, ok := w.intArg(f.Args[0], i)
			if !ok {
				out.AppendNull()
				continue
			}
			if err := b.start(int64(pe-ps), nb); err != nil {
				return err
			}
		}
		out.AppendInt(b.next())
	}
	return nil
}

// ntileBuckets numbers a partition's rows into buckets, for the in-memory
// and the paged evaluator alike.
type ntileBuckets struct{ ntile, perBucket, boundary, remainder int64 }

func (b *ntileBuckets) started() bool { return b.ntile != 0 }

// start splits total rows into nb buckets.
func (b *ntileBuckets) start(total, nb int64) error {
	if nb <= 0 {
		return pgerr.New("22014", "argument of ntile must be greater than zero")
	}
	b.ntile, b.perBucket = 1, 0
	b.boundary = total / nb
	if b.boundary <= 0 {
		b.boundary = 1
	} else {
		b.remainder = total % nb
		if b.remainder != 0 {
			b.boundary++
		}
	}
	return nil
}

// next is the bucket of the next row.
func (b *ntileBuckets) next() int64 {
	b.perBucket++
	if b.boundary < b.perBucket {
		if b.remainder != 0 && b.ntile == b.remainder {
			b.remainder = 0
			b.boundary--
		}
		b.ntile++
		b.perBucket = 1
	}
	return b.ntile
}

func (w *Window) lagLead(out *vec.Vector, f WindowFunc, ps, pe int) error {
	src := w.data.Vecs[f.Args[0]]
	for i := ps; i < pe; i++ {
		off := int64(1)
		if len(f.Args) > 1 {
			o, ok := w.intArg(f.Args[1], i)
			if !ok {
				out.AppendNull()
				continue
			}
			off = o
		}
		if f.Kind == WinLag {
			off = -off
		}
		t := int64(i) + off
		switch {
		case t >= int64(ps) && t < int64(pe):
			out.AppendFrom(src, int(t))
		case len(f.Args) > 2:
			out.AppendFrom(w.data.Vecs[f.Args[2]], i)
		default:
			out.AppendNull()
		}
	}
	return nil
}

func (w *Window) valueAt(out *vec.Vector, f WindowFunc, ps, pe int) error {
	fr := f.Frame.resolved()
	src := w.data.Vecs[f.Args[0]]
	for i := ps; i < pe; i++ {
		fs, fe, err := w.frame(fr, i, ps, pe)
		if err != nil {
			return err
		}
		var at int
		switch f.Kind {
		case WinFirstValue:
			at = fs
		case WinLastValue:
			at = fe - 1
		default:
			nth, ok := w.intArg(f.Args[1], i)
			if !ok {
				out.AppendNull()
				continue
			}
			if nth <= 0 {
				return pgerr.New("22016", "argument of nth_value must be greater than zero")
			}
			at = fs + int(min(nth, int64(pe))) - 1
		}
		if fr.Exclude != ExcludeNoOthers && fs < fe {
			// the k-th row of what the EXCLUDE clause leaves of the frame
			kept, n := w.keptSpans(fr.Exclude, i, fs, fe)
			at = rowOfKept(kept[:n], at-fs)
			if f.Kind == WinLastValue {
				at = rowOfKept(kept[:n], -1)
			}
			if at < 0 {
				out.AppendNull()
				continue
			}
		}
		if fs >= fe || at < fs || at >= fe {
			out.AppendNull()
			continue
		}
		out.AppendFrom(src, at)
	}
	return nil
}

// frame returns row i's frame [fs, fe) within partition [ps, pe).
func (w *Window) frame(f Frame, i, ps, pe int) (int, int, error) {
	fs, err := w.bound(f, f.Start, true, i, ps, pe)
	if err != nil {
		return 0, 0, err
	}
	fe, err := w.bound(f, f.End, false, i, ps, pe)
	if err != nil {
		return 0, 0, err
	}
	if fe < fs {
		fe = fs
	}
	return fs, fe, nil
}

// bound places one frame end: for a start, the first row in the frame; for
// an end, one past the last.
func (w *Window) bound(f Frame, b FrameBound, start bool, i, ps, pe int) (int, error) {
	clamp := func(x int) int { return max(ps, min(pe, x)) }
	if b.Offset < 0 || b.OffsetF < 0 || math.IsNaN(b.OffsetF) {
		return 0, pgerr.New("22013", "frame starting or ending offset must not be negative")
	}
	switch b.Kind {
	case BoundUnboundedPreceding:
		return ps, nil
	case BoundUnboundedFollowing:
		return pe, nil
	case BoundCurrentRow:
		switch {
		case f.Mode == FrameRows && start:
			return i, nil
		case f.Mode == FrameRows:
			return i + 1, nil
		case start:
			return int(w.peerBeg[i]), nil
		}
		return int(w.peerEnd[i]), nil
	}
	off := b.Offset
	if b.Kind == BoundPreceding {
		off = -off
	}
	switch f.Mode {
	case FrameRows:
		if off > int64(pe) {
			off = int64(pe)
		}
		if off < -int64(pe) {
			off = -int64(pe)
		}
		t := i + int(off)
		if !start {
			t++
		}
		return clamp(t), nil
	case FrameGroups:
		g := int64(w.groupIdx[i]) + off
		last := int64(w.groupIdx[pe-1])
		switch {
		case g < 0:
			return ps, nil
		case g > last:
			return pe, nil
		}
		// find the start of peer group g by stepping from the current group
		r := int(w.peerBeg[i])
		for int64(w.groupIdx[r]) > g {
			r = int(w.peerBeg[r-1])
		}
		for int64(w.groupIdx[r]) < g {
			r = int(w.peerEnd[r])
		}
		if start {
			return r, nil
		}
		return int(w.peerEnd[r]), nil
	}
	return w.rangeBound(b, start, i, ps, pe)
}

// rangeBound places a RANGE offset bound by binary search over the
// partition's non-NULL order keys.
func (w *Window) rangeBound(b FrameBound, start bool, i, ps, pe int) (int, error) {
	if len(w.OrderBy) != 1 {
		return 0, pgerr.New("42P20", "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
	}
	k := w.OrderBy[0]
	v := w.data.Vecs[k.Col]
	if v.IsNull(i) {
		// a NULL key's frame is its peers
		if start {
			return int(w.peerBeg[i]), nil
		}
		return int(w.peerEnd[i]), nil
	}
	// the non-NULL rows of the partition
	lo, hi := ps, pe
	if v.Nulls != nil {
		if k.NullsFirst {
			for lo < hi && v.Nulls[lo] {
				lo = int(w.peerEnd[lo])
			}
		} else {
			for hi > lo && v.Nulls[hi-1] {
				hi = int(w.peerBeg[hi-1])
			}
		}
	}
	// "PRECEDING" moves against the sort direction
	back := b.Kind == BoundPreceding
	var before func(r int) bool // row r sorts before the bound value
	if id := v.Type.ID; id == types.Date || id == types.Timestamp || id == types.Timestamptz {
		t, err := w.shiftTime(v, i, b.OffsetIv, back == k.Desc)
		if err != nil {
			return 0, err
		}
		xs := v.I64
		scale := int64(1)
		if id == types.Date {
			scale = types.MicrosPerDay
		}
		switch {
		case k.Desc && start:
			before = func(r int) bool { return xs[r]*scale > t }
		case k.Desc:
			before = func(r int) bool { return xs[r]*scale >= t }
		case start:
			before = func(r int) bool { return xs[r]*scale < t }
		default:
			before = func(r int) bool { return xs[r]*scale <= t }
		}
		return lo + sort.Search(hi-lo, func(r int) bool { return !before(lo + r) }), nil
	}
	switch v.Type.Storage() {
	case types.StoreInt:
		x := v.I64[i]
		d := b.Offset
		var t int64
		up := back == k.Desc // target value above x
		if up {
			t = x + d
			if t < x {
				t = math.MaxInt64
			}
		} else {
			t = x - d
			if t > x {
				t = math.MinInt64
			}
		}
		xs := v.I64
		if k.Desc {
			if start {
				before = func(r int) bool { return xs[r] > t }
			} else {
				before = func(r int) bool { return xs[r] >= t }
			}
		} else if start {
			before = func(r int) bool { return xs[r] < t }
		} else {
			before = func(r int) bool { return xs[r] <= t }
		}
	case types.StoreFloat:
		x := v.F64[i]
		d := b.OffsetF
		if d == 0 && b.Offset != 0 {
			d = float64(b.Offset)
		}
		t := x - d
		if back == k.Desc {
			t = x + d
		}
		xs := v.F64
		if k.Desc {
			if start {
				before = func(r int) bool { return exec.CompareFloat(xs[r], t) > 0 }
			} else {
				before = func(r int) bool { return exec.CompareFloat(xs[r], t) >= 0 }
			}
		} else if start {
			before = func(r int) bool { return exec.CompareFloat(xs[r], t) < 0 }
		} else {
			before = func(r int) bool { return exec.CompareFloat(xs[r], t) <= 0 }
		}
	default:
		return 0, pgerr.New(pgerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", v.Type)
	}
	return lo + sort.Search(hi-lo, func(r int) bool { return !before(lo + r) }), nil
}

// newFrameAgg is the one-group state of a windowed aggregate, and its
// inverse when rows can be taken out of it as a frame slides.
func newFrameAgg(a Agg) (aggFn, invertible, bool, error) {
	t, err := aggOut(a)
	if err != nil {
		return nil, nil, false, err
	}
	fn, err := newAggFn(a, t)
	if err != nil {
		return nil, nil, false, err
	}
	fn.grow(1)
	inv, ok := fn.(invertible)
	return fn, inv, ok, nil
}

// frameMem counts a windowed aggregate's state against the query's memory
// while the state lives: a state that keeps values (string_agg) grows with
// its frame, which over a big partition can be most of it. A state can
// neither spill nor be given up, and PostgreSQL keeps such states whatever
// work_mem says, so past the budget it is still counted (growPast) rather
// than failing the query: the budget then reads full, and operators that
// can spill, in this query and others, give way.
type frameMem struct {
	res  memory.Reservation
	held int64
}

// newFrameMem starts counting fn's state: what it holds when new (a few
// words per function) is the window's own cost, counted with its rows.
func newFrameMem(mem *memory.Memory, fn aggFn) *frameMem {
	return &frameMem{res: memory.Reservation{Mem: mem}, held: fn.bytes()}
}

// track reserves what fn's state has grown by since the last call.
func (m *frameMem) track(fn aggFn) error {
	if b := fn.bytes(); b > m.held {
		d := b - m.held
		if err := m.res.Grow(d); err != nil {
			if pgerr.Code(err) != memory.OutOfMemory {
				return err
			}
			m.res.Mem.GrowPast(d)
			m.res.Reserved += d
			m.res.Used += d
		}
		m.held = b
	}
	return nil
}

// counted wraps an update or remove so that the state is tracked after it.
func (m *frameMem) counted(fn aggFn, op func(*aggIn) error) func(*aggIn) error {
	return func(in *aggIn) error {
		if err := op(in); err != nil {
			return err
		}
		return m.track(fn)
	}
}

// aggregate evaluates an aggregate over each row's frame in [ps, pe).
func (w *Window) aggregate(out *vec.Vector, f WindowFunc, ps, pe int) error {
	a := f.Agg
	fn, inv, canInvert, err := newFrameAgg(a)
	if err != nil {
		return err
	}
	fm := newFrameMem(w.Mem, fn)
	defer fm.res.Release()
	update := fm.counted(fn, fn.update)
	fr := f.Frame.resolved()
	var filt []int32 // rows passing FILTER, ascending
	if a.Filter > 0 {
		fv := w.data.Vecs[a.Filter-1]
		for i := ps; i < pe; i++ {
			if fv.B[i] && !fv.IsNull(i) {
				filt = append(filt, int32(i))
			}
		}
	}
	in := aggIn{gids: w.zeros}
	if a.Kind != AggCountStar {
		in.v = w.data.Vecs[a.Arg]
	}
	if a.Kind == AggStringAgg {
		in.v2 = w.data.Vecs[a.Arg2]
	}
	rowsOf := func(lo, hi int) {
		if a.Filter > 0 {
			l := sort.Search(len(filt), func(k int) bool { return int(filt[k]) >= lo })
			h := sort.Search(len(filt), func(k int) bool { return int(filt[k]) >= hi })
			in.rows, in.all = filt[l:h], false
			return
		}
		in.rows, in.all = w.iota[lo:hi], lo == 0
	}
	curS, curE := ps, ps
	prevS, prevE := -1, -1
	for i := ps; i < pe; i++ {
		fs, fe, err := w.frame(fr, i, ps, pe)
		if err != nil {
			return err
		}
		if fs == prevS && fe == prevE && fr.Exclude == ExcludeNoOthers {
			out.AppendFrom(out, out.Len()-1)
			continue
		}
		switch {
		case fs == curS && fe >= curE:
			rowsOf(curE, fe)
			if err := update(&in); err != nil {
				return err
			}
		case canInvert && fs >= curS && fs <= curE && fe >= curE:
			rowsOf(curS, fs)
			if err := inv.remove(&in); err != nil {
				return err
			}
			rowsOf(curE, fe)
			if err := update(&in); err != nil {
				return err
			}
		default:
			fn.reset(0)
			rowsOf(fs, fe)
			if err := update(&in); err != nil {
				return err
			}
		}
		curS, curE = fs, fe
		prevS, prevE = fs, fe
		if fr.Exclude != ExcludeNoOthers {
			// the frame without the rows EXCLUDE removes: taken out and put
			// back when the state allows, else built from what is kept
			gone, n := w.excludedSpans(fr.Exclude, i, fs, fe)
			if canInvert {
				for _, g := range gone[:n] {
					rowsOf(g.lo, g.hi)
					if err := inv.remove(&in); err != nil {
						return err
					}
				}
				if err := fn.final(out, 0, 1); err != nil {
					return err
				}
				for _, g := range gone[:n] {
					rowsOf(g.lo, g.hi)
					if err := update(&in); err != nil {
						return err
					}
				}
				continue
			}
			if n > 0 {
				kept, k := w.keptSpans(fr.Exclude, i, fs, fe)
				fn.reset(0)
				for _, s := range kept[:k] {
					rowsOf(s.lo, s.hi)
					if err := update(&in); err != nil {
						return err
					}
				}
				curS, curE = -1, -1 // the state is no longer the frame's
			}
		}
		if err := fn.final(out, 0, 1); err != nil {
			return err
		}
	}
	return nil
}

// shiftTime returns row i's date or timestamp plus (up) or minus the
// interval, in microseconds, computed by the function library's datetime
// arithmetic.
func (w *Window) shiftTime(v *vec.Vector, i int, iv types.IntervalValue, up bool) (int64, error) {
	if d, us := iv.Span(); d < 0 || (d == 0 && us < 0) {
		return 0, pgerr.New("22013", "invalid preceding or following size in window function")
	}
	op := "-"
	if up {
		op = "+"
	}
	o, _, rt, err := fn.ResolveOperator(op, v.Type, types.IntervalT)
	if err != nil {
		return 0, err
	}
	x := vec.New(v.Type, 1)
	x.AppendInt(v.I64[i])
	y := vec.New(types.IntervalT, 1)
	y.AppendInterval(iv)
	r := vec.New(rt, 1)
	ctx := &fn.Ctx{}
	if w.Env != nil {
		ctx.Loc, ctx.Now = w.Env.Loc, w.Env.Now
	}
	if err := o.Eval(ctx, r, []*vec.Vector{x, y}, 1); err != nil {
		return 0, err
	}
	if r.Type.ID == types.Date {
		return r.I64[0] * types.MicrosPerDay, nil
	}
	return r.I64[0], nil
}

// ResetTypes drops the output types the window cached (exec.Replanned).
func (w *Window) ResetTypes() { w.ts = nil }
