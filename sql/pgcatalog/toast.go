package pgcatalog

import (
	"sync"
	"weak"

	"github.com/lakepg/lakepg/catalog"
)

// TOAST. PostgreSQL gives a table a TOAST relation (pg_toast.pg_toast_<oid>,
// relkind 't') when a column can hold values of unbounded length, and
// admin tools read pg_class.reltoastrelid (pgAdmin shows a table's TOAST
// options only when it is set). Lake tables store long values in Parquet
// pages, not out of line, but pg_class reports the TOAST relation
// PostgreSQL would have made, so that a lake table looks like the same
// table created in PostgreSQL. The relation is listed in pg_class only:
// it has no columns, index or row type to read.

// toastOID is the OID of the TOAST relation of the lake table with
// relation OID relOID: above the row types' range (2^30 + relation OID)
// and below the column defaults' (2^31 + ...).
func toastOID(relOID int64) int64 { return 1<<30 + 1<<29 + relOID }

// needsToast reports whether PostgreSQL would give rel a TOAST relation:
// a plain lake table with a variable-length, non-plain-storage column
// without a length bound (text, varchar, bytea, json; a numeric(p,s) is
// bounded by its typmod). Bounded columns that sum past a page's TOAST
// threshold also get one in PostgreSQL; lakepg's stored types never do
// (the bounded ones are numeric(p,s) of at most 38 digits).
func needsToast(rel *relation) bool {
	if rel.lake == nil || rel.kind != "r" {
		return false
	}
	for i := range rel.lake.Columns {
		// the column's type only, not attributes' whole description (its
		// default's text): pg_class asks this of every table
		oid, typmod := lakeColumnType(&rel.lake.Columns[i]) // charn.go
		if t := typeByOID[oid]; t != nil && t.len == -1 && t.storage != "p" && typmod < 0 {
			return true
		}
	}
	return false
}

// arrayToast is needsToast of the tables of one array of the metadata's
// tables, by index, kept for the next statements: the answer reads each
// table's column types, a few cache misses per table (about 2.5 ms of
// psql's \dt at 10,000 tables). The metadata's versions share their array
// of tables, which only grows at its end, a table's row never changing in
// it (any other change loads a new array: catalog/metadelta.go), so the
// answers for a shorter version of the array are a prefix of a longer
// one's and a table created since adds one. One array is kept, weakly (by
// its first table): the last one listed.
var arrayToast struct {
	mu      sync.Mutex
	first   weak.Pointer[catalog.Table]
	toasted []bool
}

// tablesToast is needsToast of each table of tables, by index.
func tablesToast(tables []catalog.Table) []bool {
	if len(tables) == 0 {
		return nil
	}
	arrayToast.mu.Lock()
	var known []bool
	if arrayToast.first.Value() == &tables[0] {
		known = arrayToast.toasted
	}
	arrayToast.mu.Unlock()
	if len(known) >= len(tables) {
		return known[:len(tables):len(tables)]
	}
	out := make([]bool, len(tables))
	copy(out, known)
	for i := len(known); i < len(tables); i++ {
		t := &tables[i]
		kind := "r"
		if t.MatView != "" {
			kind = "m"
		}
		out[i] = needsToast(&relation{lake: t, kind: kind})
	}
	arrayToast.mu.Lock()
	arrayToast.first, arrayToast.toasted = weak.Make(&tables[0]), out
	arrayToast.mu.Unlock()
	return out
}

// relToast is needsToast(rel), from toasted (tablesToast of the Context's
// metadata) for the metadata's tables.
func relToast(rel *relation, toasted []bool) bool {
	if rel.metaPos > 0 && int(rel.metaPos) <= len(toasted) && !rel.temp {
		return toasted[rel.metaPos-1]
	}
	return needsToast(rel)
}
