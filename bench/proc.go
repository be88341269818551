package bench

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a server process the run started: its output goes to a log file in the work
// directory, and it dies with the benchmark (Pdeathsig) if the run is killed.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
}

func startProc(name, dir, logPath string, env []string, argv ...string) (*proc, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = logf
	cmd.Stderr = logf
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM and kills the process if it is still there after grace.
func (p *proc) stop(grace time.Duration) {
	if p == nil || p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// logTail is the end of the process's output, for error messages.
func (p *proc) logTail() string {
	b, _ := os.ReadFile(p.logPath)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return strings.TrimSpace(string(b))
}

// freePort is a loopback TCP port that was free a moment ago: any, or one of
// BENCH_PORTS (first-last) when a shared machine gives the run a range of its own.
func freePort() (int, error) {
	if lo, hi, ok := portRange(); ok {
		// a machine shared by several runs gives each its ports
		portsMu.Lock()
		defer portsMu.Unlock()
		for p := lo; p <= hi; p++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err == nil {
				l.Close()
				if !portsTaken[p] {
					portsTaken[p] = true
					return p, nil
				}
			}
		}
		return 0, fmt.Errorf("no free port in BENCH_PORTS %d-%d", lo, hi)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

var (
	portsMu    sync.Mutex
	portsTaken = map[int]bool{} // handed out already: a server may not be listening yet
)

// portRange is BENCH_PORTS, "lo-hi": the ports servers the benchmark starts
// may listen on (unset: any free port).
func portRange() (int, int, bool) {
	a, b, ok := strings.Cut(os.Getenv("BENCH_PORTS"), "-")
	if !ok {
		return 0, 0, false
	}
	lo, e1 := strconv.Atoi(strings.TrimSpace(a))
	hi, e2 := strconv.Atoi(strings.TrimSpace(b))
	return lo, hi, e1 == nil && e2 == nil && lo > 0 && lo <= hi
}

// waitPort waits until something accepts TCP connections on addr, or p exits.
func waitPort(p *proc, addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		if p != nil && p.exited() {
			return fmt.Errorf("%s exited during start-up: %s", p.name, p.logTail())
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing accepts connections on %s after %v", addr, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cleanEnv is the environment without PostgreSQL client, lakepg and AWS settings, so the
// shell that runs the benchmark cannot change what the servers do.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "LAKEPG_") || strings.HasPrefix(kv, "AWS_") ||
			strings.HasPrefix(kv, "GOMAXPROCS=") || strings.HasPrefix(kv, "GOGC=") || strings.HasPrefix(kv, "GOMEMLIMIT=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}
