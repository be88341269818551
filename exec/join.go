package exec

import (
	"context"
	"math"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec/hashtab"
	"github.com/lakepg/lakepg/exec/joinspill"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// JoinType says which rows a join emits.
type JoinType uint8

const (
	JoinInner JoinType = iota // matching pairs
	JoinLeft                  // pairs, plus unmatched left rows with NULL right columns
	JoinRight                 // pairs, plus unmatched right rows with NULL left columns
	JoinFull                  // pairs, plus unmatched rows of both sides
	JoinSemi                  // left rows with at least one match (EXISTS, IN); left columns only
	JoinAnti                  // left rows with no match (NOT EXISTS); left columns only
	// JoinAntiNullAware is NOT IN: a left row qualifies only when its
	// comparison with every right row is false. A NULL on either side
	// makes the comparison unknown, so: if the right side has a NULL key
	// no row qualifies, and a left row with a NULL key qualifies only when
	// the right side is empty. Left columns only.
	JoinAntiNullAware
	// JoinRightSemi and JoinRightAnti are Semi and Anti with the sides
	// swapped: the build (right) side is the one whose rows are kept, once,
	// when they matched (or never matched) any probe row; right columns
	// only. They let EXISTS build its hash table on the smaller outer side
	// and stream the large subquery side through it.
	JoinRightSemi
	JoinRightAnti
)

func (t JoinType) String() string {
	return [...]string{"Inner", "Left", "Right", "Full", "Semi", "Anti", "Anti (null-aware)", "Right Semi", "Right Anti"}[t]
}

// rightOnly reports whether the join outputs only the right columns.
func (t JoinType) rightOnly() bool { return t == JoinRightSemi || t == JoinRightAnti }

// tracksBuild reports whether the join records which build rows matched.
func (t JoinType) tracksBuild() bool { return t == JoinRight || t == JoinFull || t.rightOnly() }

// leftOnly reports whether the join outputs only the left columns.
func (t JoinType) leftOnly() bool {
	return t == JoinSemi || t == JoinAnti || t == JoinAntiNullAware
}

// HashJoin joins Left (probe, streamed) with Right (build, buffered) on
// LeftKeys[i] = RightKeys[i], then Extra. Output is the left columns then the
// right columns; Semi and Anti joins output the left columns only. NULL keys
// never match (see JoinAntiNullAware for NOT IN).
//
// The build side is drained into typed column buffers and indexed by an
// open-addressing table: a single integer-stored key is kept inline
// (i64Table); other keys are hashed from the typed columns (hashTable). Rows
// with equal keys are chained in input order. Probe batches stream through;
// many-to-many matches are emitted in batches of at most vec.BatchSize pairs.
type HashJoin struct {
	Env                 *Env
	Left, Right         Operator
	LeftKeys, RightKeys []Expr // pairwise of the same type (the binder casts)
	Type                JoinType
	// Extra is a residual predicate over left columns ++ right columns
	// (nil: none). A pair matches only when it is true. For
	// JoinAntiNullAware it restricts which right rows a left row is
	// compared with (a correlated NOT IN).
	Extra Expr
	Mem   *memory.Memory // nil: charge GlobalMemory

	// Shared, when set, is a build side shared with other HashJoins — one
	// per Parallel worker, each probing with its own Left — and Right is
	// not used. Right, Full and right semi/anti joins need its Probes: the
	// last probe to finish emits the build rows they keep, once.
	Shared *SharedBuild

	// KeyRanges, parallel to the keys (nil entries for none), receive the
	// build keys' ranges when the build is done, for scans on the probe
	// side (keyrange.go)
	KeyRanges []*KeyRange
	// KeySet, when set, receives the build side when it is done, for a
	// scan on the probe side (keyrange.go); only for one integer key
	KeySet *KeySet
	// ColKeySets, for a join on several keys, receive the build side's
	// values of one integer key each, for scans on the probe side: a probe
	// row whose value of that key no build row has matches none
	ColKeySets []ColKeySet
	// BuildLeftFirst: scans of the build side take key sets from joins
	// below on the probe side (a probe row's key passed those joins, so a
	// build row whose key is in none of their build sides never matches),
	// so the joins of the probe side build first (buildBelow).
	BuildLeftFirst bool
	// BuiltBy is set on a join that a Parallel's workers run as copies
	// probing one shared build side (optree's parallelChain): the key
	// filters that name this join (InJoinBuild, below its probe side) read
	// that build, which the copies make before they pull their probe rows.
	// Without it they would wait for a build of this join that never comes
	// and pass every row (TPC-H Q20's lineitem sums, once the join above
	// the aggregation ran on every worker: 53 -> 140 ms).
	BuiltBy *SharedBuild

	core    joinCore
	started bool
	*joinBuild
	pkeys []*vec.Vector
	hs    []uint64
	ts    []types.T

	// spill is set when the build side outgrew memory and went to disk
	// (package joinspill); spillLevel is how many times the rows were
	// partitioned before this join.
	spill      *joinspill.Spill
	spillLevel int
	probed     bool
	// prebuilt is a build side made by a chunk join, probed as is.
	prebuilt *joinBuild
}

// joinBuild is a hash join's buffered, indexed build side. It is read-only
// once built, so several probes may share it.
type joinBuild struct {
	rows    *memory.ColBuf
	bkeys   []*vec.Vector // build key columns, cast to the probe keys' types
	itab    *hashtab.I64Table
	filter  *keyFilter // in front of a large itab (keyfilter.go)
	direct  []int32    // dense keys: build row + 1 by key - dmin (0: none)
	dmin    int64
	htab    *hashtab.HashTable
	next    []int32 // chain: next build row with the same key, -1 at the end
	nullKey []int32 // build rows with a NULL key (NOT IN bookkeeping)
	res     memory.Reservation
	// cols, by key position, index one key column alone (colSet) for
	// ColKeySets; nil where none was asked or it did not fit
	cols []*joinBuild
}

// ColKeySet ties a KeySet to one key of a join on several keys.
type ColKeySet struct {
	Key int
	Set *KeySet
}

// colSetMaxRows bounds the build sides that index key columns alone for
// ColKeySets: a second index of a large build side costs more to make
// and hold than the scan saves.
const colSetMaxRows = 1 << 20

// colSets indexes each key column cs names alone, as far as memory allows.
func (j *joinBuild) colSets(cs []ColKeySet, par int) {
	n := j.rows.N
	if len(cs) == 0 || n > colSetMaxRows {
		return
	}
	j.cols = make([]*joinBuild, len(j.bkeys))
	for _, c := range cs {
		k := j.bkeys[c.Key]
		if j.cols[c.Key] != nil || k.Type.Storage() != types.StoreInt {
			continue
		}
		cb := &joinBuild{bkeys: []*vec.Vector{k}}
		// an extra: it is skipped, never waited for, when memory is short
		cb.res = memory.Reservation{Mem: j.res.Mem, Cap: j.res.Cap, Spill: true}
		if cb.res.Grow(4*int64(n)) != nil {
			return
		}
		cb.next = make([]int32, n)
		if cb.index(n, par) != nil {
			cb.res.Release()
			return
		}
		j.cols[c.Key] = cb
	}
}

// release gives back the memory of the build side and its column indexes.
func (j *joinBuild) release() {
	j.res.Release()
	for _, cb := range j.cols {
		if cb != nil {
			cb.res.Release()
		}
	}
}

// publishKeySets hands the scans below the probe side the built key
// column indexes (none when the build is not whole).
func (j *HashJoin) publishKeySets(whole bool) {
	for _, c := range j.ColKeySets {
		var cb *joinBuild
		if whole && j.joinBuild != nil && c.Key < len(j.joinBuild.cols) {
			cb = j.joinBuild.cols[c.Key]
		}
		c.Set.jb.Store(cb)
	}
}

// SharedBuild is the build side of a hash join probed by several
// HashJoins at once (set HashJoin.Shared on each): the first probe to need
// it drains Right and indexes it; the others wait for it and then probe
// the same read-only table. KeyTypes are the probe keys' types.
type SharedBuild struct {
	Env       *Env
	Right     Operator
	RightKeys []Expr
	KeyTypes  []types.T
	Mem       *memory.Memory

	// Probes is the number of HashJoins probing this build. Right semi
	// and anti joins need it: each probe ORs the build rows it matched
	// into matched, and the last one to finish emits the result.
	Probes int

	once     sync.Once
	closed   sync.Once
	tsOnce   sync.Once
	ts       []types.T
	jb       *joinBuild
	done     atomic.Pointer[joinBuild] // jb once built whole, for InJoinBuild
	spill    *joinspill.Spill
	err      error
	mu       sync.Mutex
	matched  []bool
	finished int
}

// finishProbe merges one probe's matched build rows; the last probe gets
// back the merged set, the others nil.
func (s *SharedBuild) finishProbe(m []bool) []bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.matched == nil {
		s.matched = make([]bool, len(m))
	}
	for i, ok := range m {
		if ok {
			s.matched[i] = true
		}
	}
	s.finished++
	if s.finished == s.Probes {
		return s.matched
	}
	return nil
}

func (s *SharedBuild) types() []types.T {
	s.tsOnce.Do(func() { s.ts = s.Right.Types() })
	return s.ts
}

func (s *SharedBuild) get(ctx context.Context, typ JoinType, cs []ColKeySet) (*joinBuild, *joinspill.Spill, error) {
	s.once.Do(func() {
		s.err = Guard(func() error {
			var err error
			s.jb, s.spill, err = buildJoin(ctx, s.Env, s.Right, s.RightKeys, s.KeyTypes, memory.MemFor(ctx, s.Mem),
				buildOpts{spill: true, one: typ == JoinAntiNullAware, par: runtime.GOMAXPROCS(0)})
			if err == nil && s.spill == nil {
				s.jb.colSets(cs, runtime.GOMAXPROCS(0))
				s.done.Store(s.jb)
			}
			return err
		})
	})
	return s.jb, s.spill, s.err
}

// Close releases the build side and closes Right; it may be called by
// every probe.
func (s *SharedBuild) Close() error {
	var err error
	s.closed.Do(func() {
		if s.jb != nil {
			s.jb.release()
		}
		if s.spill != nil {
			s.spill.Close()
		}
		err = s.Right.Close()
	})
	return err
}

func joinTypes(l, r Operator, t JoinType) []types.T {
	return joinTypesOf(l.Types(), r.Types(), t)
}

func joinTypesOf(l, r []types.T, t JoinType) []types.T {
	if t.leftOnly() {
		return l
	}
	if t.rightOnly() {
		return r
	}
	return append(append([]types.T{}, l...), r...)
}

// rightTypes are the build side's column types. A shared build side is
// asked once: its operators cache their types lazily, and the probe
// workers ask at the same time.
func (j *HashJoin) rightTypes() []types.T {
	if j.Shared != nil {
		return j.Shared.types()
	}
	return j.Right.Types()
}

func (j *HashJoin) Types() []types.T {
	if j.ts == nil {
		j.ts = joinTypesOf(j.Left.Types(), j.rightTypes(), j.Type)
	}
	return j.ts
}

func (j *HashJoin) Close() error {
	err := j.Left.Close()
	var e error
	if j.Shared != nil {
		e = j.Shared.Close()
	} else {
		if j.joinBuild != nil {
			j.joinBuild.release()
		}
		if j.spill != nil {
			j.spill.Close()
		}
		e = j.Right.Close()
	}
	if err == nil {
		err = e
	}
	return err
}

// built is the indexed build side once build has run, else nil.
func (j *HashJoin) built() *joinBuild {
	if j.joinBuild == nil && j.BuiltBy != nil {
		return j.BuiltBy.done.Load()
	}
	return j.joinBuild
}

// build obtains the indexed build side, its own or the shared one.
func (j *HashJoin) build(ctx context.Context) error {
	if len(j.LeftKeys) == 0 || (j.Shared == nil && len(j.LeftKeys) != len(j.RightKeys)) {
		return pgerr.New(pgerr.Internal, "hash join needs pairs of keys")
	}
	c := &j.core
	c.init(j.Env, j.Type, j.Extra, j.Left.Types(), j.rightTypes())
	j.Mem = memory.MemFor(ctx, j.Mem)
	var err error
	whole := true // the build holds every build row
	if j.Shared != nil {
		if j.Type.tracksBuild() && j.Shared.Probes == 0 {
			return pgerr.New(pgerr.Internal, "a shared hash join build cannot serve a %s join without its probe count", j.Type)
		}
		j.joinBuild, j.spill, err = j.Shared.get(ctx, j.Type, j.ColKeySets)
		if err == nil && j.spill != nil {
			if j.Shared.Probes == 0 {
				return pgerr.New(pgerr.Internal, "a spilled shared hash join build needs its probe count")
			}
			if j.KeySet != nil {
				j.KeySet.jb.Store(nil)
			}
			j.publishKeySets(false)
			return nil
		}
		if j.Type.tracksBuild() {
			// each probe marks the build rows it matched; the last one to
			// finish gets them all and emits the build rows the join type
			// keeps (unmatched for RIGHT, FULL and right anti joins)
			shared := j.Shared
			c.probeDone = func() { c.matchedB = shared.finishProbe(c.matchedB) }
		}
	} else if j.prebuilt != nil {
		// a chunk of the build side: its keys are not all of them
		j.joinBuild, j.prebuilt = j.prebuilt, nil
		whole = false
	} else {
		kts := make([]types.T, len(j.LeftKeys))
		for i, k := range j.LeftKeys {
			kts[i] = k.Type()
		}
		// a build side the planner made parallel is built by all cores: the
		// join waits for it, and the probe has not started
		par := 0
		if _, ok := j.Right.(*Parallel); ok {
			par = runtime.GOMAXPROCS(0)
		}
		j.joinBuild, j.spill, err = buildJoin(ctx, j.Env, j.Right, j.RightKeys, kts, j.Mem,
			buildOpts{level: j.spillLevel, spill: j.spillLevel <= joinspill.MaxLevel, one: j.Type == JoinAntiNullAware, par: par})
		if err == nil && j.joinBuild != nil {
			j.joinBuild.colSets(j.ColKeySets, par)
		}
	}
	if err != nil {
		return err
	}
	if j.spill != nil {
		whole = false
	}
	if j.KeySet != nil {
		if whole && len(j.bkeys) == 1 && j.bkeys[0].Type.Storage() == types.StoreInt {
			j.KeySet.jb.Store(j.joinBuild)
		} else {
			j.KeySet.jb.Store(nil)
		}
	}
	j.publishKeySets(whole)
	if j.spill != nil {
		return nil
	}
	for i, r := range j.KeyRanges {
		if r != nil && i < len(j.bkeys) {
			r.set(j.bkeys[i], j.rows.N)
		}
	}
	c.build = j.rows
	if j.Type.tracksBuild() {
		c.matchedB = make([]bool, j.rows.N)
	}
	return nil
}

// indexBytesPerRow is about what a build row costs in the index: a hash
// table of 12- or 16-byte slots at most half full, or the direct table.
const indexBytesPerRow = 48

// buildOpts say what a build does when its rows outgrow its reservation.
type buildOpts struct {
	level int  // partitioning level (package joinspill)
	spill bool // partition the rows to disk
	one   bool // (spill) into a single partition: NOT IN
	par   int  // goroutines that may index the rows (0, 1: the caller alone)
	// chunk, when set, is the source being built from by a chunk join: the
	// build stops where the reservation does (after one batch at least)
	// and the batch that did not fit is put back
	chunk *joinspill.ChunkSource
}

// newSpill starts the spill of a build side of types ts.
func (o buildOpts) newSpill(ctx context.Context, ts []types.T) *joinspill.Spill {
	return &joinspill.Spill{Level: o.level, One: o.one, Right: joinspill.NewParts(ts, "join", QueryStatsOf(ctx).Spill())}
}

// buildJoin drains right, computes its keys (cast to the probe keys'
// types kts where they differ) and indexes the rows. When opts.spill is set
// and the rows outgrow the reservation, the rows go to partition files
// instead and the spilled join is returned.
func buildJoin(ctx context.Context, env *Env, right Operator, rightKeys []Expr, kts []types.T, mem *memory.Memory, opts buildOpts) (*joinBuild, *joinspill.Spill, error) {
	if len(rightKeys) != len(kts) {
		return nil, nil, pgerr.New(pgerr.Internal, "hash join needs pairs of keys")
	}
	jb := &joinBuild{rows: memory.NewColBuf(right.Types(), vec.BatchSize)}
	jb.res.Mem = mem
	jb.res.Spill = opts.spill || opts.chunk != nil
	jb.res.Cap = memory.WorkMemOf(ctx)
	if opts.level > 0 || opts.chunk != nil {
		// a partition's join or a chunk: see joinspill.Spill
		jb.res.Floor = mem.SpillFloor()
	}
	ok := false
	defer func() {
		if !ok {
			jb.res.Release()
		}
	}()
	cast := make([]bool, len(rightKeys))
	for i, k := range rightKeys {
		cast[i] = !sameKeyType(kts[i], k.Type())
	}
	// a key that is a plain column of the build side is read from the
	// buffered column itself; other keys are computed and buffered
	var computed []int
	var kcomp []types.T
	comp := make([]int, len(rightKeys))
	for i, k := range rightKeys {
		comp[i] = -1
		if _, isCol := k.(*ColRef); !isCol || cast[i] {
			comp[i] = len(computed)
			computed = append(computed, i)
			kcomp = append(kcomp, kts[i])
		}
	}
	keys := memory.NewColBuf(kcomp, vec.BatchSize)
	kb := &vec.Batch{Vecs: make([]*vec.Vector, len(computed))}
	var js *joinspill.Spill
	var kv []*vec.Vector
	// toDisk moves the buffered rows to partition files and gives their
	// memory back; the rest of the build side follows them
	toDisk := func() error {
		js = opts.newSpill(ctx, right.Types())
		keys.N = jb.rows.N
		kv = keyVecs(kv, rightKeys, comp, &jb.rows.Batch, &keys.Batch)
		if err := js.Right.Add(&jb.rows.Batch, kv, js.Level, js.One); err != nil {
			return err
		}
		jb.rows, keys = nil, nil
		jb.res.Release()
		return nil
	}
	var err error
	if p, ok := right.(*Parallel); ok && opts.par > 1 && opts.chunk == nil && p.NumWorkers() > 1 {
		// the workers buffer their own rows, and the buffers are joined
		// once: one goroutine appending every row, doubling its buffers,
		// kept the workers waiting for it
		var rows, ks *memory.ColBuf
		rows, ks, js, err = drainParallel(ctx, env, p, jb, rightKeys, kts, cast, computed, kcomp, comp, opts)
		if err == nil && js == nil {
			jb.rows, keys = rows, ks
		}
	} else {
		err = Drain(ctx, right, func(b *vec.Batch) error {
			if err := memory.ErrCanceled(ctx); err != nil {
				return err
			}
			kb.N = b.N
			for ki, i := range computed {
				v, err := rightKeys[i].Eval(env, b)
				if err != nil {
					return err
				}
				if cast[i] {
					if v, err = CastVector(env, v, b.N, kts[i], false); err != nil {
						return err
					}
				}
				kb.Vecs[ki] = v
			}
			if js != nil {
				kv = keyVecs(kv, rightKeys, comp, b, kb)
				return js.Right.Add(b, kv, js.Level, js.One)
			}
			// capacity, not length: appending may double a column's slice;
			// and the index to come, so that a build that would not fit it
			// spills while it still can
			cost := memory.AppendCost(jb.rows, b, b.N) + memory.AppendCost(keys, kb, b.N) + (8+indexBytesPerRow)*int64(b.N)
			if err := jb.res.Grow(cost); err != nil {
				if pgerr.Code(err) != memory.OutOfMemory {
					return err
				}
				switch {
				case opts.chunk != nil && jb.rows.N > 0:
					opts.chunk.Hold(b)
					return ErrChunkFull
				case opts.chunk != nil:
					// one batch at least, or the chunk join never ends
					jb.res.Spill = false
					err = jb.res.Grow(cost)
					jb.res.Spill = true
					if err != nil {
						return err
					}
				case opts.spill:
					if err := toDisk(); err != nil {
						return err
					}
					kv = keyVecs(kv, rightKeys, comp, b, kb)
					return js.Right.Add(b, kv, js.Level, js.One)
				default:
					return err
				}
			}
			jb.rows.AppendBatch(b, 0, b.N)
			keys.AppendBatch(kb, 0, b.N)
			return nil
		})
	}
	if err == ErrChunkFull {
		err = nil
	}
	if err != nil {
		if js != nil {
			js.Close()
		}
		return nil, nil, err
	}
	if js != nil {
		if err := js.Right.Finish(); err != nil {
			js.Close()
			return nil, nil, err
		}
		return nil, js, nil
	}
	n := jb.rows.N
	jb.bkeys = make([]*vec.Vector, len(rightKeys))
	for ki, i := range computed {
		jb.bkeys[i] = keys.Vecs[ki]
	}
	for i, k := range rightKeys {
		if jb.bkeys[i] == nil {
			jb.bkeys[i] = jb.rows.Vecs[k.(*ColRef).Idx]
		}
	}
	jb.next = make([]int32, n)
	// the index's estimate is already reserved: index grows into it
	jb.res.Used = max(0, jb.res.Used-indexBytesPerRow*int64(n))
	if opts.chunk != nil {
		// the chunk is read: its index may take the last of the budget
		jb.res.Spill = false
	}
	if err := jb.index(n, opts.par); err != nil {
		if pgerr.Code(err) != memory.OutOfMemory || !opts.spill {
			return nil, nil, err
		}
		// the rows fit but their index does not
		jb.next, jb.itab, jb.htab, jb.direct, jb.filter, jb.nullKey = nil, nil, nil, nil, nil, nil
		if err := toDisk(); err != nil {
			js.Close()
			return nil, nil, err
		}
		if err := js.Right.Finish(); err != nil {
			js.Close()
			return nil, nil, err
		}
		return nil, js, nil
	}
	ok = true
	return jb, nil, nil
}

// drainPart is one worker's share of a build side drained in parallel.
type drainPart struct {
	rows, keys *memory.ColBuf
	kb         *vec.Batch
	kv         []*vec.Vector
	exprs      []Expr // the computed keys, the worker's copies
}

// drainParallel drains the build side p on its workers, each buffering
// the rows it reads with their keys, and joins the buffers into one. When
// the rows outgrow the reservation (opts.spill), they go to partition
// files: the worker that meets the limit starts the spill, and each
// worker moves its rows there at its next batch, the rest after; the
// spill is returned (not finished) instead of the rows.
func drainParallel(ctx context.Context, env *Env, p *Parallel, jb *joinBuild, rightKeys []Expr, kts []types.T, cast []bool, computed []int, kcomp []types.T, comp []int, opts buildOpts) (rows, keys *memory.ColBuf, js *joinspill.Spill, err error) {
	ts := p.Types()
	ds := make([]*drainPart, p.NumWorkers())
	for w := range ds {
		d := &drainPart{rows: memory.NewColBuf(ts, vec.BatchSize), keys: memory.NewColBuf(kcomp, vec.BatchSize), kb: &vec.Batch{Vecs: make([]*vec.Vector, len(computed))}}
		for _, i := range computed {
			// expressions keep per-evaluation state: a copy per worker
			d.exprs = append(d.exprs, MapColumns(rightKeys[i], func(c int) int { return c }))
		}
		ds[w] = d
	}
	var mu sync.Mutex // guards jb.res and js
	// toDisk moves d's rows to the partition files (mu held)
	toDisk := func(d *drainPart) error {
		if d.rows == nil {
			return nil
		}
		d.keys.N = d.rows.N
		d.kv = keyVecs(d.kv, rightKeys, comp, &d.rows.Batch, &d.keys.Batch)
		err := js.Right.Add(&d.rows.Batch, d.kv, js.Level, js.One)
		d.rows, d.keys = nil, nil
		return err
	}
	err = p.Run(ctx, func(ctx context.Context, w int, op Operator) error {
		d := ds[w]
		return Drain(ctx, op, func(b *vec.Batch) error {
			if err := memory.ErrCanceled(ctx); err != nil {
				return err
			}
			d.kb.N = b.N
			for ki, i := range computed {
				v, err := d.exprs[ki].Eval(env, b)
				if err != nil {
					return err
				}
				if cast[i] {
					if v, err = CastVector(env, v, b.N, kts[i], false); err != nil {
						return err
					}
				}
				d.kb.Vecs[ki] = v
			}
			mu.Lock()
			defer mu.Unlock()
			if js == nil {
				// as buildJoin charges a batch: capacity, and the index
				cost := memory.AppendCost(d.rows, b, b.N) + memory.AppendCost(d.keys, d.kb, b.N) + (8+indexBytesPerRow)*int64(b.N)
				err := jb.res.Grow(cost)
				if err == nil {
					mu.Unlock()
					d.rows.AppendBatch(b, 0, b.N)
					d.keys.AppendBatch(d.kb, 0, b.N)
					mu.Lock()
					return nil
				}
				if pgerr.Code(err) != memory.OutOfMemory || !opts.spill {
					return err
				}
				js = opts.newSpill(ctx, ts)
			}
			if err := toDisk(d); err != nil {
				return err
			}
			d.kv = keyVecs(d.kv, rightKeys, comp, b, d.kb)
			return js.Right.Add(b, d.kv, js.Level, js.One)
		})
	})
	if err == nil && js != nil {
		for _, d := range ds {
			if err = toDisk(d); err != nil {
				break
			}
		}
	}
	if err != nil || js != nil {
		// the reservation covered the workers' buffers, now on disk or
		// dropped
		jb.res.Release()
		return nil, nil, js, err
	}
	rows, keys = memory.NewColBuf(ts, 0), memory.NewColBuf(kcomp, 0)
	concatParts(rows, keys, ds, opts.par)
	return rows, keys, nil, nil
}

// concatParts joins the workers' buffers into rows and keys, par
// goroutines each making and filling whole columns (making one zeroes it:
// that too on all cores). The joined buffers, exactly as long as the rows,
// take no more than the reservation already holds for the workers'
// buffers (by capacity), which they replace.
func concatParts(rows, keys *memory.ColBuf, ds []*drainPart, par int) {
	n := 0
	for _, d := range ds {
		n += d.rows.N
	}
	type column struct {
		dst  *vec.Vector
		srcs []*vec.Vector
	}
	var cols []column
	for _, dst := range []*memory.ColBuf{rows, keys} {
		for c, v := range dst.Vecs {
			col := column{dst: v}
			for _, d := range ds {
				src := d.rows
				if dst == keys {
					src = d.keys
				}
				col.srcs = append(col.srcs, src.Vecs[c])
			}
			cols = append(cols, col)
		}
		dst.N = n
	}
	parts(min(par, max(len(cols), 1)), func(p int) {
		for i := p; i < len(cols); i += par {
			c := cols[i]
			nulls := false
			for _, src := range c.srcs {
				nulls = nulls || src.Nulls != nil
			}
			sizeVec(c.dst, n, nulls)
			at := 0
			for _, src := range c.srcs {
				m := src.Len()
				copyRows(c.dst, src, at, m)
				at += m
			}
		}
	})
}

// sizeVec makes v n rows long (with a NULL mask when nulls), for copyRows.
func sizeVec(v *vec.Vector, n int, nulls bool) {
	switch v.Type.Storage() {
	case types.StoreInt:
		v.I64 = make([]int64, n)
	case types.StoreFloat:
		v.F64 = make([]float64, n)
	case types.StoreBool:
		v.B = make([]bool, n)
	case types.StoreInterval:
		v.Iv = make([]types.IntervalValue, n)
	default:
		v.S = make([]string, n)
	}
	v.Nulls = nil
	if nulls {
		v.Nulls = make([]bool, n)
	}
}

// copyRows copies rows [0, n) of src to dst's rows [at, at+n).
func copyRows(dst, src *vec.Vector, at, n int) {
	switch dst.Type.Storage() {
	case types.StoreInt:
		copy(dst.I64[at:at+n], src.I64[:n])
	case types.StoreFloat:
		copy(dst.F64[at:at+n], src.F64[:n])
	case types.StoreBool:
		copy(dst.B[at:at+n], src.B[:n])
	case types.StoreInterval:
		copy(dst.Iv[at:at+n], src.Iv[:n])
	default:
		copy(dst.S[at:at+n], src.S[:n])
	}
	if dst.Nulls != nil && src.Nulls != nil {
		copy(dst.Nulls[at:at+n], src.Nulls[:n])
	}
}

// index builds the table over the buffered rows, on par goroutines when
// the rows are many (a shared build, which the other workers wait for).
func (j *joinBuild) index(n, par int) error {
	if n < parIndexRows || par < 1 {
		par = 1
	}
	par = 1 << (bits.Len(uint(par)) - 1) // a power of two, for pushParts
	if j.fastKey() {
		k := j.bkeys[0]
		if j.buildDirect(k, n, par) {
			return j.res.Grow(4 * int64(len(j.direct)))
		}
		j.itab = hashtab.NewI64Table(n)
		if par > 1 {
			j.pushParts(k, n, par)
		} else {
			for r := n - 1; r >= 0; r-- {
				if k.IsNull(r) {
					j.nullKey = append(j.nullKey, int32(r))
					continue
				}
				j.next[r] = j.itab.Push(k.I64[r], int32(r))
			}
		}
		if len(j.itab.Slots) >= minFilteredSlots {
			j.filter = newKeyFilter(j.itab.N)
			addAll(j.filter, k.I64[:n], k.Nulls)
			return j.res.Grow(j.itab.Bytes() + j.filter.bytes())
		}
		return j.res.Grow(j.itab.Bytes())
	}
	hs := make([]uint64, n)
	parts(par, func(p int) {
		lo, hi := p*n/par, (p+1)*n/par
		for i, k := range j.bkeys {
			memory.HashColumn(hs[lo:hi], k.Slice(lo, hi), hi-lo, i == 0)
		}
	})
	j.htab = hashtab.NewHashTable(n)
	t := j.htab
	// nulls marks the rows with a NULL key (nil: none)
	var nulls []bool
	for _, k := range j.bkeys {
		if k.Nulls == nil {
			continue
		}
		if nulls == nil {
			nulls = make([]bool, n)
		}
		for r, null := range k.Nulls[:n] {
			nulls[r] = nulls[r] || null
		}
	}
	if nulls != nil {
		for r, null := range nulls {
			if null {
				j.nullKey = append(j.nullKey, int32(r))
			}
		}
	}
	if par > 1 && len(t.Slots) >= 2*par {
		// each goroutine takes the keys whose first slot is in its
		// range; a probe that would run past the range's end is left to
		// the serial pass after
		shift := uint(bits.TrailingZeros(uint(len(t.Slots) / par)))
		mask := uint64(len(t.Slots) - 1)
		added := make([]int, par)
		over := make([][]int32, par)
		parts(par, func(p int) {
			hi := uint64(p+1) << shift
			a := 0
			// this part's rows are picked a block at a time with no
			// branch, as in hashtab.PushPart
			var blk [256]int32
			for end := n; end > 0; end -= len(blk) {
				m := 0
				for r := end - 1; r >= max(end-len(blk), 0); r-- {
					blk[m] = int32(r)
					in := int((hs[r]&mask)>>shift) == p
					if nulls != nil {
						in = in && !nulls[r]
					}
					m += b2i(in)
				}
			rows:
				for _, r := range blk[:m] {
					h := hs[r]
					tag := hashtab.SlotTag(h)
					for s := h & mask; s < hi; s++ {
						sl := t.Slots[s]
						if sl == 0 {
							t.Slots[s] = tag | uint64(r+1)
							a++
							j.next[r] = -1
							continue rows
						}
						if hashtab.SlotTag(sl) == tag && j.buildEqual(int(hashtab.SlotVal(sl)-1), int(r)) {
							j.next[r] = hashtab.SlotVal(sl) - 1
							t.Slots[s] = tag | uint64(r+1)
							continue rows
						}
					}
					over[p] = append(over[p], r)
				}
			}
			added[p] = a
		})
		for _, a := range added {
			t.N += a
		}
		for _, rs := range over {
			for _, r := range rs {
				j.hashPush(hs[r], int(r))
			}
		}
	} else {
		for r := n - 1; r >= 0; r-- {
			if nulls == nil || !nulls[r] {
				j.hashPush(hs[r], r)
			}
		}
	}
	if len(t.Slots) >= minFilteredHashSlots {
		j.filter = newKeyFilter(t.N)
		addAll(j.filter, hs, nil)
		return j.res.Grow(t.Bytes() + 8*int64(n) + j.filter.bytes())
	}
	return j.res.Grow(t.Bytes() + 8*int64(n))
}

// hashPush threads build row r, of hash h, into htab: it heads its key's
// chain.
func (j *joinBuild) hashPush(h uint64, r int) {
	t := j.htab
	mask := uint64(len(t.Slots) - 1)
	tag := hashtab.SlotTag(h)
	s := h & mask
	for {
		sl := t.Slots[s]
		if sl == 0 {
			t.Slots[s] = tag | uint64(r+1)
			t.N++
			j.next[r] = -1
			return
		}
		if hashtab.SlotTag(sl) == tag && j.buildEqual(int(hashtab.SlotVal(sl)-1), r) {
			j.next[r] = hashtab.SlotVal(sl) - 1
			t.Slots[s] = tag | uint64(r+1)
			return
		}
		s = (s + 1) & mask
	}
}

// sameKeyType reports whether two key types compare by their stored values.
func sameKeyType(a, b types.T) bool {
	if a.Storage() != b.Storage() {
		return false
	}
	if a.ID == types.Numeric || b.ID == types.Numeric {
		return a.ID == b.ID && a.Scale == b.Scale
	}
	return true
}

// directMinSpan is the key span up to which a build side of any size is
// indexed directly (512 KiB of table at most). A small build side with
// scattered keys — TPC-DS's item filtered to one manager, a few hundred
// keys over 18,000 — made a hash table whose probes mispredicted every
// other branch: a fifth of q52's CPU was the lookup.
const directMinSpan = 1 << 17

// buildDirect indexes a dense integer key by its offset from the smallest
// key — a perfect hash, with no probing and, for keys that arrive sorted
// (TPC-H's, DuckDB-written files'), sequential memory access on both
// sides. It applies when the key range is at most eight times the row
// count: its 4 bytes a key then take no more than the hash table's 16-byte
// slots at most half full (32 bytes a row or more), and TPC-H Q3's and
// Q10's customers of one segment or nation, a fifth of the 150,000 keys,
// are looked up with no probing.
func (j *joinBuild) buildDirect(k *vec.Vector, n, par int) bool {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for r, x := range k.I64[:n] {
		if k.Nulls != nil && k.Nulls[r] {
			continue
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	if lo > hi {
		return false
	}
	span := uint64(hi - lo)
	if hi-lo < 0 || span >= uint64(max(8*n, directMinSpan)) || span >= 1<<28 {
		return false
	}
	d := make([]int32, span+1)
	if par > 1 {
		j.collectNulls(k, n)
		// each goroutine takes a range of keys: their slots of d, and
		// the rows of those keys in next
		part := (span + uint64(par)) / uint64(par)
		parts(par, func(p int) {
			plo := uint64(p) * part
			var blk [256]int32
			for end := n; end > 0; end -= len(blk) {
				m := 0
				for r := end - 1; r >= max(end-len(blk), 0); r-- {
					blk[m] = int32(r)
					in := uint64(k.I64[r]-lo)-plo < part
					if k.Nulls != nil {
						in = in && !k.Nulls[r]
					}
					m += b2i(in)
				}
				for _, r := range blk[:m] {
					o := k.I64[r] - lo
					j.next[r] = d[o] - 1
					d[o] = r + 1
				}
			}
		})
		j.direct, j.dmin = d, lo
		return true
	}
	for r := n - 1; r >= 0; r-- {
		if k.Nulls != nil && k.Nulls[r] {
			j.nullKey = append(j.nullKey, int32(r))
			continue
		}
		o := k.I64[r] - lo
		j.next[r] = d[o] - 1
		d[o] = int32(r) + 1
	}
	j.direct, j.dmin = d, lo
	return true
}

// parIndexRows is the build size from which a shared build is indexed by
// several goroutines: below it, starting them costs about what they save.
const parIndexRows = 1 << 14

// parts runs fn(0), …, fn(par-1) at once, fn(0) on the caller, and waits.
// A panic in any becomes the caller's, as if fn had run there.
func parts(par int, fn func(p int)) {
	var wg sync.WaitGroup
	var pv atomic.Pointer[any]
	for p := 1; p < par; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					pv.CompareAndSwap(nil, &r)
				}
			}()
			fn(p)
		}()
	}
	fn(0)
	wg.Wait()
	if r := pv.Load(); r != nil {
		panic(*r)
	}
}

// collectNulls lists the rows of k with a NULL, last first, as the
// serial index does.
func (j *joinBuild) collectNulls(k *vec.Vector, n int) {
	if k.Nulls == nil {
		return
	}
	for r := n - 1; r >= 0; r-- {
		if k.Nulls[r] {
			j.nullKey = append(j.nullKey, int32(r))
		}
	}
}

// pushParts fills itab on par goroutines, each the keys of one range of
// its slots (par a power of two). They write next where their rows fall,
// rows of both sharing cache lines; threading the chains by row range
// after instead cost more (BenchmarkIndex: 9.7 ms of CPU for 230 k keys
// against 8.7).
func (j *joinBuild) pushParts(k *vec.Vector, n, par int) {
	j.collectNulls(k, n)
	keys := k.I64[:n]
	added := make([]int, par)
	over := make([][]int32, par)
	parts(par, func(p int) {
		added[p], over[p] = j.itab.PushPart(keys, k.Nulls, j.next, p, par, nil)
	})
	sum := 0
	for _, a := range added {
		sum += a
	}
	j.itab.FinishParts(keys, j.next, sum, over)
}

func (j *joinBuild) fastKey() bool {
	return len(j.bkeys) == 1 && j.bkeys[0].Type.Storage() == types.StoreInt
}

func (j *joinBuild) buildEqual(a, b int) bool {
	for _, k := range j.bkeys {
		if !memory.RowsEqual(k, a, k, b) {
			return false
		}
	}
	return true
}

// heads finds, for each probe row, the first build row with an equal key
// (-1: none or a NULL key).
func (j *HashJoin) heads(pb *vec.Batch) error {
	c := &j.core
	n := pb.N
	j.pkeys = j.pkeys[:0]
	for _, k := range j.LeftKeys {
		v, err := k.Eval(j.Env, pb)
		if err != nil {
			return err
		}
		j.pkeys = append(j.pkeys, v)
	}
	c.heads = Resize32(c.heads, n)
	c.pnull = c.pnull[:0]
	c.hasPNull = false
	j.hs = j.lookup(j.pkeys, n, c.heads, j.hs, func(i int) { c.markPNull(i, n) })
	return nil
}

// lookup finds, for each of n probe rows with keys pkeys (of the probe key
// types), the first build row with an equal key, -1 for none; onNull is
// called for rows with a NULL key. hs is scratch space, returned for
// reuse. It only reads the build side, so concurrent lookups are safe.
// markNullKeys gives probe rows with a NULL key no match and reports
// them.
func markNullKeys(k *vec.Vector, n int, heads []int32, onNull func(int)) {
	if k.Nulls == nil {
		return
	}
	for i, null := range k.Nulls[:n] {
		if null {
			heads[i] = -1
			onNull(i)
		}
	}
}

func (j *joinBuild) lookup(pkeys []*vec.Vector, n int, heads []int32, hs []uint64, onNull func(int)) []uint64 {
	if j.direct != nil {
		k := pkeys[0]
		d, lo := j.direct, j.dmin
		for i, x := range k.I64[:n] {
			h := int32(-1)
			if o := uint64(x - lo); o < uint64(len(d)) {
				h = d[o] - 1
			}
			heads[i] = h
		}
		markNullKeys(k, n, heads, onNull)
		return hs
	}
	if j.fastKey() {
		k := pkeys[0]
		keys := k.I64[:n]
		if f := j.filter; f != nil {
			// the filter picks the rows that may match (hs holds their
			// positions); only those probe the table
			if cap(hs) < n {
				hs = make([]uint64, n)
			}
			cand := hs[:n]
			c := 0
			for i, x := range keys {
				heads[i] = -1
				cand[c] = uint64(i)
				c += b2i(f.mayHave(x))
			}
			// a key equal to the previous candidate's reuses its head: a
			// probe side in key order (lineitem by l_orderkey) repeats
			// each key a few rows running, and each lookup is a cache miss
			prev, ph := int64(0), int32(-1)
			for t, i := range cand[:c] {
				if x := keys[i]; t == 0 || x != prev {
					prev, ph = x, j.itab.Lookup(x)
				}
				heads[i] = ph
			}
			markNullKeys(k, n, heads, onNull)
			return hs
		}
		if k.Nulls == nil {
			for i, x := range keys {
				heads[i] = j.itab.Lookup(x)
			}
			return hs
		}
		for i, x := range keys {
			if k.Nulls[i] {
				heads[i] = -1
				onNull(i)
				continue
			}
			heads[i] = j.itab.Lookup(x)
		}
		return hs
	}
	// hs holds the rows' hashes, then the positions of the rows to probe:
	// those without a NULL key that the filter, if any, lets through
	if cap(hs) < 2*n {
		hs = make([]uint64, 2*n)
	}
	hashes, cand := hs[:n], hs[n:n]
	for i, k := range pkeys {
		memory.HashColumn(hashes, k, n, i == 0)
	}
	// heads is -2 for a row with a NULL key until it is reported
	heads = heads[:n]
	for i := range heads {
		heads[i] = -1
	}
	for _, k := range pkeys {
		if k.Nulls != nil {
			for i, null := range k.Nulls[:n] {
				if null {
					heads[i] = -2
				}
			}
		}
	}
	for i, h := range hashes {
		if heads[i] == -2 {
			heads[i] = -1
			onNull(i)
			continue
		}
		if j.filter == nil || j.filter.mayHave(int64(h)) {
			cand = append(cand, uint64(i))
		}
	}
	t := j.htab
	mask := uint64(len(t.Slots) - 1)
	for _, i := range cand {
		h := hashes[i]
		s := h & mask
		tag := hashtab.SlotTag(h)
		for {
			sl := t.Slots[s]
			if sl == 0 {
				break
			}
			if hashtab.SlotTag(sl) == tag && j.keysEqual(pkeys, int(i), int(hashtab.SlotVal(sl)-1)) {
				heads[i] = hashtab.SlotVal(sl) - 1
				break
			}
			s = (s + 1) & mask
		}
	}
	return hs
}

// keysEqual compares probe row i's keys with build row r's.
func (j *joinBuild) keysEqual(pkeys []*vec.Vector, i, r int) bool {
	for c, k := range pkeys {
		if !memory.RowsEqual(k, i, j.bkeys[c], r) {
			return false
		}
	}
	return true
}

func (j *HashJoin) probeEqual(i, r int) bool { return j.keysEqual(j.pkeys, i, r) }

// maybeEqual reports whether probe row i and build row r are not provably
// different: every column pair is equal or has a NULL (NOT IN semantics).
func (j *HashJoin) maybeEqual(i, r int) bool {
	for c, k := range j.pkeys {
		b := j.bkeys[c]
		if k.IsNull(i) || b.IsNull(r) {
			continue
		}
		if !memory.RowsEqual(k, i, b, r) {
			return false
		}
	}
	return true
}

// start builds the join's hash table once, after those of the probe
// side when BuildLeftFirst.
func (j *HashJoin) start(ctx context.Context) error {
	if j.started {
		return nil
	}
	j.started = true
	if j.BuildLeftFirst {
		if err := buildBelow(ctx, j.Left); err != nil {
			return err
		}
	}
	if err := j.build(ctx); err != nil {
		return err
	}
	j.core.cand = j
	return nil
}

// buildBelow builds the hash joins of op's probe spine, deepest first.
func buildBelow(ctx context.Context, op Operator) error {
	switch o := op.(type) {
	case *Filter:
		return buildBelow(ctx, o.Input)
	case *Project:
		return buildBelow(ctx, o.Input)
	case *Timed:
		return buildBelow(ctx, o.Input)
	case *HashJoin:
		if err := buildBelow(ctx, o.Left); err != nil {
			return err
		}
		return o.start(ctx)
	}
	return nil
}

func (j *HashJoin) Next(ctx context.Context) (*vec.Batch, error) {
	c := &j.core
	if err := j.start(ctx); err != nil {
		return nil, err
	}
	if j.spill != nil {
		return j.nextSpilled(ctx)
	}
	out, err := c.next(ctx, j.Left, func(pb *vec.Batch) error {
		if err := j.heads(pb); err != nil {
			return err
		}
		c.anaReject = false
		if j.Type == JoinAntiNullAware && j.Extra == nil && len(j.bkeys) == 1 && len(j.nullKey) > 0 {
			// x NOT IN (…, NULL, …) is never true
			c.anaReject = true
		}
		return nil
	})
	if out == nil && err == nil && j.Shared == nil && j.joinBuild != nil {
		j.joinBuild.release() // done: give the build side's memory back early
	}
	return out, err
}

// candidates implements joinCandidates: the build rows a probe row may
// match are its key's chain, plus for NOT IN the rows only NULLs keep from
// being provably different.
func (j *HashJoin) candidates(c *joinCore) {
	n := c.pb.N
	if j.Type != JoinAntiNullAware {
		// only key chains (stages 0 and 1 below), in a tight loop: most
		// probe rows of a selective join have none
		for c.gi < n {
			if c.gstage == 0 {
				h := c.heads[c.gi]
				if h < 0 {
					c.gi++
					continue
				}
				c.gcur, c.gstage = h, 1
			}
			for c.gcur >= 0 {
				c.pl = append(c.pl, int32(c.gi))
				c.pr = append(c.pr, c.gcur)
				c.gcur = j.next[c.gcur]
				if len(c.pl) >= vec.BatchSize && c.gcur >= 0 {
					return
				}
			}
			c.gi++
			c.gstage = 0
			if len(c.pl) >= vec.BatchSize {
				return
			}
		}
		return
	}
	for c.gi < n {
		i := c.gi
		switch c.gstage {
		case 0: // start of a row
			c.gcur = c.heads[i]
			c.gstage = 1
			if j.Type == JoinAntiNullAware && c.hasPNull && c.pnull[i] {
				// a NULL probe key: every build row is a candidate
				c.gcur = -1
				c.gstage = 3
				c.gk = 0
			}
		case 1: // key chain
			if c.gcur < 0 {
				if j.Type == JoinAntiNullAware {
					c.gstage = 2
					c.gk = 0
				} else {
					c.gstage = 4
				}
				continue
			}
			c.pl = append(c.pl, int32(i))
			c.pr = append(c.pr, c.gcur)
			c.gcur = j.next[c.gcur]
		case 2: // NOT IN: build rows with NULL keys
			if c.gk >= len(j.nullKey) {
				c.gstage = 4
				continue
			}
			r := j.nullKey[c.gk]
			c.gk++
			if j.maybeEqual(i, int(r)) {
				c.pl = append(c.pl, int32(i))
				c.pr = append(c.pr, r)
			}
		case 3: // NOT IN with a NULL probe key: all build rows
			if c.gk >= c.build.N {
				c.gstage = 4
				continue
			}
			r := c.gk
			c.gk++
			if j.maybeEqual(i, r) {
				c.pl = append(c.pl, int32(i))
				c.pr = append(c.pr, int32(r))
			}
		case 4: // next row
			c.gi++
			c.gstage = 0
		}
		if len(c.pl) >= vec.BatchSize {
			return
		}
	}
}

// simple implements joinCandidates for joins that need no pairs: Semi,
// Anti and NOT IN without Extra decide from the key lookup alone.
func (j *HashJoin) simple(c *joinCore) bool {
	if j.Extra != nil {
		return false
	}
	switch j.Type {
	case JoinSemi, JoinAnti:
		for i, h := range c.heads[:c.pb.N] {
			c.matchedP[i] = h >= 0
		}
		return true
	case JoinRightSemi, JoinRightAnti:
		// mark each matched key's whole chain; a marked head means its
		// chain is already marked
		for _, h := range c.heads[:c.pb.N] {
			if h < 0 || c.matchedB[h] {
				continue
			}
			for r := h; r >= 0; r = j.next[r] {
				c.matchedB[r] = true
			}
		}
		return true
	case JoinAntiNullAware:
		if c.build.N == 0 {
			return true // nothing to compare with: every row qualifies
		}
		if c.anaReject {
			for i := range c.matchedP {
				c.matchedP[i] = true
			}
			return true
		}
		if len(j.bkeys) == 1 {
			for i, h := range c.heads[:c.pb.N] {
				c.matchedP[i] = h >= 0
			}
			if c.hasPNull {
				for i, null := range c.pnull {
					c.matchedP[i] = c.matchedP[i] || null
				}
			}
			return true
		}
	}
	return false
}

func Resize32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n, max(n, vec.BatchSize))
	}
	return s[:n]
}

// joinCandidates enumerates the build rows each probe row is compared with.
type joinCandidates interface {
	// candidates appends (probe, build) pairs to c.pl/c.pr, resuming from
	// the generator state, until vec.BatchSize pairs are pending or the
	// probe batch is exhausted (then it appends none).
	candidates(c *joinCore)
	// simple decides matchedP for the whole probe batch without pairs, if
	// the join allows it.
	simple(c *joinCore) bool
}

// joinCore is the probe-side machinery HashJoin and NestedLoopJoin share:
// it turns candidate pairs into output, evaluating the residual predicate a
// batch of pairs at a time over gathered columns, and tracks which rows
// matched for outer, semi and anti joins.
type joinCore struct {
	env    *Env
	typ    JoinType
	extra  Expr
	ltypes []types.T
	nl, nr int
	build  *memory.ColBuf // the right side's rows
	cand   joinCandidates

	matchedB []bool // build rows that matched (Right, Full, RightSemi, RightAnti)
	// probeDone, when set, runs once the probe side is exhausted, before
	// the build rows are emitted (a shared right semi/anti join merges its
	// matches there).
	probeDone func()
	matchedP  []bool // probe rows of the current batch that matched
	heads     []int32
	pnull     []bool // probe rows with a NULL key (valid when hasPNull)
	hasPNull  bool
	pb        *vec.Batch
	out       *memory.ColBuf
	pass      vec.Batch      // the probe columns passed through beside out's build columns
	pair      *memory.ColBuf // left ++ right columns of pending pairs, for Extra
	pl, pr    []int32        // pending pairs
	sel       []int32
	idx       []int32
	// generator state within the probe batch
	gi, gstage, gk int
	gcur           int32
	// phase: 0 = need a probe batch, 1 = pairs, 2 = unmatched probe rows,
	// 3 = unmatched build rows, 4 = done
	phase     int
	pos       int
	simpleOK  bool
	anaReject bool
	// nlAnyNull: NestedLoopJoin's NOT IN treats a NULL condition as a match
	nlNullMatches bool
	// onProbe, when set, is given which rows of each probe batch matched
	// instead of the probe rows being emitted (a chunk join emits them
	// once all chunks are done)
	onProbe func(matched []bool)
}

func (c *joinCore) init(env *Env, typ JoinType, extra Expr, lt, rt []types.T) {
	c.env, c.typ, c.extra = env, typ, extra
	c.ltypes = lt
	c.nl, c.nr = len(lt), len(rt)
	c.build = memory.NewColBuf(rt, vec.BatchSize)
	all := append(append([]types.T{}, lt...), rt...)
	switch {
	case typ.leftOnly():
		c.out = memory.NewColBuf(lt, vec.BatchSize)
	case typ.rightOnly():
		c.out = memory.NewColBuf(rt, vec.BatchSize)
	default:
		c.out = memory.NewColBuf(all, vec.BatchSize)
	}
	if extra != nil {
		c.pair = memory.NewColBuf(all, vec.BatchSize)
	}
}

func (c *joinCore) markPNull(i, n int) {
	if !c.hasPNull {
		c.hasPNull = true
		if cap(c.pnull) < n {
			c.pnull = make([]bool, n)
		}
		c.pnull = c.pnull[:n]
		clear(c.pnull)
	}
	c.pnull[i] = true
}

// next produces the next output batch; prepare runs once per probe batch.
func (c *joinCore) next(ctx context.Context, left Operator, prepare func(*vec.Batch) error) (*vec.Batch, error) {
	for {
		switch c.phase {
		case 0:
			if err := memory.ErrCanceled(ctx); err != nil {
				return nil, err
			}
			b, err := left.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				c.phase, c.pos = 3, 0
				if c.probeDone != nil {
					c.probeDone()
				}
				continue
			}
			if b.N == 0 {
				continue
			}
			c.pb = b
			if err := prepare(b); err != nil {
				return nil, err
			}
			if cap(c.matchedP) < b.N {
				c.matchedP = make([]bool, b.N, max(b.N, vec.BatchSize))
			}
			c.matchedP = c.matchedP[:b.N]
			clear(c.matchedP)
			c.gi, c.gstage, c.gk, c.gcur = 0, 0, 0, -1
			c.pos = 0
			c.simpleOK = c.cand.simple(c)
			if c.simpleOK {
				c.phase = 2
			} else {
				c.phase = 1
			}
		case 1:
			// a probe batch may pair with millions of build rows that the
			// condition mostly rejects: check for cancellation per batch of
			// candidates, not per probe batch
			if err := memory.ErrCanceled(ctx); err != nil {
				return nil, err
			}
			c.pl, c.pr = c.pl[:0], c.pr[:0]
			c.cand.candidates(c)
			if len(c.pl) == 0 {
				c.phase = 2
				continue
			}
			out, err := c.flush()
			if err != nil {
				return nil, err
			}
			if out != nil {
				return out, nil
			}
		case 2:
			if out := c.unmatchedProbe(); out != nil {
				return out, nil
			}
			c.phase = 0
		case 3:
			if out := c.unmatchedBuild(); out != nil {
				return out, nil
			}
			c.phase = 4
		default:
			return nil, nil
		}
	}
}

// flush decides the pending pairs and returns the output they produce (nil
// when they produce none).
func (c *joinCore) flush() (*vec.Batch, error) {
	pl, pr := c.pl, c.pr
	if c.extra != nil {
		p := c.pair
		p.Clear()
		for k := 0; k < c.nl; k++ {
			p.Gather(k, c.pb.Vecs[k], pl)
		}
		for k := 0; k < c.nr; k++ {
			p.Gather(c.nl+k, c.build.Vecs[k], pr)
		}
		p.N = len(pl)
		v, err := c.extra.Eval(c.env, &p.Batch)
		if err != nil {
			return nil, err
		}
		c.sel = c.sel[:0]
		for k := range pl {
			null := v.IsNull(k)
			if (v.B[k] && !null) || (null && c.nlNullMatches) {
				c.sel = append(c.sel, int32(k))
			}
		}
		if len(c.sel) == 0 {
			return nil, nil
		}
		if len(c.sel) < len(pl) {
			w := 0
			for _, k := range c.sel {
				pl[w], pr[w] = pl[k], pr[k]
				w++
			}
			pl, pr = pl[:w], pr[:w]
		}
	}
	for _, i := range pl {
		c.matchedP[i] = true
	}
	if c.matchedB != nil {
		for _, r := range pr {
			c.matchedB[r] = true
		}
	}
	if c.typ.leftOnly() || c.typ.rightOnly() {
		return nil, nil
	}
	out := c.out
	out.Clear()
	for k := 0; k < c.nr; k++ {
		out.Gather(c.nl+k, c.build.Vecs[k], pr)
	}
	out.N = len(pl)
	if identity(pl, c.pb.N) {
		// every probe row paired once, in order (a join on a unique build
		// key that all rows pass, as a fact table's rows meet each
		// dimension after the scan's key filter): the probe columns go
		// out as they came, valid until the next call like any batch,
		// instead of being copied
		pass := &c.pass
		pass.Vecs = append(append(pass.Vecs[:0], c.pb.Vecs[:c.nl]...), out.Vecs[c.nl:]...)
		pass.N = len(pl)
		return pass, nil
	}
	for k := 0; k < c.nl; k++ {
		out.Gather(k, c.pb.Vecs[k], pl)
	}
	return &out.Batch, nil
}

// identity reports whether pl is 0, 1, …, n-1.
func identity(pl []int32, n int) bool {
	if len(pl) != n {
		return false
	}
	for i, p := range pl {
		if p != int32(i) {
			return false
		}
	}
	return true
}

// unmatchedProbe emits the probe rows the join type keeps after all their
// pairs: unmatched ones for Left, Full and Anti, matched ones for Semi.
func (c *joinCore) unmatchedProbe() *vec.Batch {
	if c.onProbe != nil {
		if c.pos == 0 {
			c.onProbe(c.matchedP[:c.pb.N])
			c.pos = c.pb.N
		}
		return nil
	}
	var want bool
	switch c.typ {
	case JoinLeft, JoinFull, JoinAnti, JoinAntiNullAware:
		want = false
	case JoinSemi:
		want = true
	default:
		return nil
	}
	n := c.pb.N
	c.idx = c.idx[:0]
	for c.pos < n && len(c.idx) < vec.BatchSize {
		if c.matchedP[c.pos] == want {
			c.idx = append(c.idx, int32(c.pos))
		}
		c.pos++
	}
	if len(c.idx) == 0 {
		return nil
	}
	out := c.out
	out.Clear()
	if c.typ.leftOnly() && len(c.idx) == n {
		return c.pb // every row qualifies: pass the batch through
	}
	for k := 0; k < c.nl; k++ {
		out.Gather(k, c.pb.Vecs[k], c.idx)
	}
	if !c.typ.leftOnly() {
		for k := 0; k < c.nr; k++ {
			out.AppendNulls(c.nl+k, len(c.idx))
		}
	}
	out.N = len(c.idx)
	return &out.Batch
}

// unmatchedBuild emits the build rows the join type keeps once the probe
// side is done: unmatched ones for Right, Full and RightAnti, matched ones
// for RightSemi.
func (c *joinCore) unmatchedBuild() *vec.Batch {
	if c.matchedB == nil {
		return nil
	}
	want := c.typ == JoinRightSemi
	c.idx = c.idx[:0]
	for c.pos < len(c.matchedB) && len(c.idx) < vec.BatchSize {
		if c.matchedB[c.pos] == want {
			c.idx = append(c.idx, int32(c.pos))
		}
		c.pos++
	}
	if len(c.idx) == 0 {
		return nil
	}
	out := c.out
	out.Clear()
	first := c.nl // right columns follow the left ones, or stand alone
	if c.typ.rightOnly() {
		first = 0
	} else {
		for k := 0; k < c.nl; k++ {
			out.AppendNulls(k, len(c.idx))
		}
	}
	for k := 0; k < c.nr; k++ {
		out.Gather(first+k, c.build.Vecs[k], c.idx)
	}
	out.N = len(c.idx)
	return &out.Batch
}

// NestedLoopJoin compares every left row with every buffered right row and
// keeps pairs where On holds (all pairs when On is nil), with the same join
// types as HashJoin; it serves conditions without equality keys. Pairs are
// formed a batch at a time by gathering columns, so On runs vectorised and
// nothing is copied per row.
//
// For JoinAntiNullAware, On is the NOT IN comparison: a left row is dropped
// when On is true or NULL for some right row.
//
// A right side that outgrows the memory budget goes to a spill file, and
// the join runs by chunks (joinspill.ChunkJoin, as a hash join partition
// that hashing cannot split): as many right rows as fit at a time, the left
// side streamed past each.
type NestedLoopJoin struct {
	Env         *Env
	Left, Right Operator
	On          Expr
	Type        JoinType
	// LeftOuter is the older spelling of Type: JoinLeft.
	LeftOuter bool
	Mem       *memory.Memory

	core    joinCore
	res     memory.Reservation
	started bool
	ts      []types.T
	// spilled is the right side once it outgrew memory, chunks the join
	// by chunks of it; prebuilt is a chunk's rows, probed as they are
	spilled  *joinspill.Parts
	chunks   *joinspill.ChunkJoin
	prebuilt *memory.ColBuf
}

func (j *NestedLoopJoin) joinType() JoinType {
	if j.LeftOuter && j.Type == JoinInner {
		return JoinLeft
	}
	return j.Type
}

func (j *NestedLoopJoin) Types() []types.T {
	if j.ts == nil {
		j.ts = joinTypes(j.Left, j.Right, j.joinType())
	}
	return j.ts
}

func (j *NestedLoopJoin) Close() error {
	if j.chunks != nil {
		j.chunks.Close()
		j.chunks = nil
	}
	if j.spilled != nil {
		j.spilled.Close()
		j.spilled = nil
	}
	j.res.Release()
	err := j.Left.Close()
	if e := j.Right.Close(); err == nil {
		err = e
	}
	return err
}

func (j *NestedLoopJoin) Next(ctx context.Context) (*vec.Batch, error) {
	c := &j.core
	if !j.started {
		j.started = true
		c.init(j.Env, j.joinType(), j.On, j.Left.Types(), j.Right.Types())
		j.Mem = memory.MemFor(ctx, j.Mem)
		j.res.Mem = j.Mem
		c.nlNullMatches = c.typ == JoinAntiNullAware
		c.cand = j
		if j.prebuilt != nil {
			c.build, j.prebuilt = j.prebuilt, nil
		} else if err := j.buildRight(ctx); err != nil {
			return nil, err
		}
		if j.chunks == nil && c.typ.tracksBuild() {
			c.matchedB = make([]bool, c.build.N)
		}
	}
	if j.chunks != nil {
		return j.chunks.Next(ctx)
	}
	out, err := c.next(ctx, j.Left, func(*vec.Batch) error { return nil })
	if out == nil && err == nil {
		j.res.Release()
	}
	return out, err
}

// buildRight buffers the right side, or writes it to a spill file when it
// outgrows the reservation and sets up the join by chunks.
func (j *NestedLoopJoin) buildRight(ctx context.Context) error {
	c := &j.core
	j.res.Spill = true
	j.res.Cap = memory.WorkMemOf(ctx)
	err := Drain(ctx, j.Right, func(b *vec.Batch) error {
		if err := memory.ErrCanceled(ctx); err != nil {
			return err
		}
		if j.spilled != nil {
			return j.spilled.Add(b, nil, 0, true)
		}
		if err := j.res.Grow(memory.BatchBytes(b, 0, b.N)); err != nil {
			if pgerr.Code(err) != memory.OutOfMemory {
				return err
			}
			j.spilled = joinspill.NewParts(j.Right.Types(), "nljoin", QueryStatsOf(ctx).Spill())
			if err := j.spilled.Add(&c.build.Batch, nil, 0, true); err != nil {
				return err
			}
			c.build = memory.NewColBuf(j.Right.Types(), vec.BatchSize)
			j.res.Release()
			return j.spilled.Add(b, nil, 0, true)
		}
		c.build.AppendBatch(b, 0, b.N)
		return nil
	})
	if err != nil || j.spilled == nil {
		return err
	}
	if err := j.spilled.Finish(); err != nil {
		return err
	}
	j.chunks = newChunkJoin(ctx, c.typ, j.Mem, j.chunkPass, nil, j.spilled.Part(0), j.Left, j.Left.Types(), j.Right.Types())
	return nil
}

// chunkPass reads as many rows of a spilled right side as the reservation
// takes (one batch at least) into a join of its own.
func (j *NestedLoopJoin) chunkPass(ctx context.Context, src *joinspill.ChunkSource) (joinspill.ChunkPass, error) {
	pass := &NestedLoopJoin{Env: j.Env, Right: &joinspill.Empty{T: src.Types()}, On: j.On, Type: j.joinType(), Mem: j.Mem,
		prebuilt: memory.NewColBuf(src.Types(), vec.BatchSize)}
	pass.res = memory.Reservation{Mem: j.Mem, Spill: true, Cap: memory.WorkMemOf(ctx), Floor: j.Mem.SpillFloor()}
	err := Drain(ctx, src, func(b *vec.Batch) error {
		if err := memory.ErrCanceled(ctx); err != nil {
			return err
		}
		if err := pass.res.Grow(memory.BatchBytes(b, 0, b.N)); err != nil {
			if pgerr.Code(err) != memory.OutOfMemory {
				return err
			}
			if pass.prebuilt.N > 0 {
				src.Hold(b)
				return ErrChunkFull
			}
			// one batch at least, or the chunks never end
			pass.res.Spill = false
			err = pass.res.Grow(memory.BatchBytes(b, 0, b.N))
			pass.res.Spill = true
			if err != nil {
				return err
			}
		}
		pass.prebuilt.AppendBatch(b, 0, b.N)
		return nil
	})
	if err != nil && err != ErrChunkFull {
		pass.res.Release()
		return nil, err
	}
	return pass, nil
}

func (j *NestedLoopJoin) SetProbe(probe joinspill.Operator, record func([]bool)) {
	j.Left = probe
	j.core.onProbe = record
}

// candidates pairs each probe row with every build row, left-major.
func (j *NestedLoopJoin) candidates(c *joinCore) {
	n, m := c.pb.N, c.build.N
	if m == 0 {
		return
	}
	for c.gi < n {
		room := vec.BatchSize - len(c.pl)
		if room <= 0 {
			return
		}
		take := min(room, m-c.gk)
		for r := c.gk; r < c.gk+take; r++ {
			c.pl = append(c.pl, int32(c.gi))
			c.pr = append(c.pr, int32(r))
		}
		c.gk += take
		if c.gk == m {
			c.gk = 0
			c.gi++
		}
	}
}

func (j *NestedLoopJoin) simple(c *joinCore) bool {
	if c.build.N == 0 {
		return true // nothing matches; outer/anti rows come from matchedP
	}
	if j.On == nil && c.typ.leftOnly() {
		for i := range c.matchedP {
			c.matchedP[i] = true
		}
		return true
	}
	return false
}
