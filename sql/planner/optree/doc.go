// Package optree rewrites a built tree of exec operators before it runs:
// the columns nothing above reads are pruned (columns.go), pipelines over
// table scans are made morsel-parallel (parallel.go), the errors
// PostgreSQL raises while folding constants are raised (foldcheck.go), and
// expressions a projection writes several times are computed once
// (cse.go). It knows operators, not SQL: the planner calls it on the plans
// it builds.
package optree
