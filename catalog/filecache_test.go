package catalog

import "testing"

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
