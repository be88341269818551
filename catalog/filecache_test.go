package catalog

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestTouchesTable: which changes_made entries may change a table's files.
func TestTouchesTable(t *testing.T) {
	for _, tc := range []struct {
		changes string
		want    bool
	}{
		{"", false},
		{"inserted_into_table:4", false},
		{"inserted_into_table:5", true},
		{"created_table:\"main\".\"x,inserted_into_table:5\",inserted_into_table:6", false},
		{"deleted_from_table:5", true},
		{"compacted_table:5", true},
		{"altered_table:5", true},
		{"dropped_table:5", true},
		{"created_schema:\"s\",created_view:\"main\".\"v\",dropped_view:9,inlined_insert:7", false},
		{"inlined_delete:5", true},
		{"flushed_inlined:5", true},
		{"something_new:4", true},
		{"inserted_into_table:x", true},
	} {
		if got := touchesTable(tc.changes, 5); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.changes, got, tc.want)
		}
	}
}

// TestFileCacheLimit: a list larger than half the limit is not kept, the
// least recently used lists make room for a new one, and a DB opened
// without the option has the default limit.
func TestFileCacheLimit(t *testing.T) {
	db := &DB{}
	db.files.limit = 1000
	snap := Snapshot{ID: 5, Time: time.Now()}
	held := func() []int64 {
		var ids []int64
		for k := range db.files.tables {
			ids = append(ids, k.table)
		}
		slices.Sort(ids)
		return ids
	}
	db.store(cacheKey{'f', 1}, "d", snap, []DataFile{{ID: 1}}, 501)
	if got := held(); len(got) != 0 {
		t.Fatalf("a list over half the limit was kept: %v", got)
	}
	db.store(cacheKey{'f', 2}, "d", snap, []DataFile{{ID: 2}}, 400)
	db.store(cacheKey{'f', 3}, "d", snap, []DataFile{{ID: 3}}, 400)
	if _, ok := db.cachedAt(context.Background(), cacheKey{'f', 2}, "d", snap); !ok {
		t.Fatal("table 2's list is not served")
	}
	db.store(cacheKey{'f', 4}, "d", snap, []DataFile{{ID: 4}}, 400) // evicts 3, the least recently used
	if got := held(); !slices.Equal(got, []int64{2, 4}) || db.files.total != 800 {
		t.Fatalf("held %v (%d bytes), want tables 2 and 4 (800)", got, db.files.total)
	}
	if (&DB{}).files.max() != DefaultFileCacheBytes {
		t.Fatal("a DB without the option has no default limit")
	}
}
