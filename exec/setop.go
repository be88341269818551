package exec

import (
	"context"
	"sync"

	"github.com/lakepg/lakepg/exec/joinspill"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Append concatenates its inputs (UNION ALL).
type Append struct {
	Inputs []Operator
	cur    int
}

func (a *Append) Types() []types.T { return a.Inputs[0].Types() }
func (a *Append) Close() error {
	var err error
	for _, in := range a.Inputs {
		if e := in.Close(); err == nil {
			err = e
		}
	}
	return err
}
func (a *Append) Next(ctx context.Context) (*vec.Batch, error) {
	for a.cur < len(a.Inputs) {
		b, err := a.Inputs[a.cur].Next(ctx)
		if err != nil {
			return nil, err
		}
		if b != nil {
			return b, nil
		}
		a.cur++
	}
	return nil, nil
}

// SetOp is INTERSECT (Intersect) or EXCEPT, with ALL keeping multiplicities.
// Rows compare NULL-equal, as set operations do in SQL.
//
// The right side's rows are counted by key in a map whose entries are
// reserved from the memory budget; the left side streams past it, a
// key's count going down as its rows are kept (ALL) or to "done" once one
// is (INTERSECT and EXCEPT keep a row once). When an entry does not fit,
// the map freezes: keys in it are complete and answered there, and the
// rows of keys not in it, of both sides, go to 16 files (joinspill.Parts)
// by the key hash, each pair of files answered afterwards by a SetOp of
// its own one level down (as the hash join spills, package joinspill).
// Equal rows share a hash, so a key's rows on both sides meet in one pair.
type SetOp struct {
	Left, Right Operator
	Intersect   bool
	All         bool
	Mem         *memory.Memory // nil: the query's

	level  int // partitioning level: this answers one pair of files
	counts map[string]int64
	res    memory.Reservation
	// frozen: no more keys fit; rspilled: rows of the right side went to
	// files, so a left key missing from counts may be there
	frozen, rspilled bool
	lparts, rparts   *joinspill.Parts
	out              *memory.ColBuf
	tmp              *memory.ColBuf
	key              []byte
	keep, spill      []int32
	phase            int // 0: build, 1: probe, 2: partitions, 3: done
	cur              int
	sub              *SetOp
}

// setOpEntryBytes is about what a map entry costs besides its key bytes.
const setOpEntryBytes = 64

func (s *SetOp) Types() []types.T { return s.Left.Types() }
func (s *SetOp) Close() error {
	if s.sub != nil {
		s.sub.Close()
		s.sub = nil
	}
	for _, jp := range []*joinspill.Parts{s.lparts, s.rparts} {
		if jp != nil {
			jp.Close()
		}
	}
	s.counts = nil
	s.res.Release()
	err := s.Left.Close()
	if e := s.Right.Close(); err == nil {
		err = e
	}
	return err
}

func (s *SetOp) rowKey(b *vec.Batch, i int) {
	s.key = s.key[:0]
	for _, v := range b.Vecs {
		s.key = appendKey(s.key, v, i)
	}
}

// insert adds key with count c unless the map is frozen or the entry does
// not fit, which freezes it.
func (s *SetOp) insert(c int64) (bool, error) {
	if s.frozen {
		return false, nil
	}
	if err := s.res.Grow(int64(len(s.key)) + setOpEntryBytes); err != nil {
		if pgerr.Code(err) != memory.OutOfMemory || !s.res.Spill {
			return false, err
		}
		s.frozen = true
		return false, nil
	}
	s.counts[string(s.key)] = c
	return true, nil
}

// toFiles writes rows idx of b to the partition files of jp.
func (s *SetOp) toFiles(ctx context.Context, jp **joinspill.Parts, b *vec.Batch, idx []int32) error {
	if len(idx) == 0 {
		return nil
	}
	if *jp == nil {
		*jp = joinspill.NewParts(s.Left.Types(), "setop", QueryStatsOf(ctx).Spill())
	}
	if s.tmp == nil {
		s.tmp = memory.NewColBuf(s.Left.Types(), vec.BatchSize)
	}
	t := s.tmp
	t.Clear()
	for c, v := range b.Vecs {
		t.Gather(c, v, idx)
	}
	t.N = len(idx)
	return (*jp).Add(&t.Batch, t.Vecs, s.level, false)
}

func (s *SetOp) build(ctx context.Context) error {
	s.Mem = memory.MemFor(ctx, s.Mem)
	s.res = memory.Reservation{Mem: s.Mem, Spill: s.level <= joinspill.MaxLevel, Cap: memory.WorkMemOf(ctx)}
	if s.level > 0 {
		// a pair of partitions: its floor, as a hash join's (joinspill.Spill)
		s.res.Floor = s.Mem.SpillFloor()
	}
	// lookups index the map with string(key) directly, which does not
	// copy the key; only a key stored for the first time is copied
	s.counts = map[string]int64{}
	return Drain(ctx, s.Right, func(b *vec.Batch) error {
		if err := memory.ErrCanceled(ctx); err != nil {
			return err
		}
		s.spill = s.spill[:0]
		for i := 0; i < b.N; i++ {
			s.rowKey(b, i)
			if c, ok := s.counts[string(s.key)]; ok {
				if s.All {
					s.counts[string(s.key)] = c + 1
				}
				continue
			}
			ok, err := s.insert(1)
			if err != nil {
				return err
			}
			if !ok {
				s.rspilled = true
				s.spill = append(s.spill, int32(i))
			}
		}
		return s.toFiles(ctx, &s.rparts, b, s.spill)
	})
}

// probe answers one left batch: the rows it keeps, and those whose key is
// not in the map and may be in the files go to the files.
func (s *SetOp) probe(ctx context.Context, b *vec.Batch) (*vec.Batch, error) {
	s.keep, s.spill = s.keep[:0], s.spill[:0]
	for i := 0; i < b.N; i++ {
		s.rowKey(b, i)
		c, ok := s.counts[string(s.key)]
		if !ok {
			switch {
			case s.rspilled:
				s.spill = append(s.spill, int32(i))
			case s.Intersect:
			case s.All:
				s.keep = append(s.keep, int32(i))
			default:
				// EXCEPT keeps the first row of a key the right side
				// lacks, and remembers it (-1)
				in, err := s.insert(-1)
				if err != nil {
					return nil, err
				}
				if in {
					s.keep = append(s.keep, int32(i))
				} else {
					s.spill = append(s.spill, int32(i))
				}
			}
			continue
		}
		switch {
		case s.Intersect && c > 0:
			s.keep = append(s.keep, int32(i))
			if s.All {
				s.counts[string(s.key)] = c - 1
			} else {
				s.counts[string(s.key)] = 0
			}
		case !s.Intersect && s.All:
			if c > 0 {
				s.counts[string(s.key)] = c - 1
			} else {
				s.keep = append(s.keep, int32(i))
			}
		}
	}
	if err := s.toFiles(ctx, &s.lparts, b, s.spill); err != nil {
		return nil, err
	}
	if len(s.keep) == 0 {
		return nil, nil
	}
	if len(s.keep) == b.N {
		return b, nil
	}
	if s.out == nil {
		s.out = memory.NewColBuf(s.Left.Types(), vec.BatchSize)
	}
	out := s.out
	out.Clear()
	for c, v := range b.Vecs {
		out.Gather(c, v, s.keep)
	}
	out.N = len(s.keep)
	return &out.Batch, nil
}

func (s *SetOp) Next(ctx context.Context) (*vec.Batch, error) {
	for {
		switch s.phase {
		case 0:
			if err := s.build(ctx); err != nil {
				return nil, err
			}
			if s.rparts != nil {
				if err := s.rparts.Finish(); err != nil {
					return nil, err
				}
			}
			s.phase = 1
		case 1:
			if err := memory.ErrCanceled(ctx); err != nil {
				return nil, err
			}
			b, err := s.Left.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				s.counts = nil
				s.res.Release()
				s.phase = 2
				if s.lparts == nil {
					s.phase = 3
				} else if err := s.lparts.Finish(); err != nil {
					return nil, err
				}
				continue
			}
			if out, err := s.probe(ctx, b); err != nil || out != nil {
				return out, err
			}
		case 2:
			if s.cur == joinspill.Partitions {
				s.phase = 3
				continue
			}
			if s.sub == nil {
				if s.lparts.Rows(s.cur) == 0 {
					// no left rows: nothing to keep
					s.closePart(s.cur)
					s.cur++
					continue
				}
				l, err := s.lparts.Scan(s.cur)
				if err != nil {
					return nil, err
				}
				r := Operator(&joinspill.Empty{T: s.Right.Types()})
				if s.rparts != nil {
					if r, err = s.rparts.Scan(s.cur); err != nil {
						return nil, err
					}
				}
				s.sub = &SetOp{Left: l, Right: r, Intersect: s.Intersect, All: s.All, Mem: s.Mem, level: s.level + 1}
			}
			b, err := s.sub.Next(ctx)
			if err != nil || b != nil {
				return b, err
			}
			s.sub.Close()
			s.sub = nil
			s.closePart(s.cur)
			s.cur++
		default:
			return nil, nil
		}
	}
}

func (s *SetOp) closePart(p int) {
	s.lparts.ClosePart(p)
	if s.rparts != nil {
		s.rparts.ClosePart(p)
	}
}

// BatchSource emits one prepared batch (system tables, small constant sets).
type BatchSource struct {
	B *vec.Batch
	T []types.T
	// Lazy, when B is nil, makes the batch at the first Next: rows whose
	// count is known while planning and whose columns are made only for
	// the plan that reads them (pg_class of a lake of 10,000 tables)
	Lazy *LazyBatch
	done bool
}

func (s *BatchSource) Types() []types.T { return s.T }
func (s *BatchSource) Close() error     { return nil }
func (s *BatchSource) Next(ctx context.Context) (*vec.Batch, error) {
	if s.done {
		return nil, nil
	}
	b := s.B
	if b == nil && s.Lazy != nil {
		var err error
		if b, err = s.Lazy.Batch(); err != nil {
			return nil, err
		}
	}
	if b == nil || b.N == 0 {
		return nil, nil
	}
	s.done = true
	return b, nil
}

// Rows is the number of rows the source emits.
func (s *BatchSource) Rows() int {
	switch {
	case s.B != nil:
		return s.B.N
	case s.Lazy != nil:
		return s.Lazy.N
	}
	return 0
}

// LazyBatch is a batch of N rows made when first read, once for every
// source that shares it (a correlated subplan runs its copy per outer row).
type LazyBatch struct {
	N int
	// Make makes the batch's columns: those need marks, in order (nil:
	// every column)
	Make func(need []bool) (*vec.Batch, error)
	// Need is what Batch asks Make for; nil: every column
	Need []bool

	once sync.Once
	b    *vec.Batch
	err  error
}

// Batch makes the batch at the first call.
func (l *LazyBatch) Batch() (*vec.Batch, error) {
	l.once.Do(func() { l.b, l.err = l.Make(l.Need) })
	return l.b, l.err
}
