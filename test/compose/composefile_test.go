package compose

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/lakepg/lakepg/test/testserver"
)

// composeFile is the part of the Compose specification docker-compose.yml
// uses. Forms of it the file does not use are refused rather than guessed
// at, so that a change to the file cannot slip past the checks unread.
type composeFile struct {
	Services map[string]*service `yaml:"services"`
	Volumes  map[string]any      `yaml:"volumes"`
	Configs  map[string]*config  `yaml:"configs"`
	// Header is the comment at the top of the file, where the user and
	// password to connect with are documented.
	Header string `yaml:"-"`
}

type service struct {
	Image       string       `yaml:"image"`
	Build       *build       `yaml:"build"`
	Environment environment  `yaml:"environment"`
	Entrypoint  words        `yaml:"entrypoint"`
	Command     words        `yaml:"command"`
	DependsOn   dependsOn    `yaml:"depends_on"`
	Ports       []string     `yaml:"ports"`
	Volumes     []string     `yaml:"volumes"`
	Healthcheck *healthcheck `yaml:"healthcheck"`
	// Profiles: a service with any is started only when one is asked for
	// (docker compose --profile NAME up); without, always.
	Profiles []string      `yaml:"profiles"`
	Configs  []configMount `yaml:"configs"`
}

// config is a top-level config given inline, the only form the file uses.
type config struct {
	Content string `yaml:"content"`
}

// configMount is a service's use of a config, in the long syntax.
type configMount struct {
	Source string `yaml:"source"`
	Target string `yaml:"target"`
}

type build struct {
	Context    string `yaml:"context"`
	Dockerfile string `yaml:"dockerfile"`
	Target     string `yaml:"target"`
}

type healthcheck struct {
	Test     words  `yaml:"test"`
	Interval string `yaml:"interval"`
	Timeout  string `yaml:"timeout"`
	Retries  int    `yaml:"retries"`
}

// environment is a service's environment in either of Compose's forms: a
// map, or a list of NAME=VALUE.
type environment map[string]string

func (e *environment) UnmarshalYAML(n *yaml.Node) error {
	out := environment{}
	switch n.Kind {
	case yaml.MappingNode:
		var m map[string]any
		if err := n.Decode(&m); err != nil {
			return err
		}
		for k, v := range m {
			if _, ok := v.(bool); ok {
				return fmt.Errorf("line %d: environment %s is a YAML boolean; Compose wants a string: quote it", n.Line, k)
			}
			if v == nil {
				return fmt.Errorf("line %d: environment %s has no value (taken from the host: not supported here)", n.Line, k)
			}
			out[k] = fmt.Sprint(v)
		}
	case yaml.SequenceNode:
		var l []string
		if err := n.Decode(&l); err != nil {
			return err
		}
		for _, kv := range l {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return fmt.Errorf("line %d: environment entry %q has no value", n.Line, kv)
			}
			out[k] = v
		}
	default:
		return fmt.Errorf("line %d: environment is neither a map nor a list", n.Line)
	}
	*e = out
	return nil
}

// words is a command line: Compose's list form, or a string split at
// spaces when it holds no quotes.
type words []string

func (w *words) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.SequenceNode:
		var l []string
		if err := n.Decode(&l); err != nil {
			return err
		}
		*w = l
	case yaml.ScalarNode:
		if strings.ContainsAny(n.Value, `"'\`) {
			return fmt.Errorf("line %d: a command string with quotes; write it as a list", n.Line)
		}
		*w = strings.Fields(n.Value)
	default:
		return fmt.Errorf("line %d: a command is neither a string nor a list", n.Line)
	}
	return nil
}

// dependsOn maps each service depended on to its condition; the list form
// means service_started.
type dependsOn map[string]string

func (d *dependsOn) UnmarshalYAML(n *yaml.Node) error {
	out := dependsOn{}
	switch n.Kind {
	case yaml.SequenceNode:
		var l []string
		if err := n.Decode(&l); err != nil {
			return err
		}
		for _, s := range l {
			out[s] = "service_started"
		}
	case yaml.MappingNode:
		var m map[string]struct {
			Condition string `yaml:"condition"`
		}
		if err := n.Decode(&m); err != nil {
			return err
		}
		for s, c := range m {
			if c.Condition == "" {
				c.Condition = "service_started"
			}
			out[s] = c.Condition
		}
	default:
		return fmt.Errorf("line %d: depends_on is neither a list nor a map", n.Line)
	}
	*d = out
	return nil
}

// loadCompose reads docker-compose.yml from the module root, interpolating
// ${VAR} references from vars as docker compose does from its environment
// (nil: nothing set, so every default applies).
func loadCompose(t testing.TB, vars map[string]string) *composeFile {
	t.Helper()
	return parseCompose(t, composeText(t), vars)
}

func composeText(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parseCompose(t testing.TB, b []byte, vars map[string]string) *composeFile {
	t.Helper()
	const path = "docker-compose.yml"
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := interpolateNode(&doc, vars); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	cf := &composeFile{}
	if err := doc.Decode(cf); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		c, ok := strings.CutPrefix(line, "#")
		if !ok {
			break
		}
		cf.Header += strings.TrimPrefix(c, " ") + "\n"
	}
	return cf
}

// interpolateNode interpolates every scalar value (not the keys) of a
// parsed YAML document, as Compose does before it reads the model.
func interpolateNode(n *yaml.Node, vars map[string]string) error {
	switch n.Kind {
	case yaml.ScalarNode:
		v, err := interpolate(n.Value, vars)
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		n.Value = v
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			if err := interpolateNode(n.Content[i], vars); err != nil {
				return err
			}
		}
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if err := interpolateNode(c, vars); err != nil {
				return err
			}
		}
	}
	return nil
}

var interpolation = regexp.MustCompile(`\$(\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}|[A-Za-z_][A-Za-z0-9_]*|\{[^}]*\}?)`)

// interpolate applies Compose's interpolation: $$ is a literal $, ${VAR},
// $VAR, ${VAR:-default} (unset or empty) and ${VAR-default} (unset).
// Other forms (${VAR:?err}, nesting) are refused.
func interpolate(s string, vars map[string]string) (string, error) {
	var bad error
	out := interpolation.ReplaceAllStringFunc(s, func(m string) string {
		sub := interpolation.FindStringSubmatch(m)
		switch {
		case sub[1] == "$":
			return "$"
		case sub[2] != "":
			v, set := vars[sub[2]]
			switch sub[3] {
			case ":-":
				if v == "" {
					return sub[4]
				}
			case "-":
				if !set {
					return sub[4]
				}
			}
			return v
		case !strings.HasPrefix(sub[1], "{"):
			return vars[sub[1]]
		}
		bad = fmt.Errorf("interpolation %q is not supported by this test", m)
		return m
	})
	return out, bad
}

func TestInterpolate(t *testing.T) {
	vars := map[string]string{"SET": "value", "EMPTY": ""}
	for in, want := range map[string]string{
		"${SET:-d}":            "value",
		"${EMPTY:-d}":          "d",
		"${EMPTY-d}":           "",
		"${UNSET-d}":           "d",
		"${UNSET:-change-me}":  "change-me",
		"$$(seq 1 30) $$x":     "$(seq 1 30) $x",
		"a${SET}b $SET":        "avalueb value",
		"postgres://u:p@h/db":  "postgres://u:p@h/db",
		"${UNSET}":             "",
		"cost: $$5, ${SET:-x}": "cost: $5, value",
	} {
		got, err := interpolate(in, vars)
		if err != nil || got != want {
			t.Errorf("interpolate(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := interpolate("${X:?must be set}", vars); err == nil {
		t.Errorf("${X:?…} was accepted")
	}
}

func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := testserver.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}
