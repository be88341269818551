package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Pinned versions of what the benchmark installs.
const (
	duckdbVersion    = "1.5.5"
	tpchgenVersion   = "4.0.0"
	versitygwModule  = "github.com/versity/versitygw"
	versitygwVersion = "v1.8.0"
)

// duckdbPackages are the PyPI packages of DuckDB and the extensions the benchmark loads
// from site-packages (nothing is downloaded by DuckDB at run time).
var duckdbPackages = []string{
	"duckdb==" + duckdbVersion,
	"duckdb-extension-ducklake==" + duckdbVersion,
	"duckdb-extension-sqlite==" + duckdbVersion,
	"duckdb-extension-httpfs==" + duckdbVersion,
}

// run runs a command to completion, recording it in the report's command list.
func (r *Runner) run(ctx context.Context, dir string, env []string, argv ...string) ([]byte, error) {
	r.rep.command(strings.Join(argv, " "))
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	if err != nil {
		return out.Bytes(), fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, tail(out.String(), 4000))
	}
	return out.Bytes(), nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func asRoot(argv ...string) []string {
	if os.Geteuid() == 0 {
		return argv
	}
	return append([]string{"sudo"}, argv...)
}

// aptInstall installs Debian packages (apt-get update once per run).
func (r *Runner) aptInstall(ctx context.Context, pkgs ...string) error {
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("apt-get not found: install %s by hand", strings.Join(pkgs, " "))
	}
	if !r.aptUpdated {
		if _, err := r.run(ctx, "", os.Environ(), asRoot("apt-get", "update", "-qq")...); err != nil {
			return err
		}
		r.aptUpdated = true
	}
	argv := asRoot(append([]string{"env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq", "--no-install-recommends"}, pkgs...)...)
	_, err := r.run(ctx, "", os.Environ(), argv...)
	return err
}

// pipInstall installs PyPI packages, retrying with --break-system-packages on a Debian
// python3 that is "externally managed" (PEP 668).
func (r *Runner) pipInstall(ctx context.Context, pkgs ...string) error {
	if _, err := exec.LookPath("python3"); err != nil {
		if err := r.aptInstall(ctx, "python3", "python3-pip"); err != nil {
			return err
		}
	}
	if _, err := r.run(ctx, "", os.Environ(), "python3", "-m", "pip", "--version"); err != nil {
		if err := r.aptInstall(ctx, "python3-pip"); err != nil {
			return err
		}
	}
	base := append([]string{"python3", "-m", "pip", "install", "-q"}, pkgs...)
	if _, err := r.run(ctx, "", os.Environ(), base...); err == nil {
		return nil
	}
	_, err := r.run(ctx, "", os.Environ(), append(base, "--break-system-packages")...)
	return err
}

const duckdbCheck = `
import os, duckdb
assert duckdb.__version__ == "1.5.5", duckdb.__version__
import duckdb_extension_ducklake, duckdb_extension_sqlite, duckdb_extension_httpfs
print(duckdb.__version__)
`

// ensureDuckDB makes python3 import DuckDB 1.5.5 and find its extensions.
func (r *Runner) ensureDuckDB(ctx context.Context) error {
	if r.tools.duckdb != "" {
		return nil
	}
	out, err := exec.CommandContext(ctx, "python3", "-c", duckdbCheck).Output()
	if err != nil {
		if err := r.pipInstall(ctx, duckdbPackages...); err != nil {
			return err
		}
		if out, err = exec.CommandContext(ctx, "python3", "-c", duckdbCheck).CombinedOutput(); err != nil {
			return fmt.Errorf("DuckDB %s or its extensions missing after pip install: %s", duckdbVersion, out)
		}
	}
	r.tools.duckdb = strings.TrimSpace(string(out))
	pv, _ := exec.CommandContext(ctx, "python3", "--version").Output()
	r.rep.version("DuckDB", r.tools.duckdb+" (Python package, "+strings.TrimSpace(string(pv))+"; extensions ducklake, sqlite, httpfs "+duckdbVersion+" from PyPI)")
	return nil
}

// ensureDuckDBExtension makes python3 import the PyPI package of a DuckDB extension the
// benchmark loads only for some sections (tpcds: dsdgen), pip-installing it when missing.
func (r *Runner) ensureDuckDBExtension(ctx context.Context, name string) error {
	if err := r.ensureDuckDB(ctx); err != nil {
		return err
	}
	check := func() error {
		out, err := exec.CommandContext(ctx, "python3", "-c", "import duckdb_extension_"+name).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	pkg := "duckdb-extension-" + name + "==" + duckdbVersion
	if check() != nil {
		if err := r.pipInstall(ctx, pkg); err != nil {
			return err
		}
		if err := check(); err != nil {
			return fmt.Errorf("DuckDB extension %s missing after pip install %s: %v", name, pkg, err)
		}
	}
	r.rep.version("DuckDB "+name+" extension", duckdbVersion+" (PyPI "+pkg+")")
	return nil
}

// ensureTpchgen finds tpchgen-cli, installing it from PyPI when missing.
func (r *Runner) ensureTpchgen(ctx context.Context) error {
	if r.tools.tpchgen != "" {
		return nil
	}
	find := func() string {
		if p, err := exec.LookPath("tpchgen-cli"); err == nil {
			return p
		}
		if out, err := exec.Command("python3", "-m", "site", "--user-base").Output(); err == nil {
			p := filepath.Join(strings.TrimSpace(string(out)), "bin", "tpchgen-cli")
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
		return ""
	}
	p := find()
	if p == "" {
		if err := r.pipInstall(ctx, "tpchgen-cli=="+tpchgenVersion); err != nil {
			return err
		}
		if p = find(); p == "" {
			return fmt.Errorf("tpchgen-cli installed from PyPI but not found on PATH")
		}
	}
	out, err := exec.CommandContext(ctx, p, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s --version: %v", p, err)
	}
	r.tools.tpchgen = p
	r.rep.version("tpchgen-cli", strings.TrimSpace(strings.TrimPrefix(string(out), "tpchgen-cli"))+" (PyPI)")
	return nil
}

// ensurePGBin finds PostgreSQL's server binaries (Debian's postgresql package, installed
// when missing), the newest major version first.
func (r *Runner) ensurePGBin(ctx context.Context) error {
	if r.tools.pgBin != "" {
		return nil
	}
	find := func() string {
		dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
		sort.Slice(dirs, func(i, j int) bool {
			a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
			b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
			return a > b
		})
		for _, d := range dirs {
			ok := true
			for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
				if _, err := os.Stat(filepath.Join(d, b)); err != nil {
					ok = false
				}
			}
			if ok {
				return d
			}
		}
		return ""
	}
	d := find()
	if d == "" {
		if err := r.aptInstall(ctx, "postgresql"); err != nil {
			return err
		}
		if d = find(); d == "" {
			return fmt.Errorf("package postgresql installed but no /usr/lib/postgresql/*/bin/initdb")
		}
	}
	r.tools.pgBin = d
	return nil
}

// ensurePsql finds psql: the server's own, else Debian's postgresql-client.
func (r *Runner) ensurePsql(ctx context.Context) error {
	if r.tools.psql != "" {
		return nil
	}
	if r.tools.pgBin != "" {
		if p := filepath.Join(r.tools.pgBin, "psql"); fileExists(p) {
			r.tools.psql = p
			return nil
		}
	}
	if p, err := exec.LookPath("psql"); err == nil {
		r.tools.psql = p
		return nil
	}
	if err := r.aptInstall(ctx, "postgresql-client"); err != nil {
		return err
	}
	p, err := exec.LookPath("psql")
	if err != nil {
		return fmt.Errorf("postgresql-client installed but psql is not on PATH")
	}
	r.tools.psql = p
	return nil
}

// ensureVersitygw finds versitygw v1.8.0 (the S3 server of the tests) or go-installs it.
func (r *Runner) ensureVersitygw(ctx context.Context) error {
	if r.tools.versitygw != "" {
		return nil
	}
	gobin := ""
	if out, err := exec.CommandContext(ctx, "go", "env", "GOBIN", "GOPATH").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) > 0 && strings.TrimSpace(lines[0]) != "" {
			gobin = strings.TrimSpace(lines[0])
		} else if len(lines) > 1 {
			gobin = filepath.Join(strings.Split(strings.TrimSpace(lines[1]), ":")[0], "bin")
		}
	}
	find := func() string {
		cands := []string{os.Getenv("LAKEPG_TEST_VERSITYGW"), filepath.Join(gobin, "versitygw")}
		if p, err := exec.LookPath("versitygw"); err == nil {
			cands = append(cands, p)
		}
		for _, c := range cands {
			if c == "" || !fileExists(c) {
				continue
			}
			out, err := exec.Command("go", "version", "-m", c).Output()
			if err == nil && strings.Contains(string(out), versitygwModule+"\t"+versitygwVersion) {
				return c
			}
		}
		return ""
	}
	p := find()
	if p == "" {
		if _, err := r.run(ctx, "", os.Environ(), "go", "install", versitygwModule+"/cmd/versitygw@"+versitygwVersion); err != nil {
			return err
		}
		if p = find(); p == "" {
			return fmt.Errorf("versitygw %s installed but not found in %s", versitygwVersion, gobin)
		}
	}
	r.tools.versitygw = p
	r.rep.version("versitygw", versitygwVersion+" (go install)")
	return nil
}

// ensureLakepg builds ./cmd/lakepg of the module the benchmark runs in, or takes
// Config.LakepgBin, and records the commit it measures.
func (r *Runner) ensureLakepg(ctx context.Context) error {
	if r.tools.lakepg != "" {
		return nil
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	bin := r.cfg.LakepgBin
	if bin == "" {
		bin = filepath.Join(r.work, "lakepg")
		if _, err := r.run(ctx, root, os.Environ(), "go", "build", "-o", bin, "./cmd/lakepg"); err != nil {
			return err
		}
	}
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil {
		return fmt.Errorf("%s version: %v", bin, err)
	}
	r.tools.lakepg = bin
	desc := strings.TrimSpace(string(out))
	if c, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--short=12", "HEAD").Output(); err == nil {
		desc += ", commit " + strings.TrimSpace(string(c))
		if st, err := exec.CommandContext(ctx, "git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
			desc += " with uncommitted changes"
		}
	}
	gv, _ := exec.CommandContext(ctx, "go", "version").Output()
	r.rep.version("lakepg", desc+" ("+strings.TrimSpace(string(gv))+")")
	return nil
}

// moduleRoot walks up from the working directory to the directory holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if fileExists(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above %s: run the benchmark from the lakepg repository", dir)
		}
		dir = parent
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
