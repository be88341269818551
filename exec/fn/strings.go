package fn

import (
	"crypto/md5"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

var (
	textT = types.TextT
	int4T = types.Int32T
	int8T = types.Int64T
	boolT = types.BoolT
)

func init() {
	reg("lower", strict(kLower, textT, textT))
	reg("upper", strict(kUpper, textT, textT))
	reg("initcap", strict(kInitcap, textT, textT))
	for _, name := range []string{"length", "char_length", "character_length"} {
		reg(name, strict(kLength, int4T, textT))
	}
	reg("length", strict(kOctetLength, int4T, types.ByteaT))
	reg("octet_length", strict(kOctetLength, int4T, textT))
	reg("octet_length", strict(kOctetLength, int4T, types.ByteaT))
	reg("bit_length", strict(kBitLength, int4T, textT))
	for _, name := range []string{"substring", "substr"} {
		reg(name, strict(kSubstr, textT, textT, int4T))
		reg(name, strict(kSubstr, textT, textT, int4T, int4T))
	}
	reg("position", strict(kStrpos, int4T, textT, textT))
	reg("strpos", strict(kStrpos, int4T, textT, textT))
	reg("replace", strict(kReplace, textT, textT, textT, textT))
	reg("split_part", strict(kSplitPart, textT, textT, textT, int4T))
	reg("btrim", strict(trimKernel(true, true), textT, textT))
	reg("btrim", strict(trimKernel(true, true), textT, textT, textT))
	reg("ltrim", strict(trimKernel(true, false), textT, textT))
	reg("ltrim", strict(trimKernel(true, false), textT, textT, textT))
	reg("rtrim", strict(trimKernel(false, true), textT, textT))
	reg("rtrim", strict(trimKernel(false, true), textT, textT, textT))
	reg("lpad", strict(padKernel(true), textT, textT, int4T))
	reg("lpad", strict(padKernel(true), textT, textT, int4T, textT))
	reg("rpad", strict(padKernel(false), textT, textT, int4T))
	reg("rpad", strict(padKernel(false), textT, textT, int4T, textT))
	reg("left", strict(kLeft, textT, textT, int4T))
	reg("right", strict(kRight, textT, textT, int4T))
	reg("concat", &Overload{Args: []types.T{AnyT}, Variadic: true, Ret: ret(textT), Stable: true, Kernel: kConcat})
	reg("concat_ws", &Overload{Args: []types.T{textT, AnyT}, Variadic: true, Ret: ret(textT), Stable: true, Kernel: kConcatWS})
	reg("repeat", strict(kRepeat, textT, textT, int4T))
	reg("reverse", strict(kReverse, textT, textT))
	reg("md5", strict(kMD5, textT, textT))
	reg("md5", strict(kMD5, textT, types.ByteaT))
	reg("starts_with", strict(kStartsWith, boolT, textT, textT))
	reg("ascii", strict(kASCII, int4T, textT))
	reg("chr", strict(kChr, textT, int4T))
	reg("to_hex", strict(kToHex32, textT, int4T))
	reg("to_hex", strict(kToHex64, textT, int8T))
	reg("translate", strict(kTranslate, textT, textT, textT, textT))
	reg("overlay", strict(kOverlay, textT, textT, textT, int4T))
	reg("overlay", strict(kOverlay, textT, textT, textT, int4T, int4T))
	reg("textcat", strict(kTextcat, textT, textT, textT))

	regOp("||", strict(kTextcat, textT, textT, textT))
	regOp("||", &Overload{Args: []types.T{textT, AnyNonTextT}, Ret: ret(textT), Strict: true, Stable: true, Kernel: kTextcat})
	regOp("||", &Overload{Args: []types.T{AnyNonTextT, textT}, Ret: ret(textT), Strict: true, Stable: true, Kernel: kTextcat})
}

var (
	errTooLarge = pgerr.New("54000", "requested length too large")
)

// maxAlloc is PostgreSQL's largest varlena, the limit on a result string.
const maxAlloc = 1<<30 - 1

// arena hands out strings carved from one buffer per batch, so a string
// kernel allocates once per batch instead of once per row. A retained
// result keeps its whole batch buffer alive, which is the price.
type arena struct{ buf []byte }

func newArena(size int) arena { return arena{buf: make([]byte, 0, size)} }

// str returns the bytes appended since mark as a string. Callers size the
// arena up front so appends never reallocate under earlier strings.
func (a *arena) str(mark int) string {
	if len(a.buf) == mark {
		return ""
	}
	return unsafe.String(&a.buf[mark], len(a.buf)-mark)
}

func totalLen(ss []string) int {
	n := 0
	for _, s := range ss {
		n += len(s)
	}
	return n
}

// Case tables for lc_ctype C: only ASCII letters change.
var lowerTab, upperTab = func() (l, u [256]byte) {
	for i := range l {
		l[i], u[i] = byte(i), byte(i)
	}
	for c := 'A'; c <= 'Z'; c++ {
		l[c] = byte(c + 'a' - 'A')
		u[c+'a'-'A'] = byte(c)
	}
	return
}()

// mapBytes rewrites every string through a byte table into one buffer per
// batch; strings the table leaves alone are returned as they are.
func mapBytes(src, dst []string, tab *[256]byte, wide func(rune) rune) {
	buf := make([]byte, totalLen(src))
	off := 0
	for i, s := range src {
		out := buf[off : off+len(s)]
		changed := false
		var high byte
		for k := 0; k < len(s); k++ {
			c := tab[s[k]]
			out[k] = c
			high |= s[k]
			changed = changed || c != s[k]
		}
		if high >= utf8.RuneSelf {
			// Non-ASCII text maps rune by rune (lengths may change), as
			// PostgreSQL's towupper/towlower do in a UTF-8 LC_CTYPE.
			dst[i] = strings.Map(wide, s)
			continue
		}
		if !changed {
			dst[i] = s
			continue
		}
		if len(out) > 0 {
			dst[i] = unsafe.String(&out[0], len(out))
		}
		off += len(s)
	}
}

// kLower and kUpper map Unicode simple case, as PostgreSQL does in a
// database whose LC_CTYPE is C.UTF-8 (or any UTF-8 locale).
func kLower(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	mapBytes(a[0].S[:n], outS(out, n), &lowerTab, unicode.ToLower)
	return nil
}

func kUpper(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	mapBytes(a[0].S[:n], outS(out, n), &upperTab, unicode.ToUpper)
	return nil
}

// kInitcap upper-cases the first letter of each run of letters and digits
// and lower-cases the rest, as PostgreSQL's str_initcap does with
// iswalnum/towupper/towlower in a UTF-8 LC_CTYPE.
func kInitcap(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].S[:n]
	dst := outS(out, n)
	ar := newArena(totalLen(src))
	for i, s := range src {
		m := len(ar.buf)
		wasAlnum := false
		for k := 0; k < len(s); k++ {
			c := s[k]
			if c >= utf8.RuneSelf {
				r, size := utf8.DecodeRuneInString(s[k:])
				if wasAlnum {
					r = unicode.ToLower(r)
				} else {
					r = unicode.ToUpper(r)
				}
				ar.buf = utf8.AppendRune(ar.buf, r)
				wasAlnum = unicode.IsLetter(r) || unicode.IsDigit(r)
				k += size - 1
				continue
			}
			if wasAlnum {
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
			} else if c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			ar.buf = append(ar.buf, c)
			wasAlnum = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		}
		dst[i] = ar.str(m)
	}
	return nil
}

func kLength(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].S[:n]
	dst := outI64(out, n)
	for i, s := range src {
		dst[i] = int64(utf8.RuneCountInString(s))
	}
	return nil
}

func kOctetLength(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].S[:n]
	dst := outI64(out, n)
	for i, s := range src {
		dst[i] = int64(len(s))
	}
	return nil
}

func kBitLength(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].S[:n]
	dst := outI64(out, n)
	for i, s := range src {
		dst[i] = int64(len(s)) * 8
	}
	return nil
}

// charPrefix is the byte length of the first k characters of s (all of s
// when it is shorter).
func charPrefix(s string, k int64) int {
	i := 0
	for ; k > 0 && i < len(s); k-- {
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, sz := utf8.DecodeRuneInString(s[i:])
			i += sz
		}
	}
	return i
}

// charSuffix is the byte offset where the last k characters of s begin.
func charSuffix(s string, k int64) int {
	i := len(s)
	for ; k > 0 && i > 0; k-- {
		if s[i-1] < utf8.RuneSelf {
			i--
		} else {
			_, sz := utf8.DecodeLastRuneInString(s[:i])
			i -= sz
		}
	}
	return i
}

var errNegSubstr = pgerr.New("22011", "negative substring length not allowed")

// substrChars is PostgreSQL's text_substring: characters from start (1-based,
// may be before the string) for count characters.
func substrChars(s string, start, count int64, hasCount bool) (string, error) {
	if !hasCount {
		if start < 1 {
			start = 1
		}
		return s[charPrefix(s, start-1):], nil
	}
	if count < 0 {
		return "", errNegSubstr
	}
	end := start + count
	if end < 1 {
		return "", nil
	}
	s1 := max(start, 1)
	rest := s[charPrefix(s, s1-1):]
	return rest[:charPrefix(rest, end-s1)], nil
}

func kSubstr(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, from := a[0].S[:n], a[1].I64[:n]
	dst := outS(out, n)
	nl := out.Nulls
	if len(a) == 2 {
		for i, s := range src {
			dst[i], _ = substrChars(s, from[i], 0, false)
		}
		return nil
	}
	cnt := a[2].I64[:n]
	for i, s := range src {
		if isNull(nl, i) {
			continue
		}
		r, err := substrChars(s, from[i], cnt[i], true)
		if err != nil {
			return err
		}
		dst[i] = r
	}
	return nil
}

func kStrpos(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, sub := a[0].S[:n], a[1].S[:n]
	dst := outI64(out, n)
	for i, s := range src {
		k := strings.Index(s, sub[i])
		if k < 0 {
			dst[i] = 0
			continue
		}
		dst[i] = int64(utf8.RuneCountInString(s[:k])) + 1
	}
	return nil
}

func kReplace(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, from, to := a[0].S[:n], a[1].S[:n], a[2].S[:n]
	dst := outS(out, n)
	for i, s := range src {
		if from[i] == "" {
			dst[i] = s
			continue
		}
		dst[i] = strings.ReplaceAll(s, from[i], to[i])
	}
	return nil
}

func kSplitPart(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, seps, nums := a[0].S[:n], a[1].S[:n], a[2].I64[:n]
	dst := outS(out, n)
	nl := out.Nulls
	for i, s := range src {
		if isNull(nl, i) {
			continue
		}
		dst[i] = ""
		k, sep := nums[i], seps[i]
		if k == 0 {
			return pgerr.New(pgerr.InvalidParameterValue, "field position must not be zero")
		}
		if s == "" {
			continue
		}
		if sep == "" {
			if k == 1 || k == -1 {
				dst[i] = s
			}
			continue
		}
		if k < 0 {
			// count fields from the end
			nf := int64(strings.Count(s, sep)) + 1
			k = nf + k + 1
			if k < 1 {
				continue
			}
		}
		rest := s
		for ; k > 1; k-- {
			j := strings.Index(rest, sep)
			if j < 0 {
				rest = ""
				break
			}
			rest = rest[j+len(sep):]
		}
		if k > 1 {
			continue
		}
		if j := strings.Index(rest, sep); j >= 0 {
			rest = rest[:j]
		}
		dst[i] = rest
	}
	return nil
}

// charSet is the set of characters for the trim family, with a byte table
// for the usual ASCII case.
type charSet struct {
	ascii [256]bool
	multi map[rune]bool
}

func makeCharSet(chars string) *charSet {
	cs := &charSet{}
	for _, r := range chars {
		if r < utf8.RuneSelf {
			cs.ascii[r] = true
		} else {
			if cs.multi == nil {
				cs.multi = map[rune]bool{}
			}
			cs.multi[r] = true
		}
	}
	return cs
}

func (cs *charSet) trimLeft(s string) string {
	for len(s) > 0 {
		c := s[0]
		if c < utf8.RuneSelf {
			if !cs.ascii[c] {
				break
			}
			s = s[1:]
			continue
		}
		r, sz := utf8.DecodeRuneInString(s)
		if !cs.multi[r] {
			break
		}
		s = s[sz:]
	}
	return s
}

func (cs *charSet) trimRight(s string) string {
	for len(s) > 0 {
		c := s[len(s)-1]
		if c < utf8.RuneSelf {
			if !cs.ascii[c] {
				break
			}
			s = s[:len(s)-1]
			continue
		}
		r, sz := utf8.DecodeLastRuneInString(s)
		if !cs.multi[r] {
			break
		}
		s = s[:len(s)-sz]
	}
	return s
}

var spaceSet = makeCharSet(" ")

func trimKernel(left, right bool) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		src := a[0].S[:n]
		dst := outS(out, n)
		var chars []string
		if len(a) > 1 {
			chars = a[1].S[:n]
		}
		cs := spaceSet
		prev := " "
		for i, s := range src {
			if chars != nil && chars[i] != prev {
				prev = chars[i]
				cs = makeCharSet(prev)
			}
			if left {
				s = cs.trimLeft(s)
			}
			if right {
				s = cs.trimRight(s)
			}
			dst[i] = s
		}
		return nil
	}
}

func padKernel(left bool) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		src, lens := a[0].S[:n], a[1].I64[:n]
		var fills []string
		if len(a) > 2 {
			fills = a[2].S[:n]
		}
		dst := outS(out, n)
		nl := out.Nulls
		var b []byte
		for i, s := range src {
			if isNull(nl, i) {
				continue
			}
			want := lens[i]
			fill := " "
			if fills != nil {
				fill = fills[i]
			}
			if want <= 0 {
				dst[i] = ""
				continue
			}
			if want*4 > maxAlloc {
				return errTooLarge
			}
			have := int64(utf8.RuneCountInString(s))
			if have >= want {
				dst[i] = s[:charPrefix(s, want)]
				continue
			}
			if fill == "" {
				dst[i] = s
				continue
			}
			b = b[:0]
			if !left {
				b = append(b, s...)
			}
			f := fill
			for k := want - have; k > 0; k-- {
				if f == "" {
					f = fill
				}
				sz := charPrefix(f, 1)
				b = append(b, f[:sz]...)
				f = f[sz:]
			}
			if left {
				b = append(b, s...)
			}
			dst[i] = string(b)
		}
		return nil
	}
}

func kLeft(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, ks := a[0].S[:n], a[1].I64[:n]
	dst := outS(out, n)
	for i, s := range src {
		k := ks[i]
		if k >= 0 {
			dst[i] = s[:charPrefix(s, k)]
		} else {
			dst[i] = s[:charSuffix(s, -k)]
		}
	}
	return nil
}

func kRight(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, ks := a[0].S[:n], a[1].I64[:n]
	dst := outS(out, n)
	for i, s := range src {
		k := ks[i]
		switch {
		case k >= 0:
			dst[i] = s[charSuffix(s, k):]
		case k == math.MinInt32:
			// PostgreSQL negates n in an int32, which leaves -2^31
			// negative: it keeps the whole string
			dst[i] = s
		default:
			dst[i] = s[charPrefix(s, -k):]
		}
	}
	return nil
}

// appendValue appends the text output of row i of v, as the type's output
// function prints it (booleans as t/f).
func appendValue(dst []byte, v *vec.Vector, i int, ctx *Ctx) []byte {
	if v.Type.Storage() == types.StoreBytes && v.Type.ID != types.Bytea && v.Type.ID != types.UUID {
		return append(dst, v.S[i]...)
	}
	return v.AppendText(dst, i, ctx.loc())
}

// kConcat joins the text output of its non-NULL arguments; it is never NULL.
func kConcat(ctx *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	dst := outS(out, n)
	var b []byte
	for i := 0; i < n; i++ {
		b = b[:0]
		for _, v := range a {
			if !v.IsNull(i) {
				b = appendValue(b, v, i, ctx)
			}
		}
		dst[i] = string(b)
	}
	return nil
}

// kConcatWS joins non-NULL arguments with the separator; a NULL separator
// makes the result NULL.
func kConcatWS(ctx *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	dst := outS(out, n)
	seps := a[0]
	var b []byte
	for i := 0; i < n; i++ {
		if seps.IsNull(i) {
			setNull(out, i, n)
			continue
		}
		b = b[:0]
		first := true
		for _, v := range a[1:] {
			if v.IsNull(i) {
				continue
			}
			if !first {
				b = append(b, seps.S[i]...)
			}
			first = false
			b = appendValue(b, v, i, ctx)
		}
		dst[i] = string(b)
	}
	return nil
}

func kRepeat(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, ks := a[0].S[:n], a[1].I64[:n]
	dst := outS(out, n)
	nl := out.Nulls
	for i, s := range src {
		if isNull(nl, i) || ks[i] <= 0 || s == "" {
			continue
		}
		if ks[i]*int64(len(s)) > maxAlloc-4 {
			return errTooLarge
		}
		dst[i] = strings.Repeat(s, int(ks[i]))
	}
	return nil
}

func kReverse(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].S[:n]
	dst := outS(out, n)
	ar := newArena(totalLen(src))
	for i, s := range src {
		m := len(ar.buf)
		for k := len(s); k > 0; {
			if s[k-1] < utf8.RuneSelf {
				ar.buf = append(ar.buf, s[k-1])
				k--
				continue
			}
			_, sz := utf8.DecodeLastRuneInString(s[:k])
			ar.buf = append(ar.buf, s[k-sz:k]...)
			k -= sz
		}
		dst[i] = ar.str(m)
	}
	return nil
}

func kMD5(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].S[:n]
	dst := outS(out, n)
	var buf [32]byte
	for i, s := range src {
		sum := md5.Sum([]byte(s))
		hex.Encode(buf[:], sum[:])
		dst[i] = string(buf[:])
	}
	return nil
}

func kStartsWith(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, pre := a[0].S[:n], a[1].S[:n]
	dst := outB(out, n)
	for i, s := range src {
		dst[i] = strings.HasPrefix(s, pre[i])
	}
	return nil
}

func kASCII(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].S[:n]
	dst := outI64(out, n)
	for i, s := range src {
		if s == "" {
			dst[i] = 0
			continue
		}
		r, _ := utf8.DecodeRuneInString(s)
		dst[i] = int64(r)
	}
	return nil
}

func kChr(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].I64[:n]
	dst := outS(out, n)
	nl := out.Nulls
	for i, c := range src {
		if isNull(nl, i) {
			continue
		}
		switch {
		case c < 0:
			return pgerr.New(pgerr.InvalidParameterValue, "character number must be positive")
		case c == 0:
			return pgerr.New("54000", "null character not permitted")
		case c > 0x10ffff:
			return pgerr.New("54000", "requested character too large for encoding: %d", c)
		case c >= 0xd800 && c <= 0xdfff:
			return pgerr.New("54000", "requested character not valid for encoding: %d", c)
		}
		dst[i] = string(rune(c))
	}
	return nil
}

func kToHex32(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].I64[:n]
	dst := outS(out, n)
	for i, x := range src {
		dst[i] = strconv.FormatUint(uint64(uint32(x)), 16)
	}
	return nil
}

func kToHex64(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].I64[:n]
	dst := outS(out, n)
	for i, x := range src {
		dst[i] = strconv.FormatUint(uint64(x), 16)
	}
	return nil
}

// translateMap maps characters of from to those of to at the same position;
// characters of from without a partner are deleted (-1).
type translateMap struct {
	ascii [128]int32 // 0 = not mapped, else mapped rune + 1, or -1 delete
	multi map[rune]rune
}

func makeTranslate(from, to string) *translateMap {
	m := &translateMap{}
	toRunes := []rune(to)
	k := 0
	for _, r := range from {
		target := rune(-1)
		if k < len(toRunes) {
			target = toRunes[k]
		}
		k++
		if r < utf8.RuneSelf {
			if m.ascii[r] == 0 {
				if target < 0 {
					m.ascii[r] = -1
				} else {
					m.ascii[r] = target + 1
				}
			}
			continue
		}
		if m.multi == nil {
			m.multi = map[rune]rune{}
		}
		if _, seen := m.multi[r]; !seen {
			m.multi[r] = target
		}
	}
	return m
}

func kTranslate(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, froms, tos := a[0].S[:n], a[1].S[:n], a[2].S[:n]
	dst := outS(out, n)
	var m *translateMap
	var pf, pt string
	var b []byte
	for i, s := range src {
		if m == nil || froms[i] != pf || tos[i] != pt {
			pf, pt = froms[i], tos[i]
			m = makeTranslate(pf, pt)
		}
		b = b[:0]
		for _, r := range s {
			if r < utf8.RuneSelf {
				switch t := m.ascii[r]; {
				case t == 0:
					b = append(b, byte(r))
				case t > 0:
					b = utf8.AppendRune(b, t-1)
				}
				continue
			}
			if t, ok := m.multi[r]; ok {
				if t >= 0 {
					b = utf8.AppendRune(b, t)
				}
				continue
			}
			b = utf8.AppendRune(b, r)
		}
		dst[i] = string(b)
	}
	return nil
}

// kOverlay is overlay(s placing r from start [for count]); without count it
// replaces as many characters as r has.
func kOverlay(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, rep, starts := a[0].S[:n], a[1].S[:n], a[2].I64[:n]
	dst := outS(out, n)
	nl := out.Nulls
	for i, s := range src {
		if isNull(nl, i) {
			continue
		}
		cnt := int64(utf8.RuneCountInString(rep[i]))
		if len(a) > 3 {
			cnt = a[3].I64[i]
		}
		start := starts[i]
		if start <= 0 {
			return errNegSubstr
		}
		head, _ := substrChars(s, 1, start-1, true)
		tail, _ := substrChars(s, start+cnt, 0, false)
		dst[i] = head + rep[i] + tail
	}
	return nil
}

// kTextcat is text || text, building the batch's results in one buffer.
func kTextcat(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	l, r := a[0].S[:n], a[1].S[:n]
	dst := outS(out, n)
	ar := newArena(totalLen(l) + totalLen(r))
	for i := range dst {
		switch {
		case r[i] == "":
			dst[i] = l[i]
		case l[i] == "":
			dst[i] = r[i]
		default:
			m := len(ar.buf)
			ar.buf = append(ar.buf, l[i]...)
			ar.buf = append(ar.buf, r[i]...)
			dst[i] = ar.str(m)
		}
	}
	return nil
}
