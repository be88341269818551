package pgcatalog

import (
	"fmt"
	"testing"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec/vec"
)

// pg_class's rows are appended column by column (classrows.go): each
// column of a lake table, a TOAST relation, a temporary table, a table with
// a key and one with a recorded owner and ACL holds what PostgreSQL shows.
func TestClassRowsColumns(t *testing.T) {
	c := testContext()
	c.Meta.Constraints = []catalog.Constraint{{ID: 9, TableID: 4, Name: "orders_pkey", Type: "p", Columns: []int64{1}, BeginSnapshot: 7}}
	c.Meta.Tables[0].BeginSnapshot = 5
	c.ACL = func(kind string, id int64) (string, string, bool) {
		if kind == "r" && id == 2 {
			return "alice", "{alice=arwdDxt/alice,=r/alice}", true
		}
		return "", "", false
	}
	c.Temp = &TempSchema{Name: "pg_temp_3", ToastName: "pg_toast_temp_3", OID: 40000, ToastOID: 40001,
		Tables: []*catalog.Table{{ID: 90, Name: "scratch", Columns: []catalog.Column{{ID: 1, Name: "s", Type: "varchar"}}}}}
	tab, _ := Lookup("pg_catalog", "pg_class")
	b, err := tab.RowsWithXmin(c)
	if err != nil {
		t.Fatal(err)
	}
	all := rows(t, "pg_catalog", "pg_class", c)
	if len(all) != b.N {
		t.Fatalf("%d rows, with xmin %d", len(all), b.N)
	}
	xmin := map[string]int64{}
	for i, r := range all {
		xmin[r["relname"]] = b.Vecs[len(tab.Cols)].I64[i]
	}
	cols := []string{"oid", "relnamespace", "reltype", "reloftype", "relowner", "relam", "relfilenode", "reltablespace",
		"relpages", "reltuples", "relallvisible", "reltoastrelid", "relhasindex", "relisshared", "relpersistence", "relkind",
		"relnatts", "relchecks", "relhasrules", "relhastriggers", "relhassubclass", "relrowsecurity", "relforcerowsecurity",
		"relispopulated", "relreplident", "relispartition", "relrewrite", "relfrozenxid", "relminmxid", "relacl",
		"reloptions", "relpartbound"}
	for _, tc := range []struct{ name, want string }{
		{"items", "16386|16385|1073758210|0|10|2|16386|0|0|-1|0|1610629122|f|f|p|r|5|0|f|f|f|f|f|t|d|f|0|2|1|{alice=arwdDxt/alice,=r/alice}|∅|∅"},
		{"orders", "16388|16387|1073758212|0|10|2|16388|0|0|-1|0|1610629124|t|f|p|r|5|0|f|f|f|f|f|t|d|f|0|2|1|∅|∅|∅"},
		{"pg_toast_16386", "1610629122|99|0|0|10|2|1610629122|0|0|-1|0|0|f|f|p|t|3|0|f|f|f|f|f|t|n|f|0|2|1|∅|∅|∅"},
		{"scratch", "16474|40000|1073758298|0|10|2|16474|0|0|-1|0|1610629210|f|f|t|r|1|0|f|f|f|f|f|t|d|f|0|2|1|∅|∅|∅"},
		{"pg_toast_16474", "1610629210|40001|0|0|10|2|1610629210|0|0|-1|0|0|f|f|t|t|3|0|f|f|f|f|f|t|n|f|0|2|1|∅|∅|∅"},
		{"pg_settings", "12104|11|0|0|10|0|0|0|0|-1|0|0|f|f|p|v|" + fmt.Sprint(len(mustLookup(t, "pg_settings").Cols)) + "|0|f|f|f|f|f|t|n|f|0|0|0|∅|∅|∅"},
		{"orders_pkey", "16393|16387|0|0|10|403|16393|0|1|-1|0|0|f|f|p|i|1|0|f|f|f|f|f|t|n|f|0|0|0|∅|∅|∅"},
	} {
		eq(t, tc.name, pick(filter(all, "relname", tc.name), cols...), []string{tc.want})
	}
	// xmin: the snapshot that wrote the table (items, and its TOAST
	// relation), the key's; bootstrap for the rest
	for name, want := range map[string]int64{"items": SnapshotXID(5), "pg_toast_16386": SnapshotXID(5), "orders": SnapshotXID(0),
		"orders_pkey": SnapshotXID(7), "pg_settings": bootstrapXID} {
		if xmin[name] != want {
			t.Errorf("xmin of %s = %d, want %d", name, xmin[name], want)
		}
	}
}

func mustLookup(t *testing.T, name string) *Table {
	t.Helper()
	tab, ok := Lookup("pg_catalog", name)
	if !ok {
		t.Fatalf("no pg_catalog.%s", name)
	}
	return tab
}

// A statement's tables and functions share one model of its Context: the
// relations are made once, and what each reads of them is the same.
func TestModelBuiltOncePerContext(t *testing.T) {
	c := testContext()
	m := newModel(c)
	if newModel(c) != m {
		t.Fatal("a second newModel of one Context built another model")
	}
	if other := newModel(testContext()); other == m {
		t.Fatal("two Contexts share a model")
	}
	// pg_class, pg_namespace and the visibility map read the model built above
	cls := rows(t, "pg_catalog", "pg_class", c)
	if len(cls) < len(m.rels) {
		t.Fatalf("pg_class has %d rows for %d relations", len(cls), len(m.rels))
	}
	vis := RelationVisibility(c)
	for _, r := range m.rels {
		if _, ok := vis[r.oid]; !ok {
			t.Fatalf("%s (%d) missing from the visibility map", r.name, r.oid)
		}
	}
	if newModel(c) != m {
		t.Fatal("the model was rebuilt")
	}
}

// Visibility along the search path: the first schema that has a name
// decides, within one schema the first relation listed.
func TestVisibilityAlongPath(t *testing.T) {
	c := testContext()
	c.Meta.Schemas = append(c.Meta.Schemas, catalog.Schema{ID: 10, Name: "extra"})
	c.Meta.Tables = append(c.Meta.Tables,
		catalog.Table{ID: 11, SchemaID: 3, Name: "items"},  // sales.items
		catalog.Table{ID: 12, SchemaID: 10, Name: "items"}, // extra.items
		catalog.Table{ID: 13, SchemaID: 10, Name: "pg_class"},
		catalog.Table{ID: 14, SchemaID: 10, Name: "lone"})
	for _, tc := range []struct {
		path []string
		want map[int64]bool
	}{
		{[]string{"public"}, map[int64]bool{16386: true, 16395: false, 16396: false, 1259: true, 16397: false, 16398: false}},
		{[]string{"extra", "sales", "public"}, map[int64]bool{16386: false, 16395: false, 16396: true, 1259: true, 16397: false, 16398: true}},
		{[]string{"sales", "extra"}, map[int64]bool{16386: false, 16395: true, 16396: false, 16398: true}},
		// pg_catalog named after extra: extra's pg_class hides the catalog's
		{[]string{"extra", "pg_catalog"}, map[int64]bool{16397: true, 1259: false, 16396: true}},
		{[]string{"nosuch", "public", "public"}, map[int64]bool{16386: true, 16388: false}},
	} {
		cc := testContext()
		cc.Meta = c.Meta
		cc.SearchPath = tc.path
		vis := RelationVisibility(cc)
		for oid, want := range tc.want {
			if got, ok := vis[oid]; !ok || got != want {
				t.Errorf("search_path %v: visible(%d) = %v (known %v), want %v", tc.path, oid, got, ok, want)
			}
		}
	}
}

// A plan that reads some of pg_class's columns gets them from Lazy, made
// alone: each subset holds what the whole rows hold, in order, the xmin
// column included, for lake tables, TOAST relations, a temporary table, a
// key's index and a table with a recorded owner and ACL.
func TestClassRowsLazyColumns(t *testing.T) {
	c := testContext()
	c.Meta.Constraints = []catalog.Constraint{{ID: 9, TableID: 4, Name: "orders_pkey", Type: "p", Columns: []int64{1}, BeginSnapshot: 7}}
	c.ACL = func(kind string, id int64) (string, string, bool) {
		if kind == "r" && id == 2 {
			return "alice", "{alice=arwdDxt/alice,=r/alice}", true
		}
		return "", "", false
	}
	c.Temp = &TempSchema{Name: "pg_temp_3", ToastName: "pg_toast_temp_3", OID: 40000, ToastOID: 40001,
		Tables: []*catalog.Table{{ID: 90, Name: "scratch", Columns: []catalog.Column{{ID: 1, Name: "s", Type: "varchar"}}}}}
	tab := mustLookup(t, "pg_class")
	whole, err := tab.RowsWithXmin(c)
	if err != nil {
		t.Fatal(err)
	}
	width := len(tab.Cols) + 1
	text := func(b *vec.Batch, col, row int) string {
		if b.Vecs[col].IsNull(row) {
			return "∅"
		}
		return string(b.Vecs[col].AppendText(nil, row, time.UTC))
	}
	subsets := [][]int{{0}, {1, 16}, {2, 5, 6, 30}, {width - 1}, {12, 13, 15, 17, 25, 28, 29}}
	for i := 0; i < width; i++ {
		subsets = append(subsets, []int{i})
	}
	for _, cols := range subsets {
		n, mk, ok := tab.Lazy(c, true)
		if !ok || n != whole.N {
			t.Fatalf("Lazy: ok %v, %d rows, want %d", ok, n, whole.N)
		}
		need := make([]bool, width)
		for _, i := range cols {
			need[i] = true
		}
		b, err := mk(need)
		if err != nil {
			t.Fatal(err)
		}
		if b.N != whole.N || len(b.Vecs) != len(cols) {
			t.Fatalf("columns %v: %d rows of %d columns", cols, b.N, len(b.Vecs))
		}
		for k, i := range cols {
			if b.Vecs[k].Len() != b.N {
				t.Fatalf("column %d holds %d values for %d rows", i, b.Vecs[k].Len(), b.N)
			}
			for r := 0; r < b.N; r++ {
				if got, want := text(b, k, r), text(whole, i, r); got != want {
					t.Errorf("column %d row %d: %q, want %q", i, r, got, want)
				}
			}
		}
	}
}
