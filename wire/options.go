package wire

import "strings"

// applyStartupOptions moves the settings a startup packet's "options"
// parameter carries into params, as PostgreSQL does: psycopg, libpq's
// PGOPTIONS and JDBC's options= send session settings as command-line
// switches, "-c name=value" or "--name=value", blank-separated with
// backslash escapes. A setting the packet also names directly keeps that
// value, because PostgreSQL applies the packet's own parameters last.
// Switches other than -c and -- (such as -d or -P) are ignored.
func applyStartupOptions(params map[string]string) {
	opts, ok := params["options"]
	if !ok {
		return
	}
	words := splitOptions(opts)
	explicit := map[string]bool{}
	for k := range params {
		explicit[k] = true
	}
	set := func(kv string) {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return
		}
		name = settingName(strings.ReplaceAll(name, "-", "_"))
		if !explicit[name] {
			params[name] = val
		}
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-c" && i+1 < len(words):
			i++
			set(words[i])
		case strings.HasPrefix(w, "-c"):
			set(w[2:])
		case strings.HasPrefix(w, "--"):
			set(w[2:])
		}
	}
}

// splitOptions splits an options string on unescaped blanks; a backslash
// makes the next character literal (pg_split_opts).
func splitOptions(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}
