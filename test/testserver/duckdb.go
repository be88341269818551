package testserver

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// DuckDB's side of a test is a Python script run with the duckdb==1.5.5 package; its
// extensions come from the duckdb-extension-<name>==1.5.5 packages and are LOADed by path,
// since nothing may be downloaded at run time.

// DuckDBExtension returns the file of DuckDB's extension name (ducklake, sqlite, postgres,
// tpcds, …), under the file name its entry point wants (LOAD checks it: sqlite_scanner,
// postgres_scanner), after checking that python3 has DuckDB 1.5.5.
func DuckDBExtension(t testing.TB, name string) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("python3 not found: run make test (scripts/test.sh installs DuckDB for Python): %v", err)
	}
	out, err := exec.Command("python3", "-c",
		`import site, duckdb; print(duckdb.__version__); print(site.getsitepackages()[0])`).CombinedOutput()
	if err != nil {
		t.Fatalf("python3 cannot import duckdb: run make test (scripts/test.sh pip-installs duckdb==1.5.5 and its extensions): %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || lines[0] != "1.5.5" {
		t.Fatalf("want DuckDB 1.5.5 for Python, python3 reports %q: run make test", out)
	}
	f := filepath.Join(lines[1], "duckdb_extension_"+name, "extensions", "v1.5.5", name+".duckdb_extension")
	if _, err := os.Stat(f); err != nil {
		t.Fatalf("DuckDB extension missing: run make test (scripts/test.sh pip-installs duckdb-extension-%s==1.5.5): %v", name, err)
	}
	entry := map[string]string{"sqlite": "sqlite_scanner", "postgres": "postgres_scanner"}[name]
	if entry == "" {
		return f
	}
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), entry+".duckdb_extension")
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// RunPythonJSON runs a Python script with in as JSON on its standard input and decodes its
// standard output into out, failing the test when the script fails or runs past limit.
func RunPythonJSON(t testing.TB, script string, limit time.Duration, in, out any) {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", "-c", script)
	cmd.Stdin = strings.NewReader(string(b))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB script failed: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("DuckDB script output: %v\n%.2000s\n%s", err, stdout, stderr.String())
	}
}
