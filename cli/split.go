package cli

import "strings"

// splitter cuts SQL text into statements at semicolons outside string
// literals, quoted identifiers, dollar-quoted strings and comments. Text is
// fed in pieces (lines of the shell, of a file); state carries over, so a
// literal may span lines.
type splitter struct {
	buf    strings.Builder
	mode   splitMode
	escape bool   // inside an E'' literal: backslash escapes the next byte
	tag    string // the closing $tag$ of a dollar-quoted string
	depth  int    // nesting of /* */ comments
	prev   byte   // the last byte fed, for the start of the next piece
	code   bool   // the pending text has more than blanks and comments
}

type splitMode uint8

const (
	inCode splitMode = iota
	inSingle
	inDouble
	inDollar
	inBlockComment
	inLineComment
)

// feed adds text and returns the statements it completed, each with its
// terminating semicolon and without surrounding blanks.
func (s *splitter) feed(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch s.mode {
		case inCode:
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' && !s.commentStart(text, i) {
				s.code = true
			}
			switch {
			case c == '-' && i+1 < len(text) && text[i+1] == '-':
				s.mode = inLineComment
				i++
			case c == '/' && i+1 < len(text) && text[i+1] == '*':
				s.mode, s.depth = inBlockComment, 1
				i++
			case c == '\'':
				s.mode = inSingle
				p := s.before(text, i)
				s.escape = (p == 'e' || p == 'E') && !isIdent(s.before(text, i-1))
			case c == '"':
				s.mode = inDouble
			case c == '$' && !isIdent(s.before(text, i)):
				if tag, ok := dollarTag(text[i:]); ok {
					s.mode, s.tag = inDollar, tag
					i += len(tag) - 1
				}
			case c == ';':
				s.buf.WriteString(text[start : i+1])
				start = i + 1
				if stmt := strings.TrimSpace(s.buf.String()); stmt != ";" {
					out = append(out, stmt)
				}
				s.buf.Reset()
				s.code = false
			}
		case inSingle:
			switch {
			case c == '\\' && s.escape:
				i++
			case c == '\'' && i+1 < len(text) && text[i+1] == '\'':
				i++
			case c == '\'':
				s.mode = inCode
			}
		case inDouble:
			if c == '"' {
				if i+1 < len(text) && text[i+1] == '"' {
					i++
				} else {
					s.mode = inCode
				}
			}
		case inDollar:
			if c == '$' && strings.HasPrefix(text[i:], s.tag) {
				s.mode = inCode
				i += len(s.tag) - 1
			}
		case inBlockComment:
			switch {
			case c == '/' && i+1 < len(text) && text[i+1] == '*':
				s.depth++
				i++
			case c == '*' && i+1 < len(text) && text[i+1] == '/':
				s.depth--
				i++
				if s.depth == 0 {
					s.mode = inCode
				}
			}
		case inLineComment:
			if c == '\n' {
				s.mode = inCode
			}
		}
	}
	s.buf.WriteString(text[start:])
	if len(text) > 0 {
		s.prev = text[len(text)-1]
	}
	return out
}

// before is the byte before position i of text, looking into the previous
// piece at the start.
func (s *splitter) before(text string, i int) byte {
	switch {
	case i > 0:
		return text[i-1]
	case i == 0:
		return s.prev
	}
	return 0
}

func (s *splitter) commentStart(text string, i int) bool {
	return i+1 < len(text) && (text[i] == '-' && text[i+1] == '-' || text[i] == '/' && text[i+1] == '*')
}

// empty reports whether nothing but blanks and comments is pending.
func (s *splitter) empty() bool {
	return !s.code && (s.mode == inCode || s.mode == inLineComment)
}

// rest returns what is pending (a last statement without a semicolon; ""
// when that is only blanks and comments) and resets the splitter.
func (s *splitter) rest() string {
	r := strings.TrimSpace(s.buf.String())
	if !s.code {
		r = ""
	}
	*s = splitter{}
	return r
}

// dollarTag reports whether text starts with a dollar-quote opener ($$ or
// $tag$) and returns it.
func dollarTag(text string) (string, bool) {
	for j := 1; j < len(text); j++ {
		c := text[j]
		switch {
		case c == '$':
			return text[:j+1], true
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
		case c >= '0' && c <= '9' && j > 1:
		default:
			return "", false
		}
	}
	return "", false
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
