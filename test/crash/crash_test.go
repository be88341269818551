package crash

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/catalog/catalogtest"
	"github.com/lakepg/lakepg/test/testserver"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testserver.RemoveBinary()
	os.Exit(code)
}

const (
	// writes is how many large writes each test runs.
	writes = 50
	// insertRows and copyRows size the inserts; a block inserts blockRows.
	insertRows = 200_000
	copyRows   = 100_000
	blockRows  = 100_000
	// maxRows bounds the table: above it the next write deletes a whole group.
	maxRows = 2_000_000
)

// lake is a lakepg server with the paths `lakepg check` needs.
type lake struct {
	srv     *testserver.Server
	catalog string // --catalog
	data    string // --data
}

// TestCrashSQLiteCatalog: 50 large writes on a lake with a SQLite catalog, each killed at a
// random moment (or not).
func TestCrashSQLiteCatalog(t *testing.T) {
	dir := t.TempDir()
	srv := testserver.Start(t, testserver.Binary(t), dir)
	crashWrites(t, "crash-sqlite", &lake{srv: srv, catalog: "sqlite:" + filepath.Join(dir, "catalog.sqlite"), data: filepath.Join(dir, "data")})
}

// TestCrashPostgresCatalog: the same with the catalog in PostgreSQL, where a killed commit
// leaves an open catalog transaction that PostgreSQL must roll back.
func TestCrashPostgresCatalog(t *testing.T) {
	dsn := catalogtest.NewDatabase(t, testserver.PostgresDSN(t)) // fails, never skips, without LAKEPG_TEST_PG_DSN
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	port := testserver.FreePort(t)
	srv := testserver.Launch(t, testserver.Binary(t), dir, port, []string{
		"--listen", fmt.Sprintf("127.0.0.1:%d", port), "--catalog", dsn, "--data", data, "--log-level", "warn"}, nil)
	crashWrites(t, "crash-postgres", &lake{srv: srv, catalog: dsn, data: data})
}

// group is what the table holds for one value of w: the rows of one write, less what later
// writes deleted, with what they added to v.
type group struct{ n, sum int64 }

// state is the table's content by w.
type state map[int64]group

func (s state) clone() state {
	c := state{}
	for k, v := range s {
		c[k] = v
	}
	return c
}

func (s state) rows() int64 {
	var n int64
	for _, g := range s {
		n += g.n
	}
	return n
}

func (s state) String() string {
	ws := make([]int64, 0, len(s))
	for w := range s {
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i] < ws[j] })
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = fmt.Sprintf("%d:%d/%d", w, s[w].n, s[w].sum)
	}
	return "{" + strings.Join(parts, " ") + "}"
}

func equal(a, b state) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// sumMod is the sum of g % 1000 for g in 1..n: the v of a fresh insert of n rows.
func sumMod(n int64) int64 {
	full, rest := n/1000, n%1000
	return full*(999*1000/2) + rest*(rest+1)/2
}

// write is one planned write: its statements (a block is several), or COPY rows, and the
// table's content if it commits.
type write struct {
	kind  string
	stmts []string
	copyW int64 // > 0: COPY copyRows rows with w = copyW
	after state
}

func connect(t *testing.T, ctx context.Context, l *lake) *pgconn.PgConn {
	t.Helper()
	c, err := pgconn.Connect(ctx, l.srv.DSN())
	if err != nil {
		t.Fatalf("connecting to lakepg: %v", err)
	}
	return c
}

func query(ctx context.Context, c *pgconn.PgConn, sql string) ([][][]byte, error) {
	res, err := c.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, nil
	}
	return res[len(res)-1].Rows, nil
}

func observe(t *testing.T, ctx context.Context, c *pgconn.PgConn) state {
	t.Helper()
	rows, err := query(ctx, c, "SELECT w, count(*), sum(v) FROM big GROUP BY w")
	if err != nil {
		t.Fatalf("reading the table: %v", err)
	}
	s := state{}
	for _, r := range rows {
		var vals [3]int64
		for i := range vals {
			if vals[i], err = strconv.ParseInt(string(r[i]), 10, 64); err != nil {
				t.Fatalf("reading the table: %q: %v", r[i], err)
			}
		}
		s[vals[0]] = group{vals[1], vals[2]}
	}
	return s
}

// countSum is count(*) and sum(v) of the rows a predicate selects.
func countSum(t *testing.T, ctx context.Context, c *pgconn.PgConn, where string) group {
	t.Helper()
	rows, err := query(ctx, c, "SELECT count(*), coalesce(sum(v), 0) FROM big WHERE "+where)
	if err != nil || len(rows) != 1 {
		t.Fatalf("SELECT … WHERE %s: %v", where, err)
	}
	n, _ := strconv.ParseInt(string(rows[0][0]), 10, 64)
	s, _ := strconv.ParseInt(string(rows[0][1]), 10, 64)
	return group{n, s}
}

// plan chooses write k and what the table holds if it commits.
func plan(t *testing.T, ctx context.Context, c *pgconn.PgConn, rnd *rand.Rand, k int64, before state) write {
	var groups []int64
	for w, g := range before {
		if g.n > 0 {
			groups = append(groups, w)
		}
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i] < groups[j] })
	pick := func() int64 { return groups[rnd.IntN(len(groups))] }
	after := before.clone()
	insert := func(w, n int64) {
		after[w] = group{n, sumMod(n)}
	}
	r := rnd.Float64()
	switch {
	case before.rows() > maxRows:
		j := pick()
		delete(after, j)
		return write{kind: "DELETE (a whole write)", stmts: []string{fmt.Sprintf("DELETE FROM big WHERE w = %d", j)}, after: after}
	case len(groups) == 0 || r < 0.30:
		insert(k, insertRows)
		return write{kind: "INSERT … SELECT", stmts: []string{
			fmt.Sprintf("INSERT INTO big SELECT g, %d, g %% 1000 FROM generate_series(1, %d) g", k, insertRows)}, after: after}
	case r < 0.50:
		insert(k, copyRows)
		return write{kind: "COPY", copyW: k, after: after}
	case r < 0.70:
		j := pick()
		after[j] = group{after[j].n, after[j].sum + after[j].n}
		return write{kind: "UPDATE", stmts: []string{fmt.Sprintf("UPDATE big SET v = v + 1 WHERE w = %d", j)}, after: after}
	case r < 0.85:
		j := pick()
		where := fmt.Sprintf("w = %d AND id %% 3 = 0", j)
		gone := countSum(t, ctx, c, where)
		after[j] = group{after[j].n - gone.n, after[j].sum - gone.sum}
		return write{kind: "DELETE", stmts: []string{"DELETE FROM big WHERE " + where}, after: after}
	default:
		j, j2 := pick(), pick()
		where := fmt.Sprintf("w = %d AND id %% 5 = 0", j2)
		gone := countSum(t, ctx, c, where)
		if j2 == j { // the block's UPDATE added one to each row it then deletes
			gone.sum += gone.n
		}
		insert(k, blockRows)
		after[j] = group{after[j].n, after[j].sum + after[j].n}
		after[j2] = group{after[j2].n - gone.n, after[j2].sum - gone.sum}
		return write{kind: "BEGIN … COMMIT", stmts: []string{
			"BEGIN",
			fmt.Sprintf("INSERT INTO big SELECT g, %d, g %% 1000 FROM generate_series(1, %d) g", k, blockRows),
			fmt.Sprintf("UPDATE big SET v = v + 1 WHERE w = %d", j),
			"DELETE FROM big WHERE " + where,
			"COMMIT",
		}, after: after}
	}
}

// copyData streams COPY text rows id, w, v.
func copyData(w int64) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 64<<10)
		for g := int64(1); g <= copyRows; g++ {
			fmt.Fprintf(bw, "%d\t%d\t%d\n", g, w, g%1000)
		}
		pw.CloseWithError(bw.Flush())
	}()
	return pr
}

// run sends the write; acked means every statement's reply arrived without error (for a
// block, COMMIT's tag was COMMIT).
func (w write) run(ctx context.Context, c *pgconn.PgConn) (acked bool, err error) {
	if w.copyW > 0 {
		tag, err := c.CopyFrom(ctx, copyData(w.copyW), "COPY big FROM STDIN")
		if err == nil && tag.RowsAffected() != copyRows {
			return false, fmt.Errorf("COPY answered %q, want COPY %d", tag, copyRows)
		}
		return err == nil, err
	}
	for _, s := range w.stmts {
		res, err := c.Exec(ctx, s).ReadAll()
		if err != nil {
			return false, err
		}
		if s == "COMMIT" && (len(res) != 1 || res[0].CommandTag.String() != "COMMIT") {
			return false, fmt.Errorf("COMMIT answered %v", res)
		}
	}
	return true, nil
}

// outcome of one write.
type outcome struct {
	kind            string
	killed, acked   bool
	visible         bool
	took, killAfter time.Duration
}

func crashWrites(t *testing.T, name string, l *lake) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 1))

	c := connect(t, ctx, l)
	defer func() { c.Close(context.Background()) }()
	if _, err := query(ctx, c, "CREATE TABLE big (id bigint, w integer, v bigint)"); err != nil {
		t.Fatal(err)
	}
	ledger := state{}
	// how long each kind of write takes, so that kills fall inside them
	est := map[string]time.Duration{}
	var outcomes []outcome
	start := time.Now()
	for k := int64(1); k <= writes && !t.Failed(); k++ {
		w := plan(t, ctx, c, rnd, k, ledger)
		o := outcome{kind: w.kind}
		// the first write of each kind runs to its end, to time it
		d, timed := est[w.kind]
		kill := timed && rnd.Float64() < 0.85
		// anywhere in the statement, and often near its end: in its commit, or just after
		f := 0.2 + 1.3*rnd.Float64()
		if rnd.IntN(3) == 0 {
			f = 0.85 + 0.3*rnd.Float64()
		}
		o.killAfter = time.Duration(f * float64(d))
		type result struct {
			acked bool
			err   error
		}
		done := make(chan result, 1)
		began := time.Now()
		go func() {
			acked, err := w.run(ctx, c)
			done <- result{acked, err}
		}()
		var r result
		if kill {
			select {
			case r = <-done:
			case <-time.After(o.killAfter):
				l.srv.Kill() // SIGKILL
				o.killed = true
				r = <-done
			}
		} else {
			r = <-done
		}
		o.took, o.acked = time.Since(began), r.acked
		if !o.killed {
			if r.err != nil {
				t.Fatalf("write %d (%s) failed without a crash: %v", k, w.kind, r.err)
			}
			est[w.kind] = (d + o.took) / 2
		}
		if o.killed {
			c.Close(context.Background())
			l.srv.Restart(t)
			c = connect(t, ctx, l)
		}
		got := observe(t, ctx, c)
		switch {
		case equal(got, w.after):
			o.visible = true
		case o.acked:
			t.Errorf("write %d (%s) was acknowledged but is not (fully) visible after the restart:\n got  %v\n want %v", k, w.kind, got, w.after)
		case !equal(got, ledger):
			t.Errorf("write %d (%s), killed after %v, is partly visible after the restart:\n got    %v\n before %v\n after  %v", k, w.kind, o.killAfter, got, ledger, w.after)
		}
		ledger = got
		outcomes = append(outcomes, o)
	}
	elapsed := time.Since(start)

	// what the killed writes left behind, then the cleanup
	before := listData(t, l.data)
	_, orphans := l.check(t, ctx)
	for _, call := range []string{
		"CALL lakepg.cleanup_old_files(cleanup_all => true)",
		"CALL lakepg.delete_orphaned_files(cleanup_all => true)",
	} {
		if _, err := query(ctx, c, call); err != nil {
			t.Fatalf("%s: %v", call, err)
		}
	}
	after := listData(t, l.data)
	summary, problems := l.check(t, ctx)
	for _, p := range problems {
		t.Errorf("after cleanup_old_files and delete_orphaned_files, lakepg check: %s", p)
	}
	// A killed write leaves the file it was writing under its temporary name
	// (.<name>.tmp-<n>, renamed into place only when complete); nothing in the catalog
	// references it, so cleanup must remove it too.
	if len(after.temp) > 0 {
		t.Errorf("after cleanup_old_files and delete_orphaned_files, %d temporary files of killed writes are still in the data directory (of %d before), e.g. %s",
			len(after.temp), len(before.temp), strings.Join(after.temp[:min(3, len(after.temp))], ", "))
	}
	if got := observe(t, ctx, c); !equal(got, ledger) {
		t.Errorf("after cleanup the table holds %v, want %v", got, ledger)
	}

	var b strings.Builder
	kinds := map[string][4]int{} // writes, killed, killed but visible (or acknowledged), killed and absent
	var killed, visibleKilled, absent int
	for _, o := range outcomes {
		f := kinds[o.kind]
		f[0]++
		if o.killed {
			f[1]++
			killed++
			if o.visible {
				f[2]++
				visibleKilled++
			} else {
				f[3]++
				absent++
			}
		}
		kinds[o.kind] = f
	}
	fmt.Fprintf(&b, "%s: %d large writes in %.1f s, %d killed with SIGKILL (%d of them had committed, %d were absent after the restart)\n",
		name, len(outcomes), elapsed.Seconds(), killed, visibleKilled, absent)
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		f := kinds[k]
		fmt.Fprintf(&b, "  %-24s %2d writes, %2d killed: %2d committed, %2d absent\n", k, f[0], f[1], f[2], f[3])
	}
	fmt.Fprintf(&b, "  data directory before cleanup: %d files (%d unreferenced Parquet files, %d temporary files); after: %d files (%d temporary)\n",
		len(before.files), len(orphans), len(before.temp), len(after.files), len(after.temp))
	fmt.Fprintf(&b, "  lakepg check after cleanup: %s\n", summary)
	testserver.Report(t, name, b.String())
}

// dataFiles is a listing of the data directory.
type dataFiles struct {
	files []string // every regular file
	temp  []string // of them, writers' temporary files (.name.tmp-*)
}

func listData(t *testing.T, dir string) dataFiles {
	t.Helper()
	var out dataFiles
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		out.files = append(out.files, p)
		if strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".tmp-") {
			out.temp = append(out.temp, p)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("listing %s: %v", dir, err)
	}
	return out
}

// check runs `lakepg check` (every file the catalog references exists with its size and row
// count; every file under the data path is referenced) and returns its summary line and the
// problems it printed.
func (l *lake) check(t *testing.T, ctx context.Context) (string, []string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, l.srv.Bin, "check", "--catalog", l.catalog, "--data", l.data)
	cmd.Env = testserver.CleanEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("lakepg check: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	summary := lines[len(lines)-1]
	if !strings.HasPrefix(summary, "checked ") {
		t.Fatalf("lakepg check: %v\n%s%s", err, out, stderr.String())
	}
	return summary, lines[:len(lines)-1]
}
