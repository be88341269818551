package planner

import (
	"runtime"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// parallelWindows reports whether the windows with PARTITION BY of SELECT
// block sel may evaluate their partitions on every core (rule
// parallel_windows; logical.Window.Parallel): aggregate.Window deals its
// buffered rows to the workers by a hash of the partition keys (a stack
// of windows once, by the keys they share). The rows come out a share of
// partitions after another rather than in the partition keys' order. A
// query's ORDER BY sorts above its windows, and the joins, filters and
// aggregates over a derived table or WITH query owe its order nothing;
// but the client sees the rows of the outermost SELECT as they come, and
// PostgreSQL gives them in partition order, so the outermost block's
// windows run in parallel only under its ORDER BY.
func (qc *QueryCtx) parallelWindows(sel *pg.SelectStmt) bool {
	return (len(sel.SortClause) > 0 || sel != qc.top) && runtime.GOMAXPROCS(0) >= 2 && qc.ruleOn(ruleParallelWindows)
}
