package bench

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
)

// report collects what the Markdown file says: the machine, versions, settings, one
// part per section and every command the run executed.
type report struct {
	mu       sync.Mutex
	versions [][2]string
	settings [][2]string
	commands []string
	seen     map[string]bool
	sections []*section
}

// section is one part of the report; sections write Markdown into body.
type section struct {
	key, title string
	body       strings.Builder
	err        error
	elapsed    time.Duration
}

func (s *section) printf(format string, args ...any) {
	fmt.Fprintf(&s.body, format, args...)
	s.body.WriteString("\n")
}

// table writes a Markdown table; cells must not contain '|'.
func (s *section) table(header []string, rows [][]string) {
	s.body.WriteString("\n| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		if i == 0 {
			s.body.WriteString("---|")
		} else {
			s.body.WriteString("--:|")
		}
	}
	s.body.WriteString("\n")
	for _, r := range rows {
		s.body.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	s.body.WriteString("\n")
}

// chart links a PNG written beside the report.
func (s *section) chart(file, title string) {
	fmt.Fprintf(&s.body, "\n![%s](%s)\n\n", title, file)
}

func (rp *report) version(name, v string) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	for i, x := range rp.versions {
		if x[0] == name {
			rp.versions[i][1] = v
			return
		}
	}
	rp.versions = append(rp.versions, [2]string{name, v})
}

func (rp *report) setting(name, v string) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.settings = append(rp.settings, [2]string{name, v})
}

// command records a command or statement once, in the order first seen.
func (rp *report) command(c string) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.seen == nil {
		rp.seen = map[string]bool{}
	}
	if !rp.seen[c] {
		rp.seen[c] = true
		rp.commands = append(rp.commands, c)
	}
}

// machine describes the computer: CPU model, cores, memory, kernel.
type machine struct {
	cpu, kernel      string
	cores            int
	memTotal, memAvl int64
}

func readMachine() machine {
	m := machine{cores: runtime.NumCPU(), cpu: "unknown"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		m.memTotal = kbField(string(b), "MemTotal:")
		m.memAvl = kbField(string(b), "MemAvailable:")
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = "Linux " + strings.TrimSpace(string(b))
	}
	return m
}

// loadWatch samples the 1-minute load average every 10 s: the machine is shared, and the
// load says how much of it the run had.
type loadWatch struct {
	mu      sync.Mutex
	samples []float64
	stop    chan struct{}
	done    chan struct{}
}

func loadAvg() (float64, string) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, "n/a"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return 0, "n/a"
	}
	var one float64
	fmt.Sscan(f[0], &one)
	return one, strings.Join(f[:3], " ")
}

func watchLoad() *loadWatch {
	w := &loadWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			l, _ := loadAvg()
			w.mu.Lock()
			w.samples = append(w.samples, l)
			w.mu.Unlock()
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *loadWatch) summary() string {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.samples) == 0 {
		return "n/a"
	}
	lo, hi, sum := w.samples[0], w.samples[0], 0.0
	for _, s := range w.samples {
		lo, hi, sum = min(lo, s), max(hi, s), sum+s
	}
	return fmt.Sprintf("min %.2f, mean %.2f, max %.2f (%d samples, every 10 s)", lo, sum/float64(len(w.samples)), hi, len(w.samples))
}

// markdown renders the report.
func (rp *report) markdown(title string, cfg Config, m machine, started, finished time.Time, loadStart, loadEnd, loadDuring string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(&b, "Run %s – %s (%s). Figures, not verdicts: every ratio compares systems measured in the same run on the same machine.\n\n",
		started.Format("2006-01-02 15:04:05 MST"), finished.Format("15:04:05"), finished.Sub(started).Round(time.Second))
	fmt.Fprintf(&b, "Command: `%s`\n\n", cfg.Command)
	b.WriteString("## Machine\n\n| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| CPU | %s |\n| cores | %d |\n| memory | %s total, %s available at the start |\n| OS | %s |\n",
		m.cpu, m.cores, gib(m.memTotal), gib(m.memAvl), m.kernel)
	fmt.Fprintf(&b, "| load average (1, 5, 15 min) | at start %s; at end %s |\n| 1-min load during the run | %s |\n\n", loadStart, loadEnd, loadDuring)
	b.WriteString("The machine may be shared with other work: a load above the core count means the figures of that time are slower than on an idle machine, for every system alike.\n\n")
	b.WriteString("## Versions\n\n| component | version |\n|---|---|\n")
	rp.mu.Lock()
	for _, v := range rp.versions {
		fmt.Fprintf(&b, "| %s | %s |\n", v[0], v[1])
	}
	b.WriteString("\n## Settings\n\n| setting | value |\n|---|---|\n")
	for _, v := range rp.settings {
		fmt.Fprintf(&b, "| %s | %s |\n", v[0], v[1])
	}
	sections := rp.sections
	commands := rp.commands
	rp.mu.Unlock()
	b.WriteString("\n")
	for _, s := range sections {
		fmt.Fprintf(&b, "## %s\n\n", s.title)
		if s.err != nil {
			fmt.Fprintf(&b, "**Section failed:** `%s`\n\n", strings.ReplaceAll(firstLines(s.err.Error(), 6), "`", "'"))
		}
		b.WriteString(s.body.String())
		fmt.Fprintf(&b, "\n_Section time: %s._\n\n", s.elapsed.Round(time.Second))
	}
	b.WriteString("## Commands\n\nEvery external command the run executed, and the statements that built its data, in order:\n\n```\n")
	for _, c := range commands {
		b.WriteString(c + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, " ")
}

func gib(b int64) string {
	if b <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}
