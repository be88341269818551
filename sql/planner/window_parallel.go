package planner

import (
	"runtime"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
)

// parallelWindows lets the windows with PARTITION BY at the top of op
// evaluate their partitions on every core: aggregate.Window deals its
// buffered rows to the workers by a hash of the partition keys (a stack of
// windows once, by the keys they share) when there are enough of them.
// The rows come out a share of partitions after another rather than in
// the partition keys' order. A query's ORDER BY sorts above its windows,
// and the joins, filters and aggregates over a derived table or WITH query
// owe its order nothing; but the client sees the rows of the outermost
// SELECT as they come, and PostgreSQL gives them in partition order, so
// the outermost block's windows run in parallel only under its ORDER BY
// (placeWindows).
func (qc *QueryCtx) parallelWindows(op exec.Operator) {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || !qc.ruleOn(ruleParallelWindows) {
		return
	}
	for {
		w, ok := op.(*aggregate.Window)
		if !ok {
			return
		}
		if len(w.PartitionBy) > 0 {
			w.Workers = workers
			qc.fired(ruleParallelWindows)
		}
		op = w.Input
	}
}
