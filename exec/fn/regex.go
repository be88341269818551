package fn

import (
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// PostgreSQL's regular expressions (Spencer's ARE) run here on Go's RE2
// engine after a translation of the syntax that differs: \y \Y \m \M word
// boundaries, \Z, \b as backspace, leading ']' in brackets, newline-sensitive
// modes, embedded options and the ***: / ***= directors. Constructs RE2
// cannot run (back references, lookahead and lookbehind) are 0A000.
// Matching is leftmost-longest as in PostgreSQL unless the pattern uses a
// non-greedy quantifier. Case-insensitive matching folds Unicode (PostgreSQL
// under lc_ctype C folds ASCII only).

const codeInvalidRegex = "2201B"

// reOpts are compile flags in PostgreSQL's terms.
type reOpts struct {
	icase    bool
	nlstop   bool // . and [^...] do not match newline
	nlanch   bool // ^ and $ match at line boundaries
	expanded bool // whitespace and # comments are ignored
	literal  bool // the whole pattern is a literal string
	global   bool // regexp_replace: every match
}

// parseFlags reads a flags argument as PostgreSQL's parse_re_flags does.
func parseFlags(s string, o *reOpts) error {
	for _, c := range s {
		switch c {
		case 'g':
			o.global = true
		case 'c':
			o.icase = false
		case 'i':
			o.icase = true
		case 'm', 'n':
			o.nlstop, o.nlanch = true, true
		case 'p':
			o.nlstop, o.nlanch = true, false
		case 'w':
			o.nlstop, o.nlanch = false, true
		case 's':
			o.nlstop, o.nlanch = false, false
		case 'q':
			o.literal = true
		case 't':
			o.expanded = false
		case 'x':
			o.expanded = true
		case 'b', 'e':
			return pgerr.New(pgerr.FeatureNotSupported, "basic and extended POSIX regular expression flavours are not supported")
		default:
			return pgerr.New(pgerr.InvalidParameterValue, "invalid regular expression option: \"%c\"", c)
		}
	}
	return nil
}

func reError(msg string) error {
	return pgerr.New(codeInvalidRegex, "invalid regular expression: %s", msg)
}

func reUnsupported(what string) error {
	return pgerr.New(pgerr.FeatureNotSupported, "regular expressions with %s are not supported", what)
}

// translateRE turns a PostgreSQL ARE into RE2 syntax under o.
func translateRE(p string, o reOpts) (string, error) {
	switch {
	case strings.HasPrefix(p, "***="):
		return regexp.QuoteMeta(p[4:]), nil
	case strings.HasPrefix(p, "***:"):
		p = p[4:]
	}
	// embedded options (?letters) at the very start
	if strings.HasPrefix(p, "(?") {
		if end := strings.IndexByte(p, ')'); end > 2 {
			opts := p[2:end]
			allLetters := true
			for _, c := range opts {
				if c < 'a' || c > 'z' {
					allLetters = false
				}
			}
			if allLetters {
				if err := parseFlags(opts, &o); err != nil {
					if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.InvalidParameterValue {
						return "", reError("invalid embedded option")
					}
					return "", err
				}
				if o.global {
					return "", reError("invalid embedded option")
				}
				p = p[end+1:]
			}
		}
	}
	if o.literal {
		return regexp.QuoteMeta(p), nil
	}
	var b strings.Builder
	if o.icase {
		b.WriteString("(?i)")
	}
	if !o.nlstop {
		b.WriteString("(?s)")
	}
	if o.nlanch {
		b.WriteString("(?m)")
	}
	inBracket, negated, bracketStart := false, false, false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if inBracket {
			switch {
			case c == ']' && !bracketStart:
				if negated && o.nlstop {
					b.WriteString(`\n`)
				}
				b.WriteByte(']')
				inBracket = false
			case c == ']':
				b.WriteString(`\]`)
			case c == '[' && i+1 < len(p) && (p[i+1] == ':' || p[i+1] == '.' || p[i+1] == '='):
				kind := p[i+1]
				end := strings.Index(p[i+2:], string(kind)+"]")
				if end < 0 {
					return "", reError("brackets [] not balanced")
				}
				body := p[i+2 : i+2+end]
				switch kind {
				case ':':
					b.WriteString("[:" + body + ":]")
				default:
					// a collating element or equivalence class of one
					// character is that character
					if utf8.RuneCountInString(body) != 1 {
						return "", reError("invalid collating element")
					}
					b.WriteString(regexp.QuoteMeta(body))
				}
				i += 2 + end + 1
			case c == '\\':
				if i+1 >= len(p) {
					return "", reError("invalid escape \\ sequence")
				}
				i++
				s, skip, err := translateEscape(p, i, true)
				if err != nil {
					return "", err
				}
				b.WriteString(s)
				i += skip
			case c == '[':
				b.WriteString(`\[`)
			default:
				b.WriteByte(c)
			}
			bracketStart = false
			continue
		}
		if o.expanded {
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
				continue
			}
			if c == '#' {
				for i < len(p) && p[i] != '\n' {
					i++
				}
				continue
			}
		}
		switch c {
		case '\\':
			if i+1 >= len(p) {
				return "", reError("invalid escape \\ sequence")
			}
			i++
			s, skip, err := translateEscape(p, i, false)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
			i += skip
		case '[':
			b.WriteByte('[')
			inBracket, negated, bracketStart = true, false, true
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				negated = true
				i++
			}
		case '(':
			if strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!") {
				return "", reUnsupported("lookahead constraints")
			}
			if strings.HasPrefix(p[i:], "(?<=") || strings.HasPrefix(p[i:], "(?<!") {
				return "", reUnsupported("lookbehind constraints")
			}
			if strings.HasPrefix(p[i:], "(?") && !strings.HasPrefix(p[i:], "(?:") {
				return "", reError("quantifier operand invalid")
			}
			b.WriteByte('(')
		case '.':
			if o.nlstop {
				b.WriteString(`[^\n]`)
			} else {
				b.WriteByte('.')
			}
		default:
			b.WriteByte(c)
		}
	}
	if inBracket {
		return "", reError("brackets [] not balanced")
	}
	return b.String(), nil
}

// translateEscape translates the escape whose letter is at p[i]; skip is how
// many more bytes it consumed.
func translateEscape(p string, i int, inBracket bool) (string, int, error) {
	c := p[i]
	switch c {
	case 'd', 'D', 's', 'S', 'w', 'W', 'f', 'n', 'r', 't', 'v':
		return `\` + string(c), 0, nil
	case 'a':
		return `\x07`, 0, nil
	case 'b':
		return `\x08`, 0, nil
	case 'e':
		return `\x1b`, 0, nil
	case 'B':
		return `\\`, 0, nil
	case 'A':
		if !inBracket {
			return `\A`, 0, nil
		}
	case 'Z':
		if !inBracket {
			return `\z`, 0, nil
		}
	case 'y', 'm', 'M':
		// \m and \M (start and end of word) have no RE2 equivalent; a word
		// boundary is the closest
		if !inBracket {
			return `\b`, 0, nil
		}
	case 'Y':
		if !inBracket {
			return `\B`, 0, nil
		}
	case 'c':
		if i+1 < len(p) {
			return `\x{` + strconv.FormatInt(int64(p[i+1]&0x1f), 16) + `}`, 1, nil
		}
	case 'x', 'u', 'U':
		j := i + 1
		limit := len(p)
		switch c {
		case 'u':
			limit = min(len(p), j+4)
		case 'U':
			limit = min(len(p), j+8)
		}
		for j < limit && strings.IndexByte("0123456789abcdefABCDEF", p[j]) >= 0 {
			j++
		}
		if j == i+1 || (c == 'u' && j-i-1 != 4) || (c == 'U' && j-i-1 != 8) {
			return "", 0, reError("invalid escape \\ sequence")
		}
		return `\x{` + p[i+1:j] + `}`, j - i - 1, nil
	case '0':
		j := i + 1
		for j < len(p) && j < i+3 && p[j] >= '0' && p[j] <= '7' {
			j++
		}
		v, _ := strconv.ParseInt("0"+p[i+1:j], 8, 32)
		return `\x{` + strconv.FormatInt(v, 16) + `}`, j - i - 1, nil
	}
	if c >= '1' && c <= '9' && !inBracket {
		return "", 0, reUnsupported("back references")
	}
	if c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
		return "", 0, reError("invalid escape \\ sequence")
	}
	if c >= utf8.RuneSelf {
		_, sz := utf8.DecodeRuneInString(p[i:])
		return p[i : i+sz], sz - 1, nil
	}
	return `\` + string(c), 0, nil
}

// hasLazy reports a non-greedy quantifier in translated RE2 text.
func hasLazy(re string) bool {
	for _, q := range []string{"*?", "+?", "??", "}?"} {
		if k := strings.Index(re, q); k > 0 && re[k-1] != '\\' {
			return true
		}
	}
	return false
}

// reCache keeps compiled patterns across batches and queries; a literal
// pattern compiles once however many rows use it.
var (
	reCache     sync.Map // key string → *regexp.Regexp
	reCacheSize atomic.Int64
)

const reCacheLimit = 4096

func compileRE(pattern string, o reOpts) (*regexp.Regexp, error) {
	key := string([]byte{b2c(o.icase), b2c(o.nlstop), b2c(o.nlanch), b2c(o.expanded), b2c(o.literal)}) + pattern
	if re, ok := reCache.Load(key); ok {
		return re.(*regexp.Regexp), nil
	}
	src, err := translateRE(pattern, o)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, goRegexError(err)
	}
	if !hasLazy(src) {
		re.Longest()
	}
	if reCacheSize.Add(1) > reCacheLimit {
		reCache.Clear()
		reCacheSize.Store(0)
	}
	reCache.Store(key, re)
	return re, nil
}

func b2c(b bool) byte {
	if b {
		return '1'
	}
	return '0'
}

// goRegexError words an RE2 compile error the way PostgreSQL's regerror does.
func goRegexError(err error) error {
	se, ok := err.(*syntax.Error)
	if !ok {
		return reError(err.Error())
	}
	switch se.Code {
	case syntax.ErrMissingParen, syntax.ErrUnexpectedParen:
		return reError("parentheses () not balanced")
	case syntax.ErrMissingBracket:
		return reError("brackets [] not balanced")
	case syntax.ErrMissingRepeatArgument, syntax.ErrInvalidRepeatOp:
		return reError("quantifier operand invalid")
	case syntax.ErrInvalidRepeatSize:
		return reError("invalid repetition count(s)")
	case syntax.ErrInvalidCharRange:
		return reError("invalid character range")
	case syntax.ErrInvalidCharClass:
		return reError("invalid character class")
	case syntax.ErrInvalidEscape:
		return reError("invalid escape \\ sequence")
	case syntax.ErrInvalidPerlOp:
		return reUnsupported("this construct")
	}
	return reError(se.Code.String())
}

// rePicker compiles the pattern of each row, reusing the last one while it
// repeats (the common case of a constant pattern).
type rePicker struct {
	o       reOpts
	last    string
	lastSet bool
	re      *regexp.Regexp
}

func (p *rePicker) get(pattern string) (*regexp.Regexp, error) {
	if p.lastSet && pattern == p.last {
		return p.re, nil
	}
	re, err := compileRE(pattern, p.o)
	if err != nil {
		return nil, err
	}
	p.last, p.lastSet, p.re = pattern, true, re
	return re, nil
}

func init() {
	for _, op := range []struct {
		name        string
		icase, negd bool
	}{{"~", false, false}, {"~*", true, false}, {"!~", false, true}, {"!~*", true, true}} {
		regOp(op.name, strict(matchKernel(op.icase, op.negd), boolT, textT, textT))
	}
	reg("textregexeq", strict(matchKernel(false, false), boolT, textT, textT))
	reg("regexp_like", strict(kRegexpLike, boolT, textT, textT))
	reg("regexp_like", strict(kRegexpLike, boolT, textT, textT, textT))
	reg("regexp_replace", strict(kRegexpReplace, textT, textT, textT, textT))
	reg("regexp_replace", strict(kRegexpReplace, textT, textT, textT, textT, textT))
	reg("regexp_replace", strict(kRegexpReplaceN, textT, textT, textT, textT, int4T))
	reg("regexp_replace", strict(kRegexpReplaceN, textT, textT, textT, textT, int4T, int4T))
	reg("regexp_replace", strict(kRegexpReplaceN, textT, textT, textT, textT, int4T, int4T, textT))
	reg("regexp_count", strict(kRegexpCount, int4T, textT, textT))
	reg("regexp_count", strict(kRegexpCount, int4T, textT, textT, int4T))
	reg("regexp_count", strict(kRegexpCount, int4T, textT, textT, int4T, textT))
	reg("regexp_substr", strict(kRegexpSubstr, textT, textT, textT))
	reg("regexp_substr", strict(kRegexpSubstr, textT, textT, textT, int4T))
	reg("regexp_substr", strict(kRegexpSubstr, textT, textT, textT, int4T, int4T))
	reg("regexp_substr", strict(kRegexpSubstr, textT, textT, textT, int4T, int4T, textT))
	reg("regexp_substr", strict(kRegexpSubstr, textT, textT, textT, int4T, int4T, textT, int4T))
	reg("substring", strict(kRegexSubstring, textT, textT, textT))
	reg("substring", strict(kSimilarSubstring, textT, textT, textT, textT))
	reg("similar_to_escape", strict(kSimilarEscape, textT, textT))
	reg("similar_to_escape", strict(kSimilarEscape, textT, textT, textT))
	reg("similar_escape", &Overload{Args: []types.T{textT, textT}, Ret: ret(textT), Kernel: kSimilarEscapeLegacy})
}

func matchKernel(icase, negate bool) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		src, pats := a[0].S[:n], a[1].S[:n]
		dst := outB(out, n)
		nl := out.Nulls
		pk := rePicker{o: reOpts{icase: icase}}
		for i, s := range src {
			if isNull(nl, i) {
				continue
			}
			re, err := pk.get(pats[i])
			if err != nil {
				return err
			}
			dst[i] = re.MatchString(s) != negate
		}
		return nil
	}
}

// flagsAt returns the flags argument k, or "" when the call has fewer.
func flagsAt(a []*vec.Vector, k, i int) string {
	if len(a) > k {
		return a[k].S[i]
	}
	return ""
}

func noGlobal(fn string) error {
	e := pgerr.New(pgerr.InvalidParameterValue, "%s() does not support the \"global\" option", fn)
	e.Hint = "Use the regexp_replace function instead."
	return e
}

// pickerFor returns a picker for the row's flags, rebuilding it only when
// the flags change.
// rowRegexp is a row's compiled pattern under its flags; fn, a function
// that returns one value per row, refuses the g flag.
func rowRegexp(pk *rePicker, flags string, prev *string, first *bool, pattern, fn string) (*regexp.Regexp, error) {
	p, err := pickerFor(pk, flags, prev, first)
	if err != nil {
		return nil, err
	}
	if p.o.global {
		return nil, noGlobal(fn)
	}
	return p.get(pattern)
}

func pickerFor(pk *rePicker, flags string, prevFlags *string, first *bool) (*rePicker, error) {
	if *first || flags != *prevFlags {
		*first = false
		*prevFlags = flags
		var o reOpts
		if err := parseFlags(flags, &o); err != nil {
			return nil, err
		}
		*pk = rePicker{o: o}
	}
	return pk, nil
}

func kRegexpLike(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, pats := a[0].S[:n], a[1].S[:n]
	dst := outB(out, n)
	nl := out.Nulls
	var pk rePicker
	prev, first := "", true
	for i, s := range src {
		if isNull(nl, i) {
			continue
		}
		re, err := rowRegexp(&pk, flagsAt(a, 2, i), &prev, &first, pats[i], "regexp_like")
		if err != nil {
			return err
		}
		dst[i] = re.MatchString(s)
	}
	return nil
}

// appendReplacement expands \1-\9, \& and \\ in rep for one match, as
// PostgreSQL's regexp_replace does; other backslashes are kept.
func appendReplacement(b []byte, rep, s string, m []int) []byte {
	for k := 0; k < len(rep); k++ {
		c := rep[k]
		if c != '\\' || k+1 >= len(rep) {
			b = append(b, c)
			continue
		}
		d := rep[k+1]
		switch {
		case d >= '1' && d <= '9':
			g := int(d - '0')
			if 2*g+1 < len(m) && m[2*g] >= 0 {
				b = append(b, s[m[2*g]:m[2*g+1]]...)
			}
			k++
		case d == '&':
			b = append(b, s[m[0]:m[1]]...)
			k++
		case d == '\\':
			b = append(b, '\\')
			k++
		default:
			b = append(b, c)
		}
	}
	return b
}

// replaceRE replaces the nth match (0 = every match) at or after byte
// offset from.
func replaceRE(b []byte, re *regexp.Regexp, s, rep string, from, nth int) []byte {
	b = append(b, s[:from]...)
	pos := from
	count := 0
	for pos <= len(s) {
		m := re.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += pos
			}
		}
		count++
		if nth == 0 || count == nth {
			b = append(b, s[pos:m[0]]...)
			b = appendReplacement(b, rep, s, m)
		} else {
			b = append(b, s[pos:m[1]]...)
		}
		if m[1] == m[0] {
			// an empty match: step over one character
			if m[1] >= len(s) {
				pos = len(s) + 1
				break
			}
			_, sz := utf8.DecodeRuneInString(s[m[1]:])
			b = append(b, s[m[1]:m[1]+sz]...)
			pos = m[1] + sz
		} else {
			pos = m[1]
		}
		if nth != 0 && count >= nth {
			break
		}
	}
	if pos <= len(s) {
		b = append(b, s[pos:]...)
	}
	return b
}

func kRegexpReplace(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, pats, reps := a[0].S[:n], a[1].S[:n], a[2].S[:n]
	dst := outS(out, n)
	nl := out.Nulls
	var pk rePicker
	prev, first := "", true
	var b []byte
	for i, s := range src {
		if isNull(nl, i) {
			continue
		}
		p, err := pickerFor(&pk, flagsAt(a, 3, i), &prev, &first)
		if err != nil {
			return err
		}
		re, err := p.get(pats[i])
		if err != nil {
			return err
		}
		nth := 1
		if p.o.global {
			nth = 0
		}
		b = replaceRE(b[:0], re, s, reps[i], 0, nth)
		dst[i] = string(b)
	}
	return nil
}

func badParam(name string, v int64) error {
	return pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %d", name, v)
}

// kRegexpReplaceN is regexp_replace(s, p, r, start [, n [, flags]]).
func kRegexpReplaceN(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, pats, reps, starts := a[0].S[:n], a[1].S[:n], a[2].S[:n], a[3].I64[:n]
	dst := outS(out, n)
	nl := out.Nulls
	var pk rePicker
	prev, first := "", true
	var b []byte
	for i, s := range src {
		if isNull(nl, i) {
			continue
		}
		p, err := pickerFor(&pk, flagsAt(a, 5, i), &prev, &first)
		if err != nil {
			return err
		}
		start := starts[i]
		if start <= 0 {
			return badParam("start", start)
		}
		// without n only the first match is replaced; n = 0 means all
		nth := int64(1)
		if len(a) > 4 {
			nth = a[4].I64[i]
			if nth < 0 {
				return badParam("n", nth)
			}
		}
		re, err := p.get(pats[i])
		if err != nil {
			return err
		}
		from := charPrefix(s, start-1)
		b = replaceRE(b[:0], re, s, reps[i], from, int(nth))
		dst[i] = string(b)
	}
	return nil
}

func kRegexpCount(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, pats := a[0].S[:n], a[1].S[:n]
	dst := outI64(out, n)
	nl := out.Nulls
	var pk rePicker
	prev, first := "", true
	for i, s := range src {
		if isNull(nl, i) {
			continue
		}
		p, err := pickerFor(&pk, flagsAt(a, 3, i), &prev, &first)
		if err != nil {
			return err
		}
		if p.o.global {
			return noGlobal("regexp_count")
		}
		start := int64(1)
		if len(a) > 2 {
			start = a[2].I64[i]
			if start <= 0 {
				return badParam("start", start)
			}
		}
		re, err := p.get(pats[i])
		if err != nil {
			return err
		}
		dst[i] = int64(len(re.FindAllStringIndex(s[charPrefix(s, start-1):], -1)))
	}
	return nil
}

func kRegexpSubstr(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, pats := a[0].S[:n], a[1].S[:n]
	dst := outS(out, n)
	nl := out.Nulls
	var pk rePicker
	prev, first := "", true
	for i, s := range src {
		if isNull(nl, i) {
			continue
		}
		p, err := pickerFor(&pk, flagsAt(a, 4, i), &prev, &first)
		if err != nil {
			return err
		}
		if p.o.global {
			return noGlobal("regexp_substr")
		}
		start, nth, sub := int64(1), int64(1), int64(0)
		if len(a) > 2 {
			if start = a[2].I64[i]; start <= 0 {
				return badParam("start", start)
			}
		}
		if len(a) > 3 {
			if nth = a[3].I64[i]; nth <= 0 {
				return badParam("n", nth)
			}
		}
		if len(a) > 5 {
			if sub = a[5].I64[i]; sub < 0 {
				return badParam("subexpr", sub)
			}
		}
		re, err := p.get(pats[i])
		if err != nil {
			return err
		}
		from := charPrefix(s, start-1)
		ms := re.FindAllStringSubmatchIndex(s[from:], int(nth))
		if int64(len(ms)) < nth || sub > int64(re.NumSubexp()) {
			setNull(out, i, n)
			continue
		}
		m := ms[nth-1]
		if m[2*sub] < 0 {
			setNull(out, i, n)
			continue
		}
		dst[i] = s[from+m[2*sub] : from+m[2*sub+1]]
	}
	return nil
}

// regexSubstring returns the first parenthesised subexpression of the first
// match, or the whole match when there is none; ok is false without a match.
func regexSubstring(re *regexp.Regexp, s string) (string, bool) {
	m := re.FindStringSubmatchIndex(s)
	if m == nil {
		return "", false
	}
	if len(m) > 2 {
		if m[2] < 0 {
			return "", false
		}
		return s[m[2]:m[3]], true
	}
	return s[m[0]:m[1]], true
}

func kRegexSubstring(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, pats := a[0].S[:n], a[1].S[:n]
	dst := outS(out, n)
	nl := out.Nulls
	pk := rePicker{}
	for i, s := range src {
		if isNull(nl, i) {
			continue
		}
		re, err := pk.get(pats[i])
		if err != nil {
			return err
		}
		r, ok := regexSubstring(re, s)
		if !ok {
			setNull(out, i, n)
			continue
		}
		dst[i] = r
	}
	return nil
}

// kSimilarSubstring is substring(s similar p escape e).
func kSimilarSubstring(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, pats, escs := a[0].S[:n], a[1].S[:n], a[2].S[:n]
	dst := outS(out, n)
	nl := out.Nulls
	pk := rePicker{}
	for i, s := range src {
		if isNull(nl, i) {
			continue
		}
		esc := escs[i]
		p, err := SimilarToRegex(pats[i], &esc)
		if err != nil {
			return err
		}
		re, err := pk.get(p)
		if err != nil {
			return err
		}
		r, ok := regexSubstring(re, s)
		if !ok {
			setNull(out, i, n)
			continue
		}
		dst[i] = r
	}
	return nil
}

// SimilarToRegex translates a SQL SIMILAR TO pattern into a PostgreSQL
// regular expression, as similar_to_escape does; esc nil means the default
// escape (backslash), "" means none.
func SimilarToRegex(pat string, esc *string) (string, error) {
	e, hasEsc := "\\", true
	if esc != nil {
		switch utf8.RuneCountInString(*esc) {
		case 0:
			hasEsc = false
		case 1:
			e = *esc
		default:
			err := pgerr.New("22025", "invalid escape string")
			err.Hint = "Escape string must be empty or one character."
			return "", err
		}
	}
	var b strings.Builder
	b.WriteString("^(?:")
	afterEscape, inClass := false, false
	nquotes := 0
	for _, r := range pat {
		c := string(r)
		switch {
		case afterEscape:
			if c == `"` && !inClass {
				switch nquotes {
				case 0:
					b.WriteString("){1,1}?(")
				case 1:
					b.WriteString("){1,1}(?:")
				default:
					return "", pgerr.New("2200B", "SQL regular expression may not contain more than two escape-double-quote separators")
				}
				nquotes++
			} else {
				b.WriteString(`\` + c)
			}
			afterEscape = false
		case hasEsc && c == e:
			afterEscape = true
		case inClass:
			if c == `\` {
				b.WriteString(`\`)
			}
			b.WriteString(c)
			if c == "]" {
				inClass = false
			}
		case c == "[":
			b.WriteString(c)
			inClass = true
		case c == "%":
			b.WriteString(".*")
		case c == "_":
			b.WriteString(".")
		case c == "(":
			b.WriteString("(?:")
		case c == `\` || c == "." || c == "^" || c == "$":
			b.WriteString(`\` + c)
		default:
			b.WriteString(c)
		}
	}
	b.WriteString(")$")
	return b.String(), nil
}

func kSimilarEscape(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].S[:n]
	dst := outS(out, n)
	nl := out.Nulls
	for i, p := range src {
		if isNull(nl, i) {
			continue
		}
		var esc *string
		if len(a) > 1 {
			esc = &a[1].S[i]
		}
		r, err := SimilarToRegex(p, esc)
		if err != nil {
			return err
		}
		dst[i] = r
	}
	return nil
}

// kSimilarEscapeLegacy is similar_escape(pattern, escape): NULL escape means
// the default, NULL pattern gives NULL.
func kSimilarEscapeLegacy(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	dst := outS(out, n)
	for i := 0; i < n; i++ {
		if a[0].IsNull(i) {
			setNull(out, i, n)
			continue
		}
		var esc *string
		if !a[1].IsNull(i) {
			esc = &a[1].S[i]
		}
		r, err := SimilarToRegex(a[0].S[i], esc)
		if err != nil {
			return err
		}
		dst[i] = r
	}
	return nil
}
