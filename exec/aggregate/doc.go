// Package aggregate computes aggregates: HashAgg groups rows and folds
// them into aggregate states (GROUP BY, GROUPING SETS and ROLLUP, DISTINCT
// and ordered-set aggregates), and Window evaluates window functions —
// ranking, offsets and the same aggregate states over frames.
//
// Aggregate states are column-major by dense group id (aggfuncs.go); the
// same states serve HashAgg, the merge of per-worker partial aggregates
// and window frames, which is why windows live here and not in a package
// of their own. Above an exec.Parallel, HashAgg aggregates inside each
// worker and merges the partial states once, or splits the groups by hash
// between the workers when there are many (aggradix.go, aggmerge.go).
// Aggregation spills partitions of its input to temp files (aggspill.go),
// windows spill sorted runs and keep large partitions in a page store
// (windowspill.go, windowpaged.go, pagestore.go).
//
// Both operators sit on exec's: they take an exec.Operator as input,
// evaluate exec.Expr arguments and use exec's sort key encoding. exec
// never imports this package; the planner builds these operators beside
// exec's (exec.Replanned reaches them through ResetTypes).
package aggregate
