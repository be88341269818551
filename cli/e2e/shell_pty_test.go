package e2e

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/lakepg/lakepg/test/testserver"
)

// terminal is lakepg running on a pseudo-terminal, with everything it wrote.
type terminal struct {
	pty  *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

func startTerminal(t *testing.T, dir string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(testserver.Binary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(testserver.CleanEnv(), "HOME="+dir, "TERM=xterm")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 60, Cols: 240})
	if err != nil {
		t.Fatal(err)
	}
	tm := &terminal{pty: f, cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(tm.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			tm.mu.Lock()
			tm.out.Write(buf[:n])
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		f.Close()
		<-tm.done
		if t.Failed() {
			t.Logf("terminal output:\n%s", screen(tm.text(0)))
		}
	})
	return tm
}

func (tm *terminal) text(from int) string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.out.String()[from:]
}

func (tm *terminal) len() int {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.out.Len()
}

// expect waits until what was written since from contains want and returns
// the offset just past it.
func (tm *terminal) expect(t *testing.T, from int, want string) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := tm.text(from)
		if i := strings.Index(s, want); i >= 0 {
			return from + i + len(want)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q on the terminal within 60s; got:\n%s", want, screen(s))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// typeLine types a line and Enter.
func (tm *terminal) typeLine(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(tm.pty, line+"\r"); err != nil {
		t.Fatal(err)
	}
}

var escapes = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]`)

// screen is terminal output without control sequences and carriage returns.
func screen(s string) string {
	return strings.ReplaceAll(escapes.ReplaceAllString(s, ""), "\r", "")
}

var timingLine = regexp.MustCompile(`(?m)^Time: \d+\.\d{3} ms$`)

// results keeps the result lines of a piece of output: boxes, row counts,
// command tags and errors (prompts and the echo of what was typed go).
func results(s string) string {
	var keep []string
	for _, line := range strings.Split(screen(s), "\n") {
		if strings.Contains(line, "lakepg=>") || strings.Contains(line, "lakepg->") {
			continue
		}
		if line == "" || strings.HasPrefix(line, "Time: ") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "\n")
}

// TestShellTranscript replays the original lake REPL's session in an
// interactive shell on a pseudo-terminal and checks every result exactly.
func TestShellTranscript(t *testing.T) {
	l := newLake(t)
	tm := startTerminal(t, l.dir, append([]string{"shell"}, l.args...)...)
	pos := tm.expect(t, 0, "lakepg=> ")

	steps := []struct {
		input string
		want  string
	}{
		{"create-schema sales", "CREATE SCHEMA"},
		{"create-table sales orders id:int name:varchar amount:double", "CREATE TABLE"},
		{"insert sales orders id=1 name=alice amount=100.5", "INSERT 0 1"},
		{"insert sales orders id=2 name=bob amount=250", "INSERT 0 1"},
		{"scan sales orders", `┌────┬───────┬────────┐
│ id │ name  │ amount │
├────┼───────┼────────┤
│  1 │ alice │  100.5 │
│  2 │ bob   │    250 │
└────┴───────┴────────┘
(2 rows)`},
		{"delete sales orders name = bob", "DELETE 1"},
		{"scan sales orders at 4", `┌────┬───────┬────────┐
│ id │ name  │ amount │
├────┼───────┼────────┤
│  1 │ alice │  100.5 │
│  2 │ bob   │    250 │
└────┴───────┴────────┘
(2 rows)`},
		{"scan sales orders", `┌────┬───────┬────────┐
│ id │ name  │ amount │
├────┼───────┼────────┤
│  1 │ alice │  100.5 │
└────┴───────┴────────┘
(1 row)`},
		{"add-column sales orders status:varchar", "ALTER TABLE"},
		{"rename-column sales orders amount total", "ALTER TABLE"},
		{"scan sales orders", `┌────┬───────┬───────┬────────┐
│ id │ name  │ total │ status │
├────┼───────┼───────┼────────┤
│  1 │ alice │ 100.5 │        │
└────┴───────┴───────┴────────┘
(1 row)`},
		{"snapshots", `┌─────────────┬────────────────┬───────────────────────────────────────────────┐
│ snapshot_id │ schema_version │ changes                                       │
├─────────────┼────────────────┼───────────────────────────────────────────────┤
│           0 │              0 │ created_schema:"main",created_schema:"public" │
│           1 │              1 │ created_schema:"sales"                        │
│           2 │              2 │ created_table:"sales"."orders"                │
│           3 │              2 │ inlined_insert:3                              │
│           4 │              2 │ inlined_insert:3                              │
│           5 │              2 │ inlined_delete:3                              │
│           6 │              3 │ altered_table:3                               │
│           7 │              4 │ altered_table:3                               │
└─────────────┴────────────────┴───────────────────────────────────────────────┘
(8 rows)`},
	}
	for _, st := range steps {
		start := pos
		tm.typeLine(t, st.input)
		end := tm.expect(t, start, "ms\r\n")
		out := tm.text(start)[:end-start]
		if !timingLine.MatchString(screen(out)) {
			t.Errorf("%s: no timing line in\n%s", st.input, screen(out))
		}
		if got := results(out); got != st.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", st.input, got, st.want)
		}
		pos = tm.expect(t, end, "lakepg=> ")
	}

	// SQL over two lines: the continuation prompt, then the result
	start := pos
	tm.typeLine(t, "SELECT name,")
	pos = tm.expect(t, start, "lakepg-> ")
	tm.typeLine(t, "  total FROM sales.orders ORDER BY name;")
	end := tm.expect(t, pos, "ms\r\n")
	want := `┌───────┬───────┐
│ name  │ total │
├───────┼───────┤
│ alice │ 100.5 │
└───────┴───────┘
(1 row)`
	if got := results(tm.text(pos)[:end-pos]); got != want {
		t.Errorf("multi-line SQL:\ngot\n%s\nwant\n%s", got, want)
	}
	pos = tm.expect(t, end, "lakepg=> ")

	// an error is reported and the shell goes on
	tm.typeLine(t, "SELECT * FROM nope;")
	pos = tm.expect(t, pos, `ERROR: relation "nope" does not exist (SQLSTATE 42P01)`)
	pos = tm.expect(t, pos, "lakepg=> ")

	tm.typeLine(t, "quit")
	select {
	case <-tm.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the shell did not exit after quit")
	}
	if err := tm.cmd.Wait(); err != nil {
		t.Fatalf("shell exit: %v", err)
	}

	hist, err := os.ReadFile(filepath.Join(l.dir, ".lakepg_history"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"scan sales orders at 4", "SELECT name, total FROM sales.orders ORDER BY name;", "snapshots"} {
		if !strings.Contains(string(hist), want+"\n") {
			t.Errorf("history lacks %q:\n%s", want, hist)
		}
	}

	// what the shell wrote is in the lake
	if got := l.sh(t, nil, "scan sales orders"); !strings.Contains(got, "│  1 │ alice │ 100.5 │        │") {
		t.Errorf("after the shell, scan shows\n%s", got)
	}
}

// TestImportProgressBar: on a terminal, import draws a progress bar with
// bytes, rows and rows/s, ending at 100%.
func TestImportProgressBar(t *testing.T) {
	l := newLake(t)
	var sb strings.Builder
	sb.WriteString("id,label,score\n")
	const rows = 200000
	for i := 0; i < rows; i++ {
		sb.WriteString(strconv.Itoa(i))
		sb.WriteString(",row number ")
		sb.WriteString(strconv.Itoa(i))
		sb.WriteString(",")
		sb.WriteString(strconv.Itoa(i % 977))
		sb.WriteString(".5\n")
	}
	csvPath := writeFile(t, filepath.Join(l.dir, "big.csv"), sb.String())
	tm := startTerminal(t, l.dir, append(append([]string{"import", "--create"}, l.args...), "big", csvPath)...)
	select {
	case <-tm.done:
	case <-time.After(120 * time.Second):
		t.Fatal("import did not finish")
	}
	if err := tm.cmd.Wait(); err != nil {
		t.Fatalf("import: %v\n%s", err, screen(tm.text(0)))
	}
	out := screen(tm.text(0))
	final := regexp.MustCompile(`\[█{30}\] 200000 rows, [0-9.]+ MiB of [0-9.]+ MiB \(100%\), \d+ rows/s\n`)
	if !final.MatchString(out) {
		t.Errorf("no final progress bar in\n%s", out)
	}
	if !strings.Contains(out, "imported 200000 rows into big from 1 CSV file(s)") {
		t.Errorf("no summary in\n%s", out)
	}
	if got := l.sh(t, []string{"--format", "csv"}, "SELECT count(*) AS n, max(label) AS m FROM big"); got != "n,m\n200000,row number 99999\n" {
		t.Errorf("big: %q", got)
	}
}

// TestShellInterrupt: ^C cancels the running statement and the shell goes on.
func TestShellInterrupt(t *testing.T) {
	l := newLake(t)
	tm := startTerminal(t, l.dir, append([]string{"shell"}, l.args...)...)
	pos := tm.expect(t, 0, "lakepg=> ")
	tm.typeLine(t, "SELECT count(*) FROM generate_series(1, 10000000000) a, generate_series(1, 10) b;")
	time.Sleep(500 * time.Millisecond)
	if _, err := tm.pty.Write([]byte{3}); err != nil {
		t.Fatal(err)
	}
	pos = tm.expect(t, pos, "(SQLSTATE 57014)")
	pos = tm.expect(t, pos, "lakepg=> ")
	tm.typeLine(t, "SELECT 41 + 1 AS answer;")
	end := tm.expect(t, pos, "ms\r\n")
	if got := results(tm.text(pos)[:end-pos]); got != "┌────────┐\n│ answer │\n├────────┤\n│     42 │\n└────────┘\n(1 row)" {
		t.Errorf("after ^C:\n%s", got)
	}
}
