package aggregate

import (
	"context"
	"math"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// A window partition too big for the window's memory — one of many, or the
// only one when there is no PARTITION BY — is written to a temp file as it
// comes off the sorted stream, each row with its peer-group number, and the
// first row of every peer group to a second file. Each function is then
// computed over the file as PostgreSQL's WindowAgg computes over its
// tuplestore: rows are read by number through a few cached blocks, and the
// frame's ends move forward with the current row (a RANGE offset bound is
// found by stepping from the previous row's, not by a binary search over
// the partition), so the blocks a row needs are nearly always cached. Each
// function's results go to a file of their own, and the rows are emitted a
// block at a time from the partition's file and the result files side by
// side. Memory is the cached blocks and the aggregate states, whatever the
// partition's size.

// pagedSlots is how many blocks of the partition stay decoded: the current
// row's, the frame start's and end's, and a lag, lead or nth_value's.
const pagedSlots = 8

// pagedPart is one spilled window partition.
type pagedPart struct {
	data   *pageStore // the input columns, then the peer group number
	starts *pageStore // first row of each peer group
	res    []*pageStore
	nin    int // input columns
	groups int
	err    error // the first read that failed; results are garbage after it

	// writing
	ref      *memory.ColBuf // a row of the partition (its partition key)
	prev     *memory.ColBuf // the last row written (its order key)
	gids     *vec.Vector
	startRow *vec.Vector

	// reading
	nulls  []*vec.Vector // a one-row NULL vector per column, read after a failure
	emitK  int
	reserv int64
}

// Close removes the partition's files.
func (p *pagedPart) Close() {
	if p == nil {
		return
	}
	p.data.Close()
	p.starts.Close()
	for _, r := range p.res {
		r.Close()
	}
	p.data, p.starts, p.res = nil, nil, nil
}

func (p *pagedPart) rows() int { return p.data.rows() }

// newPagedPart opens the files of a partition whose first row is row i of
// b.
func (w *Window) newPagedPart(ctx context.Context, b *vec.Batch, i int) (*pagedPart, error) {
	in := w.Input.Types()
	ts := append(append([]types.T{}, in...), types.Int64T)
	qs := exec.QueryStatsOf(ctx)
	data, err := newPageStore(ts, qs.Spill(), "window", pagedSlots)
	if err != nil {
		return nil, err
	}
	starts, err := newPageStore([]types.T{types.Int64T}, qs.Spill(), "window", 2)
	if err != nil {
		data.Close()
		return nil, err
	}
	p := &pagedPart{data: data, starts: starts, nin: len(in), ref: memory.NewColBuf(in, 1), prev: memory.NewColBuf(in, 1),
		gids: vec.New(types.Int64T, pageRows), startRow: vec.New(types.Int64T, 1)}
	p.ref.AppendBatch(b, i, i+1)
	return p, nil
}

// same reports whether row i of b is in p's partition.
func (w *Window) inPart(p *pagedPart, b *vec.Batch, i int) bool {
	return w.samePartition(&p.ref.Batch, 0, b, i)
}

// add writes rows [lo, hi) of b, all of p's partition, numbering their peer
// groups.
func (w *Window) addPaged(p *pagedPart, b *vec.Batch, lo, hi int) error {
	if lo >= hi {
		return nil
	}
	p.gids.I64 = p.gids.I64[:0]
	g := int64(p.groups) - 1
	for i := lo; i < hi; i++ {
		var peer bool
		if i == lo {
			peer = p.prev.N > 0 && w.samePeers(&p.prev.Batch, 0, b, i)
		} else {
			peer = w.samePeers(b, i-1, b, i)
		}
		if !peer {
			g++
			p.startRow.I64 = append(p.startRow.I64[:0], int64(p.data.rows()+i-lo))
			if err := p.starts.appendRows([]*vec.Vector{p.startRow}, 0, 1); err != nil {
				return err
			}
		}
		p.gids.I64 = append(p.gids.I64, g)
	}
	p.groups = int(g + 1)
	for k := lo; k < hi; {
		e := min(hi, k+pageRows-p.data.pend.N)
		for c := 0; c < p.nin; c++ {
			p.data.pend.AppendRange(c, b.Vecs[c], k, e)
		}
		p.data.pend.AppendRange(p.nin, p.gids, k-lo, e-lo)
		p.data.pend.N += e - k
		if err := p.data.rowsAdded(); err != nil {
			return err
		}
		k = e
	}
	p.prev.Clear()
	p.prev.AppendBatch(b, hi-1, hi)
	return nil
}

// samePeers reports whether row i of a and row j of b tie on the ORDER BY.
func (w *Window) samePeers(a *vec.Batch, i int, b *vec.Batch, j int) bool {
	for _, k := range w.OrderBy {
		if !memory.NullableEqual(a.Vecs[k.Col], i, b.Vecs[k.Col], j) {
			return false
		}
	}
	return true
}

// finishWrite ends the partition's files.
func (p *pagedPart) finishWrite() error {
	p.ref, p.prev, p.gids = nil, nil, nil
	if err := p.data.finish(); err != nil {
		return err
	}
	if err := p.starts.finish(); err != nil {
		return err
	}
	p.nulls = make([]*vec.Vector, len(p.data.ts))
	for c, t := range p.data.ts {
		p.nulls[c] = vec.New(t, 1)
		p.nulls[c].AppendNull()
	}
	return nil
}

// col returns the vector holding row r of column c and r's place in it.
func (p *pagedPart) col(c, r int) (*vec.Vector, int) {
	b, i, err := p.data.row(r)
	if err != nil {
		if p.err == nil {
			p.err = err
		}
		return p.nulls[c], 0
	}
	return b.Vecs[c], i
}

func (p *pagedPart) gid(r int) int {
	v, i := p.col(p.nin, r)
	return int(v.I64[i])
}

// groupStart is the first row of peer group g (the row count past the
// last).
func (p *pagedPart) groupStart(g int) int {
	if g >= p.groups {
		return p.rows()
	}
	b, i, err := p.starts.row(g)
	if err != nil {
		if p.err == nil {
			p.err = err
		}
		return 0
	}
	return int(b.Vecs[0].I64[i])
}

func (p *pagedPart) peerBeg(r int) int { return p.groupStart(p.gid(r)) }
func (p *pagedPart) peerEnd(r int) int { return p.groupStart(p.gid(r) + 1) }

// intArg reads an integer argument of row i (NULL: ok false).
func (p *pagedPart) intArg(col, i int) (int64, bool) {
	v, j := p.col(col, i)
	if v.IsNull(j) {
		return 0, false
	}
	if v.Type.Storage() == types.StoreFloat {
		return int64(v.F64[j]), true
	}
	return v.I64[j], true
}

// evalPaged computes every function over the partition, each into a file
// of its own.
func (w *Window) evalPaged(ctx context.Context, p *pagedPart) error {
	qs := exec.QueryStatsOf(ctx)
	n := p.rows()
	// what the cached blocks hold: each about its bytes in the file, text
	// columns a string header a row more; the last read's bytes; and a
	// block of each result being written, then emitted
	var hdrs int64
	for _, t := range p.data.ts {
		if t.Storage() == types.StoreBytes {
			hdrs += 16 * pageRows
		}
	}
	bb := p.data.blockBytes()
	rest := bb + 2*p.starts.blockBytes() + 256<<10 // the last read, the group starts, a result file's write buffer
	for _, t := range w.rts {
		width := int64(8)
		if t.Storage() == types.StoreBytes {
			width = 24
		}
		rest += 2 * width * pageRows // a block of results written, then read back
	}
	// the blocks are all the window holds: the last eighth of the budget,
	// left to what cannot spill, may serve; a tight budget caches fewer
	// blocks, down to the current row's and the frame ends'
	w.mem.Spill = false
	var err error
	for slots := pagedSlots; slots >= 3; slots-- {
		if err = w.mem.Grow(int64(slots)*(bb+hdrs) + rest); err == nil {
			p.data.slots = p.data.slots[:slots]
			break
		}
	}
	w.mem.Spill = true
	if err != nil {
		return err
	}
	for fi, f := range w.Funcs {
		res, err := newPageStore([]types.T{w.rts[fi]}, qs.Spill(), "window", 1)
		if err != nil {
			return err
		}
		p.res = append(p.res, res)
		e := &pagedEval{w: w, p: p, f: f, out: res, n: n, ctx: ctx}
		if err := e.run(); err != nil {
			return err
		}
		if p.err != nil {
			return p.err
		}
		if err := res.finish(); err != nil {
			return err
		}
	}
	return nil
}

// emitPaged returns the partition's next block of rows with their results;
// nil at the end.
func (w *Window) emitPaged(ctx context.Context, p *pagedPart) (*vec.Batch, error) {
	if p.emitK*pageRows >= p.rows() {
		return nil, nil
	}
	if err := memory.ErrCanceled(ctx); err != nil {
		return nil, err
	}
	k := p.emitK
	p.emitK++
	b, err := p.data.block(k)
	if err != nil {
		return nil, err
	}
	if w.out == nil {
		w.out = &memory.ColBuf{}
	}
	if len(w.view) != p.nin+len(p.res) {
		w.view = make([]vec.Vector, p.nin+len(p.res))
		w.out.Vecs = make([]*vec.Vector, len(w.view))
		for i := range w.view {
			w.out.Vecs[i] = &w.view[i]
		}
	}
	for c := 0; c < p.nin; c++ {
		b.Vecs[c].SliceInto(&w.view[c], 0, b.N)
	}
	for i, r := range p.res {
		rb, err := r.block(k)
		if err != nil {
			return nil, err
		}
		if rb.N != b.N {
			return nil, memory.ErrBadSpill
		}
		rb.Vecs[0].SliceInto(&w.view[p.nin+i], 0, b.N)
	}
	w.out.N = b.N
	return &w.out.Batch, nil
}

// pagedEval computes one function over a spilled partition.
type pagedEval struct {
	w   *Window
	p   *pagedPart
	f   WindowFunc
	out *pageStore
	n   int
	ctx context.Context
	// rangeAt are the last RANGE offset start and end, where the next
	// row's search starts
	rangeAt [2]int
	lo, hi  int // the non-NULL rows of a RANGE offset's key; -1: not found yet
}

// done ends row i's result; every block of rows checks for cancellation.
func (e *pagedEval) done(i int) error {
	e.out.pend.N++
	if err := e.out.rowsAdded(); err != nil {
		return err
	}
	if i%pageRows == pageRows-1 {
		if e.p.err != nil {
			return e.p.err
		}
		return memory.ErrCanceled(e.ctx)
	}
	return nil
}

func (e *pagedEval) run() error {
	e.lo, e.hi = -1, -1
	switch e.f.Kind {
	case WinRowNumber, WinRank, WinDenseRank, WinPercentRank, WinCumeDist:
		return e.ranking()
	case WinNtile:
		return e.ntile()
	case WinLag, WinLead:
		return e.lagLead()
	case WinFirstValue, WinLastValue, WinNthValue:
		return e.valueAt()
	case WinAgg:
		return e.aggregate()
	}
	return pgerr.New(pgerr.UndefinedFunction, "unknown window function")
}

func (e *pagedEval) ranking() error {
	cnt := float64(e.n)
	p := e.p
	for i := 0; i < e.n; i++ {
		out := e.out.pend.Vecs[0]
		switch e.f.Kind {
		case WinRowNumber:
			out.AppendInt(int64(i + 1))
		case WinRank:
			out.AppendInt(int64(p.peerBeg(i)) + 1)
		case WinDenseRank:
			out.AppendInt(int64(p.gid(i)) + 1)
		case WinPercentRank:
			if cnt <= 1 {
				out.AppendFloat(0)
			} else {
				out.AppendFloat(float64(p.peerBeg(i)) / (cnt - 1))
			}
		case WinCumeDist:
			out.AppendFloat(float64(p.peerEnd(i)) / cnt)
		}
		if err := e.done(i); err != nil {
			return err
		}
	}
	return nil
}

// ntile is Window.ntile over the file.
func (e *pagedEval) ntile() error {
	var b ntileBuckets
	for i := 0; i < e.n; i++ {
		out := e.out.pend.Vecs[0]
		if !b.started() {
			nb, ok := e.p.intArg(e.f.Args[0], i)
			if !ok {
				out.AppendNull()
				if err := e.done(i); err != nil {
					return err
				}
				continue
			}
			if err := b.start(int64(e.n), nb); err != nil {
				return err
			}
		}
		out.AppendInt(b.next())
		if err := e.done(i); err != nil {
			return err
		}
	}
	return nil
}

func (e *pagedEval) lagLead() error {
	f, p := e.f, e.p
	for i := 0; i < e.n; i++ {
		out := e.out.pend.Vecs[0]
		off, ok := int64(1), true
		if len(f.Args) > 1 {
			off, ok = p.intArg(f.Args[1], i)
		}
		if f.Kind == WinLag {
			off = -off
		}
		t := int64(i) + off
		switch {
		case !ok:
			out.AppendNull()
		case t >= 0 && t < int64(e.n):
			v, j := p.col(f.Args[0], int(t))
			out.AppendFrom(v, j)
		case len(f.Args) > 2:
			v, j := p.col(f.Args[2], i)
			out.AppendFrom(v, j)
		default:
			out.AppendNull()
		}
		if err := e.done(i); err != nil {
			return err
		}
	}
	return nil
}

func (e *pagedEval) valueAt() error {
	f, p := e.f, e.p
	fr := f.Frame.resolved()
	for i := 0; i < e.n; i++ {
		out := e.out.pend.Vecs[0]
		fs, fe, err := e.frame(fr, i)
		if err != nil {
			return err
		}
		at, ok := 0, true
		switch f.Kind {
		case WinFirstValue:
			at = fs
		case WinLastValue:
			at = fe - 1
		default:
			var nth int64
			nth, ok = p.intArg(f.Args[1], i)
			if ok && nth <= 0 {
				return pgerr.New("22016", "argument of nth_value must be greater than zero")
			}
			at = fs + int(min(nth, int64(e.n))) - 1
		}
		if ok && fr.Exclude != ExcludeNoOthers && fs < fe {
			kept, k := keptSpansOf(fr.Exclude, i, p.peerBeg(i), p.peerEnd(i), fs, fe)
			at = rowOfKept(kept[:k], at-fs)
			if f.Kind == WinLastValue {
				at = rowOfKept(kept[:k], -1)
			}
			ok = at >= 0
		}
		if !ok || fs >= fe || at < fs || at >= fe {
			out.AppendNull()
		} else {
			v, j := p.col(f.Args[0], at)
			out.AppendFrom(v, j)
		}
		if err := e.done(i); err != nil {
			return err
		}
	}
	return nil
}

// frame returns row i's frame [fs, fe).
func (e *pagedEval) frame(f Frame, i int) (int, int, error) {
	fs, err := e.bound(f, f.Start, true, i)
	if err != nil {
		return 0, 0, err
	}
	fe, err := e.bound(f, f.End, false, i)
	if err != nil {
		return 0, 0, err
	}
	return fs, max(fs, fe), nil
}

// bound is Window.bound over the file, with the partition [0, n).
func (e *pagedEval) bound(f Frame, b FrameBound, start bool, i int) (int, error) {
	n, p := e.n, e.p
	if b.Offset < 0 || b.OffsetF < 0 || math.IsNaN(b.OffsetF) {
		return 0, pgerr.New("22013", "frame starting or ending offset must not be negative")
	}
	switch b.Kind {
	case BoundUnboundedPreceding:
		return 0, nil
	case BoundUnboundedFollowing:
		return n, nil
	case BoundCurrentRow:
		switch {
		case f.Mode == FrameRows && start:
			return i, nil
		case f.Mode == FrameRows:
			return i + 1, nil
		case start:
			return p.peerBeg(i), nil
		}
		return p.peerEnd(i), nil
	}
	off := b.Offset
	if b.Kind == BoundPreceding {
		off = -off
	}
	switch f.Mode {
	case FrameRows:
		off = max(-int64(n), min(int64(n), off))
		t := i + int(off)
		if !start {
			t++
		}
		return max(0, min(n, t)), nil
	case FrameGroups:
		g := int64(p.gid(i)) + off
		switch {
		case g < 0:
			return 0, nil
		case g >= int64(p.groups):
			return n, nil
		case start:
			return p.groupStart(int(g)), nil
		}
		return p.groupStart(int(g) + 1), nil
	}
	return e.rangeBound(b, start, i)
}

// rangeBound is Window.rangeBound over the file. The bound of row i is
// where the rows stop sorting before i's key shifted by the offset: the
// predicate holds then fails along the sorted rows, so the bound is
// found by stepping from the last row's, which it is next to.
func (e *pagedEval) rangeBound(b FrameBound, start bool, i int) (int, error) {
	w, p := e.w, e.p
	if len(w.OrderBy) != 1 {
		return 0, pgerr.New("42P20", "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
	}
	k := w.OrderBy[0]
	col := k.Col
	if v, j := p.col(col, i); v.IsNull(j) {
		if start {
			return p.peerBeg(i), nil
		}
		return p.peerEnd(i), nil
	}
	if e.lo < 0 {
		// the NULL keys are one peer group at one end
		e.lo, e.hi = 0, e.n
		if k.NullsFirst {
			if v, j := p.col(col, 0); v.IsNull(j) {
				e.lo = p.peerEnd(0)
			}
		} else if v, j := p.col(col, e.n-1); v.IsNull(j) {
			e.hi = p.peerBeg(e.n - 1)
		}
		e.rangeAt = [2]int{e.lo, e.lo}
	}
	back := b.Kind == BoundPreceding
	var before func(r int) bool
	xv, xi := p.col(col, i)
	if id := xv.Type.ID; id == types.Date || id == types.Timestamp || id == types.Timestamptz {
		t, err := w.shiftTime(xv, xi, b.OffsetIv, back == k.Desc)
		if err != nil {
			return 0, err
		}
		scale := int64(1)
		if id == types.Date {
			scale = types.MicrosPerDay
		}
		x := func(r int) int64 { v, j := p.col(col, r); return v.I64[j] * scale }
		switch {
		case k.Desc && start:
			before = func(r int) bool { return x(r) > t }
		case k.Desc:
			before = func(r int) bool { return x(r) >= t }
		case start:
			before = func(r int) bool { return x(r) < t }
		default:
			before = func(r int) bool { return x(r) <= t }
		}
	} else {
		switch xv.Type.Storage() {
		case types.StoreInt:
			x0 := xv.I64[xi]
			d := b.Offset
			var t int64
			if back == k.Desc {
				t = x0 + d
				if t < x0 {
					t = math.MaxInt64
				}
			} else {
				t = x0 - d
				if t > x0 {
					t = math.MinInt64
				}
			}
			x := func(r int) int64 { v, j := p.col(col, r); return v.I64[j] }
			switch {
			case k.Desc && start:
				before = func(r int) bool { return x(r) > t }
			case k.Desc:
				before = func(r int) bool { return x(r) >= t }
			case start:
				before = func(r int) bool { return x(r) < t }
			default:
				before = func(r int) bool { return x(r) <= t }
			}
		case types.StoreFloat:
			x0 := xv.F64[xi]
			d := b.OffsetF
			if d == 0 && b.Offset != 0 {
				d = float64(b.Offset)
			}
			t := x0 - d
			if back == k.Desc {
				t = x0 + d
			}
			x := func(r int) float64 { v, j := p.col(col, r); return v.F64[j] }
			switch {
			case k.Desc && start:
				before = func(r int) bool { return exec.CompareFloat(x(r), t) > 0 }
			case k.Desc:
				before = func(r int) bool { return exec.CompareFloat(x(r), t) >= 0 }
			case start:
				before = func(r int) bool { return exec.CompareFloat(x(r), t) < 0 }
			default:
				before = func(r int) bool { return exec.CompareFloat(x(r), t) <= 0 }
			}
		default:
			return 0, pgerr.New(pgerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", xv.Type)
		}
	}
	at := &e.rangeAt[0]
	if !start {
		at = &e.rangeAt[1]
	}
	r := max(e.lo, min(e.hi, *at))
	for r > e.lo && !before(r-1) {
		r--
	}
	for r < e.hi && before(r) {
		r++
	}
	*at = r
	return r, nil
}

// aggregate is Window.aggregate over the file: the frame's rows are folded
// a block at a time.
func (e *pagedEval) aggregate() error {
	f, p := e.f, e.p
	a := f.Agg
	fn, inv, canInvert, err := newFrameAgg(a)
	if err != nil {
		return err
	}
	fr := f.Frame.resolved()
	zeros := make([]int32, pageRows)
	iota := make([]int32, pageRows)
	for i := range iota {
		iota[i] = int32(i)
	}
	var filt []int32
	in := aggIn{gids: zeros}
	// fold applies op to rows [lo, hi), a block at a time
	fold := func(lo, hi int, op func(*aggIn) error) error {
		for lo < hi {
			k := lo / pageRows
			b, err := p.data.block(k)
			if err != nil {
				return err
			}
			base := k * pageRows
			end := min(hi, base+b.N)
			l, h := lo-base, end-base
			if a.Kind != AggCountStar {
				in.v = b.Vecs[a.Arg]
			}
			if a.Kind == AggStringAgg {
				in.v2 = b.Vecs[a.Arg2]
			}
			if a.Filter > 0 {
				fv := b.Vecs[a.Filter-1]
				filt = filt[:0]
				for j := l; j < h; j++ {
					if fv.B[j] && !fv.IsNull(j) {
						filt = append(filt, int32(j))
					}
				}
				in.rows, in.all = filt, false
			} else {
				in.rows, in.all = iota[l:h], l == 0
			}
			if err := op(&in); err != nil {
				return err
			}
			lo = end
		}
		return nil
	}
	fm := newFrameMem(e.w.Mem, fn)
	defer fm.res.Release()
	update := fm.counted(fn, fn.update)
	var remove func(*aggIn) error
	if canInvert {
		remove = inv.remove
	}
	curS, curE := 0, 0
	prevS, prevE := -1, -1
	for i := 0; i < e.n; i++ {
		out := e.out.pend.Vecs[0]
		fs, fe, err := e.frame(fr, i)
		if err != nil {
			return err
		}
		if fs == prevS && fe == prevE && fr.Exclude == ExcludeNoOthers {
			if out.Len() > 0 {
				out.AppendFrom(out, out.Len()-1)
			} else if err := fn.final(out, 0, 1); err != nil {
				return err
			}
			if err := e.done(i); err != nil {
				return err
			}
			continue
		}
		switch {
		case fs == curS && fe >= curE:
			err = fold(curE, fe, update)
		case canInvert && fs >= curS && fs <= curE && fe >= curE:
			if err = fold(curS, fs, remove); err == nil {
				err = fold(curE, fe, update)
			}
		default:
			fn.reset(0)
			err = fold(fs, fe, update)
		}
		if err != nil {
			return err
		}
		curS, curE = fs, fe
		prevS, prevE = fs, fe
		if fr.Exclude != ExcludeNoOthers {
			pb, pe := p.peerBeg(i), p.peerEnd(i)
			gone, ng := excludedSpansOf(fr.Exclude, i, pb, pe, fs, fe)
			switch {
			case canInvert:
				for _, g := range gone[:ng] {
					if err := fold(g.lo, g.hi, remove); err != nil {
						return err
					}
				}
				if err := fn.final(out, 0, 1); err != nil {
					return err
				}
				for _, g := range gone[:ng] {
					if err := fold(g.lo, g.hi, update); err != nil {
						return err
					}
				}
				if err := e.done(i); err != nil {
					return err
				}
				continue
			case ng > 0:
				kept, nk := keptSpansOf(fr.Exclude, i, pb, pe, fs, fe)
				fn.reset(0)
				for _, s := range kept[:nk] {
					if err := fold(s.lo, s.hi, update); err != nil {
						return err
					}
				}
				curS, curE = -1, -1
			}
		}
		if err := fn.final(out, 0, 1); err != nil {
			return err
		}
		if err := e.done(i); err != nil {
			return err
		}
	}
	return nil
}
