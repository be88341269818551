package pgcatalog

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
