package pgcatalog

import (
	"fmt"
	"testing"

	"github.com/lakepg/lakepg/catalog"
)

// bigLake is a Context of n lake tables of three columns each (one text),
// their names and type strings allocated one by one as a catalog read
// makes them.
func bigLake(n int) *Context {
	c := testContext()
	c.Meta.Tables = make([]catalog.Table, n)
	for i := range c.Meta.Tables {
		c.Meta.Tables[i] = catalog.Table{ID: int64(100 + i), SchemaID: 1, Name: fmt.Sprintf("t%05d", i), BeginSnapshot: int64(i),
			Columns: []catalog.Column{{ID: 1, Name: "id", Type: fmt.Sprint("int", 64)}, {ID: 2, Name: "name", Type: fmt.Sprint("var", "char")},
				{ID: 3, Name: "v", Type: fmt.Sprint("float", 64)}}}
	}
	return c
}

// BenchmarkClassDt is what psql's \dt asks of pg_class, pg_namespace and
// pg_table_is_visible at 10,000 tables (one Context per statement).
func BenchmarkClassDt(b *testing.B) {
	base := bigLake(10000)
	tab := mustLookupB(b, "pg_class")
	need := make([]bool, len(tab.Cols))
	for i, col := range tab.Cols {
		switch col.Name {
		case "oid", "relname", "relnamespace", "relkind", "relowner", "relam":
			need[i] = true
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		c := &Context{Meta: base.Meta, User: base.User, SearchPath: base.SearchPath}
		n, mk, _ := tab.Lazy(c, false)
		bt, err := mk(need)
		if err != nil || bt.N != n {
			b.Fatal(err, bt.N, n)
		}
		RelationVisibility(c)
	}
}

func mustLookupB(b *testing.B, name string) *Table {
	t, ok := Lookup("pg_catalog", name)
	if !ok {
		b.Fatal(name)
	}
	return t
}
