package compose

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dockerfile is the Dockerfile as a list of stages. Like composeFile it
// reads only the forms the file uses and refuses others.
type dockerfile struct {
	stages []*stage
}

type stage struct {
	base, name string
	instrs     []instruction
}

type instruction struct {
	line int
	cmd  string // upper case: RUN, COPY, …
	args string // the rest, continuation lines joined
}

func loadDockerfile(t testing.TB) *dockerfile {
	t.Helper()
	path := filepath.Join(moduleRoot(t), "Dockerfile")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	df, err := parseDockerfile(string(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return df
}

func parseDockerfile(text string) (*dockerfile, error) {
	df := &dockerfile{}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		start := i + 1
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
			i++
			next := strings.TrimSpace(lines[i])
			if strings.HasPrefix(next, "#") {
				continue
			}
			line = strings.TrimSpace(strings.TrimSuffix(line, `\`)) + " " + next
		}
		cmd, args, _ := strings.Cut(line, " ")
		in := instruction{line: start, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			f := strings.Fields(in.args)
			st := &stage{base: f[0]}
			switch {
			case len(f) == 3 && strings.EqualFold(f[1], "AS"):
				st.name = f[2]
			case len(f) != 1:
				return nil, fmt.Errorf("line %d: FROM %s: want IMAGE [AS NAME]", start, in.args)
			}
			df.stages = append(df.stages, st)
			continue
		}
		if len(df.stages) == 0 {
			return nil, fmt.Errorf("line %d: %s before FROM", start, in.cmd)
		}
		st := df.stages[len(df.stages)-1]
		st.instrs = append(st.instrs, in)
	}
	return df, nil
}

func (df *dockerfile) stage(t testing.TB, name string) *stage {
	t.Helper()
	for _, s := range df.stages {
		if s.name == name {
			return s
		}
	}
	t.Fatalf("Dockerfile: no stage %q", name)
	return nil
}

// all returns the instructions of one kind.
func (s *stage) all(cmd string) []instruction {
	var out []instruction
	for _, in := range s.instrs {
		if in.cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

// exec is the exec (JSON) form of the stage's last ENTRYPOINT or CMD, nil
// when it has none; the shell form is refused: it would run through
// /bin/sh, which these checks do not model.
func (s *stage) exec(t testing.TB, cmd string) []string {
	t.Helper()
	ins := s.all(cmd)
	if len(ins) == 0 {
		return nil
	}
	in := ins[len(ins)-1]
	var out []string
	if err := json.Unmarshal([]byte(in.args), &out); err != nil {
		t.Fatalf("Dockerfile line %d: %s %s: want the exec form, a JSON list (%v)", in.line, cmd, in.args, err)
	}
	return out
}

// env is the stage's ENV settings (NAME=VALUE pairs, unquoted).
func (s *stage) env(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, in := range s.all("ENV") {
		for _, kv := range strings.Fields(in.args) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || strings.ContainsAny(v, `"'$`) {
				t.Fatalf("Dockerfile line %d: ENV %s: want unquoted NAME=VALUE pairs", in.line, in.args)
			}
			out[k] = v
		}
	}
	return out
}

// copyArgs splits a COPY into its --from stage (or ""), sources and
// destination.
func copyArgs(t testing.TB, in instruction) (from string, srcs []string, dst string) {
	t.Helper()
	f := strings.Fields(in.args)
	for len(f) > 0 && strings.HasPrefix(f[0], "--") {
		v, ok := strings.CutPrefix(f[0], "--from=")
		if !ok {
			t.Fatalf("Dockerfile line %d: COPY option %s is not modelled by this test", in.line, f[0])
		}
		from = v
		f = f[1:]
	}
	if len(f) < 2 {
		t.Fatalf("Dockerfile line %d: COPY %s: want sources and a destination", in.line, in.args)
	}
	return from, f[:len(f)-1], f[len(f)-1]
}

// runWords splits a RUN's shell-form command into its leading NAME=VALUE
// assignments and the command's words. Anything the shell would interpret
// beyond plain words is refused: the test runs the command without a shell.
func runWords(t testing.TB, in instruction) (env []string, argv []string) {
	t.Helper()
	if strings.ContainsAny(in.args, "\"'`$;&|<>(){}*?[]~\\") {
		t.Fatalf("Dockerfile line %d: RUN %s: shell syntax this test cannot run without a shell", in.line, in.args)
	}
	f := strings.Fields(in.args)
	for len(f) > 0 && strings.Contains(f[0], "=") {
		env = append(env, f[0])
		f = f[1:]
	}
	return env, f
}

// goInstall finds the RUN of a stage that runs `go install PATH@VERSION`.
func goInstall(t testing.TB, s *stage) (env []string, pkg, version string) {
	t.Helper()
	for _, in := range s.all("RUN") {
		env, argv := runWords(t, in)
		if len(argv) == 3 && argv[0] == "go" && argv[1] == "install" {
			p, v, ok := strings.Cut(argv[2], "@")
			if !ok {
				t.Fatalf("Dockerfile line %d: go install %s has no @version", in.line, argv[2])
			}
			return env, p, v
		}
	}
	t.Fatalf("Dockerfile stage %s: no RUN go install PATH@VERSION", s.name)
	return nil, "", ""
}

func TestParseDockerfile(t *testing.T) {
	df, err := parseDockerfile("# c\nFROM a:1 AS one\nRUN x \\\n  # inner\n  y\nFROM b\nENTRYPOINT [\"p\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(df.stages) != 2 || df.stages[0].name != "one" || df.stages[1].base != "b" {
		t.Fatalf("stages %+v", df.stages)
	}
	if in := df.stages[0].instrs[0]; in.cmd != "RUN" || in.args != "x y" || in.line != 3 {
		t.Fatalf("RUN %+v", in)
	}
	if got := df.stages[1].exec(t, "ENTRYPOINT"); len(got) != 1 || got[0] != "p" {
		t.Fatalf("ENTRYPOINT %q", got)
	}
}
