package testserver

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

const (
	// StartTimeout bounds a start-up: the first one creates the catalog.
	StartTimeout = 90 * time.Second
	// StopTimeout bounds a shutdown after a signal.
	StopTimeout = 30 * time.Second
)

// ModuleRoot walks up from the working directory (the package directory under go test) to
// the directory holding go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// BinEnv names a variable that, when set, is the lakepg binary the suites run instead of
// building one (to test a given build, or the suites while the tree does not compile).
const BinEnv = "LAKEPG_TEST_BIN"

// Build compiles ./cmd/lakepg into dir and returns the path of the binary (or returns
// $LAKEPG_TEST_BIN when set). Test packages call it once from TestMain, so every test of the
// package runs the same, current server.
func Build(dir string) (string, error) {
	if bin := os.Getenv(BinEnv); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("%s: %v", BinEnv, err)
		}
		return bin, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "lakepg")
	build := exec.Command("go", "build", "-o", bin, "./cmd/lakepg")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build -o %s ./cmd/lakepg (in %s): %v\n%s", bin, root, err, out)
	}
	return bin, nil
}

var (
	buildOnce sync.Once
	buildDir  string
	buildBin  string
	buildErr  error
)

// Binary builds the lakepg binary on first use (see Build) and returns its path, or fails
// the test when the build fails. Building lazily lets a package's tests that need no server
// (parsers, formatting, comparisons) run while the tree does not compile. TestMain calls
// RemoveBinary after the tests.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if os.Getenv(BinEnv) != "" {
			buildBin, buildErr = Build("")
			return
		}
		buildDir, buildErr = os.MkdirTemp("", "lakepg-bin-")
		if buildErr == nil {
			buildBin, buildErr = Build(buildDir)
		}
	})
	if buildErr != nil {
		t.Fatalf("building lakepg: %v", buildErr)
	}
	return buildBin
}

// RemoveBinary removes what Binary built.
func RemoveBinary() {
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
}

// Server is one running lakepg process on a loopback port.
type Server struct {
	Bin  string        // the binary
	Dir  string        // working directory of the process; the lake lives here
	Port int           // loopback port of the PostgreSQL protocol
	Logs *LockedBuffer // stdout and stderr of the process (of every start, for Restart)

	args, env []string
	lake      bool // started by Start: flags derived from Dir and Port, so Restart may pick a new port
	cmd       *exec.Cmd
	exited    chan struct{} // closed when the process has been waited for
	state     *os.ProcessState

	mu       sync.Mutex
	maxRSS   int64  // LimitMemory; 0: no limit
	killedBy string // why the watchdog killed the process, if it did
}

// Start starts lakepg on a free loopback port with its lake in dir (catalog
// dir/catalog.sqlite, data files under dir/data) and waits until it accepts PostgreSQL
// connections. The process is killed at the end of the test if it still runs, and its output
// is logged when the test failed.
func Start(t testing.TB, bin, dir string) *Server {
	t.Helper()
	return StartEnv(t, bin, dir, nil)
}

// StartEnv is Start with extra environment env (on top of CleanEnv).
func StartEnv(t testing.TB, bin, dir string, env []string) *Server {
	t.Helper()
	s := &Server{Bin: bin, Dir: dir, Logs: &LockedBuffer{}, lake: true, env: env}
	s.start(t, FreePort(t))
	return s
}

// Launch starts the binary in dir with exactly args and extra environment env (on top of
// CleanEnv) and waits until a PostgreSQL start-up on port succeeds. Cleanup as for Start.
func Launch(t testing.TB, bin, dir string, port int, args, env []string) *Server {
	t.Helper()
	s := &Server{Bin: bin, Dir: dir, Logs: &LockedBuffer{}, args: args, env: env}
	s.start(t, port)
	return s
}

func (s *Server) start(t testing.TB, port int) {
	t.Helper()
	s.Port = port
	args := s.args
	if s.lake {
		args = []string{
			"--listen", s.Addr(),
			"--catalog", "sqlite:" + filepath.Join(s.Dir, "catalog.sqlite"),
			"--data", filepath.Join(s.Dir, "data"),
			"--log-level", "info",
		}
	}
	cmd := exec.Command(s.Bin, args...)
	cmd.Dir = s.Dir
	cmd.Env = append(CleanEnv(), s.env...)
	cmd.Stdout = s.Logs
	cmd.Stderr = s.Logs
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", s.Bin, err)
	}
	exited := make(chan struct{})
	s.cmd, s.exited, s.state = cmd, exited, nil
	s.mu.Lock()
	s.killedBy = ""
	s.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		s.state = cmd.ProcessState
		close(exited)
	}()
	go s.watch(cmd, exited)
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("lakepg %s (port %d) output:\n%s", strings.Join(args, " "), port, s.Logs.Tail(64<<10))
		}
	})
	s.waitReady(t)
}

// Restart kills the process if it still runs and starts it again on the same lake (a new
// free port for servers from Start, the same arguments for servers from Launch): the suites
// use it to go on after a query hung or the watchdog killed the server.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Kill()
	port := s.Port
	if s.lake {
		port = FreePort(t)
	}
	fmt.Fprintf(s.Logs, "\n--- testserver: restarting lakepg ---\n")
	s.start(t, port)
}

// Exited reports whether the process has exited (and been waited for).
func (s *Server) Exited() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// State is the exit state of the process once Exited.
func (s *Server) State() *os.ProcessState { return s.state }

// Addr is host:port of the PostgreSQL protocol.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.Port) }

// DSN is a pgx/libpq connection string for user "test", database "lake".
func (s *Server) DSN() string {
	return fmt.Sprintf("postgres://test@127.0.0.1:%d/lake?sslmode=disable&connect_timeout=10", s.Port)
}

func (s *Server) waitReady(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(StartTimeout)
	var lastErr error
	for {
		if s.Exited() {
			t.Fatalf("lakepg exited during start-up (%v); output:\n%s", s.state, s.Logs.Tail(16<<10))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, err := pgconn.Connect(ctx, s.DSN())
		cancel()
		if err == nil {
			_ = c.Close(context.Background())
			return
		}
		lastErr = err
		if time.Now().After(deadline) {
			t.Fatalf("lakepg did not accept a PostgreSQL connection on %s within %v: %v; output:\n%s",
				s.Addr(), StartTimeout, lastErr, s.Logs.Tail(16<<10))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Signal sends sig and waits for the process to exit; it returns the exit code (-1 when a
// signal killed it).
func (s *Server) Signal(t testing.TB, sig os.Signal) int {
	t.Helper()
	if !s.Exited() {
		if err := s.cmd.Process.Signal(sig); err != nil && !s.Exited() {
			t.Fatalf("sending %v to lakepg: %v", sig, err)
		}
	}
	select {
	case <-s.exited:
	case <-time.After(StopTimeout):
		_ = s.cmd.Process.Kill()
		<-s.exited
		t.Fatalf("lakepg did not exit within %v after %v; output:\n%s", StopTimeout, sig, s.Logs.Tail(16<<10))
	}
	return s.state.ExitCode()
}

// Stop shuts the server down with SIGTERM and requires exit status 0.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if code := s.Signal(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("lakepg exited with %v after SIGTERM, want exit status 0; output:\n%s", s.state, s.Logs.Tail(16<<10))
	}
}

// Kill kills the process (if it still runs) and waits for it.
func (s *Server) Kill() {
	if !s.Exited() {
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// LimitMemory makes a watchdog kill the process once its resident set exceeds bytes (0: no
// limit), so that a runaway query (a cross product of many tables, say) fails one record
// instead of exhausting the machine. KilledBy tells afterwards whether it did.
func (s *Server) LimitMemory(bytes int64) {
	s.mu.Lock()
	s.maxRSS = bytes
	s.mu.Unlock()
}

// KilledBy is the watchdog's reason for the last kill of the current process, or "".
func (s *Server) KilledBy() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.killedBy
}

func (s *Server) watch(cmd *exec.Cmd, exited chan struct{}) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-exited:
			return
		case <-tick.C:
		}
		s.mu.Lock()
		limit := s.maxRSS
		s.mu.Unlock()
		if limit <= 0 {
			continue
		}
		rss := residentBytes(cmd.Process.Pid)
		if rss > limit {
			s.mu.Lock()
			s.killedBy = fmt.Sprintf("resident memory %d MiB over the test limit of %d MiB", rss>>20, limit>>20)
			s.mu.Unlock()
			fmt.Fprintf(s.Logs, "\n--- testserver: killing lakepg: %s ---\n", s.KilledBy())
			_ = cmd.Process.Kill()
			return
		}
	}
}

// residentBytes reads VmRSS of a process from /proc (0 when unavailable).
func residentBytes(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0
			}
			kb, _ := strconv.ParseInt(f[0], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// FreePort is a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	return FreePorts(t, 1)[0]
}

// FreePorts are n different loopback TCP ports that were free a moment ago:
// each stays taken until all are found, so that two calls of FreePort
// cannot hand out the same port twice (a server given it for both
// --listen and --metrics-listen failed to start).
func FreePorts(t testing.TB, n int) []int {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports
}

// CleanEnv is the test process environment without PostgreSQL client and lakepg settings,
// so a developer's shell cannot change what the tests see.
func CleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "LAKEPG_") ||
			strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG=") || strings.HasPrefix(kv, "PSQL") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C")
}

// LockedBuffer collects process output from several goroutines.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Tail is the last n bytes of the output.
func (b *LockedBuffer) Tail(n int) string {
	s := b.String()
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// SharedDir finds the project's shared material (TPC-H data and answers,
// the sqllogictest corpus, the DuckDB fixture): $LAKEPG_SHARED_DIR, else a
// directory named shared beside the repository or beside any of its
// parents (CI clones the repository elsewhere), else /work/shared.
func SharedDir() (string, error) {
	if d := os.Getenv("LAKEPG_SHARED_DIR"); d != "" {
		return d, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	for d := root; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "shared")
		if st, err := os.Stat(filepath.Join(cand, "tpch")); err == nil && st.IsDir() {
			return cand, nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if st, err := os.Stat("/work/shared/tpch"); err == nil && st.IsDir() {
		return "/work/shared", nil
	}
	return "", fmt.Errorf("the shared material (shared/tpch, shared/conformance) is not beside the repository: set LAKEPG_SHARED_DIR")
}
