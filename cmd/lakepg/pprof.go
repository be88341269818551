package main

import (
	"log/slog"
	"net/http"
	_ "net/http/pprof" // registers /debug/pprof on the default mux
	"os"
)

// LAKEPG_PPROF_LISTEN=127.0.0.1:6060 serves Go's profiler, for finding
// where a slow query spends its time (go tool pprof
// http://127.0.0.1:6060/debug/pprof/profile?seconds=10).
func init() {
	addr := os.Getenv("LAKEPG_PPROF_LISTEN")
	if addr == "" {
		return
	}
	go func() {
		if err := http.ListenAndServe(addr, nil); err != nil {
			slog.Error("pprof", "listen", addr, "error", err)
		}
	}()
}
