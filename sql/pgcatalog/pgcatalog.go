// Package pgcatalog emulates PostgreSQL's system catalogs (pg_catalog) and
// information_schema over the lake's DuckLake metadata, so that drivers and
// BI tools that introspect a "PostgreSQL" find the lake's schemas, tables
// and columns with the OIDs, types and names PostgreSQL would give them.
package pgcatalog

import (
	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Column is one column of a system table.
type Column struct {
	Name string
	Type types.T
}

// Context is what a system table reads: the lake at the statement's
// snapshot and the session.
type Context struct {
	Meta       *catalog.Metadata
	User       string
	Database   string
	SearchPath []string
	Settings   map[string]string
	PID        int32
}

// Table is a system table: its columns and a function producing its rows.
type Table struct {
	Name string
	Cols []Column
	Rows func(c *Context) (*vec.Batch, error)
}

// Lookup finds a system table by schema ("pg_catalog" or
// "information_schema") and name.
func Lookup(schema, name string) (*Table, bool) {
	t, ok := tables[schema+"."+name]
	return t, ok
}

var tables = map[string]*Table{}
