// Package planner compiles a query: it binds a parsed statement (pg_query
// tree) against a DuckLake snapshot with PostgreSQL's name and type rules,
// applies the planner's named rules (rules.go: which ones ran, which are
// switched off by lakepg.disabled_rules), orders joins from row estimates
// (join_order.go; enumeration in sql/joinorder), decorrelates subqueries,
// and builds the exec operators that run it, EXPLAIN included.
//
// The query pipeline is moving to bind → typed logical plan → ordered
// named rules → physical planning, part by part. The parts moved so far,
// set operations, the aggregation of a SELECT block (GROUP BY, grouping
// sets, the aggregate calls, HAVING: aggregateNode), its windows
// (windowNode), its tail (select list, DISTINCT, ORDER BY, LIMIT:
// finishNode) and the ORDER BY / LIMIT after a set operation or VALUES,
// are built as a logical plan
// (logical_plan.go, package logical) for every query, rewritten by
// the rules of package optimize and turned into operators by package
// physical; the rest of a query is still planned into operators here and
// enters a logical plan as its Planned leaf. The rules that weigh
// estimates (eager_aggregation) get the planner's through
// plan_estimates.go. What else rewrites aggregations still works on
// operators or before the Aggregate is built: min/max from statistics
// (minmax.go) on the operator tree after physical planning, the group
// keys a primary key implies (groupby_pk.go) on the collected keys.
//
// Its stages below it are packages of their own, which it imports:
// parse (statement text to pg_query's tree), bind (expressions, functions,
// aggregates and windows bound into exec expressions), estimate (row
// estimates for join order and EXPLAIN), optree (column pruning, parallel
// pipelines and fold errors over the built operator tree), laketypes
// (what a lake table's columns read as), logical, optimize and
// physical (the logical plan, its rules, its operators), and
// runtimefilter (the filters joins hand the scans below them at run
// time). The planner itself owns queries: FROM and joins, subqueries, set operations, WITH, views, the rules and
// EXPLAIN; it keeps the binder's names package sql uses (bind_api.go,
// moved.go).
//
// It knows nothing of the commands with side effects or of the session
// beside it: what it needs of the session (the snapshot a statement reads,
// the open block's staged writes, views, temporary tables, privileges,
// sequences, notices) it asks through Host, which package sql implements.
package planner
