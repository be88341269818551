package fn

import (
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// to_char, to_date and to_timestamp with PostgreSQL's date/time template
// patterns (formatting.c): a template is parsed once into nodes, which are
// then printed for each value or matched against each input string.

func init() {
	reg("to_char", strict(toCharKernel, textT, timestampT, textT))
	reg("to_char", stable(toCharKernel, textT, timestamptzT, textT))
	reg("to_char", strict(toCharKernel, textT, intervalT, textT))
	for _, t := range []types.T{int4T, int8T, float4T, float8T, numericT} {
		reg("to_char", strict(numToCharKernel, textT, t, textT))
	}
	reg("to_date", stable(toDateKernel, dateT, textT, textT))
	reg("to_timestamp", stable(toTimestampKernel, timestamptzT, textT, textT))
}

type dchKey uint8

const (
	kLiteral dchKey = iota
	kAD
	kADdots
	kAM
	kAMdots
	kBC
	kBCdots
	kPM
	kPMdots
	kCC
	kDAY
	kDDD
	kDD
	kDY
	kD
	kFF1
	kFF2
	kFF3
	kFF4
	kFF5
	kFF6
	kFX
	kHH24
	kHH12
	kHH
	kIDDD
	kID
	kIW
	kIYYY
	kIYY
	kIY
	kI
	kJ
	kMI
	kMM
	kMONTH
	kMON
	kMS
	kOF
	kQ
	kRM
	kSSSSS
	kSSSS
	kSS
	kTZH
	kTZM
	kTZ
	kUS
	kWW
	kW
	kYcommaYYY
	kYYYY
	kYYY
	kYY
	kY
)

// dchWords lists PostgreSQL's keywords, longest first where one is a prefix
// of another. Upper, capitalised and lower spellings differ only for words
// that print letters.
var dchWords = []struct {
	word string
	key  dchKey
}{
	{"A.D.", kADdots}, {"A.M.", kAMdots}, {"AD", kAD}, {"AM", kAM},
	{"B.C.", kBCdots}, {"BC", kBC}, {"CC", kCC},
	{"DAY", kDAY}, {"DDD", kDDD}, {"DD", kDD}, {"DY", kDY}, {"Day", kDAY}, {"Dy", kDY}, {"D", kD},
	{"FF1", kFF1}, {"FF2", kFF2}, {"FF3", kFF3}, {"FF4", kFF4}, {"FF5", kFF5}, {"FF6", kFF6}, {"FX", kFX},
	{"HH24", kHH24}, {"HH12", kHH12}, {"HH", kHH},
	{"IDDD", kIDDD}, {"ID", kID}, {"IW", kIW}, {"IYYY", kIYYY}, {"IYY", kIYY}, {"IY", kIY}, {"I", kI},
	{"J", kJ}, {"MI", kMI}, {"MM", kMM}, {"MONTH", kMONTH}, {"MON", kMON}, {"MS", kMS},
	{"Month", kMONTH}, {"Mon", kMON}, {"OF", kOF}, {"P.M.", kPMdots}, {"PM", kPM}, {"Q", kQ}, {"RM", kRM},
	{"SSSSS", kSSSSS}, {"SSSS", kSSSS}, {"SS", kSS}, {"TZH", kTZH}, {"TZM", kTZM}, {"TZ", kTZ}, {"US", kUS},
	{"WW", kWW}, {"W", kW}, {"Y,YYY", kYcommaYYY}, {"YYYY", kYYYY}, {"YYY", kYYY}, {"YY", kYY}, {"Y", kY},
	{"a.d.", kADdots}, {"a.m.", kAMdots}, {"ad", kAD}, {"am", kAM}, {"b.c.", kBCdots}, {"bc", kBC}, {"cc", kCC},
	{"day", kDAY}, {"ddd", kDDD}, {"dd", kDD}, {"dy", kDY}, {"d", kD},
	{"ff1", kFF1}, {"ff2", kFF2}, {"ff3", kFF3}, {"ff4", kFF4}, {"ff5", kFF5}, {"ff6", kFF6}, {"fx", kFX},
	{"hh24", kHH24}, {"hh12", kHH12}, {"hh", kHH}, {"iddd", kIDDD}, {"id", kID}, {"iw", kIW},
	{"iyyy", kIYYY}, {"iyy", kIYY}, {"iy", kIY}, {"i", kI}, {"j", kJ}, {"mi", kMI}, {"mm", kMM},
	{"month", kMONTH}, {"mon", kMON}, {"ms", kMS}, {"of", kOF}, {"p.m.", kPMdots}, {"pm", kPM}, {"q", kQ},
	{"rm", kRM}, {"sssss", kSSSSS}, {"ssss", kSSSS}, {"ss", kSS}, {"tzh", kTZH}, {"tzm", kTZM}, {"tz", kTZ},
	{"us", kUS}, {"ww", kWW}, {"w", kW}, {"y,yyy", kYcommaYYY}, {"yyyy", kYYYY}, {"yyy", kYYY}, {"yy", kYY}, {"y", kY},
}

// letterCase is how a keyword that prints words is spelled: 'U' upper,
// 'C' capitalised, 'L' lower.
func letterCase(word string) byte {
	switch {
	case word[0] >= 'a' && word[0] <= 'z':
		return 'L'
	case len(word) > 1 && word[1] >= 'a' && word[1] <= 'z':
		return 'C'
	}
	return 'U'
}

type dchNode struct {
	key     dchKey
	word    string // keyword as written, for messages and case
	lit     string // literal text for kLiteral
	fm      bool   // FM prefix
	th      byte   // 0, 'T' (TH) or 't' (th)
	isDigit bool   // the field reads digits (to_timestamp)
}

func isDigitKey(k dchKey) bool {
	switch k {
	case kLiteral, kAD, kADdots, kAM, kAMdots, kBC, kBCdots, kPM, kPMdots, kDAY, kDY, kMONTH, kMON, kRM, kTZ, kOF, kFX:
		return false
	}
	return true
}

// parseTemplate splits a date/time template into nodes.
func parseTemplate(f string) []dchNode {
	var nodes []dchNode
	for i := 0; i < len(f); {
		fm := false
		if strings.HasPrefix(f[i:], "FM") || strings.HasPrefix(f[i:], "fm") {
			fm = true
			i += 2
		}
		if strings.HasPrefix(f[i:], "TM") || strings.HasPrefix(f[i:], "tm") {
			i += 2 // translation mode: names are English anyway
		}
		matched := false
		for _, w := range dchWords {
			if strings.HasPrefix(f[i:], w.word) {
				n := dchNode{key: w.key, word: w.word, fm: fm, isDigit: isDigitKey(w.key)}
				i += len(w.word)
				if strings.HasPrefix(f[i:], "TH") {
					n.th = 'T'
					i += 2
				} else if strings.HasPrefix(f[i:], "th") {
					n.th = 't'
					i += 2
				}
				nodes = append(nodes, n)
				matched = true
				break
			}
		}
		if matched || i >= len(f) {
			continue
		}
		switch c := f[i]; {
		case c == '"':
			i++
			var b strings.Builder
			for i < len(f) && f[i] != '"' {
				if f[i] == '\\' && i+1 < len(f) {
					i++
				}
				b.WriteByte(f[i])
				i++
			}
			i++
			for _, r := range b.String() {
				nodes = append(nodes, dchNode{key: kLiteral, lit: string(r)})
			}
		case c == '\\' && i+1 < len(f) && f[i+1] == '"':
			nodes = append(nodes, dchNode{key: kLiteral, lit: `"`})
			i += 2
		default:
			sz := charPrefix(f[i:], 1)
			nodes = append(nodes, dchNode{key: kLiteral, lit: f[i : i+sz]})
			i += sz
		}
	}
	return nodes
}

var (
	monthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	dayNames   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	romanMonth = []string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}
)

func applyCase(s string, c byte) string {
	switch c {
	case 'U':
		return strings.ToUpper(s)
	case 'L':
		return strings.ToLower(s)
	}
	return s
}

// zeroPad formats v with at least width digits, like C's %0*d.
func zeroPad(v int64, width int) string {
	s := strconv.FormatInt(v, 10)
	neg := v < 0
	if neg {
		s = s[1:]
		width--
	}
	for len(s) < width {
		s = "0" + s
	}
	if neg {
		s = "-" + s
	}
	return s
}

// ordinal returns the English suffix for n (st, nd, rd, th).
func ordinal(s string, upper bool) string {
	suf := "th"
	if n := len(s); n > 0 && s[n-1] >= '0' && s[n-1] <= '9' {
		last := s[n-1]
		ten := n > 1 && s[n-2] == '1'
		switch {
		case ten:
		case last == '1':
			suf = "st"
		case last == '2':
			suf = "nd"
		case last == '3':
			suf = "rd"
		}
	}
	if upper {
		return strings.ToUpper(suf)
	}
	return suf
}

// dchValue is what to_char prints from: broken-down fields, plus the zone
// for timestamptz.
type dchValue struct {
	year      int64 // astronomical for timestamps; plain count for intervals
	mon, mday int64 // mon 1-12 (0-11 for intervals)
	hour, min int64
	sec, usec int64
	days      int64 // day number (timestamps only)
	interval  bool
	hasZone   bool
	off       int64 // seconds east of UTC
	abbrev    string
}

func adjustYear(y int64, interval bool) int64 {
	if interval || y > 0 {
		return y
	}
	return -(y - 1)
}

func padName(s string, fm bool) string {
	if fm {
		return s
	}
	for len(s) < 9 {
		s += " "
	}
	return s
}

// formatDCH prints v with the template nodes.
func formatDCH(b []byte, nodes []dchNode, v *dchValue) []byte {
	for _, n := range nodes {
		if n.key == kLiteral {
			b = append(b, n.lit...)
			continue
		}
		var s string
		num := true
		w := func(width int) int {
			if n.fm {
				return 0
			}
			return width
		}
		lc := letterCase(n.word)
		switch n.key {
		case kAD, kBC:
			num = false
			s = "AD"
			if !v.interval && v.year <= 0 {
				s = "BC"
			}
			s = applyCase(s, lc)
		case kADdots, kBCdots:
			num = false
			s = "A.D."
			if !v.interval && v.year <= 0 {
				s = "B.C."
			}
			s = applyCase(s, lc)
		case kAM, kPM:
			num = false
			s = "AM"
			if v.hour%24 >= 12 {
				s = "PM"
			}
			s = applyCase(s, lc)
		case kAMdots, kPMdots:
			num = false
			s = "A.M."
			if v.hour%24 >= 12 {
				s = "P.M."
			}
			s = applyCase(s, lc)
		case kHH, kHH12:
			h := v.hour % 12
			if h == 0 {
				h = 12
			}
			s = zeroPad(h, w(2))
		case kHH24:
			s = zeroPad(v.hour, w(2))
		case kMI:
			s = zeroPad(v.min, w(2))
		case kSS:
			s = zeroPad(v.sec, w(2))
		case kMS:
			s = zeroPad(v.usec/1000, w(3))
		case kUS:
			s = zeroPad(v.usec, w(6))
		case kFF1, kFF2, kFF3, kFF4, kFF5, kFF6:
			digits := int(n.key-kFF1) + 1
			s = zeroPad(v.usec/types.Pow10(6-digits), w(digits))
		case kSSSS, kSSSSS:
			s = strconv.FormatInt(v.hour*3600+v.min*60+v.sec, 10)
		case kTZ:
			num = false
			if v.hasZone {
				s = applyCase(v.abbrev, lc)
			}
		case kTZH:
			sign := "+"
			if v.off < 0 {
				sign = "-"
			}
			s = sign + zeroPad(abs64(v.off)/3600, 2)
		case kTZM:
			s = zeroPad(abs64(v.off)%3600/60, 2)
		case kOF:
			num = false
			sign := "+"
			if v.off < 0 {
				sign = "-"
			}
			s = sign + zeroPad(abs64(v.off)/3600, w(2))
			if m := abs64(v.off) % 3600 / 60; m != 0 {
				s += ":" + zeroPad(m, 2)
			}
		case kMONTH, kMON:
			num = false
			if v.mon == 0 {
				continue // an interval without months prints no month name
			}
			name := monthNames[(v.mon-1)%12]
			if n.key == kMON {
				s = applyCase(name[:3], lc)
			} else {
				s = padName(applyCase(name, lc), n.fm)
			}
		case kMM:
			s = zeroPad(v.mon, w(2))
		case kDAY, kDY:
			num = false
			if v.interval {
				continue
			}
			name := dayNames[weekday(v.days)]
			if n.key == kDY {
				s = applyCase(name[:3], lc)
			} else {
				s = padName(applyCase(name, lc), n.fm)
			}
		case kDDD:
			s = zeroPad(v.days-daysFromCivil(v.year, 1, 1)+1, w(3))
			if v.interval {
				s = zeroPad(v.mday, w(3))
			}
		case kIDDD:
			wk, _ := isoWeek(v.days)
			s = zeroPad(int64((wk-1)*7+(weekday(v.days)+6)%7+1), w(3))
		case kDD:
			s = zeroPad(v.mday, w(2))
		case kD:
			s = strconv.Itoa(weekday(v.days) + 1)
		case kID:
			d := weekday(v.days)
			if d == 0 {
				d = 7
			}
			s = strconv.Itoa(d)
		case kWW:
			s = zeroPad((v.days-daysFromCivil(v.year, 1, 1))/7+1, w(2))
		case kIW:
			wk, _ := isoWeek(v.days)
			s = zeroPad(int64(wk), w(2))
		case kW:
			s = strconv.FormatInt((v.mday-1)/7+1, 10)
		case kCC:
			var c int64
			switch {
			case v.interval:
				c = v.year / 100
			case v.year > 0:
				c = (v.year-1)/100 + 1
			default:
				c = v.year/100 - 1
			}
			if c <= 99 && c >= -99 {
				width := 2
				if c < 0 {
					width = 3
				}
				s = zeroPad(c, w(width))
			} else {
				s = strconv.FormatInt(c, 10)
			}
		case kJ:
			s = strconv.FormatInt(v.days+unixEpochJD, 10)
		case kQ:
			if v.mon == 0 {
				continue
			}
			s = strconv.FormatInt((v.mon-1)/3+1, 10)
		case kRM:
			num = false
			if v.mon == 0 {
				continue
			}
			r := romanMonth[(v.mon-1)%12]
			if lc == 'L' {
				r = strings.ToLower(r)
			}
			if !n.fm {
				for len(r) < 4 {
					r += " "
				}
			}
			s = r
		case kYcommaYYY:
			y := adjustYear(v.year, v.interval)
			s = strconv.FormatInt(y/1000, 10) + "," + zeroPad(y%1000, 3)
		case kYYYY, kIYYY:
			y := adjustYear(v.year, v.interval)
			if n.key == kIYYY {
				_, iy := isoWeek(v.days)
				y = adjustYear(iy, false)
			}
			width := 4
			if y < 0 {
				width = 5
			}
			s = zeroPad(y, w(width))
		case kYYY, kYY, kY, kIYY, kIY, kI:
			y := adjustYear(v.year, v.interval)
			if n.key >= kIYY && n.key <= kI {
				_, iy := isoWeek(v.days)
				y = adjustYear(iy, false)
			}
			digits := map[dchKey]int{kYYY: 3, kIYY: 3, kYY: 2, kIY: 2, kY: 1, kI: 1}[n.key]
			full := zeroPad(y, w(digits))
			if len(full) > digits {
				full = full[len(full)-digits:]
			}
			s = full
		case kFX:
			continue
		}
		b = append(b, s...)
		if n.th != 0 && num {
			b = append(b, ordinal(s, n.th == 'T')...)
		}
	}
	return b
}

// templateCache keeps the parse of the last template per kernel call.
type templateCache struct {
	last  string
	set   bool
	nodes []dchNode
}

func (c *templateCache) get(f string) []dchNode {
	if !c.set || f != c.last {
		c.last, c.set, c.nodes = f, true, parseTemplate(f)
	}
	return c.nodes
}

func toCharKernel(ctx *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, fmts := a[0], a[1].S[:n]
	dst := outS(out, n)
	nl := out.Nulls
	var tc templateCache
	var z *zone
	if src.Type.ID == types.Timestamptz {
		z = newZone(ctx.loc())
	}
	var b []byte
	for i := 0; i < n; i++ {
		if isNull(nl, i) {
			continue
		}
		if fmts[i] == "" {
			setNull(out, i, n)
			continue
		}
		var v dchValue
		switch src.Type.ID {
		case types.Interval:
			t := toItm(src.Iv[i])
			v = dchValue{year: t.year, mon: t.mon, mday: t.mday, hour: t.hour, min: t.min, sec: t.sec, usec: t.usec, interval: true}
		default:
			us := src.I64[i]
			if !finiteTS(us) {
				setNull(out, i, n)
				continue
			}
			if z != nil {
				v.hasZone = true
				v.off = z.offsetAt(us)
				v.abbrev = z.abbrevAt(us)
				us += v.off * usPerSec
			}
			t := toTm(us)
			v.year, v.mon, v.mday = t.year, int64(t.mon), int64(t.mday)
			v.hour, v.min, v.sec, v.usec, v.days = int64(t.hour), int64(t.min), int64(t.sec), t.usec, t.days
		}
		b = formatDCH(b[:0], tc.get(fmts[i]), &v)
		dst[i] = string(b)
	}
	return nil
}

// parsed collects the fields to_timestamp found.
type parsed struct {
	year, mon, mday, ddd    int64
	hour, min, sec, us      int64
	hasYear, hasMon, hasDay bool
	hasDDD, bc, pm, clock12 bool
	pmSet                   bool
	ssss                    int64
	hasSSSS                 bool
	tzh, tzm                int64
	hasTZ                   bool
	yearDigits              int
	cc                      int64
	hasCC                   bool
}

func dchError(msg string, detail string) error {
	e := pgerr.New(pgerr.InvalidDatetimeFormat, "%s", msg)
	e.Detail = detail
	return e
}

func isSep(c byte) bool {
	return c < 0x80 && !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
}

// nextIsSeparator reports whether node k may read all the digits it finds:
// the next node is not a digit field (PostgreSQL's is_next_separator).
func nextIsSeparator(nodes []dchNode, k int) bool {
	if nodes[k].th != 0 {
		return true
	}
	if k+1 >= len(nodes) {
		return true
	}
	nx := nodes[k+1]
	if nx.key != kLiteral {
		return !nx.isDigit
	}
	return !(len(nx.lit) == 1 && nx.lit[0] >= '0' && nx.lit[0] <= '9')
}

// parseDCH reads s with the template nodes, as to_timestamp does outside
// FX mode: separators in the template match any one separator (or none),
// spaces before fields are skipped, and a field followed by a separator
// reads as many digits as there are.
func parseDCH(s string, nodes []dchNode) (*parsed, error) {
	p := &parsed{}
	i := 0
	skipSpaces := func() int {
		k := 0
		for i < len(s) && s[i] == ' ' {
			i++
			k++
		}
		return k
	}
	extra := 0
	for k, n := range nodes {
		if i >= len(s) {
			break
		}
		if n.key != kLiteral || k == 0 {
			extra += skipSpaces()
		}
		if n.key == kLiteral {
			if len(n.lit) == 1 && (isSep(n.lit[0]) || n.lit == " ") {
				extra--
				if i < len(s) && isSep(s[i]) {
					i++
					extra++
				}
				continue
			}
			if extra > 0 {
				extra--
			} else {
				i += charPrefix(s[i:], 1)
			}
			continue
		}
		readInt := func(width int) (int64, error) {
			for i < len(s) && s[i] == ' ' {
				i++
			}
			start := i
			if n.fm || nextIsSeparator(nodes, k) {
				if i < len(s) && (s[i] == '-' || s[i] == '+') {
					i++
				}
				for i < len(s) && s[i] >= '0' && s[i] <= '9' {
					i++
				}
			} else {
				if len(s)-i < width {
					e := dchError(`source string too short for "`+n.word+`" formatting field`,
						"Field requires "+strconv.Itoa(width)+" characters, but only "+strconv.Itoa(len(s)-i)+" remain.")
					e.(*pgerr.Error).Hint = `If your source string is not fixed-width, try using the "FM" modifier.`
					return 0, e
				}
				j := i
				for j < i+width && s[j] >= '0' && s[j] <= '9' {
					j++
				}
				if j > i && j < i+width {
					e := dchError(`invalid value "`+s[i:i+width]+`" for "`+n.word+`"`,
						"Field requires "+strconv.Itoa(width)+" characters, but only "+strconv.Itoa(j-i)+" could be parsed.")
					e.(*pgerr.Error).Hint = `If your source string is not fixed-width, try using the "FM" modifier.`
					return 0, e
				}
				i = j
			}
			if i == start || (i == start+1 && (s[start] == '-' || s[start] == '+')) {
				end := min(len(s), start+max(width, 1))
				if nextIsSeparator(nodes, k) {
					end = start
					for end < len(s) && s[end] != ' ' {
						end++
					}
				}
				return 0, dchError(`invalid value "`+s[start:end]+`" for "`+n.word+`"`, "Value must be an integer.")
			}
			v, err := strconv.ParseInt(s[start:i], 10, 64)
			if err != nil || v > 1<<31-1 || v < -1<<31 {
				e := pgerr.New(pgerr.DatetimeFieldOverflow, `value for "%s" in source string is out of range`, n.word)
				e.Detail = "Value must be in the range -2147483648 to 2147483647."
				return 0, e
			}
			if n.th != 0 && i+2 <= len(s) {
				i += 2
			}
			return v, nil
		}
		matchWord := func(words []string, abbrev int) (int, error) {
			for idx, w := range words {
				if abbrev > 0 {
					w = w[:abbrev]
				}
				if len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w) {
					i += len(w)
					return idx, nil
				}
			}
			end := i
			for end < len(s) && s[end] != ' ' {
				end++
			}
			return 0, dchError(`invalid value "`+s[i:end]+`" for "`+n.word+`"`, "The given value did not match any of the allowed values for this field.")
		}
		var err error
		var v int64
		switch n.key {
		case kFX:
		case kAM, kPM, kAMdots, kPMdots:
			var idx int
			words := []string{"AM", "PM"}
			if n.key == kAMdots || n.key == kPMdots {
				words = []string{"A.M.", "P.M."}
			}
			idx, err = matchWord(words, 0)
			p.pm, p.pmSet, p.clock12 = idx == 1, true, true
		case kAD, kBC, kADdots, kBCdots:
			var idx int
			words := []string{"AD", "BC"}
			if n.key == kADdots || n.key == kBCdots {
				words = []string{"A.D.", "B.C."}
			}
			idx, err = matchWord(words, 0)
			p.bc = idx == 1
		case kHH, kHH12:
			v, err = readInt(2)
			p.hour, p.clock12 = v, true
		case kHH24:
			p.hour, err = readInt(2)
		case kMI:
			p.min, err = readInt(2)
		case kSS:
			p.sec, err = readInt(2)
		case kMS:
			start := i
			v, err = readInt(3)
			digits := i - start
			for digits < 3 && digits > 0 {
				v *= 10
				digits++
			}
			p.us = v * 1000
		case kUS, kFF1, kFF2, kFF3, kFF4, kFF5, kFF6:
			width := 6
			if n.key != kUS {
				width = int(n.key-kFF1) + 1
			}
			for i < len(s) && s[i] == ' ' {
				i++
			}
			start := i
			v, err = readInt(width)
			digits := i - start
			for digits < 6 && digits > 0 {
				v *= 10
				digits++
			}
			p.us = v
		case kSSSS, kSSSSS:
			p.ssss, err = readInt(5)
			p.hasSSSS = true
		case kTZH:
			// a minus sign right before TZH may have been taken as a separator
			if i > 0 && s[i-1] == '-' && extra > 0 {
				i--
			}
			p.tzh, err = readInt(2)
			p.hasTZ = true
		case kTZM:
			p.tzm, err = readInt(2)
			p.hasTZ = true
		case kTZ, kOF:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "formatting field \"%s\" is only supported in to_char", n.word)
		case kMONTH, kMON, kRM:
			var idx int
			switch n.key {
			case kMONTH:
				idx, err = matchWord(monthNames, 0)
			case kMON:
				idx, err = matchWord(monthNames, 3)
			default:
				rev := make([]string, 12)
				for m := range rev {
					rev[m] = romanMonth[11-m]
				}
				idx, err = matchWord(rev, 0)
				idx = 11 - idx
			}
			p.mon, p.hasMon = int64(idx)+1, true
		case kMM:
			p.mon, err = readInt(2)
			p.hasMon = true
		case kDAY, kDY:
			if n.key == kDAY {
				_, err = matchWord(dayNames, 0)
			} else {
				_, err = matchWord(dayNames, 3)
			}
		case kDDD, kIDDD:
			p.ddd, err = readInt(3)
			p.hasDDD = true
		case kDD:
			p.mday, err = readInt(2)
			p.hasDay = true
		case kD, kID, kQ, kW, kWW, kIW:
			_, err = readInt(map[dchKey]int{kD: 1, kID: 1, kQ: 1, kW: 1, kWW: 2, kIW: 2}[n.key])
		case kCC:
			p.cc, err = readInt(2)
			p.hasCC = true
		case kJ:
			v, err = readInt(7)
			if err == nil {
				y, m, d := civil(v - unixEpochJD)
				p.year, p.mon, p.mday = y, int64(m), int64(d)
				p.hasYear, p.hasMon, p.hasDay, p.yearDigits = true, true, true, 0
				p.bc = false
			}
		case kYcommaYYY:
			var hi, lo int64
			hi, err = readInt(1)
			if err == nil && i < len(s) && s[i] == ',' {
				i++
				lo, err = readInt(3)
			}
			p.year, p.hasYear, p.yearDigits = hi*1000+lo, true, 4
		case kYYYY, kIYYY:
			p.year, err = readInt(4)
			p.hasYear, p.yearDigits = true, 4
		case kYYY, kIYY:
			start := i
			p.year, err = readInt(3)
			p.hasYear, p.yearDigits = true, i-start
		case kYY, kIY:
			start := i
			p.year, err = readInt(2)
			p.hasYear, p.yearDigits = true, i-start
		case kY, kI:
			start := i
			p.year, err = readInt(1)
			p.hasYear, p.yearDigits = true, i-start
		}
		if err != nil {
			return nil, err
		}
	}
	return p, nil
}

// adjustPartialYear maps 1–3 digit years near 2020, as PostgreSQL does.
func adjustPartialYear(y int64, digits int) int64 {
	switch {
	case digits == 1 || digits > 3:
		if digits == 1 {
			return y + 2000
		}
		return y
	case digits == 2:
		if y < 70 {
			return y + 2000
		}
		return y + 1900
	case digits == 3:
		if y < 100 {
			return y + 2000
		}
		return y + 1000
	}
	return y
}

// toWall turns parsed fields into wall-clock microseconds; orig is the input
// for messages.
func (p *parsed) toWall(orig string) (int64, error) {
	y := int64(0) // no year given: 1 BC, as PostgreSQL
	if p.hasYear {
		y = p.year
		if p.yearDigits > 0 && p.yearDigits < 4 && y >= 0 {
			y = adjustPartialYear(y, p.yearDigits)
		}
		if p.bc {
			y = -y + 1
		}
	} else if p.hasCC {
		if p.cc >= 0 {
			y = (p.cc-1)*100 + 1
		} else {
			y = p.cc*100 + 1
		}
		if p.bc {
			y = -y + 1
		}
	}
	mon, mday := int64(1), int64(1)
	if p.hasMon {
		mon = p.mon
	}
	if p.hasDay {
		mday = p.mday
	}
	rangeErr := pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", orig)
	var days int64
	if p.hasDDD && !p.hasMon {
		if p.ddd < 1 || p.ddd > 366 {
			return 0, rangeErr
		}
		days = daysFromCivil(y, 1, 1) + p.ddd - 1
	} else {
		if mon < 1 || mon > 12 || mday < 1 || mday > int64(daysIn(y, int(mon))) {
			return 0, rangeErr
		}
		days = daysFromCivil(y, int(mon), int(mday))
	}
	hour := p.hour
	if p.clock12 {
		if hour < 1 || hour > 12 {
			e := pgerr.New(pgerr.InvalidDatetimeFormat, "hour \"%d\" is invalid for the 12-hour clock", hour)
			e.Hint = "Use the 24-hour clock, or give an hour between 1 and 12."
			return 0, e
		}
		if p.pm && hour < 12 {
			hour += 12
		} else if !p.pm && hour == 12 {
			hour = 0
		}
	}
	tod := ((hour*60+p.min)*60+p.sec)*usPerSec + p.us
	if p.hasSSSS {
		tod = p.ssss*usPerSec + p.us
	}
	if hour < 0 || hour > 24 || p.min < 0 || p.min > 59 || p.sec < 0 || p.sec > 60 || tod > usPerDay {
		return 0, rangeErr
	}
	us := days*usPerDay + tod
	if !validTS(us) {
		return 0, errTimestampRange
	}
	return us, nil
}

func toTimestampKernel(ctx *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, fmts := a[0].S[:n], a[1].S[:n]
	dst := outI64(out, n)
	nl := out.Nulls
	var tc templateCache
	z := newZone(ctx.loc())
	for i, s := range src {
		if isNull(nl, i) {
			continue
		}
		p, err := parseDCH(s, tc.get(fmts[i]))
		if err != nil {
			return err
		}
		wall, err := p.toWall(s)
		if err != nil {
			return err
		}
		if p.hasTZ {
			off := p.tzh*3600 + p.tzm*60
			if p.tzh < 0 {
				off = p.tzh*3600 - p.tzm*60
			}
			dst[i] = wall - off*usPerSec
		} else {
			dst[i] = z.fromLocal(wall)
		}
	}
	return nil
}

func toDateKernel(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, fmts := a[0].S[:n], a[1].S[:n]
	dst := outI64(out, n)
	nl := out.Nulls
	var tc templateCache
	for i, s := range src {
		if isNull(nl, i) {
			continue
		}
		p, err := parseDCH(s, tc.get(fmts[i]))
		if err != nil {
			return err
		}
		wall, err := p.toWall(s)
		if err != nil {
			return err
		}
		dst[i] = floorDiv(wall, usPerDay)
	}
	return nil
}
