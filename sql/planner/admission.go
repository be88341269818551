package planner

import (
	"context"
	"runtime"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner/optree"
)

// Admission bounds how many statements work on lake data at once. Every
// statement already uses all cores (morsel-parallel scans, parallel hash
// builds), so running more of them side by side only shares the same cores
// more finely while each holds its hash tables and buffers: with 64 TPC-H
// clients every query took 64 times as long and memory grew to gigabytes.
// Admitted statements run at full speed; the others wait, first come first
// served, and the waiting costs nothing.
//
// A statement waits for a slot once, before it computes its first batch,
// and holds it only while it does: a blocking plan (aggregation, sort, hash
// build) does nearly all its work in that first call. Later batches need no
// slot, for two reasons. A statement that had to queue again for each
// batch would finish only after every statement behind it had computed
// (measured: six Q1s all finished together, at six times the latency of
// the first). And a slot held across batches would be held while the
// server waits for its client (a portal suspended by a row limit, an open
// cursor, a slow reader), so idle clients could starve busy ones.
// Statements that read less than MinScanBytes of files (catalog queries,
// point lookups, small dimension tables) are not counted: they never wait
// behind a large scan.
type Admission struct {
	// MinScanBytes is the size of the files a statement reads below which
	// it runs without a slot: it finishes in milliseconds.
	MinScanBytes int64

	slots   chan struct{}
	waiting atomic.Int64
	running atomic.Int64
}

// NewAdmission admits at most n statements at once; n <= 0 means no limit
// (nil Admission).
func NewAdmission(n int) *Admission {
	if n <= 0 {
		return nil
	}
	return &Admission{slots: make(chan struct{}, n), MinScanBytes: 16 << 20}
}

// DefaultActiveQueries is the default limit: the number of cores, at
// least two so that a statement waiting on storage leaves the cores to
// another.
func DefaultActiveQueries() int { return max(2, runtime.GOMAXPROCS(0)) }

// Limit is the number of slots, 0 for none.
func (a *Admission) Limit() int {
	if a == nil {
		return 0
	}
	return cap(a.slots)
}

// Waiting and Running are the statements waiting for a slot and holding one.
func (a *Admission) Waiting() int64 {
	if a == nil {
		return 0
	}
	return a.waiting.Load()
}

func (a *Admission) Running() int64 {
	if a == nil {
		return 0
	}
	return a.running.Load()
}

// Acquire takes a slot, or fails with 57014 when ctx ends first (a cancel or
// statement_timeout reaches a waiting statement too).
func (a *Admission) Acquire(ctx context.Context) error {
	select {
	case a.slots <- struct{}{}:
	default:
		a.waiting.Add(1)
		select {
		case a.slots <- struct{}{}:
			a.waiting.Add(-1)
		case <-ctx.Done():
			a.waiting.Add(-1)
			return pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
		}
	}
	a.running.Add(1)
	return nil
}

func (a *Admission) Release() {
	a.running.Add(-1)
	<-a.slots
}

// AdmittedOp computes its input's first batch under an admission slot.
type AdmittedOp struct {
	exec.Operator
	Adm     *Admission
	started bool
}

func (o *AdmittedOp) Next(ctx context.Context) (*vec.Batch, error) {
	if o.started {
		return o.Operator.Next(ctx)
	}
	if err := o.Adm.Acquire(ctx); err != nil {
		return nil, err
	}
	defer o.Adm.Release()
	o.started = true
	return o.Operator.Next(ctx)
}

// ScanBytes sums the sizes of the data and delete files op's scans read.
func ScanBytes(op exec.Operator, chains map[*exec.Parallel]exec.Operator) int64 {
	var n int64
	switch o := op.(type) {
	case *exec.TableScan:
		for _, f := range o.Files {
			n += f.Size + f.DeleteSize
		}
		return n
	case *aggregate.HashAgg:
		if _, exact := exec.ExactRowsOf(o.Input); exact && o.CountOnly() {
			return 0 // answered from the catalog's counts
		}
	case *exec.Parallel:
		if orig, ok := chains[o]; ok {
			return ScanBytes(orig, chains)
		}
		return ScanBytes(o.Scan, chains)
	}
	for _, in := range optree.Inputs(op) {
		n += ScanBytes(*in, chains)
	}
	return n
}
