package exec

import (
	"context"
	"sync"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Hash joins spill by grace partitioning. While the build side fits its
// reservation the join is the in-memory one. When it does not, the rows
// buffered so far and the rest of the build side are written to
// joinPartitions files by bits of their key hash, the memory is given back,
// the probe side is written to as many files by the same bits, and then
// each pair of files is joined by a HashJoin of its own, which partitions
// again on the next bits if its build side is still too big. A row's
// matches all share its key, hence its partition, so every join type works
// partition by partition; NULL keys, which match nothing, land in some
// partition and come out there as the join type says (unmatched for outer
// and anti joins).
//
// Two cases cannot be split by hash and are joined by chunks instead (block
// nested loop over the spilled files, each chunk of build rows indexed as a
// hash table, see chunkJoin): a partition that re-partitioning did not
// split (one key with more rows than memory), and NOT IN, whose NULL keys
// compare unknown with every row of the other side.
//
// A build side shared by parallel probes spills once; every probe writes
// its rows to the shared probe files and the last one to finish joins the
// partitions (the others end), so the partition phase runs on one worker.

const (
	joinPartBits    = 4
	joinPartitions  = 1 << joinPartBits
	joinMaxSpillLvl = 64/joinPartBits - 1
)

// joinParts is one side's partition files.
type joinParts struct {
	types  []types.T
	kind   string
	qs     *QueryStats
	parts  [joinPartitions]*memory.SpillPart
	total  int64
	hs     []uint64
	byPart [joinPartitions][]int32
}

func newJoinParts(ts []types.T, kind string, qs *QueryStats) *joinParts {
	return &joinParts{types: ts, kind: kind, qs: qs}
}

// add routes the rows of b by the hash of keys (one vector per key column)
// at level's bits; one=true sends every row to partition 0.
func (jp *joinParts) add(b *vec.Batch, keys []*vec.Vector, level int, one bool) error {
	n := b.N
	if n == 0 {
		return nil
	}
	if one {
		for lo := 0; lo < n; lo += vec.BatchSize {
			hi := min(lo+vec.BatchSize, n)
			rows := jp.byPart[0][:0]
			for i := lo; i < hi; i++ {
				rows = append(rows, int32(i))
			}
			jp.byPart[0] = rows
			if err := jp.write(0, b, rows); err != nil {
				return err
			}
		}
		return nil
	}
	jp.hs = memory.ResizeSlice(jp.hs, n)
	for i, k := range keys {
		memory.HashColumn(jp.hs, k, n, i == 0)
	}
	shift := uint(64 - joinPartBits*(level+1))
	for lo := 0; lo < n; lo += vec.BatchSize {
		hi := min(lo+vec.BatchSize, n)
		for p := range jp.byPart {
			jp.byPart[p] = jp.byPart[p][:0]
		}
		for i := lo; i < hi; i++ {
			p := int(jp.hs[i]>>shift) & (joinPartitions - 1)
			jp.byPart[p] = append(jp.byPart[p], int32(i))
		}
		for p, rows := range jp.byPart {
			if len(rows) > 0 {
				if err := jp.write(p, b, rows); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (jp *joinParts) write(p int, b *vec.Batch, rows []int32) error {
	pt := jp.parts[p]
	if pt == nil {
		f, err := memory.NewSpillFile(memory.GlobalSpill, jp.qs.Spill(), jp.kind)
		if err != nil {
			return err
		}
		pt = &memory.SpillPart{File: f, Buf: memory.NewColBuf(jp.types, vec.BatchSize)}
		jp.parts[p] = pt
	}
	for c, v := range b.Vecs {
		pt.Buf.Gather(c, v, rows)
	}
	pt.Buf.N += len(rows)
	pt.Rows += int64(len(rows))
	jp.total += int64(len(rows))
	if pt.Buf.N >= vec.BatchSize {
		return pt.Flush()
	}
	return nil
}

// finish writes out what the partitions still buffer.
func (jp *joinParts) finish() error {
	for _, pt := range jp.parts {
		if pt != nil {
			if err := pt.Flush(); err != nil {
				return err
			}
			pt.Buf = nil
		}
	}
	return nil
}

func (jp *joinParts) rows(p int) int64 {
	if pt := jp.parts[p]; pt != nil {
		return pt.Rows
	}
	return 0
}

// scan reads partition p back (an empty operator when it has no rows).
func (jp *joinParts) scan(p int) (Operator, error) {
	pt := jp.parts[p]
	if pt == nil || pt.Rows == 0 {
		return &emptyOp{ts: jp.types}, nil
	}
	rd, err := pt.File.Reader()
	if err != nil {
		return nil, err
	}
	return &memory.SpillScan{Rd: rd, Dec: memory.NewBlockDecoder(jp.types)}, nil
}

func (jp *joinParts) closePart(p int) {
	if pt := jp.parts[p]; pt != nil {
		pt.File.Close()
		jp.parts[p] = nil
	}
}

func (jp *joinParts) close() {
	for p := range jp.parts {
		jp.closePart(p)
	}
}

// noClose reads an operator that its owner closes.
type noClose struct{ Operator }

func (noClose) Close() error { return nil }

// emptyOp has no rows.
type emptyOp struct{ ts []types.T }

func (e *emptyOp) Types() []types.T                         { return e.ts }
func (e *emptyOp) Next(context.Context) (*vec.Batch, error) { return nil, nil }
func (e *emptyOp) Close() error                             { return nil }

// joinSpill is a spilled hash join: its build side's partitions, then its
// probe side's, then the partition-by-partition join.
type joinSpill struct {
	level int
	one   bool // every row in partition 0, joined by chunks (NOT IN)
	right *joinParts
	left  *joinParts
	mu    sync.Mutex // probes of a shared build write left at once
	done  bool       // left is complete
	cur   int
	sub   Operator
	once  sync.Once
}

func (js *joinSpill) close() {
	js.once.Do(func() {
		if js.sub != nil {
			js.sub.Close()
			js.sub = nil
		}
		js.right.close()
		if js.left != nil {
			js.left.close()
		}
	})
}

// keyVecs are the key vectors of a build batch: the computed ones (kb,
// indexed by comp) or the batch's own columns.
func keyVecs(dst []*vec.Vector, rightKeys []Expr, comp []int, b, kb *vec.Batch) []*vec.Vector {
	dst = dst[:0]
	for i, k := range rightKeys {
		if comp[i] >= 0 {
			dst = append(dst, kb.Vecs[comp[i]])
		} else {
			dst = append(dst, b.Vecs[k.(*ColRef).Idx])
		}
	}
	return dst
}

// addProbe writes one probe batch to the left partitions.
func (j *HashJoin) addProbe(js *joinSpill, b *vec.Batch) error {
	j.pkeys = j.pkeys[:0]
	for _, k := range j.LeftKeys {
		v, err := k.Eval(j.Env, b)
		if err != nil {
			return err
		}
		j.pkeys = append(j.pkeys, v)
	}
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.left.add(b, j.pkeys, js.level, js.one)
}

// nextSpilled runs a join whose build side spilled.
func (j *HashJoin) nextSpilled(ctx context.Context) (*vec.Batch, error) {
	js := j.spill
	if !j.probed {
		j.probed = true
		js.mu.Lock()
		if js.left == nil {
			js.left = newJoinParts(j.Left.Types(), "join", QueryStatsOf(ctx))
		}
		js.mu.Unlock()
		err := Drain(ctx, j.Left, func(b *vec.Batch) error {
			if err := memory.ErrCanceled(ctx); err != nil {
				return err
			}
			return j.addProbe(js, b)
		})
		if err != nil {
			return nil, err
		}
		if j.Shared != nil && !j.Shared.finishSpillProbe() {
			return nil, nil // the last probe joins the partitions
		}
		if err := js.left.finish(); err != nil {
			return nil, err
		}
		js.done = true
	}
	if !js.done {
		return nil, nil
	}
	for js.cur < joinPartitions {
		p := js.cur
		if js.sub == nil {
			nl, nr := js.left.rows(p), js.right.rows(p)
			if (nl == 0 && nr == 0) || (nl == 0 && !joinKeepsBuild(j.Type)) || (nr == 0 && !joinKeepsProbe(j.Type)) {
				js.left.closePart(p)
				js.right.closePart(p)
				js.cur++
				continue
			}
			sub, err := j.partitionJoin(js, p)
			if err != nil {
				return nil, err
			}
			js.sub = sub
		}
		b, err := js.sub.Next(ctx)
		if err != nil || b != nil {
			return b, err
		}
		js.sub.Close()
		js.sub = nil
		js.left.closePart(p)
		js.right.closePart(p)
		js.cur++
	}
	return nil, nil
}

// joinKeepsProbe reports whether probe rows can be output without a match.
func joinKeepsProbe(t JoinType) bool {
	return t == JoinLeft || t == JoinFull || t == JoinAnti || t == JoinAntiNullAware
}

// joinKeepsBuild reports whether build rows can be output without a match.
func joinKeepsBuild(t JoinType) bool {
	return t == JoinRight || t == JoinFull || t == JoinRightAnti
}

// partitionJoin makes the join of partition p's two files: a HashJoin one
// level down, or a chunk join when hashing cannot split the build side.
func (j *HashJoin) partitionJoin(js *joinSpill, p int) (Operator, error) {
	lop, err := js.left.scan(p)
	if err != nil {
		return nil, err
	}
	if js.one || js.right.rows(p) == js.right.total || js.level+1 > joinMaxSpillLvl {
		return &chunkJoin{typ: j.Type, mem: j.Mem, pass: j.chunkPass, left: js.left.parts[p], right: js.right.parts[p],
			rtypes: js.right.types, ltypes: js.left.types}, nil
	}
	rop, err := js.right.scan(p)
	if err != nil {
		return nil, err
	}
	return &HashJoin{Env: j.Env, Left: lop, Right: rop, LeftKeys: j.LeftKeys, RightKeys: j.subRightKeys(), Type: j.Type,
		Extra: j.Extra, Mem: j.Mem, spillLevel: js.level + 1}, nil
}

// subRightKeys are the build keys of a partition join (a shared build's
// when the build is shared).
func (j *HashJoin) subRightKeys() []Expr {
	if j.Shared != nil {
		return j.Shared.RightKeys
	}
	return j.RightKeys
}

// finishSpillProbe counts a probe done writing its rows to a spilled
// build's partitions; true for the last one.
func (s *SharedBuild) finishSpillProbe() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finished++
	return s.finished == s.Probes
}

// errChunkFull ends a chunk's build: the batch that did not fit goes to the
// next chunk.
var ErrChunkFull = pgerr.New(pgerr.Internal, "join chunk full")

// chunkSource reads a spilled build side for chunkJoin; a batch can be put
// back for the next chunk.
type chunkSource struct {
	scan *memory.SpillScan
	held *vec.Batch
	end  bool
}

func (c *chunkSource) Types() []types.T { return c.scan.Types() }
func (c *chunkSource) Close() error     { return nil }
func (c *chunkSource) Next(ctx context.Context) (*vec.Batch, error) {
	if c.held != nil {
		b := c.held
		c.held = nil
		return b, nil
	}
	if c.end {
		return nil, nil
	}
	b, err := c.scan.Next(ctx)
	if b == nil && err == nil {
		c.end = true
	}
	return b, err
}

// more reports whether rows remain.
func (c *chunkSource) more(ctx context.Context) (bool, error) {
	if c.held != nil {
		return true, nil
	}
	if c.end {
		return false, nil
	}
	b, err := c.Next(ctx)
	if err != nil || b == nil {
		return false, err
	}
	c.held = b
	return true, nil
}

// chunkJoin joins two spilled files when the build side cannot be split by
// hash (or, for a nested-loop join, has no key to split it by): it reads as
// many build rows as memory takes, indexes them and streams the whole probe
// file past them, chunk after chunk. Pairs and the build rows a join type
// keeps come out per chunk (each build row is in one chunk); which probe
// rows matched is remembered in a bitmap across chunks, and the probe rows
// the join type keeps (unmatched for LEFT, FULL and anti joins, matched for
// semi joins) come out in a last pass over the probe file. NOT IN's rules
// hold chunk by chunk: a NULL build key rejects every probe row, and a NULL
// probe key is rejected by any build row.
//
// The hash join and the nested-loop join differ only in how a chunk is
// built and probed (pass). A nested-loop join's probe side has not been
// read when its build side spills: it is the live operator, streamed past
// the first chunk as is when that chunk holds every build row, and written
// to a file of its own (owned here) before the first pass otherwise.
type chunkJoin struct {
	typ         JoinType
	mem         *memory.Memory
	pass        func(ctx context.Context, src *chunkSource) (chunkPass, error)
	left, right *memory.SpillPart // nil: no rows
	live        Operator          // the probe side, not yet spilled
	ownLeft     *joinParts        // the live probe side's file
	ltypes      []types.T
	rtypes      []types.T
	src         *chunkSource
	cur         chunkPass
	matched     []uint64
	res         memory.Reservation
	row         int // probe rows seen in this pass
	final       *memory.SpillScan
	out         *memory.ColBuf
	phase       int // 0: next chunk, 1: probing, 2: last pass, 3: done
	ts          []types.T
	chunks      int
	deferred    bool // probe rows come out in the last pass
}

// chunkPass is one chunk of build rows, probed once by setProbe's
// operator; record, when set, receives which probe rows matched instead
// of the pass emitting the probe rows the join type keeps.
type chunkPass interface {
	Operator
	setProbe(probe Operator, record func(matched []bool))
}

func (c *chunkJoin) Types() []types.T {
	if c.ts == nil {
		c.ts = joinTypesOf(c.ltypes, c.rtypes, c.typ)
	}
	return c.ts
}

func (c *chunkJoin) Close() error {
	if c.cur != nil {
		c.cur.Close()
		c.cur = nil
	}
	if c.ownLeft != nil {
		c.ownLeft.close()
		c.ownLeft = nil
	}
	c.res.Release()
	return nil
}

func (c *chunkJoin) probeScan() (Operator, error) {
	if c.left == nil || c.left.Rows == 0 {
		return &emptyOp{ts: c.ltypes}, nil
	}
	rd, err := c.left.File.Reader()
	if err != nil {
		return nil, err
	}
	return &memory.SpillScan{Rd: rd, Dec: memory.NewBlockDecoder(c.ltypes)}, nil
}

// spillLive writes the live probe side to a file, for a second chunk.
func (c *chunkJoin) spillLive(ctx context.Context) error {
	c.ownLeft = newJoinParts(c.ltypes, "nljoin", QueryStatsOf(ctx))
	err := Drain(ctx, c.live, func(b *vec.Batch) error {
		if err := memory.ErrCanceled(ctx); err != nil {
			return err
		}
		return c.ownLeft.add(b, nil, 0, true)
	})
	if err == nil {
		err = c.ownLeft.finish()
	}
	c.live = nil
	c.left = c.ownLeft.parts[0]
	return err
}

func (c *chunkJoin) Next(ctx context.Context) (*vec.Batch, error) {
	for {
		if err := memory.ErrCanceled(ctx); err != nil {
			return nil, err
		}
		switch c.phase {
		case 0:
			if c.src == nil {
				c.res.Mem = c.mem
				t := c.typ
				c.deferred = t == JoinLeft || t == JoinFull || t == JoinSemi || t == JoinAnti || t == JoinAntiNullAware
				if c.right == nil || c.right.Rows == 0 {
					c.src = &chunkSource{end: true}
				} else {
					rd, err := c.right.File.Reader()
					if err != nil {
						return nil, err
					}
					c.src = &chunkSource{scan: &memory.SpillScan{Rd: rd, Dec: memory.NewBlockDecoder(c.rtypes)}}
				}
			}
			more, err := c.src.more(ctx)
			if err != nil {
				return nil, err
			}
			if !more && c.live == nil {
				c.phase = 2
				continue
			}
			pass, err := c.pass(ctx, c.src)
			if err != nil {
				return nil, err
			}
			// a probe until the real one is known, so that Close works
			pass.setProbe(&emptyOp{ts: c.ltypes}, nil)
			c.cur = pass
			c.chunks++
			if c.live != nil {
				if more, err = c.src.more(ctx); err != nil {
					return nil, err
				}
				if !more {
					// one chunk holds every build row: an in-memory join
					pass.setProbe(noClose{c.live}, nil)
					c.live, c.deferred = nil, false
					c.phase = 1
					continue
				}
				if err := c.spillLive(ctx); err != nil {
					return nil, err
				}
			}
			if c.deferred && c.matched == nil && c.left != nil {
				words := (c.left.Rows + 63) / 64
				if err := c.res.Grow(8 * words); err != nil {
					return nil, err
				}
				c.matched = make([]uint64, words)
			}
			lop, err := c.probeScan()
			if err != nil {
				return nil, err
			}
			c.row = 0
			var record func([]bool)
			if c.deferred {
				record = c.record
			}
			pass.setProbe(lop, record)
			c.phase = 1
		case 1:
			b, err := c.cur.Next(ctx)
			if err != nil || b != nil {
				return b, err
			}
			c.cur.Close()
			c.cur = nil
			c.phase = 0
		case 2:
			if !c.deferred || c.left == nil || c.left.Rows == 0 {
				c.phase = 3
				continue
			}
			if c.final == nil {
				op, err := c.probeScan()
				if err != nil {
					return nil, err
				}
				c.final = op.(*memory.SpillScan)
				c.out = memory.NewColBuf(c.Types(), vec.BatchSize)
				c.row = 0
			}
			b, err := c.final.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				c.phase = 3
				continue
			}
			if out := c.kept(b); out != nil {
				return out, nil
			}
		default:
			return nil, nil
		}
	}
}

// chunkPass builds the next chunk of a hash join's spilled build side.
func (j *HashJoin) chunkPass(ctx context.Context, src *chunkSource) (chunkPass, error) {
	kts := make([]types.T, len(j.LeftKeys))
	for i, k := range j.LeftKeys {
		kts[i] = k.Type()
	}
	jb, _, err := buildJoin(ctx, j.Env, src, j.subRightKeys(), kts, j.Mem, buildOpts{chunk: src})
	if err != nil {
		return nil, err
	}
	return &HashJoin{Env: j.Env, Right: &emptyOp{ts: src.Types()}, LeftKeys: j.LeftKeys, RightKeys: j.subRightKeys(),
		Type: j.Type, Extra: j.Extra, Mem: j.Mem, prebuilt: jb}, nil
}

func (j *HashJoin) setProbe(probe Operator, record func([]bool)) {
	j.Left = probe
	j.core.onProbe = record
}

// record notes which probe rows of a batch matched in this chunk.
func (c *chunkJoin) record(matched []bool) {
	for i, m := range matched {
		if m {
			r := c.row + i
			c.matched[r/64] |= 1 << (r % 64)
		}
	}
	c.row += len(matched)
}

// kept returns the rows of probe batch b the join type keeps, by the
// bitmap (nil: none).
func (c *chunkJoin) kept(b *vec.Batch) *vec.Batch {
	want := c.typ == JoinSemi
	var idx []int32
	for i := 0; i < b.N; i++ {
		r := c.row + i
		if (c.matched[r/64]&(1<<(r%64)) != 0) == want {
			idx = append(idx, int32(i))
		}
	}
	c.row += b.N
	if len(idx) == 0 {
		return nil
	}
	out := c.out
	out.Clear()
	nl := len(c.ltypes)
	for k := 0; k < nl; k++ {
		out.Gather(k, b.Vecs[k], idx)
	}
	if !c.typ.leftOnly() {
		for k := range c.rtypes {
			out.AppendNulls(nl+k, len(idx))
		}
	}
	out.N = len(idx)
	return &out.Batch
}
