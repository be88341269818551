package cli

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress reports an import's advance: a redrawn bar on a terminal, plain
// lines every few seconds otherwise (logs, CI), nothing when off.
type progress struct {
	w     io.Writer
	mode  string // "bar", "lines" or "none"
	total int64  // bytes to read, 0 when unknown
	start time.Time
	last  time.Time
	drawn bool
}

func newProgress(w io.Writer, mode string, total int64) *progress {
	now := time.Now()
	return &progress{w: w, mode: mode, total: total, start: now, last: now}
}

// update is called often (every batch); it prints at most every 200 ms as
// a bar and every 5 s as lines.
func (p *progress) update(rows, bytes int64) {
	now := time.Now()
	switch p.mode {
	case "bar":
		if now.Sub(p.last) < 200*time.Millisecond {
			return
		}
		p.last, p.drawn = now, true
		fmt.Fprintf(p.w, "\r%s %s", bar(bytes, p.total, 30), p.stats(rows, bytes, now))
	case "lines":
		if now.Sub(p.last) < 5*time.Second {
			return
		}
		p.last = now
		fmt.Fprintf(p.w, "import: %s\n", p.stats(rows, bytes, now))
	}
}

// finish shows the final state.
func (p *progress) finish(rows, bytes int64) {
	now := time.Now()
	switch p.mode {
	case "bar":
		fmt.Fprintf(p.w, "\r%s %s\n", bar(bytes, p.total, 30), p.stats(rows, bytes, now))
		p.drawn = false
	case "lines":
		fmt.Fprintf(p.w, "import: %s\n", p.stats(rows, bytes, now))
	}
}

// done ends a bar's line left open by an error.
func (p *progress) done() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

func (p *progress) stats(rows, bytes int64, now time.Time) string {
	secs := now.Sub(p.start).Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(rows) / secs
	}
	s := fmt.Sprintf("%d rows, %s", rows, humanBytes(bytes))
	if p.total > 0 {
		s += fmt.Sprintf(" of %s (%.0f%%)", humanBytes(p.total), 100*float64(bytes)/float64(p.total))
	}
	return s + fmt.Sprintf(", %.0f rows/s", rate)
}

func bar(n, total int64, width int) string {
	filled := 0
	if total > 0 {
		filled = int(int64(width) * min(n, total) / total)
	}
	return "[" + strings.Repeat("█", filled) + strings.Repeat("░", width-filled) + "]"
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, suffix := float64(n), []string{"KiB", "MiB", "GiB", "TiB"}
	i := -1
	for f >= unit && i < len(suffix)-1 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f %s", f, suffix[i])
}

// countingReader counts the bytes read through it, for progress.
type countingReader struct {
	r io.Reader
	n *int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}
