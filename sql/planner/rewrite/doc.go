// Package rewrite holds rewrites of pg_query expression trees that need
// no scope, catalog or session: what they change is decided by the shape
// of the tree alone (an OR of ranges of one column as one range,
// or_ranges.go; the conditions col = constant implies across an outer
// join's ON equalities, implied.go). The planner applies them as named
// rules.
package rewrite
