package aggregate

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/hashtab"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// AggKind names an aggregate function.
type AggKind uint8

const (
	AggCountStar AggKind = iota
	AggCount
	AggSum
	AggAvg
	AggMin
	AggMax
	AggStddevSamp
	AggStddevPop
	AggVarSamp
	AggVarPop
	AggBoolAnd
	AggBoolOr
	AggStringAgg      // string_agg(value, delimiter): Arg2 is the delimiter column
	AggPercentileCont // percentile_cont(fraction) WITHIN GROUP (ORDER BY Arg): Arg2 is the fraction
	AggPercentileDisc // percentile_disc(fraction) WITHIN GROUP (ORDER BY Arg): Arg2 is the fraction
	AggMode           // mode() WITHIN GROUP (ORDER BY Arg)

	AggStddev   = AggStddevSamp
	AggVariance = AggVarSamp
	AggEvery    = AggBoolAnd
)

var aggNames = [...]string{"count", "count", "sum", "avg", "min", "max", "stddev_samp", "stddev_pop",
	"var_samp", "var_pop", "bool_and", "bool_or", "string_agg", "percentile_cont", "percentile_disc", "mode"}

// Name is the function's SQL name.
func (k AggKind) Name() string {
	if int(k) < len(aggNames) {
		return aggNames[k]
	}
	return "?"
}

func (k AggKind) orderedSet() bool {
	return k == AggPercentileCont || k == AggPercentileDisc || k == AggMode
}

// AggKindByName maps a SQL aggregate name (lower case) to its kind; count
// maps to AggCount (the planner turns count(*) into AggCountStar).
func AggKindByName(name string) (AggKind, bool) {
	switch name {
	case "stddev":
		return AggStddevSamp, true
	case "variance":
		return AggVarSamp, true
	case "every":
		return AggBoolAnd, true
	}
	for k, n := range aggNames {
		if n == name && k != int(AggCountStar) {
			return AggKind(k), true
		}
	}
	return 0, false
}

// Agg is one aggregate over the input of a HashAgg (or a Window).
type Agg struct {
	Kind AggKind
	Arg  int     // input column of the argument (the WITHIN GROUP value for ordered-set aggregates); unused by count(*)
	In   types.T // type of Arg
	Out  types.T // result type, from AggResultType (zero: computed)
	// Arg2 is the second input column: string_agg's delimiter, or the
	// fraction of percentile_cont/percentile_disc (a direct argument,
	// read from each group's first row). Unused by other kinds.
	Arg2 int
	// Distinct aggregates each group's distinct non-NULL values (count,
	// sum, avg, … DISTINCT); the values are folded in sorted order, as
	// PostgreSQL does.
	Distinct bool
	// Filter is FILTER (WHERE …): 0 means every row; k > 0 means only rows
	// where boolean input column k-1 is true. (One-based so that the zero
	// value means "no filter"; FilterColumn converts.)
	Filter int
	// Desc orders an ordered-set aggregate's WITHIN GROUP values, or a
	// DISTINCT aggregate's values, descending.
	Desc bool
	// Order is the aggregate's ORDER BY (string_agg(x, ',' ORDER BY y)):
	// values are folded in this order. Aggregates whose result does not
	// depend on input order ignore it.
	Order []AggOrder
}

// AggOrder is one ORDER BY key inside an aggregate call.
type AggOrder struct {
	Col              int // input column
	Desc, NullsFirst bool
}

// orderSensitive reports whether the aggregate's result depends on the
// order of its input.
func (a *Agg) orderSensitive() bool { return len(a.Order) > 0 && a.Kind == AggStringAgg }

// FilterColumn is the Filter value for FILTER (WHERE input column col).
func FilterColumn(col int) int { return col + 1 }

// AggResultType returns PostgreSQL's result type of kind over in.
func AggResultType(kind AggKind, in types.T) (types.T, error) {
	switch kind {
	case AggCountStar, AggCount:
		return types.Int64T, nil
	case AggMin, AggMax, AggPercentileDisc, AggMode:
		if in.ID != types.Unknown {
			return in, nil
		}
	case AggSum:
		switch {
		case in.ID == types.Int16 || in.ID == types.Int32:
			return types.Int64T, nil
		case in.ID == types.Int64:
			// numeric, and unbounded: sum(bigint) never overflows
			return types.NumericAnyT, nil
		case in.IsFloat(), in.ID == types.Interval:
			return in, nil
		case in.ID == types.Numeric:
			if in.Scale < 0 {
				return types.NumericAnyT, nil
			}
			return types.T{ID: types.Numeric, Scale: in.Scale}, nil
		}
	case AggAvg, AggStddevSamp, AggStddevPop, AggVarSamp, AggVarPop:
		switch {
		case in.ID == types.Interval && kind == AggAvg:
			return in, nil
		case in.IsInteger() || in.ID == types.Numeric:
			return types.NumericAnyT, nil
		case in.IsFloat():
			return types.Float64T, nil
		}
	case AggBoolAnd, AggBoolOr:
		if in.ID == types.Bool {
			return types.BoolT, nil
		}
	case AggStringAgg:
		switch in.ID {
		case types.Text:
			return types.TextT, nil
		case types.Bytea:
			return types.ByteaT, nil
		}
	case AggPercentileCont:
		if in.IsNumeric() {
			return types.Float64T, nil
		}
	}
	return types.T{}, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", kind.Name(), in)
}

func aggOut(a Agg) (types.T, error) {
	if a.Out.ID != types.Unknown {
		return a.Out, nil
	}
	return AggResultType(a.Kind, a.In)
}

// HashAgg groups by the first NGroup input columns and computes Aggs.
// Output: the NGroup group columns, one column per aggregate, then — with
// GroupingID — an integer grouping() bitmask.
//
// Groups get dense ids from an open-addressing table on the typed key
// columns (an inline int64 table for one integer-stored key); aggregate
// states are column-major by group id. When Input is a *Parallel, each
// worker aggregates its own morsels into its own tables (no locks while
// aggregating); with many groups the tables are partitioned by key hash
// and each partition is owned by one worker (aggradix.go), and the partial
// states are merged once at the end.
type HashAgg struct {
	Input  exec.Operator
	NGroup int
	Aggs   []Agg
	// GroupingSets, when not nil, lists the grouping sets (GROUPING SETS,
	// ROLLUP, CUBE): each is a subset of the group columns 0..NGroup-1.
	// Each set's groups are output in turn, with NULL in the columns the
	// set lacks. An empty set aggregates everything into one row (which
	// exists even for empty input).
	GroupingSets [][]int
	// GroupingID appends an int4 column: bit NGroup-1-c is set when group
	// column c is absent from the row's grouping set, as grouping(c0, c1,
	// …, cN-1) would return; grouping() of other argument lists is a
	// rearrangement of these bits.
	GroupingID bool
	Mem        *memory.Memory // nil: charge GlobalMemory
	SizeHint   int            // expected number of groups (0: unknown), to presize tables
	// Partial, when not nil, marks the partial aggregation of an eager
	// aggregation, folded by an aggregation above: it may stop grouping
	// and pass rows through (aggpartial.go). Never set on an aggregation
	// whose groups are the query's.
	Partial *Partial
	// Having, when not nil, drops groups before their aggregates' results
	// are made (having.go). Never set on an aggregation whose groups are
	// not the query's.
	Having *Having

	spillLevel int     // partitioning depth of a HashAgg over a spill partition
	seed       *aggRun // the table to start from: a partition's (aggPartTask)
	workMem    int64   // the session's work_mem: each run's own budget (0: none)
	spillMu    sync.Mutex
	spills     []*aggSpill // every spill of the query's runs, to close (aggspill.go)
	// collectFiles are the collecting states' spill files, to close
	// (aggcollectspill.go); ctx and qs are the statement's, for them
	collectFiles []*memory.SpillFile
	ctx          context.Context
	qs           *exec.QueryStats
	// dealtHeld is what the radix workers' buffers in flight are counted
	// for (aggradix.go), given back when the workers are done
	dealtHeld atomic.Int64

	run *aggRun
	// runs are the tables emitted in turn: run alone, or the partition
	// tables of a parallel aggregation (aggmerge.go)
	runs    []*aggRun
	emitRun int
	outT    []types.T
	out     *memory.ColBuf
	started bool
	emitSet int
	emitPos int
	ts      []types.T
	// passing: the groups made so far are handed on, then every further
	// input row as its own group (aggpartial.go)
	passing  bool
	pass     *vec.Batch
	passVecs []vec.Vector
	// parts are the output's parts when a Parallel above takes it in
	// parts (split.go); splitMu makes the emission of a set whose
	// aggregates cannot be copied (splitFinals) one part at a time
	parts   []aggPart
	splitMu sync.Mutex
	having  *havingState // Next's, when Having is set
}

func (h *HashAgg) Types() []types.T {
	if h.ts == nil {
		in := h.Input.Types()
		h.ts = append([]types.T{}, in[:h.NGroup]...)
		for _, a := range h.Aggs {
			t, _ := aggOut(a)
			h.ts = append(h.ts, t)
		}
		if h.GroupingID {
			h.ts = append(h.ts, types.Int32T)
		}
	}
	return h.ts
}

func (h *HashAgg) Close() error {
	if h.run != nil {
		h.run.res.Release()
	}
	if h.seed != nil {
		h.seed.res.Release()
	}
	for _, r := range h.runs {
		r.res.Release()
	}
	for _, sp := range h.spills {
		sp.close()
	}
	h.spills = nil
	h.closeCollectFiles()
	return h.Input.Close()
}

// aggSet is the hash table and states of one grouping set.
type aggSet struct {
	cols     []int
	mask     int64
	itab     *hashtab.I64Table
	nullG    int32
	htab     *hashtab.HashTable
	pack     *hashtab.KeyPacker // nil unless the keys are short text (exec/hashtab/keypack.go)
	keys     *hashtab.KeyCols
	keyBytes int64 // memory of the stored keys, kept as groups are added
	ngroups  int
	fns      []aggFn
	gids     []int32
	hs       []uint64
	kv       []*vec.Vector
	// dead, when not nil, marks the groups folded into another worker's
	// table (aggunion.go): they are left out of the output
	dead []bool
}

// aggRun is one worker's aggregation: a table per grouping set.
type aggRun struct {
	h    *HashAgg
	sets []*aggSet
	// finest >= 0: the grouping set whose columns hold every other set's;
	// only it reads the input, the others are rolled up from its groups
	// at the end (rollup.go)
	finest    int
	sels      [][]int32
	keys      [][]*vec.Vector // per aggregate: its ORDER BY columns of the batch
	iota      []int32
	res       memory.Reservation
	accounted int64
	// aheadAt is the table's slots and group capacity when reserveAhead
	// last reserved its doubling
	aheadAt [2]int
	sp      *aggSpill // non-nil once the table is frozen (aggspill.go)
	// ssp, for grouping sets, is non-nil once every set's table is frozen:
	// each non-empty set's spill (nil for the empty set), rollupspill.go
	ssp []*aggSpill
	// onlySet, when > 0, is 1 + the only set consume feeds (a set's route)
	onlySet int
	// rerouted: the rows this run spills are looked up again in a table
	// holding its groups before they are aggregated (a parallel worker's:
	// by its partition's task, aggradix.go), so route may skip the lookup
	rerouted bool
	// pre, when not nil, is the key hash of each row of the batch being
	// fed, computed by a radix worker to pick the row's partition
	pre []uint64
	// the batch's rows by group when it has few groups (byGroup)
	perm, starts, pos []int32
}

func (h *HashAgg) newRun() (*aggRun, error) {
	r := &aggRun{h: h, sels: make([][]int32, len(h.Aggs)), keys: make([][]*vec.Vector, len(h.Aggs)), finest: -1}
	r.res.Mem = h.Mem
	r.res.Spill = h.canSpill() || h.setsSpill() || h.collecting()
	r.res.Cap = h.workMem
	in := h.Input.Types()
	sets := h.GroupingSets
	if sets == nil {
		all := make([]int, h.NGroup)
		for i := range all {
			all[i] = i
		}
		sets = [][]int{all}
	}
	if len(h.outT) != len(h.Aggs) {
		// set by the first run, before any worker starts: the workers'
		// splits (aggradix.go) make runs side by side and only read it
		outT := make([]types.T, 0, len(h.Aggs))
		for _, a := range h.Aggs {
			t, err := aggOut(a)
			if err != nil {
				return nil, err
			}
			outT = append(outT, t)
		}
		h.outT = outT
	}
	for _, cols := range sets {
		s := &aggSet{cols: cols, nullG: -1}
		for c := 0; c < h.NGroup; c++ {
			present := false
			for _, k := range cols {
				if k == c {
					present = true
				}
			}
			if !present {
				s.mask |= 1 << (h.NGroup - 1 - c)
			}
		}
		switch {
		case len(cols) == 0:
			s.ngroups = 1
		case len(cols) == 1 && in[cols[0]].Storage() == types.StoreInt:
			s.itab = hashtab.NewI64Table(h.SizeHint)
		default:
			s.htab = hashtab.NewHashTable(h.SizeHint)
			kt := make([]types.T, len(cols))
			for i, c := range cols {
				kt[i] = in[c]
			}
			s.keys = hashtab.NewKeyCols(kt)
			s.pack = hashtab.NewKeyPacker(kt)
			s.kv = make([]*vec.Vector, len(cols))
		}
		for i, a := range h.Aggs {
			fn, err := newAggFn(a, h.outT[i])
			if err != nil {
				return nil, err
			}
			fn.grow(s.ngroups)
			s.fns = append(s.fns, fn)
		}
		shareSums(h.Aggs, s.fns)
		r.sets = append(r.sets, s)
	}
	r.finest = finestSet(h, sets)
	return r, nil
}

// intGroupIDs gives the groups of one integer key column through the
// int64 table, the rows whose nulls entry is set (nil: none) to the NULL
// group, made when first met.
func (s *aggSet) intGroupIDs(keys []int64, nulls []bool, gids []int32) {
	s.itab.GroupIDs(keys, nulls, gids)
	for i, null := range nulls[:min(len(nulls), len(keys))] {
		if null {
			if s.nullG < 0 {
				s.nullG = int32(len(s.itab.Dense))
				s.itab.Dense = append(s.itab.Dense, 0)
			}
			gids[i] = s.nullG
		}
	}
	s.ngroups = len(s.itab.Dense)
}

// groupIDs assigns the group of every row of b in this set. pre, when not
// nil, holds the rows' key hashes (a radix worker's, aggradix.go).
func (s *aggSet) groupIDs(b *vec.Batch, zeros []int32, pre []uint64) {
	n := b.N
	switch {
	case len(s.cols) == 0:
		s.gids = zeros
		return
	case s.itab != nil:
		s.gids = exec.Resize32(s.gids, n)
		v := b.Vecs[s.cols[0]]
		s.intGroupIDs(v.I64[:n], v.Nulls, s.gids)
	default:
		s.gids = exec.Resize32(s.gids, n)
		hs := pre
		if hs == nil {
			if cap(s.hs) < n {
				s.hs = make([]uint64, n, max(n, vec.BatchSize))
			}
			hs = s.hs[:n]
		}
		for i, c := range s.cols {
			s.kv[i] = b.Vecs[c]
		}
		if ok, added := s.pack.GroupIDs(s.htab, s.keys, s.kv, n, hs, pre != nil, s.gids); ok {
			s.keyBytes += added
		} else {
			if pre == nil {
				for i, v := range s.kv {
					memory.HashColumn(hs, v, n, i == 0)
				}
			}
			s.keyBytes += s.htab.GroupIDs(s.keys, s.kv, hs, s.gids)
		}
		s.ngroups = s.htab.N
	}
	for _, fn := range s.fns {
		fn.grow(s.ngroups)
	}
}

func (s *aggSet) bytes() int64 {
	var b int64
	if s.itab != nil {
		b += s.itab.Bytes()
	}
	if s.htab != nil {
		b += s.htab.Bytes() + s.keyBytes
	}
	if s.pack != nil {
		b += s.pack.Bytes()
	}
	for _, fn := range s.fns {
		b += fn.bytes()
	}
	return b
}

func (r *aggRun) consume(b *vec.Batch) error {
	n := b.N
	if n == 0 {
		return nil
	}
	if len(r.iota) < n {
		r.iota = make([]int32, max(n, vec.BatchSize))
		for i := range r.iota {
			r.iota[i] = int32(i)
		}
	}
	all := r.iota[:n]
	zeros := zeroGidsN(n)
	for a, agg := range r.h.Aggs {
		if agg.Filter <= 0 {
			continue
		}
		f := b.Vecs[agg.Filter-1]
		sel := r.sels[a][:0]
		for i, ok := range f.B[:n] {
			if ok && !f.IsNull(i) {
				sel = append(sel, int32(i))
			}
		}
		r.sels[a] = sel
	}
	for si, s := range r.sets {
		if r.finest >= 0 && si != r.finest {
			continue // rolled up from the finest set at the end
		}
		if r.onlySet > 0 && si != r.onlySet-1 {
			continue // another set's route feeds that one
		}
		s.groupIDs(b, zeros, r.pre)
		var perm, starts []int32
		if len(s.fns) > 1 && s.ngroups <= fewGroups && n >= 16*s.ngroups {
			perm, starts = r.byGroup(s.gids[:n], s.ngroups)
		}
		for a, fn := range s.fns {
			agg := &r.h.Aggs[a]
			in := aggIn{rows: all, all: true, gids: s.gids, perm: perm, starts: starts}
			if agg.Filter > 0 {
				in.rows, in.all, in.perm, in.starts = r.sels[a], false, nil, nil
			}
			if agg.Kind != AggCountStar {
				in.v = b.Vecs[agg.Arg]
			}
			if agg.Kind == AggStringAgg || agg.Kind == AggPercentileCont || agg.Kind == AggPercentileDisc {
				in.v2 = b.Vecs[agg.Arg2]
			}
			if agg.orderSensitive() {
				in.keys = r.keys[a][:0]
				for _, o := range agg.Order {
					in.keys = append(in.keys, b.Vecs[o.Col])
				}
				r.keys[a] = in.keys
			}
			if err := fn.update(&in); err != nil {
				return err
			}
		}
	}
	return r.account()
}

// account reserves what the run's sets grew by; when the budget refuses,
// collecting states write their rows out (growCollecting).
func (r *aggRun) account() error {
	total := r.stateBytes()
	if d := total - r.accounted; d > 0 {
		if err := r.res.Grow(d); err != nil {
			if pgerr.Code(err) != memory.OutOfMemory || !r.h.collecting() {
				return err
			}
			return r.growCollecting(err)
		}
		r.accounted = total
	}
	return nil
}

// stateBytes is what the run's sets hold: their tables and states.
func (r *aggRun) stateBytes() int64 {
	var total int64
	for _, s := range r.sets {
		total += s.bytes()
	}
	return total
}

// growCollecting is consume's reservation failing (err) in an aggregation
// with collecting states: they write their rows to disk
// (aggcollectspill.go). Without a table that can freeze (no GROUP BY, or
// one already frozen) what the states keep beyond that — their inner
// aggregates' results — goes past the budget, as a frozen table's does.
func (r *aggRun) growCollecting(err error) error {
	spilled, serr := r.spillCollects()
	if serr != nil {
		return serr
	}
	if !spilled {
		if r.h.NGroup == 0 || r.sp != nil || r.ssp != nil {
			return nil
		}
		return err
	}
	total := r.stateBytes()
	if d := total - r.accounted; d > 0 {
		if err := r.res.Grow(d); err != nil {
			if r.h.NGroup == 0 || r.sp != nil || r.ssp != nil {
				return nil
			}
			return err
		}
		r.accounted = total
	}
	return nil
}

// fewGroups is the most groups a batch's rows are put in group order for.
// Summing a batch row by row into few groups makes each row's addition
// wait for the previous one's store to the same group's sum: TPC-H Q1's
// seven sums and averages over four groups spent a quarter of its CPU so.
// In group order, each aggregate sums a group's rows in a register.
const fewGroups = 64

// byGroup returns the rows 0..len(gids)-1 ordered by group (stable), and
// where each group's rows start in that order (ngroups+1 offsets); nil
// when a row's group is outside [0, ngroups).
func (r *aggRun) byGroup(gids []int32, ngroups int) (perm, starts []int32) {
	starts = growTo(r.starts[:0], ngroups+1)
	clear(starts)
	for _, g := range gids {
		if uint32(g) >= uint32(ngroups) {
			return nil, nil
		}
		starts[g+1]++
	}
	for g := 1; g <= ngroups; g++ {
		starts[g] += starts[g-1]
	}
	pos := append(r.pos[:0], starts[:ngroups]...)
	perm = growTo(r.perm[:0], len(gids))
	for i, g := range gids {
		perm[pos[g]] = int32(i)
		pos[g]++
	}
	r.perm, r.starts, r.pos = perm, starts, pos
	return perm, starts
}

// zeroGids is a shared all-zero group id vector for sets without columns.
var zeroGids = make([]int32, vec.BatchSize)

func zeroGidsN(n int) []int32 {
	if n <= len(zeroGids) {
		return zeroGids[:n]
	}
	return make([]int32, n)
}

// mergeKeys finds or adds src's groups in s's general table, setting
// gmap, a slice of src's groups at a time (its keys made a batch by
// colView); it returns the key bytes added.
func (s *aggSet) mergeKeys(src *aggSet, gmap []int32) int64 {
	var added int64
	kv := make([]*vec.Vector, len(src.keys.Cols))
	// src's groups' hashes as far as s's table reads them (their tags)
	tags := src.htab.Tags(nil)
	before := s.htab.N
	if s.htab.Tight && src.ngroups <= mergeSlice {
		// a table near the budget grows by a quarter, far more than the
		// few thousand groups another worker held of its partition before
		// it split: room for those alone, so that the capacity counted
		// is left to the partition's spilled rows
		added += s.keys.Reserve(s.htab.N + src.ngroups)
	}
	for lo := 0; lo < src.ngroups; lo += mergeSlice {
		if lo == mergeSlice {
			// the first slice's share of new groups predicts the rest's:
			// the table grows once for them now, not doubling on the way,
			// rehashing what it holds each time (TPC-DS q97 merges two
			// workers' 270,000 distinct groups, a fifth of the merge)
			fresh := s.htab.N - before
			want := s.htab.N + (src.ngroups-lo)*fresh/mergeSlice
			s.htab.Reserve(want)
			// the per-group arrays too, a little over: one group past the
			// estimate would grow every one again
			want += want / 64
			added += s.keys.Reserve(want)
		}
		hi := min(lo+mergeSlice, src.ngroups)
		for c := range kv {
			kv[c] = src.keys.ColView(c, lo, hi)
		}
		s.keys.Share = &hashtab.KeyShare{Src: src.keys, Lo: lo}
		added += s.htab.GroupIDs(s.keys, kv, tags[lo:hi], gmap[lo:hi])
		s.keys.Share = nil
	}
	return added
}

// mergeSlice is the groups mergeKeys takes at a time.
const mergeSlice = 1 << 14

// merge folds another worker's run into r.
func (r *aggRun) merge(o *aggRun) error {
	for si, s := range r.sets {
		src := o.sets[si]
		gmap := make([]int32, src.ngroups)
		switch {
		case len(s.cols) == 0:
		case s.itab != nil:
			var nulls []bool
			if src.nullG >= 0 {
				nulls = make([]bool, len(src.itab.Dense))
				nulls[src.nullG] = true
			}
			s.itab.GroupIDs(src.itab.Dense, nulls, gmap)
			if src.nullG >= 0 {
				if s.nullG < 0 {
					s.nullG = int32(len(s.itab.Dense))
					s.itab.Dense = append(s.itab.Dense, 0)
				}
				gmap[src.nullG] = s.nullG
			}
			s.ngroups = len(s.itab.Dense)
		default:
			// the other worker's text keys are already copies of their own,
			// which nothing changes or frees: kept, not copied again
			s.keyBytes += s.mergeKeys(src, gmap)
			s.ngroups = s.htab.N
		}
		for a, fn := range s.fns {
			fn.grow(s.ngroups)
			if err := fn.merge(src.fns[a], nil, gmap); err != nil {
				return err
			}
		}
	}
	o.res.Release()
	return r.account()
}

func (h *HashAgg) aggregate(ctx context.Context) error {
	if done, err := h.countFromMetadata(ctx); done || err != nil {
		return err
	}
	if p, ok := h.Input.(*exec.Parallel); ok {
		if h.partitionable() {
			return h.aggregateRadix(ctx, p)
		}
		// no keys, or grouping sets: small tables that do not spill
		runs := make([]*aggRun, p.NumWorkers())
		for w := range runs {
			r, err := h.newRun()
			if err != nil {
				return err
			}
			// frozen grouping-set tables are merged in memory at the end
			r.res.SpillHalf = true
			runs[w] = r
		}
		h.run = runs[0]
		err := p.Run(ctx, func(ctx context.Context, w int, op exec.Operator) error {
			return exec.Drain(ctx, op, func(b *vec.Batch) error {
				if err := memory.ErrCanceled(ctx); err != nil {
					return err
				}
				return h.feed(ctx, runs[w], b)
			})
		})
		if err != nil {
			for _, r := range runs {
				r.res.Release()
			}
			return err
		}
		for _, r := range runs {
			if r.ssp != nil {
				return h.mergeSpilledSets(ctx, runs)
			}
		}
		for _, r := range runs[1:] {
			// the workers' grouping-set tables spilled at half their
			// share for this: the merge goes past it if it must
			if err := runs[0].merge(r); err != nil && (pgerr.Code(err) != memory.OutOfMemory || !h.setsSpill()) {
				return err
			}
		}
		return runs[0].rollUp()
	}
	r := h.seed
	if r != nil {
		r.h, h.seed = h, nil
	} else {
		var err error
		if r, err = h.newRun(); err != nil {
			return err
		}
	}
	h.run = r
	err := exec.Drain(ctx, h.Input, func(b *vec.Batch) error {
		if err := memory.ErrCanceled(ctx); err != nil {
			return err
		}
		return h.feed(ctx, r, b)
	})
	if err != nil {
		return err
	}
	return r.rollUp()
}

// aggregateRadix runs a parallel aggregation with keys (aggradix.go).
func (h *HashAgg) aggregateRadix(ctx context.Context, p *exec.Parallel) error {
	ws := make([]*aggWorker, p.NumWorkers())
	ex := newAggExchange(len(ws))
	// once the workers are done their buffers are garbage
	defer func() { h.Mem.Shrink(h.dealtHeld.Swap(0)) }()
	for w := range ws {
		r, err := h.newRun()
		if err != nil {
			return err
		}
		// an unsplit table may be merged whole into another at the end
		r.res.SpillHalf = true
		r.rerouted = true
		ws[w] = &aggWorker{run: r, w: w, ex: ex, free: make(chan *dealt, 2*aggPartitions)}
	}
	err := p.Run(ctx, func(ctx context.Context, w int, op exec.Operator) error {
		err := exec.Drain(ctx, op, func(b *vec.Batch) error {
			if err := memory.ErrCanceled(ctx); err != nil {
				return err
			}
			return h.feedWorker(ctx, ws[w], b)
		})
		if err != nil {
			return err
		}
		return h.endWorker(ctx, ws[w])
	})
	if err == nil {
		radix := false
		for _, wk := range ws {
			radix = radix || wk.parts != nil || wk.run.sp != nil
		}
		if radix {
			err = h.radixEnd(ctx, ws)
		} else {
			runs := make([]*aggRun, len(ws))
			for w, wk := range ws {
				runs[w] = wk.run
			}
			// the runs are h's now, kept or merged (and given back)
			if err = h.unionRuns(runs); err != nil {
				h.run, h.runs = runs[0], nil
				ws = ws[1:]
			} else {
				ws = nil
			}
		}
	}
	if err != nil {
		for _, wk := range ws {
			wk.release()
		}
	}
	return err
}

func (h *HashAgg) Next(ctx context.Context) (*vec.Batch, error) {
	if !h.started {
		h.started = true
		h.workMem = memory.WorkMemOf(ctx)
		h.Mem = memory.MemFor(ctx, h.Mem)
		h.ctx, h.qs = ctx, exec.QueryStatsOf(ctx)
		aggregate := h.aggregate
		if h.adaptive() {
			aggregate = h.aggregatePartial
		}
		if err := aggregate(ctx); err != nil {
			return nil, err
		}
		if err := h.finish(); err != nil {
			return nil, err
		}
	}
	if h.runs == nil {
		h.runs = []*aggRun{h.run}
	}
	for h.emitRun < len(h.runs) {
		r := h.runs[h.emitRun]
		if h.emitSet >= len(r.sets) {
			h.emitRun++
			h.emitSet, h.emitPos = 0, 0
			continue
		}
		s := r.sets[h.emitSet]
		if h.emitPos >= s.ngroups {
			h.emitSet++
			h.emitPos = 0
			continue
		}
		lo, hi := h.emitPos, min(h.emitPos+vec.BatchSize, s.ngroups)
		h.emitPos = hi
		if err := h.emit(s, lo, hi); err != nil {
			return nil, err
		}
		if h.out.N == 0 {
			continue // every group of the range was folded into another table's
		}
		return &h.out.Batch, nil
	}
	if h.passing {
		return h.passNext(ctx)
	}
	if h.run.sp != nil {
		return h.run.sp.next(ctx)
	}
	if h.run.ssp != nil {
		return h.run.nextSets(ctx)
	}
	// every group is out: the tables go with their reservation, not at
	// Close, as the operators above (a window over a ROLLUP, TPC-DS q67)
	// still run and the pool counts that memory as free
	for _, r := range h.runs {
		r.res.Release()
		r.sets = nil
	}
	h.run.sets = nil
	return nil, nil
}

// finish completes the states that work on all their input at once and
// prepares the output.
func (h *HashAgg) finish() error {
	if h.runs == nil {
		h.runs = []*aggRun{h.run}
	}
	for _, r := range h.runs {
		for _, s := range r.sets {
			for _, fn := range s.fns {
				if c, ok := fn.(*collectAgg); ok {
					if err := c.finish(); err != nil {
						return err
					}
				}
			}
		}
	}
	h.out = memory.NewColBuf(h.Types(), vec.BatchSize)
	return nil
}

// emit fills the output batch with groups [lo, hi) of set s.
func (h *HashAgg) emit(s *aggSet, lo, hi int) error {
	h.out.Clear()
	if h.having == nil {
		h.having = h.newHaving()
	}
	return h.emitTo(h.out, s, s.fns, nil, h.having, lo, hi)
}

// emitTo fills out, empty, with groups [lo, hi) of set s, the aggregates'
// results from fns (s's states or copies of them, splitFinals). views,
// when not nil, are the caller's vectors for the key columns' views; hv,
// when not nil, tests the groups first (having.go).
func (h *HashAgg) emitTo(out *memory.ColBuf, s *aggSet, fns []aggFn, views []*vec.Vector, hv *havingState, lo, hi int) error {
	n := hi - lo
	for c := 0; c < h.NGroup; c++ {
		j := -1
		for k, col := range s.cols {
			if col == c {
				j = k
			}
		}
		switch {
		case j < 0:
			out.AppendNulls(c, n)
		case s.itab != nil:
			v := out.Vecs[c]
			v.I64 = append(v.I64, s.itab.Dense[lo:hi]...)
			if s.nullG >= int32(lo) && s.nullG < int32(hi) {
				out.Nulls(c)
				v.Nulls[s.nullG-int32(lo)] = true
				v.I64[s.nullG-int32(lo)] = 0
			}
		case views != nil:
			out.AppendRange(c, s.keys.ColViewInto(views[j], j, lo, hi), 0, n)
		default:
			out.AppendRange(c, s.keys.ColView(j, lo, hi), 0, n)
		}
	}
	var keep []bool
	if hv != nil {
		keep = hv.keepGroups(h, out, fns, lo, hi)
	}
	if keep != nil {
		if err := h.finalsKept(out, fns, keep, lo); err != nil {
			return err
		}
	} else {
		for a, fn := range fns {
			if err := fn.final(out.Vecs[h.NGroup+a], lo, hi); err != nil {
				return err
			}
		}
	}
	if h.GroupingID {
		v := out.Vecs[len(out.Vecs)-1]
		for k := 0; k < n; k++ {
			v.AppendInt(s.mask)
		}
	}
	out.N = n
	if s.dead != nil || keep != nil {
		var rows []int32
		for i := range n {
			if (s.dead == nil || !s.dead[lo+i]) && (keep == nil || keep[i]) {
				rows = append(rows, int32(i))
			}
		}
		if len(rows) < n {
			out.Keep(rows)
		}
	}
	return nil
}

// ResetTypes drops the output types the aggregate cached (exec.Replanned).
func (h *HashAgg) ResetTypes() { h.ts = nil }
