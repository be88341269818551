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
