package sql

import (
	"strings"
	"testing"
)

// A flush of several tables is one snapshot, as DuckDB makes it: every
// table's data files take their ids first, then the delete files.
func TestFlushOfSeveralTablesIsOneSnapshot(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE fa (x integer)`)
	must(t, s, `CREATE TABLE fb (y integer)`)
	must(t, s, `INSERT INTO fa VALUES (1), (2)`)
	must(t, s, `INSERT INTO fb VALUES (3)`)
	must(t, s, `DELETE FROM fa WHERE x = 1`)
	rows, _, err := run(t, s, `SELECT count(*) FROM lakepg.snapshots`)
	if err != nil {
		t.Fatal(err)
	}
	must(t, s, `CALL lakepg.flush_inlined_data()`)
	must(t, s, `SELECT count(*) - `+rows[0]+` FROM lakepg.snapshots`, "1")
	got, _, err := run(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`)
	if err != nil || len(got) != 1 || strings.Count(got[0], "inline_flush:") != 2 {
		t.Fatalf("flush snapshot changes %q %v, want two inline_flush entries", got, err)
	}
	must(t, s, `SELECT x FROM fa`, "2")
	must(t, s, `SELECT y FROM fb`, "3")
}
