// Command lakepg-bench runs lakepg's benchmarks against DuckDB and PostgreSQL and writes
// bench/results/<date>-<name>.md with PNG charts; `make bench` runs it. Every setting is a
// BENCH_* environment variable (README "Benchmarks"); -sections overrides BENCH_SECTIONS.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/lakepg/lakepg/bench"
)

func main() {
	cfg, err := bench.ConfigFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lakepg-bench:", err)
		os.Exit(2)
	}
	sections := flag.String("sections", strings.Join(cfg.Sections, ","), "comma-separated sections, or all: "+strings.Join(bench.AllSections, ","))
	flag.Parse()
	if *sections != strings.Join(cfg.Sections, ",") {
		os.Setenv("BENCH_SECTIONS", *sections)
		if cfg, err = bench.ConfigFromEnv(); err != nil {
			fmt.Fprintln(os.Stderr, "lakepg-bench:", err)
			os.Exit(2)
		}
	}
	cfg.Command = commandLine(*sections)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	path, err := bench.Run(ctx, cfg)
	if path != "" {
		fmt.Println("report:", path)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lakepg-bench:", err)
		os.Exit(1)
	}
}

// commandLine is how the report names the run: the make target when make started it,
// the BENCH_* variables set, and the program's arguments.
func commandLine(sections string) string {
	var vars []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "BENCH_") && !strings.Contains(kv, "SECRET") && !strings.Contains(kv, "ACCESS_KEY") &&
			!(strings.HasPrefix(kv, "BENCH_SECTIONS=") && os.Getenv("MAKELEVEL") != "") {
			vars = append(vars, kv)
		}
	}
	run := strings.Join(append([]string{"go run ./bench/cmd/lakepg-bench"}, os.Args[1:]...), " ")
	if os.Getenv("MAKELEVEL") != "" {
		target := "bench"
		if sections != strings.Join(bench.AllSections, ",") && !strings.Contains(sections, ",") {
			target = "bench-" + sections
		}
		return strings.Join(append([]string{"make", target}, vars...), " ") + " (which runs " + run + ")"
	}
	return strings.Join(append(vars, run), " ")
}
