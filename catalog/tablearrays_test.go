package catalog

import (
	"fmt"
	"testing"
)

// TestTableArrays: versions advanced one after another share one array of
// tables; a second version advanced from the same previous one, or an
// append by a holder of a version's slice, copies and leaves every other
// version's tables as they were.
func TestTableArrays(t *testing.T) {
	var a tableArrays
	mk := func(ids ...int64) []Table {
		var out []Table
		for _, id := range ids {
			out = append(out, Table{ID: id, Name: fmt.Sprintf("t%d", id)})
		}
		return out
	}
	want := func(label string, got []Table, ids ...int64) {
		t.Helper()
		if len(got) != len(ids) {
			t.Fatalf("%s: %d tables, want %d", label, len(got), len(ids))
		}
		for i, id := range ids {
			if got[i].ID != id || got[i].Name != fmt.Sprintf("t%d", id) {
				t.Fatalf("%s: table %d is %d %q, want %d", label, i, got[i].ID, got[i].Name, id)
			}
		}
	}
	v1 := a.extend(mk(1, 2), mk(3))
	v2 := a.extend(v1, mk(4))
	v3 := a.extend(v2, mk(5, 6))
	if &v3[0] != &v1[0] {
		t.Error("consecutive versions do not share their array")
	}
	if cap(v2) != len(v2) {
		t.Errorf("a version's slice has room: len %d cap %d", len(v2), cap(v2))
	}
	// another version from v2: must not write over v3's tables 5 and 6
	b3 := a.extend(v2, mk(7))
	want("branch", b3, 1, 2, 3, 4, 7)
	want("v3 after the branch", v3, 1, 2, 3, 4, 5, 6)
	if &b3[0] == &v1[0] {
		t.Error("the branch shares the array")
	}
	// a holder's own append copies
	own := append(v2, Table{ID: 99, Name: "t99"})
	want("own append", own, 1, 2, 3, 4, 99)
	want("v3 after the holder's append", v3, 1, 2, 3, 4, 5, 6)
	v4 := a.extend(v3, mk(8))
	want("v4", v4, 1, 2, 3, 4, 5, 6, 8)
	want("v1 at the end", v1, 1, 2, 3)
	if got := a.extend(v4, nil); len(got) != len(v4) {
		t.Fatalf("nothing added: %d tables", len(got))
	}
	// many versions: the arrays kept stay bounded
	prev := mk(1)
	for i := int64(2); i < 200; i++ {
		prev = a.extend(prev, mk(i))
		if i%7 == 0 {
			a.extend(prev[:len(prev)-1], mk(1000+i)) // a branch
		}
	}
	if len(a.full) > tableArraysKept {
		t.Errorf("%d arrays kept", len(a.full))
	}
	for i := range prev {
		if prev[i].ID != int64(i+1) {
			t.Fatalf("long chain: table %d is %d", i, prev[i].ID)
		}
	}
}

// TestTableByNameIndexed: in metadata of many tables TableByName answers
// from the index of the shared array exactly as a scan would: a later
// version's table is not found in an earlier one, nor in a branch, and the
// schema counts.
func TestTableByNameIndexed(t *testing.T) {
	var a tableArrays
	var base []Table
	for i := int64(1); i <= 600; i++ {
		base = append(base, Table{ID: i, SchemaID: i % 2, Name: fmt.Sprintf("t%d", i/2)})
	}
	v1 := a.extend(base[:500], base[500:510])
	v2 := a.extend(v1, base[510:600])
	branch := a.extend(v1, []Table{{ID: 700, SchemaID: 0, Name: "b"}})
	scan := func(tables []Table, schema int64, name string) *Table {
		for i := range tables {
			if tables[i].SchemaID == schema && tables[i].Name == name {
				return &tables[i]
			}
		}
		return nil
	}
	for _, v := range []struct {
		label  string
		tables []Table
	}{{"v1", v1}, {"v2", v2}, {"branch", branch}} {
		if _, known := indexedTable(v.tables, 0, "t1"); !known {
			t.Fatalf("%s: not indexed", v.label)
		}
		m := &Metadata{Tables: v.tables}
		for _, name := range []string{"t1", "t100", "t254", "t255", "t260", "t299", "t300", "b", "nope"} {
			for schema := int64(0); schema < 3; schema++ {
				got, ok := m.TableByName(schema, name)
				want := scan(v.tables, schema, name)
				if ok != (want != nil) || got != want {
					t.Errorf("%s: TableByName(%d, %s) = %v, %v; a scan finds %v", v.label, schema, name, got, ok, want)
				}
			}
		}
	}
	if _, ok := (&Metadata{Tables: v1}).TableByName(0, "t290"); ok {
		t.Error("v1 finds a table v2 added")
	}
	if _, ok := (&Metadata{Tables: v2}).TableByName(0, "b"); ok {
		t.Error("v2 finds the branch's table")
	}
}

// TestTableByID: found by binary search in id order, and in a list made
// out of order by a scan.
func TestTableByID(t *testing.T) {
	m := &Metadata{}
	for id := int64(1); id <= 2000; id += 3 {
		m.Tables = append(m.Tables, Table{ID: id, Name: fmt.Sprint("t", id)})
	}
	for id := int64(0); id <= 2002; id++ {
		tb, ok := m.TableByID(id)
		if want := id%3 == 1 && id < 2000; ok != want || ok && (tb.ID != id || tb != &m.Tables[(id-1)/3]) {
			t.Fatalf("TableByID(%d) = %v, %v", id, tb, ok)
		}
	}
	m.Tables[0], m.Tables[500] = m.Tables[500], m.Tables[0]
	for _, id := range []int64{1, 1501, 1498} {
		if tb, ok := m.TableByID(id); !ok || tb.ID != id {
			t.Fatalf("out of order: TableByID(%d) = %v, %v", id, tb, ok)
		}
	}
}

// TestTableArraysConcurrentHeads: sessions advancing from one cached
// version to different heads at once (the next CREATE TABLE's statement
// racing the previous one's) share the array instead of copying the lake:
// building a lake of n tables so writes O(n) tables into arrays, not O(n²).
func TestTableArraysConcurrentHeads(t *testing.T) {
	var a tableArrays
	tbl := func(id int64) Table {
		return Table{ID: id, BeginSnapshot: id, Name: fmt.Sprintf("t%d", id)}
	}
	const n = 3000
	cached := []Table{tbl(1)}
	next := int64(2)
	for next < n {
		// four sessions advance from the cached version, each to a later head
		var heads [][]Table
		for s := int64(0); s < 4 && next+s < n; s++ {
			var added []Table
			for id := next; id <= next+s; id++ {
				added = append(added, tbl(id))
			}
			heads = append(heads, a.extend(cached, added))
		}
		// the later heads first, as a slow statement may finish last
		for i := len(heads) - 1; i >= 0; i-- {
			h := heads[i]
			if len(h) != len(cached)+i+1 {
				t.Fatalf("head %d has %d tables, want %d", i, len(h), len(cached)+i+1)
			}
			for j := range h {
				if h[j].ID != int64(j+1) {
					t.Fatalf("head %d: table %d is %d", i, j, h[j].ID)
				}
			}
		}
		cached = heads[len(heads)-1]
		next += int64(len(heads))
		if len(cached) >= nameIndexMin {
			if tb, ok := (&Metadata{Tables: cached}).TableByName(0, fmt.Sprintf("t%d", next-1)); !ok || tb.ID != next-1 {
				t.Fatalf("TableByName(t%d) = %v, %v", next-1, tb, ok)
			}
		}
	}
	// the array grows by a quarter when full: about 5n tables written in all
	if a.copied > 6*n {
		t.Errorf("%d tables written into arrays for a lake of %d", a.copied, n)
	}
	// a head whose tables differ from the array's past the cached version
	// (another table created there) is a copy
	other := a.extend(cached[:len(cached)-1], []Table{tbl(n + 5)})
	if &other[0] == &cached[0] || other[len(other)-1].ID != n+5 || cached[len(cached)-1].ID != n-1 {
		t.Error("a branch with other tables shares the array")
	}
}
