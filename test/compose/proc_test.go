package compose

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lakepg/lakepg/test/testserver"
)

// proc is a server a test started as a service of the compose file would
// run: its output is kept (and logged when the test fails), and it is
// killed at the end of the test if it still runs.
type proc struct {
	name   string
	cmd    *exec.Cmd
	out    *testserver.LockedBuffer
	exited chan struct{}
}

// startProc runs argv in dir with exactly env (nothing inherited).
func startProc(t *testing.T, name, dir string, env []string, argv ...string) *proc {
	t.Helper()
	p := &proc{name: name, out: &testserver.LockedBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Dir, p.cmd.Env = dir, env
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	dieWithParent(p.cmd)
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s (%s): %v", name, strings.Join(argv, " "), err)
	}
	go func() { p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("%s (%s) output:\n%s", name, strings.Join(argv, " "), p.out.Tail(16<<10))
		}
	})
	return p
}

func (p *proc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

func (p *proc) kill() {
	if p.running() {
		p.cmd.Process.Kill()
		<-p.exited
	}
}

// stop is `docker stop`: SIGTERM, then the exit status.
func (p *proc) stop(t *testing.T) int {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && p.running() {
		t.Fatalf("stopping %s: %v", p.name, err)
	}
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		p.kill()
		t.Fatalf("%s did not exit within 30 s of SIGTERM", p.name)
	}
	return p.cmd.ProcessState.ExitCode()
}

// waitFor polls ready until it succeeds, the process exits, or a minute and
// a half passes.
func (p *proc) waitFor(t *testing.T, what string, ready func() error) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		err := ready()
		if err == nil {
			return
		}
		if !p.running() {
			t.Fatalf("%s exited (%v) before %s: %v\n%s", p.name, p.cmd.ProcessState, what, err, p.out.Tail(8<<10))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no %s within 90 s: %v", p.name, what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// baseEnv is what every container has besides its image's and service's
// settings: a PATH (the host's, to find the programs) and a HOME.
func baseEnv(home string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
}

// envList turns settings into NAME=VALUE entries after base, in a fixed
// order.
func envList(base []string, settings ...map[string]string) []string {
	merged := map[string]string{}
	for _, s := range settings {
		for k, v := range s {
			merged[k] = v
		}
	}
	out := append([]string(nil), base...)
	for _, k := range slices.Sorted(maps.Keys(merged)) {
		out = append(out, fmt.Sprintf("%s=%s", k, merged[k]))
	}
	return out
}
