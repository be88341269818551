// Package planner compiles a query: it binds a parsed statement (pg_query
// tree) against a DuckLake snapshot with PostgreSQL's name and type rules,
// applies the planner's named rules (rules.go: which ones ran, which are
// switched off by lakepg.disabled_rules), orders joins from row estimates
// (estimate.go, ndv.go; enumeration in sql/joinorder), decorrelates
// subqueries, and builds the exec operators that run it, EXPLAIN included.
//
// It knows nothing of the commands with side effects or of the session
// beside it: what it needs of the session (the snapshot a statement reads,
// the open block's staged writes, views, temporary tables, privileges,
// sequences, notices) it asks through Host, which package sql implements.
package planner
