package compose

import (
	"bufio"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if image.root != "" {
		os.RemoveAll(image.root)
	}
	os.Exit(code)
}

// image is the outcome of running the Dockerfile's build stage, once per
// test process: the tests that run lakepg run the binary it made.
var image struct {
	sync.Mutex
	tried  bool
	failed string // the test in which the build failed
	root   string // the build stage's file system
	bin    string // /out/lakepg in it
}

// lakepgImage runs the build stage the first time it is called, and fails
// the test when the build failed, now or before.
func lakepgImage(t testing.TB) (df *dockerfile, bin string) {
	t.Helper()
	df = loadDockerfile(t)
	image.Lock()
	defer image.Unlock()
	if !image.tried {
		image.tried, image.failed = true, t.Name()
		root, err := os.MkdirTemp("", "lakepg-compose-build-")
		if err != nil {
			t.Fatal(err)
		}
		image.root = root
		runBuildStage(t, df.stage(t, "build"), root)
		from, srcs, _ := copyArgs(t, lakepgCopy(t, df))
		if from != "build" || len(srcs) != 1 {
			t.Fatalf("the lakepg stage copies %v from stage %q, want one file from \"build\"", srcs, from)
		}
		image.bin = inRoot(root, srcs[0])
		if _, err := os.Stat(image.bin); err != nil {
			t.Fatalf("the lakepg stage copies %s from the build stage, which has no such file: %v", srcs[0], err)
		}
		image.failed = ""
	}
	if image.failed != "" {
		t.Fatalf("the Dockerfile's build stage failed in %s", image.failed)
	}
	return df, image.bin
}

// lakepgCopy is the COPY that puts the binary into the lakepg stage.
func lakepgCopy(t testing.TB, df *dockerfile) instruction {
	t.Helper()
	for _, in := range df.stage(t, "lakepg").all("COPY") {
		if from, _, _ := copyArgs(t, in); from != "" {
			return in
		}
	}
	t.Fatal("the lakepg stage copies nothing from another stage")
	return instruction{}
}

// inRoot maps a container path to the directory standing for the
// container's file system.
func inRoot(root, p string) string {
	return filepath.Join(root, filepath.FromSlash(path.Clean("/"+p)))
}

// runBuildStage runs a stage's instructions natively in root: WORKDIR,
// COPY from the build context (the module root less .dockerignore), and
// RUN of go commands with the host's Go, container paths in their
// arguments mapped into root.
func runBuildStage(t testing.TB, st *stage, root string) {
	t.Helper()
	ctx := moduleRoot(t)
	rules := loadDockerignore(t, ctx)
	workdir := "/"
	for _, in := range st.instrs {
		switch in.cmd {
		case "WORKDIR":
			workdir = path.Join(workdir, in.args)
			if err := os.MkdirAll(inRoot(root, workdir), 0o755); err != nil {
				t.Fatal(err)
			}
		case "COPY":
			from, srcs, dst := copyArgs(t, in)
			if from != "" {
				t.Fatalf("Dockerfile line %d: COPY --from in the build stage is not modelled by this test", in.line)
			}
			to := inRoot(root, path.Join(workdir, dst))
			if strings.HasSuffix(dst, "/") {
				to += string(filepath.Separator)
			}
			copyContext(t, ctx, rules, srcs, to)
		case "RUN":
			env, argv := runWords(t, in)
			if len(argv) == 0 || argv[0] != "go" {
				t.Fatalf("Dockerfile line %d: RUN %s: only go commands are run natively", in.line, in.args)
			}
			for i, a := range argv {
				if strings.HasPrefix(a, "/") {
					argv[i] = inRoot(root, a)
				}
			}
			cmd := exec.Command("go", argv[1:]...)
			cmd.Dir = inRoot(root, workdir)
			cmd.Env = append(os.Environ(), env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("Dockerfile line %d: RUN %s (natively: %s in %s): %v\n%s", in.line, in.args, strings.Join(cmd.Args, " "), cmd.Dir, err, out)
			}
			t.Logf("Dockerfile line %d: RUN %s: done natively", in.line, in.args)
		default:
			t.Fatalf("Dockerfile line %d: %s in the build stage is not modelled by this test", in.line, in.cmd)
		}
	}
}

// TestDockerfileBuild runs the Dockerfile's build stage natively (its COPY
// steps over the build context less .dockerignore, `go mod download`, and
// its exact `go build` command line) and checks that the binary it makes
// works and is the one the lakepg stage copies to where its ENTRYPOINT
// finds it; that the Go and Debian releases of the stages agree with go.mod
// and with each other; and that the versitygw stage installs the module
// and version scripts/test.sh pins for the tests.
func TestDockerfileBuild(t *testing.T) {
	df, bin := lakepgImage(t)

	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !regexp.MustCompile(`^lakepg \d+\.\d+\.\d+\S*\n$`).Match(out) {
		t.Fatalf("%s version: %q, %v; want \"lakepg X.Y.Z\"", bin, out, err)
	}
	t.Logf("the build stage's binary: %s", strings.TrimSpace(string(out)))

	// The ENTRYPOINT finds the binary the lakepg stage copies.
	_, _, dst := copyArgs(t, lakepgCopy(t, df))
	lakepg := df.stage(t, "lakepg")
	if ep := lakepg.exec(t, "ENTRYPOINT"); len(ep) == 0 || (ep[0] != dst && !(ep[0] == path.Base(dst) && onDebianPath(path.Dir(dst)))) {
		t.Errorf("the lakepg stage's ENTRYPOINT %q does not run %s", ep, dst)
	}

	// Go: the build image's release line is go.mod's.
	goLine := goModVersion(t)
	for _, name := range []string{"build", "versitygw-build"} {
		base := df.stage(t, name).base
		if !strings.HasPrefix(base, "golang:"+goLine+"-") && base != "golang:"+goLine {
			t.Errorf("stage %s builds FROM %s, want golang:%s (go.mod)", name, base, goLine)
		}
	}
	// Debian: lakepg links glibc (cgo), so it runs on the release it was built on.
	if b, r := debianRelease(df.stage(t, "build").base), debianRelease(lakepg.base); b == "" || b != r {
		t.Errorf("build stage FROM %s, lakepg stage FROM %s: want the same Debian release", df.stage(t, "build").base, lakepg.base)
	}

	// versitygw: the version the tests run, put where the stage's ENTRYPOINT finds it.
	vb := df.stage(t, "versitygw-build")
	env, pkg, version := goInstall(t, vb)
	module, pinned := testShPin(t)
	if pkg != module+"/cmd/versitygw" || version != pinned {
		t.Errorf("the versitygw-build stage installs %s@%s, scripts/test.sh pins %s/cmd/versitygw@%s", pkg, version, module, pinned)
	}
	gobin := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOBIN="); ok {
			gobin = v
		}
	}
	vs := df.stage(t, "versitygw")
	var copied bool
	for _, in := range vs.all("COPY") {
		from, srcs, dst := copyArgs(t, in)
		if from == "versitygw-build" && len(srcs) == 1 && gobin != "" && srcs[0] == path.Join(gobin, "versitygw") {
			copied = true
			if ep := vs.exec(t, "ENTRYPOINT"); len(ep) == 0 || (ep[0] != dst && !(ep[0] == path.Base(dst) && onDebianPath(path.Dir(dst)))) {
				t.Errorf("the versitygw stage's ENTRYPOINT %q does not run %s", ep, dst)
			}
		}
	}
	if !copied {
		t.Errorf("the versitygw stage does not copy versitygw from where go install put it (GOBIN=%s)", gobin)
	}
}

// onDebianPath reports whether dir is on the PATH of Debian's images.
func onDebianPath(dir string) bool {
	for _, d := range []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"} {
		if d == dir {
			return true
		}
	}
	return false
}

// debianRelease is the Debian code name in an image reference
// (golang:1.26-bookworm, debian:bookworm-slim), "" when it has none.
func debianRelease(image string) string {
	for _, r := range []string{"bullseye", "bookworm", "trixie", "forky"} {
		if strings.Contains(image, r) {
			return r
		}
	}
	return ""
}

// goModVersion is the Go release line (1.26) of go.mod's go directive.
func goModVersion(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)(\.\d+)?\s*$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	return string(m[1])
}

// testShPin reads the versitygw module and version scripts/test.sh installs.
func testShPin(t testing.TB) (module, version string) {
	t.Helper()
	f, err := os.Open(filepath.Join(moduleRoot(t), "scripts", "test.sh"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "versitygw_module="); ok {
			module = v
		}
		if v, ok := strings.CutPrefix(sc.Text(), "versitygw_version="); ok {
			version = v
		}
	}
	if module == "" || version == "" {
		t.Fatal("scripts/test.sh: no versitygw_module= and versitygw_version= lines")
	}
	return module, version
}
