package privileges

import "strings"

// RedactPasswords returns query with the string literal after every
// PASSWORD keyword replaced by '********', for logs: CREATE ROLE and ALTER
// ROLE carry passwords in plain text. Statements without the word come back
// as they are, without allocating.
func RedactPasswords(query string) string {
	const kw = "password"
	if !containsFold(query, kw) {
		return query
	}
	var b strings.Builder
	i, last := 0, 0
	for i < len(query) {
		c := query[i]
		switch {
		case c == '\'' || c == '"':
			i = skipQuoted(query, i)
		case (c == 'p' || c == 'P') && i+len(kw) <= len(query) && strings.EqualFold(query[i:i+len(kw)], kw) &&
			(i == 0 || !identChar(query[i-1])) && (i+len(kw) == len(query) || !identChar(query[i+len(kw)])):
			j := i + len(kw)
			for j < len(query) && (query[j] == ' ' || query[j] == '\t' || query[j] == '\n' || query[j] == '\r') {
				j++
			}
			if j < len(query) && (query[j] == 'E' || query[j] == 'e') && j+1 < len(query) && query[j+1] == '\'' {
				j++
			}
			if j < len(query) && query[j] == '\'' {
				end := skipQuoted(query, j)
				b.WriteString(query[last:j])
				b.WriteString("'********'")
				last, i = end, end
				continue
			}
			i = j
		default:
			i++
		}
	}
	if last == 0 {
		return query
	}
	b.WriteString(query[last:])
	return b.String()
}

// skipQuoted returns the index after the quoted text starting at i (a
// doubled quote is part of it; a backslash escapes in E-prefixed strings, which
// the caller does not tell apart, so a backslash always escapes here: at
// worst more is hidden).
func skipQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if q == '\'' {
				j++
			}
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

func identChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// containsFold is strings.Contains ignoring ASCII case, for a lower-case needle.
func containsFold(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		if s[i]|0x20 == lower[0] && strings.EqualFold(s[i:i+len(lower)], lower) {
			return true
		}
	}
	return false
}
