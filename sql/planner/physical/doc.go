// Package physical turns a logical plan (sql/planner/logical), after the
// optimizer's rules, into the exec operators that run it. It decides how
// each node runs — a UNION without ALL as an aggregation over an append,
// a Sort under a LIMIT keeping only the rows the limit can return, a
// Distinct or an Aggregate as a hash aggregation (AggFunc maps the
// executor's aggregate kinds to the logical ones for the planner), a
// Parallel window dealt to every core (LogicalWindowCall maps the
// executor's window functions the binder gives to the logical ones, a Join
// with keys as a hash join, its right side built into the table, without
// as a nested loop, each of its filters a Filter above it) — and nothing
// of what the plan computes: that is fixed before it. A Builder with Built
// builds each node once: the planner builds a join graph's items into
// operators first (it estimates them and runs subqueries over them) and
// the joins over those same operators after the join order is chosen.
//
// A Planned leaf, a subtree the planner built as operators already (the
// transition seam, see package logical), is put back as it is, and an
// Apply's subquery goes over its input as the planner planned it. Passes over
// the whole operator tree (column pruning, parallel pipelines, admission)
// stay after this, in the planner.
package physical
