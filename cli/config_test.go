package cli

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// TestConfigPrecedence: command line over environment over config file over
// the default, for flags that read their environment variable as default.
func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "lakepg.toml")
	if err := os.WriteFile(cfg, []byte("listen = \"file:1\"\ncatalog = \"sqlite:file.sqlite\"\nlog_level = \"debug\"\nslow-query-ms = 250\n[metrics]\nlisten = \"file:9\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LAKEPG_CATALOG", "sqlite:env.sqlite")
	t.Setenv("LAKEPG_LOG_LEVEL", "warn")
	os.Unsetenv("LAKEPG_LISTEN")
	os.Unsetenv("LAKEPG_METRICS_LISTEN")
	os.Unsetenv("LAKEPG_SLOW_QUERY_MS")
	os.Unsetenv("LAKEPG_CONFIG")

	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	listen := fs.String("listen", Env("listen", "default:0"), "")
	catalog := fs.String("catalog", Env("catalog", "sqlite:default.sqlite"), "")
	level := fs.String("log-level", Env("log-level", "info"), "")
	metrics := fs.String("metrics-listen", Env("metrics-listen", ""), "")
	slow := fs.Int("slow-query-ms", 1000, "")
	data := fs.String("data", Env("data", "default-data"), "")
	if err := ParseFlags(fs, []string{"--config", cfg, "--log-level", "error"}, true); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, got, want string }{
		{"listen (file)", *listen, "file:1"},
		{"catalog (env over file)", *catalog, "sqlite:env.sqlite"},
		{"log-level (flag over env and file)", *level, "error"},
		{"metrics-listen ([metrics] listen)", *metrics, "file:9"},
		{"data (default)", *data, "default-data"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if *slow != 250 {
		t.Errorf("slow-query-ms = %d, want 250", *slow)
	}

	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("lisen = \"x\"\n"), 0o644)
	fs2 := flag.NewFlagSet("t", flag.ContinueOnError)
	fs2.String("listen", "", "")
	if err := ParseFlags(fs2, []string{"--config", bad}, true); err == nil {
		t.Error("unknown key accepted in strict mode")
	}
	fs3 := flag.NewFlagSet("t", flag.ContinueOnError)
	fs3.String("listen", "", "")
	if err := ParseFlags(fs3, []string{"--config", bad}, false); err != nil {
		t.Errorf("unknown key rejected in lenient mode: %v", err)
	}
}

func TestParseInterspersed(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	create := fs.Bool("create", false, "")
	pos, err := parseInterspersed(fs, []string{"t", "a.csv", "--create", "b.csv", "--", "--odd.csv"})
	if err != nil {
		t.Fatal(err)
	}
	if !*create || len(pos) != 4 || pos[0] != "t" || pos[2] != "b.csv" || pos[3] != "--odd.csv" {
		t.Errorf("create=%v pos=%q", *create, pos)
	}
}
