package pgcatalog

import "strconv"

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
	for _, a := range attributes(rel) {
		if t := typeByOID[a.typ]; t != nil && t.len == -1 && t.storage != "p" && a.typmod < 0 {
			return true
		}
	}
	return false
}

// toastRow is the pg_class row of rel's TOAST relation.
func toastRow(rel *relation) vals {
	oid := toastOID(rel.oid)
	ns, persistence := int64(toastNamespace), "p"
	if rel.temp {
		ns, persistence = rel.toastNS, "t"
	}
	return vals{"oid": oid, "relname": "pg_toast_" + strconv.FormatInt(rel.oid, 10), "relnamespace": ns,
		"reltype": 0, "reloftype": 0, "relowner": superuserOID, "relam": heapAM, "relfilenode": oid,
		"reltablespace": 0, "relpages": 0, "reltuples": -1, "relallvisible": 0, "reltoastrelid": 0,
		"relhasindex": false, "relisshared": false, "relpersistence": persistence, "relkind": "t",
		"relnatts": 3, "relchecks": 0, "relhasrules": false, "relhastriggers": false,
		"relhassubclass": false, "relrowsecurity": false, "relforcerowsecurity": false,
		"relispopulated": true, "relreplident": "n", "relispartition": false, "relrewrite": 0,
		"relfrozenxid": frozenXID, "relminmxid": 1, xminColumn: rel.xmin()}
}
