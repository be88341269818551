package testserver

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// PanicLog is a slog handler that keeps the log records about panics. A
// session turns a panic into an XX000 error and a log line, so a test that
// must see none (the fuzz targets) watches the log instead of the process.
type PanicLog struct {
	mu     sync.Mutex
	panics []string
}

func (w *PanicLog) Enabled(context.Context, slog.Level) bool { return true }
func (w *PanicLog) WithAttrs([]slog.Attr) slog.Handler       { return w }
func (w *PanicLog) WithGroup(string) slog.Handler            { return w }

func (w *PanicLog) Handle(_ context.Context, r slog.Record) error {
	if !strings.Contains(r.Message, "panic") {
		return nil
	}
	var sb strings.Builder
	sb.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&sb, "\n%s: %v", a.Key, a.Value)
		return true
	})
	w.mu.Lock()
	w.panics = append(w.panics, sb.String())
	w.mu.Unlock()
	return nil
}

// Take returns the panics logged since the last call.
func (w *PanicLog) Take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.panics
	w.panics = nil
	return p
}
