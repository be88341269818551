package snapshot

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lakepg/lakepg/catalog"
)

// TestGroupCommit: commits that queue while another is being written go
// into the catalog together, in one transaction, as consecutive snapshots,
// with the conflict rules of one-by-one commits. One commit holds the
// lead (its beforeCommit waits) until eight others have queued: five
// inserts, two deletes from the same data file (the second conflicts with
// the first, earlier in the same group), one whose beforeCommit fails after
// it wrote its rows, and one whose context ends before its turn. The
// inserts and the first delete commit in one group; the failing ones leave
// nothing behind; snapshot ids are dense; row ids tile.
func TestGroupCommit(t *testing.T) { eachBackend(t, testGroupCommit) }

func testGroupCommit(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	mainS, _ := m.SchemaByName("main")
	a, _ := m.TableByName(0, "a")
	b, _ := m.TableByName(0, "b")
	c := Begin(e.db, m.Snapshot, m)
	c.AddDataFile(*a, file("a0.parquet", 10))
	c.AddDataFile(*b, file("b0.parquet", 10))
	e.commit(c)
	m = e.load(e.head())
	a, _ = m.TableByName(0, "a")
	b, _ = m.TableByName(0, "b")
	base := m.Snapshot
	// the deletes are from table b: a delete conflicts with any insert into
	// its table since its base, which the inserts into a are not
	files := mustFiles(t, e, mainS, b, base)

	// the blocker leads alone and holds the lead until the others queued
	release := make(chan struct{})
	blocker := Begin(e.db, base, m)
	blocker.AddDataFile(*a, file("blocker.parquet", 1))
	blocker.beforeCommit = func(int) error { <-release; return nil }

	type job struct {
		name string
		c    *Commit
		ctx  context.Context
	}
	var jobs []job
	for i := range 5 {
		ci := Begin(e.db, base, m)
		ci.AddDataFile(*a, file(fmt.Sprintf("ins%d.parquet", i), int64(2+i)))
		jobs = append(jobs, job{fmt.Sprintf("insert %d", i), ci, context.Background()})
	}
	for i := range 2 {
		d := Begin(e.db, base, m)
		d.ReplaceDeleteFile(*b, files[0], NewDeleteFile{RelPath: fmt.Sprintf("del%d.parquet", i), DeleteCount: int64(i + 1), FileSize: 10, FooterSize: 5})
		jobs = append(jobs, job{fmt.Sprintf("delete %d", i), d, context.Background()})
	}
	failing := Begin(e.db, base, m)
	failing.AddDataFile(*a, file("failing.parquet", 100))
	failing.beforeCommit = func(int) error { return errors.New("injected failure after the writes") }
	jobs = append(jobs, job{"failing", failing, context.Background()})
	cancelled := Begin(e.db, base, m)
	cancelled.AddDataFile(*a, file("cancelled.parquet", 1000))
	cctx, cancel := context.WithCancel(context.Background())
	jobs = append(jobs, job{"cancelled", cancelled, cctx})

	groupsBefore := ReadCommitStats()
	type result struct {
		s   catalog.Snapshot
		err error
	}
	results := make([]result, len(jobs))
	var wg sync.WaitGroup
	var blockerErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, blockerErr = blocker.Commit(e.ctx)
	}()
	g := committerOf(e.db)
	queued := func() int {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.queue)
	}
	// the blocker is leading once it left the queue and nobody else leads
	waitFor(t, "the blocker to lead", func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.leading && len(g.queue) == 0
	})
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].s, results[i].err = j.c.Commit(j.ctx)
		}()
		// queue in order, so that delete 0 comes before delete 1
		waitFor(t, j.name+" to queue", func() bool { return queued() == i+1 })
	}
	cancel()
	close(release)
	wg.Wait()
	if blockerErr != nil {
		t.Fatalf("blocker: %v", blockerErr)
	}

	var ids []int64
	for i, j := range jobs {
		r := results[i]
		switch {
		case strings.HasPrefix(j.name, "insert"), j.name == "delete 0":
			if r.err != nil {
				t.Errorf("%s: %v", j.name, r.err)
			}
			ids = append(ids, r.s.ID)
		case j.name == "delete 1":
			if !errors.Is(r.err, ErrConflict) || !strings.Contains(r.err.Error(), "another transaction deleted from it") {
				t.Errorf("delete 1: %v, want a conflict with delete 0", r.err)
			}
		case j.name == "failing":
			if r.err == nil || !strings.Contains(r.err.Error(), "injected failure") {
				t.Errorf("failing: %v", r.err)
			}
		case j.name == "cancelled":
			if !errors.Is(r.err, context.Canceled) {
				t.Errorf("cancelled: %v, want context.Canceled", r.err)
			}
		}
	}
	if t.Failed() {
		return
	}
	st := ReadCommitStats()
	if st.Groups-groupsBefore.Groups != 1 || st.GroupMembers-groupsBefore.GroupMembers != int64(len(jobs)) {
		t.Errorf("%d groups of %d commits, want 1 of %d", st.Groups-groupsBefore.Groups, st.GroupMembers-groupsBefore.GroupMembers, len(jobs))
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	// the blocker is base+1, the group's six commits base+2..base+7
	for i, id := range ids {
		if id != base.ID+2+int64(i) {
			t.Fatalf("snapshot ids %v, want %d..%d", ids, base.ID+2, base.ID+7)
		}
	}
	e.expectRows(fmt.Sprintf(`SELECT COUNT(*), MAX(snapshot_id) FROM ducklake_snapshot WHERE snapshot_id > %d`, base.ID),
		fmt.Sprintf("7|%d", base.ID+7))
	e.expectRows(`SELECT path FROM ducklake_data_file ORDER BY path`,
		"a0.parquet", "b0.parquet", "blocker.parquet", "ins0.parquet", "ins1.parquet", "ins2.parquet", "ins3.parquet", "ins4.parquet")
	e.expectRows(`SELECT path, delete_count FROM ducklake_delete_file`, "del0.parquet|1")
	sum := int64(10 + 1 + 2 + 3 + 4 + 5 + 6)
	e.expectRows(fmt.Sprintf(`SELECT record_count, next_row_id FROM ducklake_table_stats WHERE table_id = %d`, a.ID), fmt.Sprintf("%d|%d", sum, sum))
	next := int64(0)
	for _, r := range e.rows(fmt.Sprintf(`SELECT row_id_start, record_count FROM ducklake_data_file WHERE table_id = %d ORDER BY row_id_start`, a.ID)) {
		var start, n int64
		fmt.Sscanf(strings.ReplaceAll(r, "|", " "), "%d %d", &start, &n)
		if start != next {
			t.Fatalf("row id range starts at %d, want %d", start, next)
		}
		next += n
	}
	if next != sum {
		t.Errorf("row ids of a cover %d, want %d", next, sum)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
