package bench

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

//go:embed duckdb_runner.py
var duckdbRunner []byte

// duck is a DuckDB process (Python, duckdb_runner.py) with one connection.
type duck struct {
	p   *proc
	in  io.WriteCloser
	out *bufio.Reader
	pid int
}

type duckReply struct {
	OK      bool     `json:"ok"`
	Timeout bool     `json:"timeout"`
	Error   string   `json:"error"`
	Seconds float64  `json:"seconds"`
	Rows    int      `json:"rows"`
	First   []string `json:"first"`
	PID     int      `json:"pid"`
}

// errTimeout marks a statement stopped by the per-query timeout.
var errTimeout = errors.New("timeout")

// startDuck starts DuckDB with threads threads on database (":memory:" or a file) and
// loads the named extensions from their PyPI packages.
func (r *Runner) startDuck(ctx context.Context, name, database string, threads int, extensions ...string) (*duck, error) {
	if err := r.ensureDuckDB(ctx); err != nil {
		return nil, err
	}
	script := filepath.Join(r.work, "duckdb_runner.py")
	if !fileExists(script) {
		if err := os.WriteFile(script, duckdbRunner, 0o644); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command("python3", script, database, r.work)
	cmd.Env = cleanEnv()
	logf, err := os.OpenFile(filepath.Join(r.work, "duckdb-"+name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logf
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting DuckDB: %w", err)
	}
	p := &proc{name: "duckdb " + name, cmd: cmd, logPath: logf.Name(), done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	d := &duck{p: p, in: in, out: bufio.NewReaderSize(outPipe, 1<<16)}
	hello, err := d.read()
	if err != nil {
		d.close()
		return nil, err
	}
	d.pid = hello.PID
	if len(extensions) > 0 {
		if err := d.send(map[string]any{"op": "load", "extensions": extensions}); err != nil {
			d.close()
			return nil, err
		}
		if rep, err := d.read(); err != nil || !rep.OK {
			d.close()
			return nil, fmt.Errorf("DuckDB: loading %v: %v %s", extensions, err, rep.Error)
		}
	}
	if _, err := d.exec(fmt.Sprintf("SET threads=%d", threads), 0, false); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

func (d *duck) send(req map[string]any) error {
	b, _ := json.Marshal(req)
	_, err := d.in.Write(append(b, '\n'))
	return err
}

func (d *duck) read() (duckReply, error) {
	line, err := d.out.ReadBytes('\n')
	if err != nil {
		return duckReply{}, fmt.Errorf("DuckDB process ended: %v: %s", err, d.p.logTail())
	}
	var rep duckReply
	if err := json.Unmarshal(line, &rep); err != nil {
		return duckReply{}, fmt.Errorf("DuckDB driver said %q: %v", line, err)
	}
	return rep, nil
}

// exec runs one statement (fetching its rows when fetch is set) and returns DuckDB's own
// time for it; a statement interrupted after timeout returns errTimeout.
func (d *duck) exec(sql string, timeout time.Duration, fetch bool) (duckReply, error) {
	return d.run(map[string]any{"op": "exec", "sql": sql, "fetch": fetch}, sql, timeout)
}

// drain runs a query and reads its result as Arrow record batches, dropping
// each (duckdb_runner.py: drain_arrow), so that the time is DuckDB's query
// plus handing over its rows, not building a Python object per value; the
// reply carries the row count and no first row.
func (d *duck) drain(sql string, timeout time.Duration) (duckReply, error) {
	return d.run(map[string]any{"op": "exec", "sql": sql, "fetch": "arrow"}, sql, timeout)
}

func (d *duck) run(req map[string]any, sql string, timeout time.Duration) (duckReply, error) {
	if timeout > 0 {
		req["timeout"] = timeout.Seconds()
	}
	if err := d.send(req); err != nil {
		return duckReply{}, fmt.Errorf("DuckDB: %w", err)
	}
	rep, err := d.read()
	if err != nil {
		return rep, err
	}
	if rep.Timeout {
		return rep, errTimeout
	}
	if !rep.OK {
		return rep, fmt.Errorf("DuckDB: %s: %s", firstLines(sql, 1), rep.Error)
	}
	return rep, nil
}

func (d *duck) pids() []int {
	if d == nil || d.p.exited() {
		return nil
	}
	return []int{d.pid}
}

func (d *duck) close() {
	if d == nil {
		return
	}
	d.in.Close()
	select {
	case <-d.p.done:
	case <-time.After(30 * time.Second):
		_ = d.p.cmd.Process.Kill()
		<-d.p.done
	}
}
