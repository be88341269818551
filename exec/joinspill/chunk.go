package joinspill

import (
	"context"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// ErrChunkFull ends a chunk's build: the batch that did not fit goes to the
// next chunk.
var ErrChunkFull = pgerr.New(pgerr.Internal, "join chunk full")

// ChunkSource reads a spilled build side for ChunkJoin; a batch can be put
// back for the next chunk.
type ChunkSource struct {
	scan Operator
	held *vec.Batch
	end  bool
}

func (c *ChunkSource) Types() []types.T { return c.scan.Types() }
func (c *ChunkSource) Close() error     { return nil }
func (c *ChunkSource) Next(ctx context.Context) (*vec.Batch, error) {
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

// Hold puts b back: the next chunk starts with it.
func (c *ChunkSource) Hold(b *vec.Batch) { c.held = b }

// more reports whether rows remain.
func (c *ChunkSource) more(ctx context.Context) (bool, error) {
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

// ChunkPass is one chunk of build rows, probed once by SetProbe's
// operator; record, when set, receives which probe rows matched instead
// of the pass emitting the probe rows the join type keeps.
type ChunkPass interface {
	Operator
	SetProbe(probe Operator, record func(matched []bool))
}

// ChunkJoin joins two spilled files when the build side cannot be split by
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
// built and probed (Pass). A nested-loop join's probe side has not been
// read when its build side spills: it is the live operator, streamed past
// the first chunk as is when that chunk holds every build row, and written
// to a file of its own (owned here) before the first pass otherwise.
type ChunkJoin struct {
	Mem         *memory.Memory
	Pass        func(ctx context.Context, src *ChunkSource) (ChunkPass, error)
	Left, Right *memory.SpillPart // nil: no rows
	Live        Operator          // the probe side, not yet spilled
	LTypes      []types.T
	RTypes      []types.T
	Out         []types.T          // the join's output types
	Stats       *memory.SpillStats // what the live probe side's file counts into
	// Deferred: probe rows the join type keeps come out in the last pass,
	// the matched ones when KeepMatched (semi joins), else the unmatched;
	// with NULL build columns when PadBuild
	Deferred    bool
	KeepMatched bool
	PadBuild    bool

	ownLeft *Parts // the live probe side's file
	src     *ChunkSource
	cur     ChunkPass
	matched []uint64
	res     memory.Reservation
	row     int // probe rows seen in this pass
	final   Operator
	out     *memory.ColBuf
	phase   int // 0: next chunk, 1: probing, 2: last pass, 3: done
	chunks  int
}

func (c *ChunkJoin) Types() []types.T { return c.Out }

func (c *ChunkJoin) Close() error {
	if c.cur != nil {
		c.cur.Close()
		c.cur = nil
	}
	if c.ownLeft != nil {
		c.ownLeft.Close()
		c.ownLeft = nil
	}
	c.res.Release()
	return nil
}

// noClose reads an operator that its owner closes.
type noClose struct{ Operator }

func (noClose) Close() error { return nil }

// spillLive writes the live probe side to a file, for a second chunk.
func (c *ChunkJoin) spillLive(ctx context.Context) error {
	c.ownLeft = NewParts(c.LTypes, "nljoin", c.Stats)
	err := drain(ctx, c.Live, func(b *vec.Batch) error {
		return c.ownLeft.Add(b, nil, 0, true)
	})
	if err == nil {
		err = c.ownLeft.Finish()
	}
	c.Live = nil
	c.Left = c.ownLeft.parts[0]
	return err
}

// drain feeds every batch of op to f, checking for a cancel between them.
func drain(ctx context.Context, op Operator, f func(*vec.Batch) error) error {
	for {
		if err := memory.ErrCanceled(ctx); err != nil {
			return err
		}
		b, err := op.Next(ctx)
		if err != nil || b == nil {
			return err
		}
		if err := f(b); err != nil {
			return err
		}
	}
}

func (c *ChunkJoin) Next(ctx context.Context) (*vec.Batch, error) {
	for {
		if err := memory.ErrCanceled(ctx); err != nil {
			return nil, err
		}
		switch c.phase {
		case 0:
			if c.src == nil {
				c.res.Mem = c.Mem
				scan, err := scanPart(c.Right, c.RTypes)
				if err != nil {
					return nil, err
				}
				c.src = &ChunkSource{scan: scan}
			}
			more, err := c.src.more(ctx)
			if err != nil {
				return nil, err
			}
			if !more && c.Live == nil {
				c.phase = 2
				continue
			}
			pass, err := c.Pass(ctx, c.src)
			if err != nil {
				return nil, err
			}
			// a probe until the real one is known, so that Close works
			pass.SetProbe(&Empty{T: c.LTypes}, nil)
			c.cur = pass
			c.chunks++
			if c.Live != nil {
				if more, err = c.src.more(ctx); err != nil {
					return nil, err
				}
				if !more {
					// one chunk holds every build row: an in-memory join
					pass.SetProbe(noClose{c.Live}, nil)
					c.Live, c.Deferred = nil, false
					c.phase = 1
					continue
				}
				if err := c.spillLive(ctx); err != nil {
					return nil, err
				}
			}
			if c.Deferred {
				if err := c.bitmap(); err != nil {
					return nil, err
				}
			}
			lop, err := scanPart(c.Left, c.LTypes)
			if err != nil {
				return nil, err
			}
			c.row = 0
			var record func([]bool)
			if c.Deferred {
				record = c.record
			}
			pass.SetProbe(lop, record)
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
			if !c.Deferred || c.Left == nil || c.Left.Rows == 0 {
				c.phase = 3
				continue
			}
			if c.final == nil {
				// no chunk at all when the build side is empty: no probe
				// row matched
				if err := c.bitmap(); err != nil {
					return nil, err
				}
				op, err := scanPart(c.Left, c.LTypes)
				if err != nil {
					return nil, err
				}
				c.final = op
				c.out = memory.NewColBuf(c.Out, vec.BatchSize)
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

// bitmap makes the bitmap of which probe rows matched, once.
func (c *ChunkJoin) bitmap() error {
	if c.matched != nil || c.Left == nil {
		return nil
	}
	words := (c.Left.Rows + 63) / 64
	if err := c.res.Grow(8 * words); err != nil {
		return err
	}
	c.matched = make([]uint64, words)
	return nil
}

// record notes which probe rows of a batch matched in this chunk.
func (c *ChunkJoin) record(matched []bool) {
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
func (c *ChunkJoin) kept(b *vec.Batch) *vec.Batch {
	var idx []int32
	for i := 0; i < b.N; i++ {
		r := c.row + i
		if (c.matched[r/64]&(1<<(r%64)) != 0) == c.KeepMatched {
			idx = append(idx, int32(i))
		}
	}
	c.row += b.N
	if len(idx) == 0 {
		return nil
	}
	out := c.out
	out.Clear()
	nl := len(c.LTypes)
	for k := 0; k < nl; k++ {
		out.Gather(k, b.Vecs[k], idx)
	}
	if c.PadBuild {
		for k := range c.RTypes {
			out.AppendNulls(nl+k, len(idx))
		}
	}
	out.N = len(idx)
	return &out.Batch
}
