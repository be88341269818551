package snapshot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/lakepg/lakepg/catalog"
)

// TestGroupCommitInserts: a group of insert commits, the shape of a busy
// server's single-row INSERTs, leaves exactly the rows and statistics the
// same commits leave one by one. On PostgreSQL the group is written from the
// answers BeginCommit read ahead, kept true member after member
// (writePipelined): four inlined inserts into one table, two data files into
// another and one inlined insert that fails after queueing its writes (it is
// dropped alone) cost the group two catalog round trips.
func TestGroupCommitInserts(t *testing.T) { eachBackend(t, testGroupCommitInserts) }

func testGroupCommitInserts(t *testing.T, be backend) {
	e := newEnv(t, be)
	layout := []InlinedColumn{{Name: "id", Type: "int64"}}
	c, m := e.begin()
	mainS, _ := m.SchemaByName("main")
	tid := c.CreateTable(*mainS, "t", []ColumnDef{{Name: "id", Type: "int64", NullsAllowed: true}})
	c.InliningOn(tid)
	c.CreateTable(*mainS, "a", []ColumnDef{{Name: "v", Type: "int64", NullsAllowed: true}})
	m = e.load(e.commit(c))
	tb, _ := m.TableByName(0, "t")
	a, _ := m.TableByName(0, "a")
	inlined := func(ids ...int64) *Commit {
		c := Begin(e.db, m.Snapshot, m)
		var rows [][]any
		lo, hi := ids[0], ids[0]
		for _, id := range ids {
			rows = append(rows, []any{id})
			lo, hi = min(lo, id), max(hi, id)
		}
		c.InsertInlinedRows(*tb, layout, rows, []catalog.ColumnStats{intStats(1, fmt.Sprint(lo), fmt.Sprint(hi), int64(len(ids)), 0)})
		return c
	}
	// a first insert gives both tables statistics rows, so that the group
	// updates them
	first := inlined(50)
	first.AddDataFile(*a, file("a0.parquet", 10))
	e.commit(first)
	m = e.load(e.head())
	tb, _ = m.TableByName(0, "t")
	a, _ = m.TableByName(0, "a")
	base := m.Snapshot

	release := make(chan struct{})
	blocker := inlined(40)
	blocker.beforeCommit = func(int) error { <-release; return nil }
	type job struct {
		name string
		c    *Commit
	}
	jobs := []job{
		{"inlined 7", inlined(7)},
		{"inlined 90 91", inlined(90, 91)},
		{"file a1", Begin(e.db, base, m)},
		{"inlined 3", inlined(3)},
		{"failing", inlined(1000)},
		{"file a2", Begin(e.db, base, m)},
		{"inlined 60", inlined(60)},
	}
	jobs[2].c.AddDataFile(*a, file("a1.parquet", 4))
	jobs[5].c.AddDataFile(*a, file("a2.parquet", 20))
	jobs[4].c.beforeCommit = func(int) error { return errors.New("injected failure after the writes") }

	results := make([]error, len(jobs))
	var wg sync.WaitGroup
	var blockerErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, blockerErr = blocker.Commit(e.ctx)
	}()
	g := committerOf(e.db)
	waitFor(t, "the blocker to lead", func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.leading && len(g.queue) == 0
	})
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, results[i] = j.c.Commit(context.Background())
		}()
		waitFor(t, j.name+" to queue", func() bool {
			g.mu.Lock()
			defer g.mu.Unlock()
			return len(g.queue) == i+1
		})
	}
	before, groupsBefore := catalog.CatalogQueries(), ReadCommitStats()
	close(release)
	wg.Wait()
	// the blocker's COMMIT, then the group's reads and its COMMIT
	roundTrips := catalog.CatalogQueries() - before
	if blockerErr != nil {
		t.Fatalf("blocker: %v", blockerErr)
	}
	for i, j := range jobs {
		if j.name == "failing" {
			if results[i] == nil || !strings.Contains(results[i].Error(), "injected failure") {
				t.Errorf("failing: %v", results[i])
			}
		} else if results[i] != nil {
			t.Errorf("%s: %v", j.name, results[i])
		}
	}
	if t.Failed() {
		return
	}
	st := ReadCommitStats()
	if st.Groups-groupsBefore.Groups != 1 || st.GroupMembers-groupsBefore.GroupMembers != int64(len(jobs)) {
		t.Errorf("%d groups of %d commits, want 1 of %d", st.Groups-groupsBefore.Groups, st.GroupMembers-groupsBefore.GroupMembers, len(jobs))
	}
	if e.pg() && roundTrips != 3 {
		t.Errorf("%d catalog round trips for the blocker's COMMIT and the group, want 3", roundTrips)
	}
	// the blocker is base+1, the six members base+2..base+7
	e.expectRows(fmt.Sprintf(`SELECT COUNT(*), MIN(snapshot_id), MAX(snapshot_id) FROM ducklake_snapshot WHERE snapshot_id > %d`, base.ID),
		fmt.Sprintf("7|%d|%d", base.ID+1, base.ID+7))
	// row ids tile in commit order, each row once, none of the failed commit
	e.expectRows(fmt.Sprintf(`SELECT row_id, begin_snapshot, id FROM ducklake_inlined_data_%d_1 ORDER BY row_id`, tb.ID),
		fmt.Sprintf("0|%d|50", base.ID),
		fmt.Sprintf("1|%d|40", base.ID+1),
		fmt.Sprintf("2|%d|7", base.ID+2),
		fmt.Sprintf("3|%d|90", base.ID+3),
		fmt.Sprintf("4|%d|91", base.ID+3),
		fmt.Sprintf("5|%d|3", base.ID+5),
		fmt.Sprintf("6|%d|60", base.ID+7))
	e.expectRows(fmt.Sprintf(`SELECT record_count, next_row_id FROM ducklake_table_stats WHERE table_id = %d`, tb.ID), "7|7")
	e.expectRows(fmt.Sprintf(`SELECT min_value, max_value FROM ducklake_table_column_stats WHERE table_id = %d`, tb.ID), "3|91")
	e.expectRows(fmt.Sprintf(`SELECT path, row_id_start, begin_snapshot FROM ducklake_data_file WHERE table_id = %d ORDER BY row_id_start`, a.ID),
		fmt.Sprintf("a0.parquet|0|%d", base.ID), fmt.Sprintf("a1.parquet|10|%d", base.ID+4), fmt.Sprintf("a2.parquet|14|%d", base.ID+6))
	e.expectRows(fmt.Sprintf(`SELECT record_count, next_row_id, file_size_bytes FROM ducklake_table_stats WHERE table_id = %d`, a.ID), "34|34|3400")
	e.expectRows(fmt.Sprintf(`SELECT min_value, max_value FROM ducklake_table_column_stats WHERE table_id = %d`, a.ID), "1|20")
	e.expectRows(fmt.Sprintf(`SELECT snapshot_id, changes_made FROM ducklake_snapshot_changes WHERE snapshot_id > %d ORDER BY snapshot_id`, base.ID),
		fmt.Sprintf("%d|inlined_insert:%d", base.ID+1, tb.ID), fmt.Sprintf("%d|inlined_insert:%d", base.ID+2, tb.ID),
		fmt.Sprintf("%d|inlined_insert:%d", base.ID+3, tb.ID), fmt.Sprintf("%d|inserted_into_table:%d", base.ID+4, a.ID),
		fmt.Sprintf("%d|inlined_insert:%d", base.ID+5, tb.ID), fmt.Sprintf("%d|inserted_into_table:%d", base.ID+6, a.ID),
		fmt.Sprintf("%d|inlined_insert:%d", base.ID+7, tb.ID))
}
