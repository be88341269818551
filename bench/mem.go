package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// memWatch samples the memory of a server's processes every 50 ms and keeps the peak.
// It sums the proportional set size (Pss in /proc/PID/smaps_rollup), so memory that
// PostgreSQL's backends share counts once; for a single process Pss is its resident set.
// A spike shorter than the interval can be missed, so for one process the kernel's own
// high-water mark (VmHWM, reset at each Reset) is taken as well.
type memWatch struct {
	pids func() []int
	mu   sync.Mutex
	peak int64
	stop chan struct{}
	done chan struct{}
}

func watchMemory(pids func() []int) *memWatch {
	m := &memWatch{pids: pids, stop: make(chan struct{}), done: make(chan struct{})}
	go m.loop()
	return m
}

func (m *memWatch) loop() {
	defer close(m.done)
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		m.sample()
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
	}
}

func (m *memWatch) sample() {
	var sum int64
	for _, p := range m.pids() {
		sum += pssBytes(p)
	}
	m.mu.Lock()
	m.peak = max(m.peak, sum)
	m.mu.Unlock()
}

// Reset starts a new interval.
func (m *memWatch) Reset() {
	for _, p := range m.pids() {
		// "5" resets VmHWM (Linux ≥ 4.0); without permission the sampled peak stands alone.
		_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", p), []byte("5"), 0)
	}
	m.mu.Lock()
	m.peak = 0
	m.mu.Unlock()
	m.sample()
}

// Peak is the largest memory seen since Reset, in bytes.
func (m *memWatch) Peak() int64 {
	m.sample()
	pids := m.pids()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(pids) == 1 {
		return max(m.peak, statusBytes(pids[0], "VmHWM:"))
	}
	return m.peak
}

func (m *memWatch) Close() {
	close(m.stop)
	<-m.done
}

// processTree is root and its descendants.
func processTree(root int) []int {
	if root <= 0 {
		return nil
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", out[i]))
		if err != nil {
			continue
		}
		for _, t := range tasks {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", out[i], t.Name()))
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(f); err == nil {
					out = append(out, n)
				}
			}
		}
	}
	return out
}

// cpuSeconds is the user and system CPU time of pids, with, for the first,
// its waited-for children's (a postmaster's: the backends that have exited).
// 0 for a process not on this machine.
func cpuSeconds(pids []int) float64 {
	var ticks float64
	for i, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 15 {
			continue
		}
		last := 12 // utime, stime: fields 14 and 15 of stat, 11 and 12 after the comm
		if i == 0 {
			last = 14 // and cutime, cstime
		}
		for k := 11; k <= last; k++ {
			v, _ := strconv.ParseFloat(f[k], 64)
			ticks += v
		}
	}
	return ticks / 100 // USER_HZ
}

func pssBytes(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return statusBytes(pid, "VmRSS:")
	}
	return kbField(string(b), "Pss:")
}

func statusBytes(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	return kbField(string(b), field)
}

func kbField(s, field string) int64 {
	for _, line := range strings.Split(s, "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// mib formats bytes as MiB for the report.
func mib(b int64) string {
	if b <= 0 {
		return "n/a"
	}
	return strconv.FormatInt((b+(1<<19))>>20, 10) + " MiB"
}
