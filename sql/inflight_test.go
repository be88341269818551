package sql

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lakepg/lakepg/snapshot"
)

// orphanSweep runs delete_orphaned_files with cleanup_all on s and returns
// its notice (summary and detail).
func orphanSweep(t *testing.T, s *Session) Notice {
	t.Helper()
	var (
		mu      sync.Mutex
		notices []Notice
	)
	s.SetNoticeHandler(func(n Notice) { mu.Lock(); notices = append(notices, n); mu.Unlock() })
	defer s.SetNoticeHandler(nil)
	must(t, s, `CALL lakepg.delete_orphaned_files(cleanup_all => true)`)
	mu.Lock()
	defer mu.Unlock()
	if len(notices) != 1 {
		t.Fatalf("delete_orphaned_files raised %d notices, want 1: %+v", len(notices), notices)
	}
	return notices[0]
}

func parquetUnder(t *testing.T, s *Session) []string {
	t.Helper()
	var out []string
	for _, f := range dataFiles(t, s) {
		if strings.HasSuffix(f, ".parquet") {
			out = append(out, f)
		}
	}
	return out
}

// TestInflightBlockFileSurvivesOrphanSweep: a transaction block's staged
// Parquet file is named by no catalog row until COMMIT; a sweep with
// cleanup_all from another connection meanwhile must keep it, and the rows
// must read back after COMMIT. A rolled-back block's file is deleted and
// leaves nothing registered.
func TestInflightBlockFileSurvivesOrphanSweep(t *testing.T) {
	s := lake(t)
	other, err := s.eng.NewSession("other", "lake", map[string]string{"TimeZone": "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	must(t, s, `CREATE TABLE big (id int, v text)`)
	must(t, s, `BEGIN`)
	// far beyond data_inlining_row_limit (10): the block writes a file
	must(t, s, `INSERT INTO big SELECT g, 'v' || g::text FROM generate_series(1, 5000) g`)
	files := parquetUnder(t, s)
	if len(files) != 1 {
		t.Fatalf("the block's INSERT wrote %d Parquet files, want 1: %v", len(files), files)
	}
	staged := files[0]

	n := orphanSweep(t, other)
	if n.Message != "delete_orphaned_files: deleted 0 files and 0 temporary files" {
		t.Errorf("sweep summary %q", n.Message)
	}
	if want := "kept: " + staged + ": written by this server and not committed yet"; !strings.Contains(n.Detail, want) {
		t.Errorf("sweep detail lacks %q:\n%s", want, n.Detail)
	}
	if _, err := os.Stat(staged); err != nil {
		t.Fatalf("the sweep deleted the block's staged file: %v", err)
	}

	must(t, s, `COMMIT`)
	must(t, other, `SELECT count(*), sum(id), max(v) FROM big`, "5000|12502500|v999")

	// committed, the file is named by the catalog: the next sweep neither
	// deletes nor reports it, and drops it from the registry
	n = orphanSweep(t, other)
	if n.Message != "delete_orphaned_files: deleted 0 files and 0 temporary files" || n.Detail != "" {
		t.Errorf("sweep after COMMIT: %q / %q", n.Message, n.Detail)
	}
	if inflight.registered(staged) {
		t.Errorf("%s is still registered in flight after COMMIT and a sweep", staged)
	}
	must(t, other, `SELECT count(*) FROM big`, "5000")

	// ROLLBACK deletes the block's file and releases it
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO big SELECT g, 'w' FROM generate_series(1, 5000) g`)
	var rolled string
	for _, f := range parquetUnder(t, s) {
		if f != staged {
			rolled = f
		}
	}
	if rolled == "" || !inflight.registered(rolled) {
		t.Fatalf("the second block's file %q is not registered in flight", rolled)
	}
	must(t, s, `ROLLBACK`)
	if _, err := os.Stat(rolled); !os.IsNotExist(err) {
		t.Errorf("ROLLBACK left %s: %v", rolled, err)
	}
	if inflight.registered(rolled) {
		t.Errorf("%s is still registered after ROLLBACK deleted it", rolled)
	}
	must(t, other, `SELECT count(*) FROM big`, "5000")
}

// gatedRows yields n rows "i|v<i>", pausing after the first half until
// release is closed.
type gatedRows struct {
	n, line  int64
	paused   chan struct{} // closed when the first half has been read
	release  chan struct{}
	didPause bool
}

func (r *gatedRows) Next() ([][]byte, error) {
	if r.line == r.n/2 && !r.didPause {
		r.didPause = true
		close(r.paused)
		<-r.release
	}
	if r.line >= r.n {
		return nil, io.EOF
	}
	r.line++
	v := strconv.FormatInt(r.line, 10)
	return [][]byte{[]byte(v), []byte("v" + v)}, nil
}

func (r *gatedRows) Line() int64 { return r.line }

// TestInflightCopyTempFileSurvivesOrphanSweep: a COPY still receiving rows
// is writing its file under a temporary name; a sweep with cleanup_all must
// keep that file (deleting it would fail the COPY), and the COPY then
// commits every row.
func TestInflightCopyTempFileSurvivesOrphanSweep(t *testing.T) {
	s := lake(t)
	other, err := s.eng.NewSession("other", "lake", map[string]string{"TimeZone": "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	must(t, s, `CREATE TABLE c (id int, v text)`)
	rows := &gatedRows{n: 3000, paused: make(chan struct{}), release: make(chan struct{})}
	type outcome struct {
		tag string
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		_, tag, err := copyIn(t, s, `COPY c FROM STDIN`, rows)
		done <- outcome{tag, err}
	}()
	<-rows.paused
	// the writer creates its temporary file before it has a row to write
	root := strings.TrimPrefix(s.eng.DB.DataPath(), "file://")
	var temp string
	for deadline := time.Now().Add(10 * time.Second); temp == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.Contains(d.Name(), ".tmp-") {
				temp = p
			}
			return nil
		})
	}
	if temp == "" {
		close(rows.release)
		t.Fatal("the COPY made no temporary file")
	}

	n := orphanSweep(t, other)
	if n.Message != "delete_orphaned_files: deleted 0 files and 0 temporary files" {
		t.Errorf("sweep summary %q", n.Message)
	}
	if want := "kept: " + temp + ": temporary file of a write of this server in progress"; !strings.Contains(n.Detail, want) {
		t.Errorf("sweep detail lacks %q:\n%s", want, n.Detail)
	}
	if _, err := os.Stat(temp); err != nil {
		t.Errorf("the sweep deleted the COPY's temporary file: %v", err)
	}

	close(rows.release)
	select {
	case o := <-done:
		if o.err != nil || o.tag != "COPY 3000" {
			t.Fatalf("COPY: tag %q, err %v", o.tag, o.err)
		}
	case <-time.After(time.Minute):
		t.Fatal("COPY did not finish")
	}
	must(t, other, `SELECT count(*), sum(id) FROM c`, "3000|4501500")
	files := parquetUnder(t, s)
	if len(files) != 1 {
		t.Fatalf("want the COPY's one file, have %v", files)
	}
	if inflight.registered(files[0]) {
		t.Errorf("%s is still registered in flight after its COPY committed", files[0])
	}
}

// TestOrphanSweepKeepsMisplacedFiles: a data file the catalog names but
// that sits in another directory (as the old rename-in-a-block bug left
// it) is kept and reported; a stray file is deleted; a file the catalog
// names in another spelling is not an orphan.
func TestOrphanSweepKeepsMisplacedFiles(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE m (id int)`)
	must(t, s, `INSERT INTO m SELECT g FROM generate_series(1, 100) g`)
	must(t, s, `INSERT INTO m SELECT g FROM generate_series(101, 200) g`)
	files := parquetUnder(t, s)
	if len(files) != 2 {
		t.Fatalf("want 2 data files, have %v", files)
	}
	ctx := context.Background()
	db := s.eng.DB
	// the first file: named by an absolute row in an odd spelling
	abs := filepath.Dir(files[0]) + "/./..//" + filepath.Base(filepath.Dir(files[0])) + "/" + filepath.Base(files[0])
	if _, err := db.SQL().ExecContext(ctx, db.Rebind(`UPDATE ducklake_data_file SET path = ?, path_is_relative = ? WHERE path = ?`), abs, false, filepath.Base(files[0])); err != nil {
		t.Fatal(err)
	}
	// the second file: moved to where a renamed table's old name pointed
	wrong := filepath.Join(filepath.Dir(filepath.Dir(files[1])), "m__tmp", filepath.Base(files[1]))
	if err := os.MkdirAll(filepath.Dir(wrong), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(files[1], wrong); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(filepath.Dir(files[0]), "ducklake-stray.parquet")
	if err := os.WriteFile(stray, []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := orphanSweep(t, s)
	if n.Message != "delete_orphaned_files: deleted 1 files and 0 temporary files" {
		t.Errorf("sweep summary %q\n%s", n.Message, n.Detail)
	}
	if want := "kept: " + wrong + ": named by the catalog as " + files[1]; !strings.Contains(n.Detail, want) {
		t.Errorf("sweep detail lacks %q:\n%s", want, n.Detail)
	}
	for _, f := range []string{files[0], wrong} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the sweep deleted %s: %v", f, err)
		}
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("the stray file survived: %v", err)
	}
	if err := os.Rename(wrong, files[1]); err != nil {
		t.Fatal(err)
	}
	must(t, s, `SELECT count(*), sum(id) FROM m`, "200|20100")
}

// TestInflightRegistryRules: releases during a sweep wait for its end; a
// sweep prunes entries of its own lake that were visible before it listed
// and are gone, never an entry still being written, one it listed, or one
// of another lake.
func TestInflightRegistryRules(t *testing.T) {
	s := lake(t)
	ctx := context.Background()
	data := s.eng.DB.DataPath()
	gone, writing, listedFile := data+"public/t/ducklake-gone.parquet", data+"public/t/ducklake-writing.parquet", data+"public/t/ducklake-listed.parquet"
	elsewhere := "/elsewhere/lake/public/t/ducklake-other.parquet"
	for _, p := range []string{gone, writing, listedFile, elsewhere} {
		inflight.add(s, p)
	}
	defer inflight.Release(gone, writing, listedFile, elsewhere)
	for _, p := range []string{gone, listedFile, elsewhere} {
		inflight.markVisible(p)
	}
	sw := inflight.beginSweep()
	inflight.Release(listedFile)
	if !inflight.registered(listedFile) {
		t.Errorf("a release during a sweep took effect before the sweep ended")
	}
	named, err := snapshot.KnownFiles(ctx, s.eng.DB)
	if err != nil {
		t.Fatal(err)
	}
	sw.prune(data, map[string]bool{inflightKey(listedFile): true}, named)
	sw.end()
	for p, want := range map[string]bool{gone: false, writing: true, listedFile: false, elsewhere: true} {
		if got := inflight.registered(p); got != want {
			t.Errorf("registered(%s) = %v, want %v", p, got, want)
		}
	}
	// a file becoming visible after the sweep began is not pruned by it
	inflight.add(s, gone)
	sw = inflight.beginSweep()
	inflight.markVisible(gone)
	sw.prune(data, map[string]bool{}, named)
	sw.end()
	if !inflight.registered(gone) {
		t.Errorf("a sweep pruned a file that became visible after it listed")
	}
	s.releaseWrites()
	if inflight.registered(gone) || inflight.registered(writing) {
		t.Errorf("releaseWrites left the session's files registered")
	}
}
