// Package optimize rewrites a logical plan (sql/planner/logical) by an
// ordered list of named rules, one file each. It knows the logical nodes,
// the types and, until expressions have a logical form, exec's scalar
// expressions; it knows no SQL, no session and no exec operators (physical
// planning, sql/planner/physical, comes after it).
//
// A rule rewrites one node whose inputs it has already rewritten: Apply
// returns the node (or a new one) and how many changes it made. The
// driver, Optimize, owns the rest: it runs the rules in the order of
// Rules, each over the whole plan bottom-up until it changes nothing,
// skips the rules the session switched off (lakepg.disabled_rules),
// reports the changes of each rule (EXPLAIN (VERBOSE)'s "Rules applied"),
// and checks after every change that the node kept its columns' types: a
// rule that changes them is a bug, reported as an internal error rather
// than run. A rule that weighs estimates (eager_aggregation) gets the
// planner's through Estimates, which Optimize is given: rows and distinct
// values of the nodes the planner can estimate, none for the others.
//
// The planner's other rules still rewrite exec operator trees in
// sql/planner; they move here as the parts of the plan they rewrite
// become logical nodes.
package optimize
