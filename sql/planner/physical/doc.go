// Package physical turns a logical plan (sql/planner/logical), after the
// optimizer's rules, into the exec operators that run it. It decides how
// each node runs — a UNION without ALL as an aggregation over an append,
// a Sort under a LIMIT keeping only the rows the limit can return, a
// Distinct or an Aggregate as a hash aggregation (AggFunc maps the
// executor's aggregate kinds to the logical ones for the planner), a
// Parallel window dealt to every core (LogicalWindowCall maps the
// executor's window functions the binder gives to the logical ones) — and
// nothing of what the plan computes: that is fixed before it.
//
// A Planned leaf, a subtree the planner built as operators already (the
// transition seam, see package logical), is put back as it is, and an
// Apply's subquery goes over its input as the planner planned it. Passes over
// the whole operator tree (column pruning, parallel pipelines, admission)
// stay after this, in the planner.
package physical
