package compose

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// ignoreRule is one line of .dockerignore.
type ignoreRule struct {
	pattern string
	exclude bool // a "!" line: brings back what earlier lines ignored
}

// loadDockerignore reads .dockerignore with the engine's rules: patterns
// are cleaned, a leading "/" is dropped, a pattern matches a path or any
// directory above it, and the last matching line decides. "**" is refused:
// the file does not use it and this matcher does not model it.
func loadDockerignore(t testing.TB, root string) []ignoreRule {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var rules []ignoreRule
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{}
		if rest, ok := strings.CutPrefix(line, "!"); ok {
			r.exclude, line = true, strings.TrimSpace(rest)
		}
		if strings.Contains(line, "**") {
			t.Fatalf(".dockerignore: %q: ** is not modelled by this test", line)
		}
		r.pattern = strings.TrimPrefix(path.Clean(line), "/")
		if _, err := path.Match(r.pattern, ""); err != nil {
			t.Fatalf(".dockerignore: %q: %v", line, err)
		}
		rules = append(rules, r)
	}
	return rules
}

// ignored reports whether rel (slash-separated, relative to the context)
// is left out of the build context.
func ignored(rules []ignoreRule, rel string) bool {
	out := false
	for _, r := range rules {
		for p := rel; p != "." && p != "/"; p = path.Dir(p) {
			if ok, _ := path.Match(r.pattern, p); ok {
				out = !r.exclude
				break
			}
		}
	}
	return out
}

func TestIgnored(t *testing.T) {
	rules := []ignoreRule{{pattern: ".git"}, {pattern: "bench/results"}, {pattern: "*.test"}, {pattern: "lakepg"}, {pattern: "keep.test", exclude: true}}
	for rel, want := range map[string]bool{
		".git/HEAD": true, "bench/results/a.md": true, "bench/run.go": false,
		"exec.test": true, "exec/exec.test": false, "keep.test": false,
		"lakepg": true, "cmd/lakepg/main.go": false,
	} {
		if got := ignored(rules, rel); got != want {
			t.Errorf("ignored(%q) = %v, want %v", rel, got, want)
		}
	}
}

// copyContext copies the sources of a COPY from the build context (the
// module root less what .dockerignore leaves out) to dst, as the engine
// does: a directory's contents go into dst, a file into dst (a directory
// when dst ends in "/" or there are several sources).
func copyContext(t testing.TB, root string, rules []ignoreRule, srcs []string, dst string) {
	t.Helper()
	for _, src := range srcs {
		if strings.ContainsAny(src, "*?[") {
			t.Fatalf("COPY source %q: wildcards are not modelled by this test", src)
		}
		rel := path.Clean(src)
		if rel != "." && ignored(rules, rel) {
			t.Fatalf("COPY %s: the source is left out of the build context by .dockerignore", src)
		}
		from := filepath.Join(root, filepath.FromSlash(rel))
		st, err := os.Stat(from)
		if err != nil {
			t.Fatalf("COPY %s: %v", src, err)
		}
		if !st.IsDir() {
			to := dst
			if strings.HasSuffix(dst, "/") || len(srcs) > 1 {
				to = filepath.Join(dst, filepath.Base(from))
			}
			if err := copyFile(from, to, st.Mode()); err != nil {
				t.Fatal(err)
			}
			continue
		}
		err = filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			r, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			if r != "." && ignored(rules, filepath.ToSlash(r)) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			inner, _ := filepath.Rel(from, p)
			to := filepath.Join(dst, inner)
			switch {
			case d.IsDir():
				return os.MkdirAll(to, 0o755)
			case d.Type()&fs.ModeSymlink != 0:
				target, err := os.Readlink(p)
				if err != nil {
					return err
				}
				return os.Symlink(target, to)
			case d.Type().IsRegular():
				info, err := d.Info()
				if err != nil {
					return err
				}
				return copyFile(p, to, info.Mode())
			}
			return nil // sockets and the like: not part of a build
		})
		if err != nil {
			t.Fatalf("COPY %s: %v", src, err)
		}
	}
}

func copyFile(from, to string, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		// A file removed while the context is copied (an editor's temporary
		// file) is not part of it.
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode.Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", from, err)
	}
	return out.Close()
}
