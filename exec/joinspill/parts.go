// Package joinspill is what a hash join does once its build side outgrows
// memory, below the executor's operators: partition files by key hash
// (Parts), the partition-by-partition join of a spilled build and probe
// (Spill), and the join by chunks of a partition hashing cannot split
// (ChunkJoin), which nested-loop joins share. Set operations and
// recursive unions partition their rows by the same files. The join
// itself, its keys and expressions, stay in exec: this package is handed
// key vectors and operators and knows no join type, only what a join
// type asks of it.
package joinspill

import (
	"context"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Operator is exec's operator as this package reads and returns them.
type Operator interface {
	Types() []types.T
	Next(ctx context.Context) (*vec.Batch, error)
	Close() error
}

const (
	PartBits   = 4
	Partitions = 1 << PartBits
	// MaxLevel is the deepest partitioning level: each level takes the
	// next PartBits bits of a 64-bit hash
	MaxLevel = 64/PartBits - 1
)

// Parts is one side's partition files.
type Parts struct {
	types  []types.T
	kind   string
	qs     *memory.SpillStats
	parts  [Partitions]*memory.SpillPart
	total  int64
	hs     []uint64
	byPart [Partitions][]int32
}

// NewParts makes partition files for rows of types ts, named kind and
// counted in qs (nil: not counted).
func NewParts(ts []types.T, kind string, qs *memory.SpillStats) *Parts {
	return &Parts{types: ts, kind: kind, qs: qs}
}

// Add routes the rows of b by the hash of keys (one vector per key column)
// at level's bits; one=true sends every row to partition 0.
func (jp *Parts) Add(b *vec.Batch, keys []*vec.Vector, level int, one bool) error {
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
			if err := jp.Write(0, b, rows); err != nil {
				return err
			}
		}
		return nil
	}
	jp.hs = memory.ResizeSlice(jp.hs, n)
	for i, k := range keys {
		memory.HashColumn(jp.hs, k, n, i == 0)
	}
	shift := uint(64 - PartBits*(level+1))
	for lo := 0; lo < n; lo += vec.BatchSize {
		hi := min(lo+vec.BatchSize, n)
		for p := range jp.byPart {
			jp.byPart[p] = jp.byPart[p][:0]
		}
		for i := lo; i < hi; i++ {
			p := int(jp.hs[i]>>shift) & (Partitions - 1)
			jp.byPart[p] = append(jp.byPart[p], int32(i))
		}
		for p, rows := range jp.byPart {
			if len(rows) > 0 {
				if err := jp.Write(p, b, rows); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Write appends rows of b to partition p.
func (jp *Parts) Write(p int, b *vec.Batch, rows []int32) error {
	pt := jp.parts[p]
	if pt == nil {
		f, err := memory.NewSpillFile(memory.GlobalSpill, jp.qs, jp.kind)
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

// Finish writes out what the partitions still buffer.
func (jp *Parts) Finish() error {
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

// Rows is the number of rows written to partition p.
func (jp *Parts) Rows(p int) int64 {
	if pt := jp.parts[p]; pt != nil {
		return pt.Rows
	}
	return 0
}

// Part is partition p's file (nil: no rows went to it).
func (jp *Parts) Part(p int) *memory.SpillPart { return jp.parts[p] }

// Types are the rows' types.
func (jp *Parts) Types() []types.T { return jp.types }

// Scan reads partition p back (an empty operator when it has no rows).
func (jp *Parts) Scan(p int) (Operator, error) {
	return scanPart(jp.parts[p], jp.types)
}

func scanPart(pt *memory.SpillPart, ts []types.T) (Operator, error) {
	if pt == nil || pt.Rows == 0 {
		return &Empty{T: ts}, nil
	}
	rd, err := pt.File.Reader()
	if err != nil {
		return nil, err
	}
	return &memory.SpillScan{Rd: rd, Dec: memory.NewBlockDecoder(ts)}, nil
}

// ClosePart removes partition p's file.
func (jp *Parts) ClosePart(p int) {
	if pt := jp.parts[p]; pt != nil {
		pt.File.Close()
		jp.parts[p] = nil
	}
}

// Close removes every partition's file.
func (jp *Parts) Close() {
	for p := range jp.parts {
		jp.ClosePart(p)
	}
}

// Empty has no rows.
type Empty struct{ T []types.T }

func (e *Empty) Types() []types.T                         { return e.T }
func (e *Empty) Next(context.Context) (*vec.Batch, error) { return nil, nil }
func (e *Empty) Close() error                             { return nil }
