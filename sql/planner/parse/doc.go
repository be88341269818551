// Package parse turns statement text into pg_query's tree: PostgreSQL's own
// parser (pg_query_go) for everything, and a parser in Go for the simplest
// INSERT … VALUES of literals that builds the very same tree without the
// cgo call (fastparse.go). The planner and the session start from its
// trees; it knows nothing of what the statements mean.
package parse
