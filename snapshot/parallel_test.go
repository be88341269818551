package snapshot

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lakepg/lakepg/catalog"
)

// TestForeignWriterTakesSnapshotID: another writer (DuckDB, say) inserts
// snapshot head+1 while our commit, built on the same head, is in flight.
// On PostgreSQL our insert of that id waits for the other transaction and
// then fails with 23505; the commit rolls back, re-reads the head, checks
// the other writer's changes and lands on top of it, on its second attempt.
// On SQLite the other writer holds the writer lock, so our commit starts
// after it and lands at the first attempt.
func TestForeignWriterTakesSnapshotID(t *testing.T) { eachBackend(t, testForeignWriterTakesSnapshotID) }

func testForeignWriterTakesSnapshotID(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	a, _ := m.TableByName(0, "a")
	base := m.Snapshot

	// The foreign writer: its own handle, snapshot row first, as DuckDB's
	// commit does; its transaction stays open.
	other := e.open()
	ftx, err := other.BeginWrite(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ftx.Rollback()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO ducklake_snapshot VALUES (?, ?, ?, ?, ?)`, []any{base.ID + 1, time.Now(), base.SchemaVersion, base.NextCatalogID, base.NextFileID + 1}},
		{`INSERT INTO ducklake_snapshot_changes VALUES (?, ?, NULL, NULL, NULL)`, []any{base.ID + 1, "inserted_into_table:3"}},
		{`INSERT INTO ducklake_data_file VALUES (?, 3, ?, NULL, NULL, 'duck.parquet', ?, 'parquet', 4, 400, NULL, 0, NULL, NULL, NULL, NULL)`, []any{base.NextFileID, base.ID + 1, true}},
		{`INSERT INTO ducklake_table_stats VALUES (3, 4, 4, 400)`, nil},
	} {
		if _, err := ftx.ExecContext(e.ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}

	// Our commit, on a handle whose sessions can be told apart on the
	// server.
	db := e.db
	app := ""
	if e.pg() {
		app = fmt.Sprintf("lakepg_race_%d", time.Now().UnixNano())
		u, err := url.Parse(e.dsn)
		if err != nil {
			t.Fatal(err)
		}
		qv := u.Query()
		qv.Set("application_name", app)
		u.RawQuery = qv.Encode()
		if db, err = catalog.OpenWithOptions(e.ctx, u.String(), "", e.opts); err != nil {
			t.Fatal(err)
		}
		defer db.Close()
	}
	c := Begin(db, base, m)
	c.AddDataFile(*a, file("a1.parquet", 3))
	var attempts []int
	c.beforeCommit = func(n int) error { attempts = append(attempts, n); return nil }
	type result struct {
		s   catalog.Snapshot
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := c.Commit(e.ctx)
		done <- result{s, err}
	}()
	if e.pg() {
		// Wait until our insert of snapshot head+1 waits for the foreign
		// transaction's row.
		deadline := time.Now().Add(30 * time.Second)
		for {
			var n int
			if err := other.SQL().QueryRowContext(e.ctx, `SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, app).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("our commit never waited for the foreign writer's snapshot row")
			}
			time.Sleep(10 * time.Millisecond)
		}
	} else {
		time.Sleep(200 * time.Millisecond)
	}
	if err := ftx.Commit(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	wantAttempts := "[0]"
	if e.pg() {
		// attempt 0 reached the commit, where its pipelined snapshot row
		// (sent with the COMMIT) failed on the primary key
		wantAttempts = "[0 1]"
	}
	if fmt.Sprint(attempts) != wantAttempts {
		t.Errorf("attempts that reached the commit: %v, want %s", attempts, wantAttempts)
	}
	if r.s.ID != base.ID+2 || r.s.NextFileID != base.NextFileID+2 {
		t.Errorf("our snapshot %+v (base %d)", r.s, base.ID)
	}
	e.expectRows(`SELECT data_file_id, table_id, begin_snapshot, path, row_id_start FROM ducklake_data_file ORDER BY data_file_id`,
		fmt.Sprintf("%d|3|%d|duck.parquet|0", base.NextFileID, base.ID+1),
		fmt.Sprintf("%d|2|%d|a1.parquet|0", base.NextFileID+1, base.ID+2))
	e.expectRows(fmt.Sprintf(`SELECT snapshot_id, changes_made FROM ducklake_snapshot_changes WHERE snapshot_id > %d ORDER BY 1`, base.ID),
		fmt.Sprintf("%d|inserted_into_table:3", base.ID+1), fmt.Sprintf("%d|inserted_into_table:2", base.ID+2))
}

// TestParallelWritersTwoHandles: goroutines on two catalog handles (two
// servers) insert into one table at once, each commit starting from the
// head it sees. Every commit lands, in its own snapshot; the snapshot ids
// are dense; no file, row or statistic is lost; row id ranges do not
// overlap.
func TestParallelWritersTwoHandles(t *testing.T) { eachBackend(t, testParallelWritersTwoHandles) }

func testParallelWritersTwoHandles(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	base := m.Snapshot
	handles := []*catalog.DB{e.db, e.open()}
	const perHandle, commits = 2, 6
	total := len(handles) * perHandle * commits

	var (
		mu      sync.Mutex
		ids     []int64
		retries int
		wg      sync.WaitGroup
		errs    []error
	)
	for h, db := range handles {
		for g := range perHandle {
			wg.Add(1)
			go func() {
				defer wg.Done()
				giveUps := 0
				for i := 0; i < commits; i++ {
					head, err := db.Head(e.ctx)
					if err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
						return
					}
					meta, err := db.Load(e.ctx, head)
					if err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
						return
					}
					a, _ := meta.TableByName(0, "a")
					c := Begin(db, head, meta)
					n := int64(1 + (h*perHandle+g)*commits + i) // distinct sizes
					c.AddDataFile(*a, file(fmt.Sprintf("h%dg%di%d.parquet", h, g, i), n))
					c.beforeCommit = func(attempt int) error {
						mu.Lock()
						retries += attempt
						mu.Unlock()
						return nil
					}
					s, err := c.Commit(e.ctx)
					if errors.Is(err, ErrConflict) && strings.Contains(err.Error(), "gave up") && giveUps < 5 {
						// With the tests' 1 ms backoff, four writers on a loaded
						// machine can starve one past its retries; a client would
						// try the statement again, and so does this writer.
						giveUps++
						i--
						continue
					}
					mu.Lock()
					if err != nil {
						errs = append(errs, fmt.Errorf("handle %d writer %d commit %d: %w", h, g, i, err))
					} else {
						ids = append(ids, s.ID)
					}
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	t.Logf("%d commits, %d retries after a lost race", total, retries)
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for i, id := range ids {
		if id != base.ID+1+int64(i) {
			t.Fatalf("snapshot ids returned: %v (base %d)", ids, base.ID)
		}
	}
	sum := int64(total * (total + 1) / 2)
	e.expectRows(`SELECT COUNT(*), MIN(snapshot_id), MAX(snapshot_id) FROM ducklake_snapshot`,
		fmt.Sprintf("%d|0|%d", base.ID+1+int64(total), base.ID+int64(total)))
	e.expectRows(`SELECT COUNT(*), COUNT(DISTINCT data_file_id), COUNT(DISTINCT begin_snapshot), SUM(record_count) FROM ducklake_data_file`,
		fmt.Sprintf("%d|%d|%d|%d", total, total, total, sum))
	e.expectRows(`SELECT record_count, next_row_id FROM ducklake_table_stats WHERE table_id = 2`, fmt.Sprintf("%d|%d", sum, sum))
	e.expectRows(`SELECT min_value, max_value FROM ducklake_table_column_stats WHERE table_id = 2`, fmt.Sprintf("1|%d", total))
	// Row id ranges tile [0, sum) exactly.
	next := int64(0)
	for _, r := range e.rows(`SELECT row_id_start, record_count FROM ducklake_data_file ORDER BY row_id_start`) {
		var start, n int64
		fmt.Sscanf(strings.ReplaceAll(r, "|", " "), "%d %d", &start, &n)
		if start != next {
			t.Fatalf("row id range starts at %d, want %d", start, next)
		}
		next += n
	}
	if next != sum {
		t.Errorf("row ids cover %d, want %d", next, sum)
	}
	h := e.head()
	if h.NextFileID != int64(total) {
		t.Errorf("next_file_id %d", h.NextFileID)
	}
	hm := e.load(h)
	mainS, _ := hm.SchemaByName("main")
	a, _ := hm.TableByName(0, "a")
	if files := mustFiles(t, e, mainS, a, h); len(files) != total {
		t.Errorf("%d files visible at the head, want %d", len(files), total)
	}
}

// TestParallelDeletesSameFile: two handles delete from the same data file at
// once, from the same base. One commit wins; the other is a conflict, not a
// lost update, on either backend, and leaves nothing behind.
func TestParallelDeletesSameFile(t *testing.T) { eachBackend(t, testParallelDeletesSameFile) }

func testParallelDeletesSameFile(t *testing.T, be backend) {
	e := newEnv(t, be)
	m := twoTables(t, e)
	mainS, _ := m.SchemaByName("main")
	a, _ := m.TableByName(0, "a")
	c := Begin(e.db, m.Snapshot, m)
	c.AddDataFile(*a, file("a1.parquet", 10))
	e.commit(c)
	m = e.load(e.head())
	a, _ = m.TableByName(0, "a")
	files := mustFiles(t, e, mainS, a, m.Snapshot)

	handles := []*catalog.DB{e.db, e.open()}
	errs := make([]error, len(handles))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, db := range handles {
		d := Begin(db, m.Snapshot, m)
		d.ReplaceDeleteFile(*a, files[0], NewDeleteFile{RelPath: fmt.Sprintf("del%d.parquet", i), DeleteCount: int64(i + 1), FileSize: 10, FooterSize: 5})
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = d.Commit(context.Background())
		}()
	}
	close(start)
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won < 0:
			won = i
		case err == nil:
			t.Fatalf("both deletes committed")
		case !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "another transaction deleted from it"):
			t.Errorf("loser %d: %v", i, err)
		}
	}
	if won < 0 {
		t.Fatalf("no delete committed: %v", errs)
	}
	if h := e.head(); h.ID != m.Snapshot.ID+1 {
		t.Errorf("head %d, want %d", h.ID, m.Snapshot.ID+1)
	}
	e.expectRows(`SELECT path, delete_count, end_snapshot FROM ducklake_delete_file`, fmt.Sprintf("del%d.parquet|%d|~", won, won+1))
}
