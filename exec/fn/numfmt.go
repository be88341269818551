package fn

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// to_char for numbers with PostgreSQL's numeric template patterns
// (9 0 . D , G S MI PL SG PR FM TH V), lc_numeric C: the decimal point is
// '.', the group separator ','. EEEE, RN and L are not supported.

type numItem struct {
	kind byte // '9', '0', '.', ',', 'S', 'M' (MI), 'P' (PL), 'G' (SG), 'R' (PR), 'T' (TH), 't' (th), 'L' literal
	lit  string
}

type numTemplate struct {
	items     []numItem
	pre, post int
	zeroStart int // index among the integer digit positions of the first '0', pre if none
	fm        bool
	sign      byte // 0 none, 'S', 'M', 'G', 'R' (PL keeps the default sign)
	point     bool // the template has a decimal point
	signLead  bool // S before the digits
	vDigits   int  // digits after V: the value is multiplied by 10^vDigits
	err       error
}

func parseNumTemplate(f string) *numTemplate {
	t := &numTemplate{}
	seenPoint, seenDigit := false, false
	inV := false
	for i := 0; i < len(f); {
		rest := f[i:]
		up := strings.ToUpper(rest)
		switch {
		case strings.HasPrefix(up, "FM"):
			t.fm = true
			i += 2
		case rest[0] == '9' || rest[0] == '0':
			if inV {
				t.vDigits++
			}
			t.items = append(t.items, numItem{kind: rest[0]})
			if seenPoint {
				if !inV {
					t.post++
				}
			} else if !inV {
				t.pre++
			}
			seenDigit = true
			i++
		case (rest[0] == '.' || up[0] == 'D') && !seenPoint:
			seenPoint = true
			t.point = true
			t.items = append(t.items, numItem{kind: '.'})
			i++
		case rest[0] == ',' || up[0] == 'G' && !strings.HasPrefix(up, "GS"):
			t.items = append(t.items, numItem{kind: ','})
			i++
		case up[0] == 'V':
			inV = true
			i++
		case strings.HasPrefix(up, "MI"):
			t.items = append(t.items, numItem{kind: 'M'})
			t.sign = 'M'
			i += 2
		case strings.HasPrefix(up, "PL"):
			t.items = append(t.items, numItem{kind: 'P'})
			i += 2
		case strings.HasPrefix(up, "SG"):
			t.items = append(t.items, numItem{kind: 'G'})
			t.sign = 'G'
			i += 2
		case strings.HasPrefix(up, "PR"):
			t.sign = 'R'
			i += 2
		case strings.HasPrefix(rest, "TH") || strings.HasPrefix(rest, "th"):
			t.items = append(t.items, numItem{kind: rest[0]})
			i += 2
		case up[0] == 'S':
			t.items = append(t.items, numItem{kind: 'S'})
			t.sign = 'S'
			t.signLead = !seenDigit
			i++
		case strings.HasPrefix(up, "EEEE") || strings.HasPrefix(up, "RN") || up[0] == 'L':
			t.err = pgerr.New(pgerr.FeatureNotSupported, "to_char template pattern %q is not supported", rest[:1])
			return t
		case rest[0] == '"':
			j := 1
			for j < len(rest) && rest[j] != '"' {
				j++
			}
			t.items = append(t.items, numItem{kind: 'L', lit: rest[1:min(j, len(rest))]})
			i += min(j+1, len(rest))
		default:
			sz := charPrefix(rest, 1)
			t.items = append(t.items, numItem{kind: 'L', lit: rest[:sz]})
			i += sz
		}
	}
	t.zeroStart = t.pre
	k := 0
	for _, it := range t.items {
		if it.kind == '.' {
			break
		}
		if it.kind == '9' || it.kind == '0' {
			if it.kind == '0' && t.zeroStart == t.pre {
				t.zeroStart = k
			}
			k++
		}
	}
	return t
}

// formatNum renders the decimal |value| (integer digits, fraction digits
// already rounded to t.post places) with the template.
func (t *numTemplate) formatNum(intPart, frac string, neg bool) string {
	intPart = strings.TrimLeft(intPart, "0")
	// with no integer digit positions even a zero integer part overflows
	overflow := t.pre == 0 || len(intPart) > t.pre
	digits := strings.Repeat("0", max(t.pre-len(intPart), 0)) + intPart
	firstSig := strings.IndexFunc(digits, func(r rune) bool { return r != '0' })
	if firstSig < 0 {
		firstSig = t.pre
	}
	lead := min(firstSig, t.zeroStart)
	zero := strings.Trim(intPart+frac, "0") == ""
	if lead == t.pre && t.pre > 0 && zero && (t.fm || !t.point) {
		lead = t.pre - 1 // a zero value prints one 0
	}
	// trailing '9' zeros vanish in fill mode
	keepFrac := t.post
	if t.fm && !overflow {
		k := t.post
		idx := len(t.items) - 1
		for ; idx >= 0 && k > 0; idx-- {
			it := t.items[idx]
			if it.kind != '9' && it.kind != '0' {
				continue
			}
			if it.kind == '9' && frac[k-1] == '0' {
				k--
				continue
			}
			break
		}
		keepFrac = k
	}
	var b strings.Builder
	pos, fpos := 0, 0
	afterPoint := false
	started := false // a digit (or the point) has been printed
	signDone := false
	putSign := func() {
		if signDone {
			return
		}
		signDone = true
		switch t.sign {
		case 0:
			if neg {
				b.WriteByte('-')
			} else if !t.fm {
				b.WriteByte(' ')
			}
		case 'S':
			if t.signLead {
				if neg {
					b.WriteByte('-')
				} else {
					b.WriteByte('+')
				}
			}
		case 'R':
			if neg {
				b.WriteByte('<')
			} else if !t.fm {
				b.WriteByte(' ')
			}
		}
	}
	for _, it := range t.items {
		switch it.kind {
		case '9', '0':
			if afterPoint {
				if fpos < keepFrac {
					if overflow {
						b.WriteByte('#')
					} else {
						b.WriteByte(frac[fpos])
					}
				}
				fpos++
				continue
			}
			if pos < lead && !overflow {
				if !t.fm {
					b.WriteByte(' ')
				}
				pos++
				continue
			}
			putSign()
			if overflow {
				b.WriteByte('#')
			} else {
				b.WriteByte(digits[pos])
			}
			started = true
			pos++
		case '.':
			putSign()
			afterPoint = true
			started = true
			b.WriteByte('.')
		case ',':
			if !started && !afterPoint {
				if !t.fm {
					b.WriteByte(' ')
				}
				continue
			}
			b.WriteByte(',')
		case 'S':
			if !t.signLead {
				if neg {
					b.WriteByte('-')
				} else {
					b.WriteByte('+')
				}
			}
		case 'M':
			if neg {
				b.WriteByte('-')
			} else if !t.fm {
				b.WriteByte(' ')
			}
		case 'P':
			if !neg {
				b.WriteByte('+')
			} else if !t.fm {
				b.WriteByte(' ')
			}
		case 'G':
			if neg {
				b.WriteByte('-')
			} else {
				b.WriteByte('+')
			}
		case 'T', 't':
			if !neg && !overflow && frac == strings.Repeat("0", len(frac)) {
				b.WriteString(ordinal(digits, it.kind == 'T'))
			}
		case 'L':
			b.WriteString(it.lit)
		}
	}
	putSign()
	if t.sign == 'R' {
		if neg {
			b.WriteByte('>')
		} else if !t.fm {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// numToCharKernel is to_char(number, template).
func numToCharKernel(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, fmts := a[0], a[1].S[:n]
	dst := outS(out, n)
	nl := out.Nulls
	var last string
	var t *numTemplate
	for i := 0; i < n; i++ {
		if isNull(nl, i) {
			continue
		}
		if t == nil || fmts[i] != last {
			last, t = fmts[i], parseNumTemplate(fmts[i])
		}
		if t.err != nil {
			return t.err
		}
		var intPart, frac string
		var neg bool
		switch {
		case src.Type.IsFloat():
			f := src.F64[i]
			if math.IsNaN(f) || math.IsInf(f, 0) {
				dst[i] = strings.Repeat("#", len(fmts[i]))
				continue
			}
			f *= math.Pow10(t.vDigits)
			// floats take the sign of the value before rounding, numerics
			// of the rounded one, as PostgreSQL does
			neg = f < 0
			bits := 64
			if src.Type.ID == types.Float32 {
				bits = 32
			}
			intPart, frac = splitPoint(strconv.FormatFloat(math.Abs(f), 'f', t.post, bits))
		default:
			var d *big.Int
			var s int
			if src.Type.ID == types.Numeric {
				d, s = decAt(src, i)
			} else {
				d, s = big.NewInt(src.I64[i]), 0
			}
			d = new(big.Int).Mul(d, pow10Big(t.vDigits))
			r, rs := roundDec(d, s, t.post, false)
			neg = r.Sign() < 0
			intPart, frac = splitPoint(types.FormatBig(new(big.Int).Abs(r), rs))
		}
		for len(frac) < t.post {
			frac += "0"
		}
		dst[i] = t.formatNum(intPart, frac, neg)
	}
	return nil
}

func splitPoint(s string) (string, string) {
	if k := strings.IndexByte(s, '.'); k >= 0 {
		return s[:k], s[k+1:]
	}
	return s, ""
}
