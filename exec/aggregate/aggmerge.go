package aggregate

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/hashtab"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
)

// mergeParts splits tables into aggPartitions partition tables by the top
// bits of their groups' key hashes, the bits a spill uses to pick its
// partition, each built from every given table's groups of that partition
// by one goroutine; the goroutines share nothing but the given tables,
// which they only read. A radix worker splits its table so (aggradix.go).

// partitionable: one grouping set with keys, hashed by groupHashes.
func (h *HashAgg) partitionable() bool {
	return h.GroupingSets == nil && h.NGroup > 0
}

// partShift is the shift that takes a key hash to its partition at h's
// spill level (as aggSpill.route picks it).
func (h *HashAgg) partShift() uint {
	return uint(64 - aggPartBits*(h.spillLevel+1))
}

// groupHashes is the key hash of each of s's groups, the hash hashColumn
// gives the group's key in a batch: for a general table only its top half
// (the tags, all a table and the partitions of the first levels read),
// the whole of it recomputed from the keys past that.
func (h *HashAgg) groupHashes(s *aggSet) []uint64 {
	if s.htab != nil && h.partShift() >= 32 {
		return s.htab.Tags(nil)
	}
	if s.htab != nil {
		hs := make([]uint64, s.ngroups)
		for c := range s.keys.Cols {
			memory.HashColumn(hs, s.keys.ColView(c, 0, s.ngroups), s.ngroups, c == 0)
		}
		return hs
	}
	v := &vec.Vector{Type: h.Input.Types()[s.cols[0]], I64: s.itab.Dense}
	if s.nullG >= 0 {
		v.Nulls = make([]bool, len(s.itab.Dense))
		v.Nulls[s.nullG] = true
	}
	hs := make([]uint64, len(s.itab.Dense))
	memory.HashColumn(hs, v, len(hs), true)
	return hs
}

// mergeParts merges the workers' runs into aggPartitions new runs, one per
// partition of the key hash, several partitions at a time. The workers'
// reservations are given back once all are merged. A run whose memory runs
// out while it is built is kept when the aggregation could spill (the
// partitions hold no more groups than the workers did).
func (h *HashAgg) mergeParts(ctx context.Context, runs []*aggRun) ([]*aggRun, error) {
	hashes := make([][]uint64, len(runs))
	counts := make([][aggPartitions]int, len(runs))
	shift := h.partShift()
	var wg sync.WaitGroup
	for w, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hashes[w] = h.groupHashes(r.sets[0])
			for _, x := range hashes[w] {
				counts[w][int(x>>shift)&(aggPartitions-1)]++
			}
		}()
	}
	wg.Wait()
	// each worker's groups sorted by partition (a counting sort)
	byPart := make([][]int32, len(runs))
	starts := make([][aggPartitions + 1]int, len(runs))
	for w := range runs {
		st := &starts[w]
		for p := range aggPartitions {
			st[p+1] = st[p] + counts[w][p]
		}
		next := *st
		ids := make([]int32, len(hashes[w]))
		for g, x := range hashes[w] {
			p := int(x>>shift) & (aggPartitions - 1)
			ids[next[p]] = int32(g)
			next[p]++
		}
		byPart[w] = ids
	}
	parts := make([]*aggRun, aggPartitions)
	for p := range parts {
		r, err := h.newRun()
		if err != nil {
			return nil, err
		}
		// sized for every worker's groups of the partition, so that it
		// never grows while filled
		n := 1
		for w := range runs {
			n += counts[w][p]
		}
		if s := r.sets[0]; s.htab != nil {
			s.htab = hashtab.NewHashTable(n)
		} else {
			s.itab = hashtab.NewI64Table(n)
		}
		parts[p] = r
	}
	err := inPartitions(ctx, func() func(p int) error {
		m := &partMerger{h: h, shift: h.partShift()}
		return func(p int) error { return m.merge(parts[p], p, runs, hashes, byPart, starts) }
	})
	for _, r := range runs {
		r.res.Release()
	}
	if err != nil {
		for _, r := range parts {
			r.res.Release()
		}
		return nil, err
	}
	return parts, nil
}

// inPartitions runs a function for every partition p on up to GOMAXPROCS
// goroutines, each taking the next partition not yet taken; newDo makes
// each goroutine's function (and its scratch). It returns the first error.
func inPartitions(ctx context.Context, newDo func() func(p int) error) error {
	var (
		next atomic.Int32
		wg   sync.WaitGroup
	)
	errs := make([]error, max(1, min(runtime.GOMAXPROCS(0), aggPartitions)))
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do := newDo()
			errs[w] = exec.Guard(func() error {
				for {
					p := int(next.Add(1)) - 1
					if p >= aggPartitions {
						return nil
					}
					if err := memory.ErrCanceled(ctx); err != nil {
						return err
					}
					if err := do(p); err != nil {
						return err
					}
				}
			})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// partMerger is one merging goroutine's scratch.
type partMerger struct {
	h     *HashAgg
	shift uint
	to    []int32 // the merged groups' ids in dst
	hs    []uint64
	gids  []int32
	keys  *memory.ColBuf
	ikeys []int64
	nulls []bool
	text  vec.Vector // gatherInto's
}

// merge folds the groups of partition p of every worker's run into dst;
// byPart[w] holds worker w's group ids in partition order, partition p's
// from starts[w][p] to starts[w][p+1], so each partition visits its own
// groups alone.
func (m *partMerger) merge(dst *aggRun, p int, runs []*aggRun, hashes [][]uint64, byPart [][]int32, starts [][aggPartitions + 1]int) error {
	ds := dst.sets[0]
	for w, r := range runs {
		src := r.sets[0]
		ids := byPart[w][starts[w][p]:starts[w][p+1]]
		if len(ids) == 0 {
			continue
		}
		m.to = exec.Resize32(m.to, len(ids))
		// the first worker's groups of the partition are all new, and
		// distinct: they are placed without comparing keys
		fresh := ds.ngroups == 0
		for lo := 0; lo < len(ids); lo += vec.BatchSize {
			batch := ids[lo:min(lo+vec.BatchSize, len(ids))]
			m.insert(ds, src, batch, hashes[w], fresh)
			copy(m.to[lo:], m.gids[:len(batch)])
		}
		for a, fn := range ds.fns {
			fn.grow(ds.ngroups)
			if err := fn.merge(src.fns[a], ids, m.to); err != nil {
				return err
			}
		}
	}
	var total int64
	total += ds.bytes()
	if d := total - dst.accounted; d > 0 {
		if err := dst.res.Grow(d); err != nil && (pgerr.Code(err) != memory.OutOfMemory || !m.h.canSpill()) {
			return err
		}
		dst.accounted = total
	}
	return nil
}

// insert finds or adds in ds the groups ids of src, leaving their ids in
// ds in m.gids.
func (m *partMerger) insert(ds, src *aggSet, ids []int32, hashes []uint64, fresh bool) {
	n := len(ids)
	m.gids = exec.Resize32(m.gids, n)
	if src.itab != nil {
		m.ikeys = memory.ResizeSlice(m.ikeys, n)
		var nulls []bool
		for i, g := range ids {
			m.ikeys[i] = src.itab.Dense[g]
			if g == src.nullG {
				if nulls == nil {
					m.nulls = memory.ResizeSlice(m.nulls, n)
					clear(m.nulls)
					nulls = m.nulls
				}
				nulls[i] = true
			}
		}
		ds.intGroupIDs(m.ikeys, nulls, m.gids)
		return
	}
	if fresh {
		// copied a column at a time, each key placed by its hash alone
		ds.keyBytes += ds.keys.AppendRows(src.keys, ids)
		for i, g := range ids {
			m.gids[i] = ds.htab.PlaceNew(hashes[g])
		}
		ds.ngroups = ds.htab.N
		return
	}
	if m.keys == nil {
		m.keys = memory.NewColBuf(m.h.Input.Types()[:m.h.NGroup], vec.BatchSize)
	}
	m.keys.Clear()
	for c := range src.keys.Cols {
		src.keys.GatherInto(m.keys, c, ids, &m.text)
	}
	m.keys.N = n
	m.hs = memory.ResizeSlice(m.hs, n)
	for i, g := range ids {
		m.hs[i] = hashes[g]
	}
	// the workers' text keys are shared, not copied again
	ds.keys.Share = &hashtab.KeyShare{Src: src.keys, Ids: ids}
	ds.keyBytes += ds.htab.GroupIDs(ds.keys, m.keys.Vecs, m.hs, m.gids)
	ds.keys.Share = nil
	ds.ngroups = ds.htab.N
}
