package pgcatalog

import "testing"

// pg_namespace's xmin is 1 for built-in schemas and the xid of the
// snapshot that created a lake schema.
func TestXmin(t *testing.T) {
	c := testContext()
	nsT, _ := Lookup("pg_catalog", "pg_namespace")
	if !nsT.HasXmin() {
		t.Fatal("pg_namespace has no xmin")
	}
	b, err := nsT.RowsWithXmin(c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"pg_catalog": 1, "pg_toast": 1, "information_schema": 1}
	for _, s := range c.Meta.Schemas {
		want[s.Name] = SnapshotXID(s.BeginSnapshot)
	}
	xmin := b.Vecs[len(b.Vecs)-1]
	for i := 0; i < b.N; i++ {
		name := b.Vecs[1].S[i]
		if w, ok := want[name]; !ok || xmin.I64[i] != w {
			t.Errorf("xmin of %s = %d, want %d", name, xmin.I64[i], w)
		}
	}
	if slots, _ := Lookup("pg_catalog", "pg_replication_slots"); slots.HasXmin() {
		t.Error("pg_replication_slots has a column xmin: its rows carry no system column of that name")
	}
}
