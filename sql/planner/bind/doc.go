// Package bind binds expressions: it resolves the names of a pg_query
// expression tree against a Scope of columns and turns it into exec
// expressions with PostgreSQL's type rules (bind.go: operators, casts,
// CASE, coercions); it binds function calls (funcs.go) — the exec/fn
// library, arrays (array.go, pgcatalog_arrays.go), JSON (json_ops.go,
// pgcatalog_json.go), bitwise operators, time zones (timezone.go), the
// pg_catalog functions tools call and the reg* casts (pgcatalog_funcs.go,
// aclexplode.go), set-returning calls (srf*.go), set_config — and
// collects the aggregates (funcs.go, outer_agg.go) and window functions
// (window.go) of a SELECT, which it plans over their input.
//
// It plans no queries: a subquery inside an expression, a column of an
// enclosing query and the values of set-returning calls already run come
// from the planner above it through Planner, the expressions above an
// aggregation through PostBinder, and what its functions read of the
// session through Session and Host.
package bind
