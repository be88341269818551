package pgcatalog

import (
	"testing"

	"github.com/lakepg/lakepg/catalog"
)

func TestToastRelations(t *testing.T) {
	c := testContext()
	c.Meta.Tables = append(c.Meta.Tables,
		// fixed-size and length-bounded columns only: no TOAST table, as in PostgreSQL
		catalog.Table{ID: 5, SchemaID: 3, Name: "fixed", Columns: []catalog.Column{
			{ID: 1, Name: "id", Type: "int64"}, {ID: 2, Name: "amount", Type: "decimal(12,2)"}, {ID: 3, Name: "at", Type: "timestamptz"}}},
		catalog.Table{ID: 6, SchemaID: 3, Name: "blobs", Columns: []catalog.Column{
			{ID: 1, Name: "id", Type: "int64"}, {ID: 2, Name: "b", Type: "blob"}}})
	cls := rows(t, "pg_catalog", "pg_class", c)
	eq(t, "fixed", pick(filter(cls, "relname", "fixed"), "oid", "reltoastrelid"), []string{"16389|0"})
	eq(t, "blobs", pick(filter(cls, "relname", "blobs"), "oid", "reltoastrelid"), []string{"16390|1610629126"})
	eq(t, "blobs' TOAST table", pick(filter(cls, "oid", "1610629126"), "relname", "relnamespace", "relkind", "reltype", "relnatts"),
		[]string{"pg_toast_16390|99|t|0|3"})
	// a TOAST OID lies between the row types' and the column defaults'
	if o := toastOID(RelationOID(6)); o <= rowTypeOID(RelationOID(1<<20)) || o >= attrdefOID(0, 0) {
		t.Errorf("toastOID = %d", o)
	}
}

// The TOAST answers kept per array of tables: a later version of the
// array (more tables at its end) reuses and extends them, an earlier one
// takes their prefix, and another array is read anew.
func TestTablesToastKeptPerArray(t *testing.T) {
	tbl := func(id int64, typ string) catalog.Table {
		return catalog.Table{ID: id, SchemaID: 1, Name: "t", Columns: []catalog.Column{{ID: 1, Name: "c", Type: typ}}}
	}
	arr := []catalog.Table{tbl(1, "int64"), tbl(2, "varchar"), tbl(3, "blob"), tbl(4, "int32")}
	check := func(what string, got []bool, want ...bool) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: %v, want %v", what, got, want)
			}
		}
	}
	check("two tables", tablesToast(arr[:2]), false, true)
	check("the array grown", tablesToast(arr[:4]), false, true, true, false)
	check("an earlier version", tablesToast(arr[:3]), false, true, true)
	other := []catalog.Table{tbl(1, "varchar"), tbl(2, "int64"), tbl(3, "int64"), tbl(4, "text")}
	check("another array", tablesToast(other), true, false, false, true)
	mv := []catalog.Table{tbl(1, "varchar")}
	mv[0].MatView = "SELECT 'x'::text"
	check("a materialized view's table", tablesToast(mv), false)
	check("none", tablesToast(nil))
}
