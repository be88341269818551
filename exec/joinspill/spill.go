package joinspill

import (
	"context"
	"sync"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Hash joins spill by grace partitioning. While the build side fits its
// reservation the join is the in-memory one. When it does not, the rows
// buffered so far and the rest of the build side are written to
// Partitions files by bits of their key hash, the memory is given back,
// the probe side is written to as many files by the same bits, and then
// each pair of files is joined by a hash join of its own, which partitions
// again on the next bits if its build side is still too big. A row's
// matches all share its key, hence its partition, so every join type works
// partition by partition; NULL keys, which match nothing, land in some
// partition and come out there as the join type says (unmatched for outer
// and anti joins).
//
// Two cases cannot be split by hash and are joined by chunks instead (block
// nested loop over the spilled files, each chunk of build rows indexed as a
// hash table, see ChunkJoin): a partition that re-partitioning did not
// split (one key with more rows than memory), and NOT IN, whose NULL keys
// compare unknown with every row of the other side.
//
// A partition's join, and a chunk, may hold the memory floor
// (memory.Reservation.Floor) even when other holders have filled the
// pool: without it a partition join under a full pool spilled at its
// first batch, level after level, until its partitions held a row or two
// each, and every tiny partition read its probe file again.
//
// A build side shared by parallel probes spills once; every probe writes
// its rows to the shared probe files and the last one to finish joins the
// partitions (the others end), so the partition phase runs on one worker.

// Spill is a spilled hash join: its build side's partitions, then its
// probe side's, then the partition-by-partition join.
type Spill struct {
	Level int
	One   bool // every row in partition 0, joined by chunks (NOT IN)
	Right *Parts
	left  *Parts
	mu    sync.Mutex // probes of a shared build write left at once
	done  bool       // left is complete
	cur   int
	sub   Operator
	once  sync.Once
}

// Close removes the files (once, whichever probe of a shared build calls).
func (js *Spill) Close() {
	js.once.Do(func() {
		if js.sub != nil {
			js.sub.Close()
			js.sub = nil
		}
		js.Right.Close()
		if js.left != nil {
			js.left.Close()
		}
	})
}

// StartProbe readies the probe side's files for rows of types ts; the
// probes of a shared build all call it, the first one makes them.
func (js *Spill) StartProbe(ts []types.T, qs *memory.SpillStats) {
	js.mu.Lock()
	if js.left == nil {
		js.left = NewParts(ts, "join", qs)
	}
	js.mu.Unlock()
}

// AddProbe writes one probe batch, whose key vectors are keys.
func (js *Spill) AddProbe(b *vec.Batch, keys []*vec.Vector) error {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.left.Add(b, keys, js.Level, js.One)
}

// EndProbe marks the probe side complete: the partitions can be joined.
func (js *Spill) EndProbe() error {
	if err := js.left.Finish(); err != nil {
		return err
	}
	js.done = true
	return nil
}

// Left is the probe side's partitions.
func (js *Spill) Left() *Parts { return js.left }

// Chunked reports whether partition p is joined by chunks: hashing cannot
// split it (NOT IN, every build row in it, or no bits left).
func (js *Spill) Chunked(p int) bool {
	return js.One || js.Right.Rows(p) == js.Right.total || js.Level+1 > MaxLevel
}

// Next returns the next rows of the partitions' joins, made one at a time
// by join; a partition without build rows is skipped unless keepsProbe
// (the join type outputs probe rows without a match), one without probe
// rows unless keepsBuild. Before EndProbe it has no rows.
func (js *Spill) Next(ctx context.Context, keepsBuild, keepsProbe bool, join func(p int) (Operator, error)) (*vec.Batch, error) {
	if !js.done {
		return nil, nil
	}
	for js.cur < Partitions {
		p := js.cur
		if js.sub == nil {
			nl, nr := js.left.Rows(p), js.Right.Rows(p)
			if (nl == 0 && nr == 0) || (nl == 0 && !keepsBuild) || (nr == 0 && !keepsProbe) {
				js.closePart(p)
				continue
			}
			sub, err := join(p)
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
		js.closePart(p)
	}
	return nil, nil
}

func (js *Spill) closePart(p int) {
	js.left.ClosePart(p)
	js.Right.ClosePart(p)
	js.cur++
}
