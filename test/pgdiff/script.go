package pgdiff

import (
	"fmt"
	"os"
	"strings"
)

// Stmt is one statement of a script.
type Stmt struct {
	Line        int    // line of the statement's first token
	SQL         string // the statement without its ';'
	ExpectError bool   // "-- @error": PostgreSQL rejects it
	RowSort     bool   // "-- @rowsort": compare rows sorted
}

// ParseFile reads and splits a script.
func ParseFile(path string) ([]Stmt, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(string(b), path)
}

// Parse splits a script into statements at the semicolons outside string literals
// ('…', E'…' with backslash escapes), quoted identifiers, comments (-- and nested /* */) and
// dollar-quoted strings, and reads the @ directives of the comment lines before each
// statement.
func Parse(src, name string) ([]Stmt, error) {
	var (
		stmts      []Stmt
		directives []string
		start      = -1 // offset of the current statement's first token
		startLine  int
		line       = 1
	)
	flush := func(end int) error {
		if start < 0 {
			return nil
		}
		st := Stmt{Line: startLine, SQL: strings.TrimSpace(src[start:end])}
		for _, d := range directives {
			switch d {
			case "@error":
				st.ExpectError = true
			case "@rowsort":
				st.RowSort = true
			default:
				return fmt.Errorf("%s:%d: unknown directive %q", name, startLine, d)
			}
		}
		stmts = append(stmts, st)
		start, directives = -1, nil
		return nil
	}
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			if start < 0 {
				text := strings.TrimSpace(src[i+2 : i+j])
				if strings.HasPrefix(text, "@") {
					directives = append(directives, strings.Fields(text)...)
				}
			}
			i += j
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			depth := 0
			for i < len(src) {
				if strings.HasPrefix(src[i:], "/*") {
					depth++
					i += 2
				} else if strings.HasPrefix(src[i:], "*/") {
					depth--
					i += 2
					if depth == 0 {
						break
					}
				} else {
					if src[i] == '\n' {
						line++
					}
					i++
				}
			}
			if depth != 0 {
				return nil, fmt.Errorf("%s:%d: unterminated /* comment", name, line)
			}
		case c == ';':
			if err := flush(i); err != nil {
				return nil, err
			}
			i++
		default:
			if start < 0 {
				start, startLine = i, line
			}
			switch {
			case c == '\'' || c == '"':
				escapes := c == '\'' && i > 0 && (src[i-1] == 'E' || src[i-1] == 'e') &&
					(i < 2 || !isIdent(src[i-2]))
				j := i + 1
				for ; j < len(src); j++ {
					if src[j] == '\n' {
						line++
					}
					if escapes && src[j] == '\\' {
						j++
						continue
					}
					if src[j] == c {
						if j+1 < len(src) && src[j+1] == c { // doubled quote
							j++
							continue
						}
						break
					}
				}
				if j >= len(src) {
					return nil, fmt.Errorf("%s:%d: unterminated %c", name, line, c)
				}
				i = j + 1
			case c == '$' && (i == 0 || !isIdent(src[i-1])):
				tag, ok := dollarTag(src[i:])
				if !ok {
					i++
					break
				}
				end := strings.Index(src[i+len(tag):], tag)
				if end < 0 {
					return nil, fmt.Errorf("%s:%d: unterminated %s string", name, line, tag)
				}
				body := src[i : i+len(tag)+end+len(tag)]
				line += strings.Count(body, "\n")
				i += len(body)
			default:
				i++
			}
		}
	}
	if start >= 0 {
		return nil, fmt.Errorf("%s:%d: statement without a final ';'", name, startLine)
	}
	if len(directives) > 0 {
		return nil, fmt.Errorf("%s: directives %v after the last statement", name, directives)
	}
	return stmts, nil
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// dollarTag returns the opening tag ("$$" or "$name$") at the start of s.
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		if s[j] == '$' {
			return s[:j+1], true
		}
		if !isIdent(s[j]) || (j == 1 && s[j] >= '0' && s[j] <= '9') {
			return "", false
		}
	}
	return "", false
}
