package catalog

import (
	"reflect"
	"testing"
)

// TestCoalesceGroupStatsWrites: of the statistics UPDATEs a group's members
// queue for one table, only each row's last goes out; everything else
// (other rows, other statements, UPDATEs that read old values or touch
// keys, UPDATEs with a statement between that could depend on them) is
// sent as queued, in order.
func TestCoalesceGroupStatsWrites(t *testing.T) {
	const (
		stats  = `UPDATE ducklake_table_stats SET record_count = $1, next_row_id = $2, file_size_bytes = $3 WHERE table_id = $4`
		cols   = `UPDATE ducklake_table_column_stats SET contains_null = $1, contains_nan = $2, min_value = $3, max_value = $4 WHERE table_id = $5 AND column_id = $6`
		inl    = `INSERT INTO "ducklake_inlined_data_2_1" VALUES ($1, $2, $5, $3, $4)`
		snap   = `INSERT INTO ducklake_snapshot VALUES ($1, $2, $3, $4, $5)`
		stInit = `INSERT INTO ducklake_table_stats VALUES ($1, $2, $3, $4)`
	)
	member := func(n int64) []pendingStmt {
		return []pendingStmt{
			{inl, []any{n, n + 10, n, n, nil}},
			{stats, []any{n, n, int64(0), int64(2)}},
			{cols, []any{false, nil, "0", "x", int64(2), int64(1)}},
			{cols, []any{false, nil, "0", "y", int64(2), int64(2)}},
			{snap, []any{n + 10, "t", int64(1), int64(3), int64(3)}},
		}
	}
	var batch []pendingStmt
	for n := int64(1); n <= 3; n++ {
		batch = append(batch, member(n)...)
	}
	got := coalesce(batch)
	var want []pendingStmt
	for n := int64(1); n <= 3; n++ {
		m := member(n)
		if n < 3 {
			m = []pendingStmt{m[0], m[4]}
		}
		want = append(want, m...)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("group of 3 members:\ngot  %v\nwant %v", got, want)
	}

	keep := func(name string, b []pendingStmt) {
		t.Helper()
		if got := coalesce(b); !reflect.DeepEqual(got, b) {
			t.Errorf("%s: changed to %v", name, got)
		}
	}
	keep("other rows", []pendingStmt{{stats, []any{int64(1), int64(1), int64(0), int64(2)}}, {stats, []any{int64(2), int64(2), int64(0), int64(3)}}})
	keep("a DELETE between", []pendingStmt{{stats, []any{int64(1), int64(1), int64(0), int64(2)}},
		{`DELETE FROM ducklake_table_stats WHERE table_id = $1`, []any{int64(9)}}, {stats, []any{int64(2), int64(2), int64(0), int64(2)}}})
	keep("an INSERT … SELECT between", []pendingStmt{{stats, []any{int64(1), int64(1), int64(0), int64(2)}},
		{`INSERT INTO ducklake_table_stats SELECT 5, record_count, 0, 0 FROM ducklake_table_stats WHERE table_id = $1`, []any{int64(2)}}, {stats, []any{int64(2), int64(2), int64(0), int64(2)}}})
	inc := `UPDATE ducklake_table_stats SET record_count = record_count + $1 WHERE table_id = $2`
	keep("an increment", []pendingStmt{{inc, []any{int64(1), int64(2)}}, {inc, []any{int64(1), int64(2)}}})
	rekey := `UPDATE ducklake_table_stats SET table_id = $1 WHERE table_id = $2`
	keep("a key change", []pendingStmt{{rekey, []any{int64(5), int64(2)}}, {rekey, []any{int64(5), int64(2)}}})
	keep("a range", []pendingStmt{{`UPDATE ducklake_table_stats SET record_count = $1 WHERE table_id > $2`, []any{int64(1), int64(2)}},
		{`UPDATE ducklake_table_stats SET record_count = $1 WHERE table_id > $2`, []any{int64(1), int64(2)}}})
	keep("keys not comparable", []pendingStmt{{stats, []any{int64(1), int64(1), int64(0), []byte("2")}}, {stats, []any{int64(2), int64(2), int64(0), []byte("2")}}})

	// a plain INSERT into the table between does not stop it: the later
	// UPDATE sets the inserted row too
	b := []pendingStmt{{stats, []any{int64(1), int64(1), int64(0), int64(2)}}, {stInit, []any{int64(2), int64(0), int64(0), int64(0)}}, {stats, []any{int64(2), int64(2), int64(0), int64(2)}}}
	if got := coalesce(b); !reflect.DeepEqual(got, b[1:]) {
		t.Errorf("INSERT between: %v", got)
	}
}

func TestNamesTable(t *testing.T) {
	for _, c := range []struct {
		q, table string
		want     bool
	}{
		{`UPDATE ducklake_table_column_stats SET a = $1`, "ducklake_table_stats", false},
		{`UPDATE ducklake_table_column_stats SET a = $1`, "ducklake_table", false},
		{`SELECT * FROM ducklake_table WHERE x`, "ducklake_table", true},
		{`INSERT INTO "ducklake_table_stats" VALUES ($1)`, "ducklake_table_stats", true},
	} {
		if got := namesTable(c.q, c.table); got != c.want {
			t.Errorf("namesTable(%q, %q) = %v", c.q, c.table, got)
		}
	}
}
