// Package tablelayout owns how a table's rows are laid out in its files:
// DuckLake partitioning (ALTER TABLE … SET PARTITIONED BY, DuckDB's
// spelling rewritten to a statement PostgreSQL parses) and sort order
// (SET SORTED BY), kept in the catalog as DuckDB keeps them, the sort
// every write puts its rows through when the table has an order, and the
// Parquet writer options of its files (row group size, compression).
package tablelayout

import (
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/planner"
)

// Layouts runs the layout DDL and sorts writes for one session. Host is
// the session (package sql); the embedded planner.Session its settings
// and the lake.
type Layouts struct {
	Host
	*planner.Session
}

// Host is what tablelayout asks of the session.
type Host interface {
	// the open block's staged commit, whose layout changes a write in the
	// block follows; nil outside a block or before it staged anything
	StagedCommit() *snapshot.Commit
}
