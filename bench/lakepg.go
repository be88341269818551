package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// lakepgServer is one lakepg process on a loopback port.
type lakepgServer struct {
	name string
	dir  string   // working directory and log location
	args []string // flags besides --listen
	env  []string
	port int
	p    *proc
	r    *Runner
}

// startLakepg starts lakepg with its lake's flags (--catalog, --data, …), GOMAXPROCS
// set to the run's threads unless env sets it, and waits until it accepts connections.
func (r *Runner) startLakepg(ctx context.Context, name, dir string, env []string, args ...string) (*lakepgServer, error) {
	if err := r.ensureLakepg(ctx); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	hasProcs := false
	for _, e := range env {
		hasProcs = hasProcs || strings.HasPrefix(e, "GOMAXPROCS=")
	}
	if !hasProcs {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(r.cfg.Threads))
	}
	s := &lakepgServer{name: name, dir: dir, args: args, env: env, r: r}
	return s, s.start(ctx)
}

func (s *lakepgServer) start(ctx context.Context) error {
	// a free port can be taken by another process before lakepg binds it
	// (the test packages run side by side): then another port is tried
	for try := 1; ; try++ {
		err := s.startOn(ctx)
		if err == nil || try == 3 || !errors.Is(err, errPortTaken) {
			return err
		}
	}
}

// errPortTaken: lakepg exited at start-up because its port was in use.
var errPortTaken = errors.New("port taken")

func (s *lakepgServer) startOn(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	s.port = port
	argv := append([]string{s.r.tools.lakepg, "--listen", s.addr(), "--log-level", "warn", "--slow-query-ms", "-1"}, s.args...)
	s.r.rep.command(strings.Join(append(envShown(s.env), argv...), " "))
	p, err := startProc("lakepg "+s.name, s.dir, filepath.Join(s.dir, "lakepg.log"), cleanEnv(s.env...), argv...)
	if err != nil {
		return err
	}
	s.p = p
	deadline := time.Now().Add(2 * time.Minute)
	for {
		c, err := pgx.Connect(ctx, s.dsn())
		if err == nil {
			c.Close(ctx)
			return nil
		}
		if p.exited() {
			tail := p.logTail()
			if strings.Contains(tail, "address already in use") {
				return fmt.Errorf("lakepg %s on port %d: %w", s.name, port, errPortTaken)
			}
			return fmt.Errorf("lakepg %s exited during start-up: %s", s.name, tail)
		}
		if time.Now().After(deadline) {
			p.stop(5 * time.Second)
			return fmt.Errorf("lakepg %s accepts no connection after 2 minutes: %v", s.name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// envShown is the part of a server's environment the report shows: no secrets.
func envShown(env []string) []string {
	var out []string
	for _, e := range env {
		k, _, _ := strings.Cut(e, "=")
		if strings.Contains(k, "SECRET") || strings.Contains(k, "PASSWORD") || strings.Contains(k, "ACCESS_KEY") {
			out = append(out, k+"=…")
		} else {
			out = append(out, e)
		}
	}
	return out
}

// restart stops the process and starts it again on the same lake: a cold start with
// empty caches in the process (the operating system's page cache stays warm).
func (s *lakepgServer) restart(ctx context.Context) error {
	s.p.stop(30 * time.Second)
	return s.start(ctx)
}

func (s *lakepgServer) stop() {
	if s != nil && s.p != nil {
		s.p.stop(30 * time.Second)
	}
}

func (s *lakepgServer) addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

func (s *lakepgServer) dsn() string {
	return fmt.Sprintf("postgres://bench@127.0.0.1:%d/lake?sslmode=disable&connect_timeout=30", s.port)
}

func (s *lakepgServer) pids() []int {
	if s == nil || s.p == nil || s.p.exited() {
		return nil
	}
	return []int{s.p.pid()}
}

// mainLake is the run's main lake (SQLite catalog, local data) and its server, started on
// first use.
func (r *Runner) mainLake(ctx context.Context) (*lakepgServer, error) {
	if r.lake != nil {
		return r.lake, nil
	}
	dir := filepath.Join(r.work, "lake")
	s, err := r.startLakepg(ctx, "main", dir, nil,
		"--catalog", "sqlite:"+filepath.Join(dir, "catalog.sqlite"), "--data", filepath.Join(dir, "data"))
	if err != nil {
		return nil, err
	}
	r.lake = s
	return s, nil
}

// exec runs statements on a fresh connection.
func execSQL(ctx context.Context, dsn string, stmts ...string) error {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	for _, st := range stmts {
		if _, err := c.Exec(ctx, st); err != nil {
			return fmt.Errorf("%s: %w", firstLines(st, 1), err)
		}
	}
	return nil
}

// dirSize is the size of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return nil
	})
	return n
}
