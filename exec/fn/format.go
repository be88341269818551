package fn

import (
	"strings"
	"unicode/utf8"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

func init() {
	reg("format", &Overload{Args: []types.T{textT}, Ret: ret(textT), Stable: true, Kernel: kFormat})
	reg("format", &Overload{Args: []types.T{textT, AnyT}, Variadic: true, Ret: ret(textT), Stable: true, Kernel: kFormat})
	reg("quote_ident", strict(kQuoteIdent, textT, textT))
	reg("quote_literal", strict(kQuoteLiteral, textT, textT))
	reg("quote_nullable", &Overload{Args: []types.T{textT}, Ret: ret(textT), Kernel: kQuoteNullable})
}

// sqlKeywords are PostgreSQL's reserved, column-name and type/function-name
// keywords: the ones quote_ident must quote (unreserved keywords need not).
var sqlKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric both case cast check
	collate column constraint create current_catalog current_date current_role current_time
	current_timestamp current_user default deferrable desc distinct do else end except false fetch
	for foreign from grant group having in initially intersect into lateral leading limit localtime
	localtimestamp not null offset on only or order placing primary references returning select
	session_user some symmetric table then to trailing true union unique user using variadic when
	where window with
	between bigint bit boolean char character coalesce dec decimal exists extract float greatest
	grouping inout int integer interval least national nchar none normalize nullif numeric out
	overlay position precision real row setof smallint substring time timestamp treat trim values
	varchar xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi
	xmlroot xmlserialize xmltable
	authorization binary collation concurrently cross current_schema freeze full ilike inner is
	isnull join left like natural notnull outer overlaps right similar tablesample verbose`) {
		m[w] = true
	}
	return m
}()

// QuoteIdent quotes s as an SQL identifier when PostgreSQL's quote_ident
// would: anything but a lower-case letter or underscore followed by lower-case
// letters, digits and underscores, and keywords that are not unreserved.
func QuoteIdent(s string) string {
	safe := s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] == '_')
	for i := 0; safe && i < len(s); i++ {
		c := s[i]
		safe = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if safe && !sqlKeywords[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// QuoteLiteral quotes s as a string literal, with E” when it holds a
// backslash, as quote_literal does.
func QuoteLiteral(s string) string {
	var b strings.Builder
	if strings.IndexByte(s, '\\') >= 0 {
		b.WriteByte('E')
	}
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\'' || c == '\\' {
			b.WriteByte(c)
		}
		b.WriteByte(c)
	}
	b.WriteByte('\'')
	return b.String()
}

func kQuoteIdent(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].S[:n]
	dst := outS(out, n)
	for i, s := range src {
		dst[i] = QuoteIdent(s)
	}
	return nil
}

func kQuoteLiteral(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].S[:n]
	dst := outS(out, n)
	for i, s := range src {
		dst[i] = QuoteLiteral(s)
	}
	return nil
}

func kQuoteNullable(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0]
	dst := outS(out, n)
	for i := range dst {
		if src.IsNull(i) {
			dst[i] = "NULL"
		} else {
			dst[i] = QuoteLiteral(src.S[i])
		}
	}
	return nil
}

func formatErr(msg string) *pgerr.Error {
	return pgerr.New(pgerr.InvalidParameterValue, "%s", msg)
}

var errUnterminated = func() *pgerr.Error {
	e := formatErr("unterminated format() type specifier")
	e.Hint = `For a single "%" use "%%".`
	return e
}()

// parseDigits reads a decimal number at f[k:]; ok is false when there is none.
func parseDigits(f string, k int) (int, int, bool, error) {
	if k >= len(f) || f[k] < '0' || f[k] > '9' {
		return 0, k, false, nil
	}
	v := 0
	for k < len(f) && f[k] >= '0' && f[k] <= '9' {
		v = v*10 + int(f[k]-'0')
		if v > 1<<31-1 {
			return 0, k, false, formatErr("number is out of range")
		}
		k++
	}
	if k >= len(f) {
		return 0, k, false, errUnterminated
	}
	return v, k, true, nil
}

// formatRow is PostgreSQL's text_format for one row.
func formatRow(b []byte, f string, a []*vec.Vector, i int, ctx *Ctx) ([]byte, error) {
	arg := 1
	for k := 0; k < len(f); k++ {
		if f[k] != '%' {
			b = append(b, f[k])
			continue
		}
		k++
		if k >= len(f) {
			return nil, errUnterminated
		}
		if f[k] == '%' {
			b = append(b, '%')
			continue
		}
		argpos, widthpos, width, minus := -1, -1, 0, false
		n, nk, ok, err := parseDigits(f, k)
		if err != nil {
			return nil, err
		}
		parsedWidth := false
		if ok {
			k = nk
			if f[k] != '$' {
				width, parsedWidth = n, true
			} else {
				if n == 0 {
					return nil, formatErr("format specifies argument 0, but arguments are numbered from 1")
				}
				argpos = n
				k++
				if k >= len(f) {
					return nil, errUnterminated
				}
			}
		}
		if !parsedWidth {
			for f[k] == '-' {
				minus = true
				k++
				if k >= len(f) {
					return nil, errUnterminated
				}
			}
			if f[k] == '*' {
				k++
				if k >= len(f) {
					return nil, errUnterminated
				}
				n, nk, ok, err := parseDigits(f, k)
				if err != nil {
					return nil, err
				}
				if ok {
					k = nk
					if f[k] != '$' {
						return nil, formatErr(`width argument position must be ended by "$"`)
					}
					if n == 0 {
						return nil, formatErr("format specifies argument 0, but arguments are numbered from 1")
					}
					widthpos = n
					k++
					if k >= len(f) {
						return nil, errUnterminated
					}
				} else {
					widthpos = 0
				}
			} else {
				n, nk, ok, err := parseDigits(f, k)
				if err != nil {
					return nil, err
				}
				if ok {
					width, k = n, nk
				}
			}
		}
		conv := f[k]
		if conv != 's' && conv != 'I' && conv != 'L' {
			_, sz := utf8.DecodeRuneInString(f[k:])
			e := formatErr(`unrecognized format() type specifier "` + f[k:k+sz] + `"`)
			e.Hint = `For a single "%" use "%%".`
			return nil, e
		}
		if widthpos >= 0 {
			if widthpos > 0 {
				arg = widthpos
			}
			if arg >= len(a) {
				return nil, formatErr("too few arguments for format()")
			}
			w := a[arg]
			width = 0
			if !w.IsNull(i) {
				if !w.Type.IsInteger() {
					return nil, formatErr("width argument must be of type integer")
				}
				x := w.I64[i]
				if x < 0 {
					minus = true
					x = -x
				}
				width = int(x)
			}
			arg++
		}
		if argpos > 0 {
			arg = argpos
		}
		if arg >= len(a) {
			return nil, formatErr("too few arguments for format()")
		}
		v := a[arg]
		arg++
		var s string
		if v.IsNull(i) {
			switch conv {
			case 'L':
				s = "NULL"
			case 'I':
				return nil, pgerr.New("22004", "null values cannot be formatted as an SQL identifier")
			}
		} else {
			s = string(appendValue(nil, v, i, ctx))
			switch conv {
			case 'I':
				s = QuoteIdent(s)
			case 'L':
				s = QuoteLiteral(s)
			}
		}
		pad := width - utf8.RuneCountInString(s)
		if pad > 0 && !minus {
			b = append(b, strings.Repeat(" ", pad)...)
		}
		b = append(b, s...)
		if pad > 0 && minus {
			b = append(b, strings.Repeat(" ", pad)...)
		}
	}
	return b, nil
}

func kFormat(ctx *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	dst := outS(out, n)
	fs := a[0]
	var b []byte
	for i := 0; i < n; i++ {
		if fs.IsNull(i) {
			setNull(out, i, n)
			continue
		}
		var err error
		b, err = formatRow(b[:0], fs.S[i], a, i, ctx)
		if err != nil {
			return err
		}
		dst[i] = string(b)
	}
	return nil
}
