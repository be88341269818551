package aggregate

import (
	"errors"
	"math"
	"strings"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// A collecting aggregate's rows (collectAgg: DISTINCT aggregates, string_agg
// with ORDER BY, percentiles, mode) grow with the input, also in an
// aggregation of one group (no GROUP BY) or of few, which has no table to
// freeze. When its run cannot grow, each collecting state writes the
// (group, value, …) rows it holds to a spill file of its own and starts
// again empty. At the end the files, in the order they were written, then
// the rows still held, go through the external sort (exec/order) by group
// and value — or the aggregate's ORDER BY — as finish sorts them in memory,
// and the sorted rows are fed to the inner aggregate (skipping repeated
// values for DISTINCT) or picked for the ordered-set result, a group at a
// time as they stream past. The sort keeps equal keys in input order, so
// the results equal those in memory. What the inner aggregate keeps
// (string_agg's text) is its result and is still counted as it grows.

// collectSpill is a collecting state's rows on disk.
type collectSpill struct {
	h     *HashAgg
	ts    []types.T // group (int8), value, [delimiter], [ORDER BY keys]
	files []*memory.SpillFile
	cnt   []int64 // rows on disk per group (ordered-set aggregates)
	gv    *vec.Vector
}

// collecting reports whether the aggregation has states that collect rows.
func (h *HashAgg) collecting() bool {
	for _, a := range h.Aggs {
		if a.Distinct || a.Kind.orderedSet() || a.orderSensitive() {
			return true
		}
	}
	return false
}

// spillCollects writes the rows every collecting state of r holds to disk
// and gives their memory back; it reports whether any did.
func (r *aggRun) spillCollects() (bool, error) {
	spilled := false
	for _, s := range r.sets {
		for _, fn := range s.fns {
			c, ok := fn.(*collectAgg)
			if !ok || len(c.gids) < collectSpillMin || c.done {
				continue
			}
			if err := c.spill(r.h); err != nil {
				return spilled, err
			}
			spilled = true
		}
	}
	if !spilled {
		return false, nil
	}
	total := r.stateBytes()
	if total < r.accounted {
		r.res.Shrink(r.accounted - total)
		r.accounted = total
	}
	return true, nil
}

// collectSpillMin is the fewest rows a collecting state writes out: fewer
// are not worth a file.
const collectSpillMin = 1024

func (s *collectAgg) colTypes() []types.T {
	ts := []types.T{types.Int64T, s.vals.Type}
	if s.vals2 != nil {
		ts = append(ts, s.vals2.Type)
	}
	for _, k := range s.keys {
		ts = append(ts, k.Type)
	}
	return ts
}

// spill writes the rows s holds to a new file and empties s.
func (s *collectAgg) spill(h *HashAgg) error {
	if s.sp == nil {
		for _, k := range s.keys {
			if k == nil {
				return nil // no row has come yet
			}
		}
		s.sp = &collectSpill{h: h, ts: s.colTypes(), gv: vec.New(types.Int64T, vec.BatchSize)}
	}
	sp := s.sp
	n := len(s.gids)
	if n == 0 {
		return nil
	}
	f, err := sp.newFile()
	if err != nil {
		return err
	}
	pt := &memory.SpillPart{File: f, Buf: memory.NewColBuf(sp.ts, vec.BatchSize)}
	sp.cnt = growTo(sp.cnt, s.ngroups)
	for lo := 0; lo < n; lo += vec.BatchSize {
		hi := min(lo+vec.BatchSize, n)
		gv := sp.gv
		gv.I64 = gv.I64[:0]
		for _, g := range s.gids[lo:hi] {
			gv.I64 = append(gv.I64, int64(g))
			sp.cnt[g]++
		}
		pt.Buf.AppendRange(0, gv, 0, hi-lo)
		pt.Buf.AppendRange(1, s.vals, lo, hi)
		c := 2
		if s.vals2 != nil {
			pt.Buf.AppendRange(c, s.vals2, lo, hi)
			c++
		}
		for _, k := range s.keys {
			pt.Buf.AppendRange(c, k, lo, hi)
			c++
		}
		pt.Buf.N = hi - lo
		if err := pt.Flush(); err != nil {
			return err
		}
	}
	if err := sealFile(f); err != nil {
		return err
	}
	s.gids = nil
	s.vals, s.vals2 = nil, nil
	if s.keys != nil {
		s.keys = make([]*vec.Vector, len(s.keys))
	}
	s.size = 0
	s.init()
	return nil
}

// sealFile flushes a written file: partition merges running side by side
// may then each read it (mergeSpilled) without racing on its writer.
func sealFile(f *memory.SpillFile) error {
	_, err := f.Reader()
	return err
}

func (sp *collectSpill) newFile() (*memory.SpillFile, error) {
	f, err := memory.NewSpillFile(memory.GlobalSpill, sp.h.qs.Spill(), "collect")
	if err != nil {
		return nil, err
	}
	sp.h.spillMu.Lock()
	sp.h.collectFiles = append(sp.h.collectFiles, f)
	sp.h.spillMu.Unlock()
	sp.files = append(sp.files, f)
	return f, nil
}

// mergeSpilled moves the rows o wrote to disk into s's files, their groups
// mapped by gmap (negative: another partition's group, left out).
func (s *collectAgg) mergeSpilled(o *collectAgg, gmap []int32) error {
	if s.sp == nil {
		s.sp = &collectSpill{h: o.sp.h, ts: o.sp.ts, gv: vec.New(types.Int64T, vec.BatchSize)}
	}
	sp := s.sp
	sp.cnt = growTo(sp.cnt, s.ngroups)
	for g, c := range o.sp.cnt {
		if g < len(gmap) && gmap[g] >= 0 {
			sp.cnt[gmap[g]] += c
		}
	}
	f, err := sp.newFile()
	if err != nil {
		return err
	}
	pt := &memory.SpillPart{File: f, Buf: memory.NewColBuf(sp.ts, vec.BatchSize)}
	scan := &memory.SpillScan{Dec: memory.NewBlockDecoder(sp.ts), Rest: o.sp.files}
	ctx := sp.h.ctx
	var keep []int32
	for {
		b, err := scan.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		keep = keep[:0]
		gs := b.Vecs[0].I64
		for i := 0; i < b.N; i++ {
			if m := gmap[gs[i]]; m >= 0 {
				gs[i] = int64(m)
				keep = append(keep, int32(i))
			}
		}
		for c, v := range b.Vecs {
			pt.Buf.Gather(c, v, keep)
		}
		pt.Buf.N = len(keep)
		if err := pt.Flush(); err != nil {
			return err
		}
	}
	if err := sealFile(f); err != nil {
		return err
	}
	// o's files stay until the aggregation closes: a partitioned merge
	// reads them once for every partition table o's groups go to
	return nil
}

// sortKeys orders the spilled rows as order sorts them in memory.
func (s *collectAgg) sortKeys() []order.SortKey {
	keys := []order.SortKey{{Col: 0}}
	if s.keys != nil {
		c := 2
		if s.vals2 != nil {
			c++
		}
		for k, o := range s.a.Order {
			keys = append(keys, order.SortKey{Col: c + k, Desc: o.Desc, NullsFirst: o.NullsFirst})
		}
		return keys
	}
	desc := s.a.Desc && (s.a.Kind.orderedSet() || s.a.Distinct)
	keys = append(keys, order.SortKey{Col: 1, Desc: desc})
	if s.vals2 != nil {
		keys = append(keys, order.SortKey{Col: 2})
	}
	return keys
}

// finishSpilled is finish for a state that wrote rows to disk.
func (s *collectAgg) finishSpilled() error {
	sp := s.sp
	if err := s.spill(sp.h); err != nil {
		return err
	}
	ctx := sp.h.ctx
	srt := &order.Sort{Input: &memory.SpillScan{Dec: memory.NewBlockDecoder(sp.ts), Rest: sp.files}, Keys: s.sortKeys(), Mem: sp.h.Mem}
	defer func() {
		srt.Close()
		for _, f := range sp.files {
			f.Close()
		}
		sp.files = nil
	}()
	// the sort reads all its input in its first Next; then the tables of
	// the aggregation are still held (finish comes before they are sent)
	// and may fill the budget past its last eighth, leaving the sort not
	// even a batch. Rather than fail where the rows kept in memory went past
	// the budget, it sorts them again in a small budget of its own.
	b, err := srt.Next(ctx)
	if err != nil && pgerr.Code(err) == memory.OutOfMemory && !tempSpaceFull(err) {
		srt.Close()
		srt = &order.Sort{Input: &memory.SpillScan{Dec: memory.NewBlockDecoder(sp.ts), Rest: sp.files}, Keys: s.sortKeys(),
			Mem: memory.NewMemory(memory.NewMemoryPool(collectSortMem), 0)}
		b, err = srt.Next(ctx)
	}
	if err != nil {
		return err
	}
	next := func() (*vec.Batch, error) {
		if b != nil {
			first := b
			b = nil
			return first, nil
		}
		return srt.Next(ctx)
	}
	if s.inner != nil {
		return s.feedSorted(next, s.keys == nil)
	}
	return s.pickSorted(next)
}

// collectSortMem is the budget of a collecting state's sort that found no
// room in the statement's.
const collectSortMem = 4 << 20

// tempSpaceFull reports whether err is temp space running out, which a
// sort cannot help.
func tempSpaceFull(err error) bool {
	var e *pgerr.Error
	return errors.As(err, &e) && strings.Contains(e.Message, "temp space")
}

// feedSorted runs the inner aggregate over the sorted rows, skipping
// repeated values when distinct (as feed).
func (s *collectAgg) feedSorted(next func() (*vec.Batch, error), distinct bool) error {
	two := s.vals2 != nil
	last := memory.NewColBuf(s.sp.ts[:2+btoi(two)], 1)
	var gids, rows []int32
	for {
		b, err := next()
		if err != nil || b == nil {
			return err
		}
		gids, rows = gids[:0], rows[:0]
		gs, v := b.Vecs[0].I64, b.Vecs[1]
		var v2 *vec.Vector
		if two {
			v2 = b.Vecs[2]
		}
		for i := 0; i < b.N; i++ {
			gids = append(gids, int32(gs[i]))
			if distinct {
				var same bool
				if i > 0 {
					same = gs[i-1] == gs[i] && memory.RowsEqual(v, i-1, v, i) && (!two || memory.NullableEqual(v2, i-1, v2, i))
				} else if last.N > 0 {
					lv := last.Vecs
					same = lv[0].I64[0] == gs[i] && memory.RowsEqual(lv[1], 0, v, i) && (!two || memory.NullableEqual(lv[2], 0, v2, i))
				}
				if same {
					continue
				}
			}
			rows = append(rows, int32(i))
		}
		if distinct {
			last.Clear()
			for c := range last.Vecs {
				last.AppendRange(c, b.Vecs[c], b.N-1, b.N)
			}
			last.N = 1
		}
		if len(rows) == 0 {
			continue
		}
		if err := s.inner.update(&aggIn{v: v, v2: v2, gids: gids, rows: rows, all: len(rows) == b.N}); err != nil {
			return err
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// pickSorted computes the ordered-set results (percentiles, mode) from the
// sorted rows, each group's as its rows stream past: how many a group has
// is known (cnt), so a percentile knows its positions before they come.
func (s *collectAgg) pickSorted(next func() (*vec.Batch, error)) error {
	s.results = memory.NewColBuf([]types.T{s.out}, max(s.ngroups, 1))
	out := s.results.Vecs[0]
	vt := s.sp.ts[1]
	// the current group's picks: the values at a percentile's positions,
	// or mode's current run and best run so far
	var runV, bestV *vec.Vector
	g, pos := int64(-1), int64(0)
	var lo, hi float64
	var k1, k2 int64
	var run, best int64
	ok := false
	var err error
	end := func() error {
		if g < 0 {
			return nil
		}
		n := s.sp.cnt[g]
		switch s.a.Kind {
		case AggPercentileCont:
			switch {
			case !ok || n == 0:
				out.AppendNull()
			case k1 == k2:
				out.AppendFloat(lo)
			default:
				pos := s.frac[g] * float64(n-1)
				out.AppendFloat(lo + (hi-lo)*(pos-float64(k1)))
			}
		case AggPercentileDisc:
			if !ok || n == 0 {
				out.AppendNull()
			} else {
				out.AppendFrom(bestV, 0)
			}
		case AggMode:
			if run > best {
				bestV = runV
			}
			out.AppendFrom(bestV, 0)
		}
		return nil
	}
	// begin starts group ng, after the groups without rows before it
	begin := func(ng int64) error {
		for e := g + 1; e < ng; e++ {
			if err := s.orderedResult(out, int(e), nil); err != nil {
				return err
			}
		}
		g, pos, run, best = ng, 0, 0, 0
		runV, bestV = nil, nil
		if s.a.Kind == AggMode {
			return nil
		}
		var f float64
		f, ok, err = s.fraction(int(g))
		if err != nil || !ok {
			return err
		}
		n := s.sp.cnt[g]
		switch s.a.Kind {
		case AggPercentileCont:
			p := f * float64(n-1)
			k1, k2 = int64(math.Floor(p)), int64(math.Ceil(p))
		case AggPercentileDisc:
			k1 = max(int64(math.Ceil(f*float64(n))), 1) - 1
		}
		return nil
	}
	for {
		b, err := next()
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		gs, v := b.Vecs[0].I64, b.Vecs[1]
		for i := 0; i < b.N; i++ {
			if gs[i] != g {
				if err := end(); err != nil {
					return err
				}
				if err := begin(gs[i]); err != nil {
					return err
				}
			}
			switch s.a.Kind {
			case AggPercentileCont:
				if pos == k1 {
					lo = v.F64[i]
				}
				if pos == k2 {
					hi = v.F64[i]
				}
			case AggPercentileDisc:
				if pos == k1 {
					bestV = vec.New(vt, 1)
					bestV.AppendFrom(v, i)
				}
			case AggMode:
				if run > 0 && memory.RowsEqual(runV, 0, v, i) {
					run++
					break
				}
				if run > best {
					bestV, best = runV, run
				}
				runV = vec.New(vt, 1)
				runV.AppendFrom(v, i)
				run = 1
			}
			pos++
		}
	}
	if err := end(); err != nil {
		return err
	}
	for e := g + 1; e < int64(s.ngroups); e++ {
		if err := s.orderedResult(out, int(e), nil); err != nil {
			return err
		}
	}
	return nil
}

// closeCollectFiles removes the collecting states' files of h.
func (h *HashAgg) closeCollectFiles() {
	h.spillMu.Lock()
	fs := h.collectFiles
	h.collectFiles = nil
	h.spillMu.Unlock()
	for _, f := range fs {
		f.Close()
	}
}
