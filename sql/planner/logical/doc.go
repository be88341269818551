// Package logical is the typed logical plan: relational nodes, each with
// its output columns (a name and a types.T), that the binder builds, the
// optimizer's rules (sql/planner/optimize) rewrite and physical planning
// (sql/planner/physical) turns into exec operators. It knows no SQL text,
// no session and no exec operators beyond the leaves that hold them
// (Planned; Get, holding the table scan the planner set up and pruned).
//
// The plan is being moved here from the planner slice by slice. What is
// here now: set operations (SetOp), the aggregation of a SELECT block —
// GROUP BY, grouping sets, every aggregate call with its DISTINCT, FILTER,
// ORDER BY or WITHIN GROUP, HAVING (Aggregate, Filter) — its tail — its
// select list, DISTINCT or DISTINCT ON, ORDER BY, LIMIT / OFFSET (Project,
// Distinct, DistinctOn, Sort, Limit) — its window functions (Window: one
// node per distinct PARTITION BY / ORDER BY, stacked over a Project of
// their inputs, each call with its frame) — and the ORDER BY / LIMIT that
// follow a set operation or a VALUES list, and the nodes the set-operation
// rules produce (Aggregate, Filter). The correlated subqueries over a
// block's groups (in its select list, HAVING or ORDER BY), and those
// testing a window call's value (x IN (subquery) where x holds one), are
// Apply nodes above the aggregation or the windows, each holding its
// subquery as the planner planned it (Subquery: the seam for subqueries,
// as Planned is for operators). The inner joins of a FROM list are a
// JoinGraph of its items — a lake table's Get and the Filters of the
// conjuncts on it alone, an explicit JOIN of any kind as a Join (under a
// Project of its merged columns when written with USING or NATURAL), an
// EXISTS or IN subquery decorrelated on an item as a semi, anti or
// null-aware anti Join over it, any other item (a derived table, a WITH
// query's reader) a Planned leaf — with the predicates over several items
// and the estimates join ordering weighs; the join_order rule turns it
// into a tree of Joins. That tree, and the filters and semi joins above
// it, are the input of the SELECT block's aggregation, windows and tail:
// one plan per block, whose nodes the planner builds as it plans them (it
// estimates and decorrelates over their operators) and physical planning
// gets back unchanged. Aggregates and window functions are named
// by AggFunc and WinFunc, one per executor kind, so that this package
// needs no operator package. Everything else the planner still plans into exec operators directly; such a
// subtree enters a logical plan as a Planned leaf, the transition seam:
// rules see its columns and whether its rows are known to be distinct,
// never its operators, and physical planning puts it back as it is.
//
// Scalar expressions are still exec.Expr in this slice (a later one gives
// them a logical form of their own); nodes hold them but rules only build
// the simplest (column references, constants, comparisons).
//
// Node is kept small on purpose: its columns and its inputs. What a rule
// needs of a particular node it gets by a type switch; WithInputs rebuilds
// any node over new inputs, so that the optimizer's driver can walk every
// tree without knowing the node types. String prints a plan
// deterministically for the data-driven tests and EXPLAIN (LOGICAL).
package logical
