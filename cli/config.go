package cli

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// Options come from three places; the first that has a value wins:
//
//  1. the command line (--name value),
//  2. the environment (LAKEPG_NAME, upper case, '-' as '_'),
//  3. the config file named by --config or LAKEPG_CONFIG (TOML: name = value,
//     '-' or '_' alike; a [section] prefixes its keys, so [metrics] listen is
//     metrics-listen),
//
// and then the flag's default. Flags read their environment variable as
// their default when they are defined (see EnvName), so after parsing only
// the config file is left to apply, and only to flags that neither the
// command line nor the environment set.

// ConfigFlag is the flag naming the config file.
const ConfigFlag = "config"

// EnvName is the environment variable of flag name.
func EnvName(name string) string {
	return "LAKEPG_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// Env returns the value of flag name's environment variable, or def.
func Env(name, def string) string {
	if v, ok := os.LookupEnv(EnvName(name)); ok {
		return v
	}
	return def
}

// ParseFlags parses args into fs (defining --config if fs lacks it) and then
// applies the config file. A key of the file that names no flag of fs is an
// error when strict, and ignored otherwise (the file is shared by the server
// and the other commands, each of which uses part of it).
func ParseFlags(fs *flag.FlagSet, args []string, strict bool) error {
	if fs.Lookup(ConfigFlag) == nil {
		fs.String(ConfigFlag, Env(ConfigFlag, ""), "TOML config file with defaults for any option (env "+EnvName(ConfigFlag)+")")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	return applyConfig(fs, strict)
}

// parseInterspersed is ParseFlags for commands whose flags may follow their
// arguments (lakepg import t a.csv --create); it returns the arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	if fs.Lookup(ConfigFlag) == nil {
		fs.String(ConfigFlag, Env(ConfigFlag, ""), "TOML config file with defaults for any option (env "+EnvName(ConfigFlag)+")")
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	return pos, applyConfig(fs, false)
}

func applyConfig(fs *flag.FlagSet, strict bool) error {
	path := fs.Lookup(ConfigFlag).Value.String()
	if path == "" {
		return nil
	}
	var raw map[string]any
	if _, err := toml.DecodeFile(path, &raw); err != nil {
		return fmt.Errorf("--config %s: %w", path, err)
	}
	values := map[string]string{}
	if err := flatten("", raw, values); err != nil {
		return fmt.Errorf("--config %s: %w", path, err)
	}
	onCommandLine := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { onCommandLine[f.Name] = true })
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, name := range keys {
		f := fs.Lookup(name)
		if f == nil || name == ConfigFlag {
			if strict && name != ConfigFlag && !commandOptions()[name] {
				return fmt.Errorf("--config %s: unknown option %q", path, name)
			}
			continue
		}
		if onCommandLine[name] {
			continue
		}
		if _, ok := os.LookupEnv(EnvName(name)); ok {
			continue
		}
		if err := fs.Set(name, values[name]); err != nil {
			return fmt.Errorf("--config %s: %s: %w", path, name, err)
		}
	}
	return nil
}

// flatten turns the decoded TOML into option names and text values.
func flatten(prefix string, m map[string]any, out map[string]string) error {
	for k, v := range m {
		name := strings.ReplaceAll(strings.ToLower(k), "_", "-")
		if prefix != "" {
			name = prefix + "-" + name
		}
		switch v := v.(type) {
		case map[string]any:
			if err := flatten(name, v, out); err != nil {
				return err
			}
		case []any, []map[string]any:
			return fmt.Errorf("%s: lists are not option values", name)
		default:
			out[name] = fmt.Sprint(v)
		}
	}
	return nil
}
