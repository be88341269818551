package aggregate

import (
	"encoding/binary"
	"fmt"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// pageRows is the rows of a pageStore block: half a batch, so that a cached
// block holds less.
const pageRows = vec.BatchSize / 2

// pageStore is rows written once, in order, to a spill file in blocks of
// pageRows rows, then read back by row number: block r/pageRows is
// read and decoded into one of a few cached slots. It is the spilled
// window partition's tuplestore — reads near the last ones (the current
// row, the frame's ends, lag/lead) find their block cached, and any row
// can still be reached, at the price of a read.
type pageStore struct {
	ts    []types.T
	file  *memory.SpillFile
	offs  []int64        // where each block starts in the file; then its end
	n     int            // rows written
	pend  *memory.ColBuf // rows not yet written (fewer than a block)
	blk   []byte
	raw   []byte
	slots []pageSlot
	tick  int64
	last  int // slot of the last read
}

type pageSlot struct {
	k    int // block held, -1: none
	used int64
	dec  *memory.BlockDecoder
}

func newPageStore(ts []types.T, qs *memory.SpillStats, kind string, slots int) (*pageStore, error) {
	f, err := memory.NewSpillFile(memory.GlobalSpill, qs, kind)
	if err != nil {
		return nil, err
	}
	p := &pageStore{ts: ts, file: f, pend: memory.NewColBuf(ts, pageRows), slots: make([]pageSlot, slots)}
	for i := range p.slots {
		p.slots[i].k = -1
	}
	return p, nil
}

// rows returns the number of rows written.
func (p *pageStore) rows() int {
	if p.pend == nil {
		return p.n
	}
	return p.n + p.pend.N
}

// appendRows adds rows [lo, hi) of cols (one vector per column).
func (p *pageStore) appendRows(cols []*vec.Vector, lo, hi int) error {
	for lo < hi {
		k := min(hi, lo+pageRows-p.pend.N)
		for c, v := range cols {
			p.pend.AppendRange(c, v, lo, k)
		}
		p.pend.N += k - lo
		lo = k
		if err := p.rowsAdded(); err != nil {
			return err
		}
	}
	return nil
}

// rowsAdded writes the pending block once it is full: a caller that appends
// to pend's vectors itself sets pend.N and calls it.
func (p *pageStore) rowsAdded() error {
	if p.pend.N < pageRows {
		return nil
	}
	return p.writePending()
}

func (p *pageStore) writePending() error {
	if p.pend.N == 0 {
		return nil
	}
	if len(p.offs) == 0 {
		p.offs = append(p.offs, p.file.Size)
	}
	p.blk = memory.AppendBlock(p.blk[:0], p.pend.Vecs, 0, p.pend.N)
	if err := p.file.WriteBlock(p.blk); err != nil {
		return err
	}
	p.offs = append(p.offs, p.file.Size)
	p.n += p.pend.N
	p.pend.Clear()
	return nil
}

// finish writes the last rows; the store is read-only after it.
func (p *pageStore) finish() error {
	if err := p.writePending(); err != nil {
		return err
	}
	p.pend = nil
	p.blk = nil
	if p.file.W != nil {
		if err := p.file.W.Flush(); err != nil {
			return memory.ErrTempSpace(fmt.Sprintf("writing temp file: %v", err))
		}
		p.file.W = nil // its buffer: the store is only read from now on
	}
	return nil
}

// blockBytes is the file's average block size, an estimate of what a cached
// block holds in memory.
func (p *pageStore) blockBytes() int64 {
	if len(p.offs) < 2 {
		return 0
	}
	return (p.offs[len(p.offs)-1] - p.offs[0]) / int64(len(p.offs)-1)
}

// block returns block k decoded (valid until the store's next read).
func (p *pageStore) block(k int) (*vec.Batch, error) {
	if s := &p.slots[p.last]; s.k == k {
		return &s.dec.B, nil
	}
	victim := 0
	for i := range p.slots {
		s := &p.slots[i]
		if s.k == k {
			p.tick++
			s.used, p.last = p.tick, i
			return &s.dec.B, nil
		}
		if s.used < p.slots[victim].used {
			victim = i
		}
	}
	s := &p.slots[victim]
	s.k = -1
	lo, hi := p.offs[k], p.offs[k+1]
	p.raw = memory.ResizeSlice(p.raw, int(hi-lo))
	if _, err := p.file.F.ReadAt(p.raw, lo); err != nil {
		return nil, memory.ErrTempSpace(fmt.Sprintf("reading temp file: %v", err))
	}
	l, h := binary.Uvarint(p.raw)
	if h <= 0 || uint64(len(p.raw)-h) != l {
		return nil, memory.ErrBadSpill
	}
	if s.dec == nil {
		s.dec = memory.NewBlockDecoder(p.ts)
	}
	if _, err := s.dec.Decode(p.raw[h:]); err != nil {
		return nil, err
	}
	p.tick++
	s.k, s.used, p.last = k, p.tick, victim
	return &s.dec.B, nil
}

// row returns the block holding row r and r's place in it.
func (p *pageStore) row(r int) (*vec.Batch, int, error) {
	b, err := p.block(r / pageRows)
	return b, r % pageRows, err
}

// Close removes the file.
func (p *pageStore) Close() {
	if p != nil {
		p.file.Close()
	}
}
