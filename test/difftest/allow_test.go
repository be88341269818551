package difftest

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// allowEntry is a known difference: a finding matches it when its oracle, its kind and its
// minimal query match. Matching the shrunk query, not the generated one, is what makes a
// handful of patterns enough: the generator reaches one bug through many queries, which all
// shrink to the same few shapes.
type allowEntry struct {
	name   string
	why    string
	oracle string           // "postgres", "tlp", "rewrite", "rewrite:barrier", "literal", "load"; "" any
	kind   *regexp.Regexp   // over the finding's kind, e.g. "wrong result", "lakepg error 0A000"
	query  []*regexp.Regexp // over the minimal query; all must match
	// message is over the finding's detail, which starts with lakepg's error message: an
	// entry with a message matches before shrinking (its query pattern, if any, then
	// reads the unreduced query), since the message says what failed
	message *regexp.Regexp
	repro   string
	line    int
	hits    int
}

func (e *allowEntry) matches(f *finding) bool {
	if e.oracle != "" && f.oracle != e.oracle && !strings.HasPrefix(f.oracle, e.oracle+":") {
		return false
	}
	if e.kind != nil && !e.kind.MatchString(f.kind) {
		return false
	}
	if e.message != nil && !e.message.MatchString(f.detail) {
		return false
	}
	for _, re := range e.query {
		if !re.MatchString(f.sql) {
			return false
		}
	}
	return true
}

// readAllowList parses the allow-list file:
//
//	entry: a-short-name
//	why: one line; "bug: …" for a lakepg bug to fix, else why lakepg differs on purpose
//	oracle: postgres
//	kind: ^wrong result$
//	query: (?i)extract\(year from
//	message: ^lakepg: .*not supported
//	repro:
//	    CREATE TABLE t0 (…);
//	    SELECT …;
//
// kind, query and message are regular expressions; kind or query is required; query may be
// given several times, and all must match. The indented lines
// after repro: are the minimal reproduction, for people: the test does not read them.
func readAllowList(path string) ([]*allowEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []*allowEntry
	var cur *allowEntry
	inRepro := false
	finish := func() error {
		if cur == nil {
			return nil
		}
		switch {
		case cur.why == "":
			return fmt.Errorf("%s:%d: entry %s has no why:", path, cur.line, cur.name)
		case cur.kind == nil && cur.query == nil:
			return fmt.Errorf("%s:%d: entry %s needs kind: or query:", path, cur.line, cur.name)
		}
		out = append(out, cur)
		cur = nil
		return nil
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if inRepro && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) {
			cur.repro += strings.TrimSpace(line) + "\n"
			continue
		}
		inRepro = false
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		key, val, ok := strings.Cut(trimmed, ":")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want \"key: value\", got %q", path, n, line)
		}
		val = strings.TrimSpace(val)
		if key == "entry" {
			if err := finish(); err != nil {
				return nil, err
			}
			cur = &allowEntry{name: val, line: n}
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("%s:%d: %s: before the first entry:", path, n, key)
		}
		switch key {
		case "why":
			cur.why = val
		case "oracle":
			cur.oracle = val
		case "kind", "query", "message":
			re, err := regexp.Compile(val)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n, err)
			}
			switch key {
			case "kind":
				cur.kind = re
			case "query":
				cur.query = append(cur.query, re)
			default:
				cur.message = re
			}
		case "repro":
			inRepro = true
		default:
			return nil, fmt.Errorf("%s:%d: unknown key %q", path, n, key)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return out, nil
}
