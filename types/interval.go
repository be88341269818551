package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/pgerr"
)

// IntervalValue is a PostgreSQL interval. Months, days and microseconds are
// kept apart because their lengths are not fixed: a month is 28 to 31 days
// and a day is 23 to 25 hours across a DST change, so '1 mon' and '30 days'
// add differently to a timestamp even though they compare equal.
type IntervalValue struct {
	Months int32
	Days   int32
	Micros int64
}

// Units PostgreSQL uses to relate interval fields.
const (
	MicrosPerSecond = int64(1000000)
	MicrosPerMinute = 60 * MicrosPerSecond
	MicrosPerHour   = 60 * MicrosPerMinute
	MicrosPerDay    = 24 * MicrosPerHour
	DaysPerMonth    = 30 // what interval comparison and justify_days assume
	MonthsPerYear   = 12
)

// Span returns the interval as whole days (a month counting 30) plus a
// remainder in [0, MicrosPerDay). Two intervals are equal, and hash alike,
// exactly when their spans are equal; PostgreSQL compares the same 128-bit
// quantity (interval_cmp_value), and this split keeps it in two int64s.
func (v IntervalValue) Span() (days, micros int64) {
	days = int64(v.Months)*DaysPerMonth + int64(v.Days) + v.Micros/MicrosPerDay
	micros = v.Micros % MicrosPerDay
	if micros < 0 {
		micros += MicrosPerDay
		days--
	}
	return days, micros
}

// CompareInterval orders intervals as PostgreSQL does: by total length with
// a month taken as 30 days and a day as 24 hours.
func CompareInterval(a, b IntervalValue) int {
	ad, au := a.Span()
	bd, bu := b.Span()
	switch {
	case ad < bd:
		return -1
	case ad > bd:
		return 1
	case au < bu:
		return -1
	case au > bu:
		return 1
	}
	return 0
}

// AppendInterval formats v as PostgreSQL does with IntervalStyle = postgres,
// e.g. "1 year 2 mons 3 days 04:05:06.5", "-1 days +02:00:00", "00:00:00".
func AppendInterval(dst []byte, v IntervalValue) []byte {
	year := int64(v.Months / MonthsPerYear)
	mon := int64(v.Months % MonthsPerYear)
	day := int64(v.Days)
	t := v.Micros
	hour := t / MicrosPerHour
	t -= hour * MicrosPerHour
	min := t / MicrosPerMinute
	t -= min * MicrosPerMinute
	sec := t / MicrosPerSecond
	fsec := t - sec*MicrosPerSecond

	isZero, isBefore := true, false
	part := func(val int64, unit string) {
		if val == 0 {
			return
		}
		if !isZero {
			dst = append(dst, ' ')
		}
		if isBefore && val > 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, val, 10)
		dst = append(dst, ' ')
		dst = append(dst, unit...)
		if val != 1 {
			dst = append(dst, 's')
		}
		// as in PostgreSQL, each nonzero field decides the sign display of
		// the next one only
		isBefore = val < 0
		isZero = false
	}
	part(year, "year")
	part(mon, "mon")
	part(day, "day")
	if isZero || hour != 0 || min != 0 || sec != 0 || fsec != 0 {
		minus := hour < 0 || min < 0 || sec < 0 || fsec < 0
		if !isZero {
			dst = append(dst, ' ')
		}
		if minus {
			dst = append(dst, '-')
		} else if isBefore {
			dst = append(dst, '+')
		}
		dst = appendPad64(dst, abs64(hour), 2)
		dst = append(dst, ':')
		dst = appendPad64(dst, abs64(min), 2)
		dst = append(dst, ':')
		dst = appendPad64(dst, abs64(sec), 2)
		dst = appendFraction(dst, abs64(fsec))
	}
	return dst
}

// appendFraction appends .ffffff without trailing zeros when us is nonzero.
func appendFraction(dst []byte, us int64) []byte {
	if us == 0 {
		return dst
	}
	var buf [7]byte
	buf[0] = '.'
	for i := 6; i >= 1; i-- {
		buf[i] = byte('0' + us%10)
		us /= 10
	}
	n := 7
	for buf[n-1] == '0' {
		n--
	}
	return append(dst, buf[:n]...)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func appendPad64(dst []byte, v int64, width int) []byte {
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], v, 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// Interval input follows PostgreSQL's DecodeInterval: the text is split into
// fields (numbers, hh:mm:ss times, unit words), which are read right to left
// so that a unit is known before the number it applies to.

type ivField struct {
	s    string
	kind byte // 'n' number, 't' time, 'd' date-like, 'z' signed, 's' word
}

type ivErr uint8

const (
	ivOK ivErr = iota
	ivBadFormat
	ivFieldOverflow
)

const maxDateFields = 25

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// splitFields mirrors PostgreSQL's ParseDateTime for interval input.
func splitFields(s string) ([]ivField, ivErr) {
	var fs []ivField
	i := 0
	for i < len(s) {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
			i++
			continue
		}
		var b []byte
		var kind byte
		switch {
		case isDigit(c):
			for i < len(s) && isDigit(s[i]) {
				b = append(b, s[i])
				i++
			}
			switch {
			case i < len(s) && s[i] == ':':
				kind = 't'
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.') {
					b = append(b, s[i])
					i++
				}
			case i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.'):
				delim := s[i]
				b = append(b, delim)
				i++
				if i < len(s) && isDigit(s[i]) {
					kind = 'd'
					if delim == '.' {
						kind = 'n'
					}
					for i < len(s) && isDigit(s[i]) {
						b = append(b, s[i])
						i++
					}
					if i < len(s) && s[i] == delim {
						kind = 'd'
						for i < len(s) && (isDigit(s[i]) || s[i] == delim) {
							b = append(b, s[i])
							i++
						}
					}
				} else {
					kind = 'd'
					for i < len(s) && (isDigit(s[i]) || isAlpha(s[i]) || s[i] == delim) {
						b = append(b, lowerASCII(s[i]))
						i++
					}
				}
			default:
				kind = 'n'
			}
		case c == '.':
			b = append(b, c)
			i++
			for i < len(s) && isDigit(s[i]) {
				b = append(b, s[i])
				i++
			}
			kind = 'n'
		case isAlpha(c):
			kind = 's'
			for i < len(s) && isAlpha(s[i]) {
				b = append(b, lowerASCII(s[i]))
				i++
			}
			// words glued to digits or punctuation are dates or zone names,
			// never interval units
			if i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.' || s[i] == '+' || isDigit(s[i])) {
				if _, ok := intervalUnits[truncTok(string(b))]; !ok || s[i] == '-' || s[i] == '/' || s[i] == '.' {
					kind = 'd'
					for i < len(s) && (s[i] == '+' || s[i] == '-' || s[i] == '/' || s[i] == '_' || s[i] == '.' || s[i] == ':' || isDigit(s[i]) || isAlpha(s[i])) {
						b = append(b, lowerASCII(s[i]))
						i++
					}
				}
			}
		case c == '+' || c == '-':
			b = append(b, c)
			i++
			for i < len(s) && s[i] == ' ' {
				i++
			}
			switch {
			case i < len(s) && isDigit(s[i]):
				kind = 'z'
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.' || s[i] == '-') {
					b = append(b, s[i])
					i++
				}
			case i < len(s) && isAlpha(s[i]):
				kind = 's'
				for i < len(s) && isAlpha(s[i]) {
					b = append(b, lowerASCII(s[i]))
					i++
				}
			default:
				return nil, ivBadFormat
			}
		case c < 0x80 && c > ' ' && !isDigit(c) && !isAlpha(c):
			i++ // other punctuation only separates fields
			continue
		default:
			return nil, ivBadFormat
		}
		if len(fs) == maxDateFields {
			return nil, ivBadFormat
		}
		fs = append(fs, ivField{s: string(b), kind: kind})
	}
	return fs, ivOK
}

type ivUnit uint8

const (
	uNone ivUnit = iota
	uMicro
	uMilli
	uSecond
	uMinute
	uHour
	uDay
	uWeek
	uMonth
	uQuarter
	uYear
	uDecade
	uCentury
	uMillennium
	uAgo
	uTZ      // a time zone unit: known to PostgreSQL, never valid in an interval
	uInvalid // no unit may follow
)

// tokMaxLen is PostgreSQL's TOKMAXLEN: unit words compare on at most 10
// characters, which is how "microseconds" matches "microsecon".
const tokMaxLen = 10

func truncTok(s string) string {
	if len(s) > tokMaxLen {
		return s[:tokMaxLen]
	}
	return s
}

var intervalUnits = map[string]ivUnit{
	"ago": uAgo,
	"c":   uCentury, "cent": uCentury, "centuries": uCentury, "century": uCentury,
	"d": uDay, "day": uDay, "days": uDay,
	"dec": uDecade, "decade": uDecade, "decades": uDecade, "decs": uDecade,
	"h": uHour, "hour": uHour, "hours": uHour, "hr": uHour, "hrs": uHour,
	"m": uMinute, "min": uMinute, "mins": uMinute, "minute": uMinute, "minutes": uMinute,
	"microsecon": uMicro, "us": uMicro, "usec": uMicro, "usecond": uMicro, "useconds": uMicro, "usecs": uMicro,
	"mil": uMillennium, "millennia": uMillennium, "millennium": uMillennium, "mils": uMillennium,
	"millisecon": uMilli, "ms": uMilli, "msec": uMilli, "msecond": uMilli, "mseconds": uMilli, "msecs": uMilli,
	"mon": uMonth, "mons": uMonth, "month": uMonth, "months": uMonth,
	"qtr": uQuarter, "quarter": uQuarter,
	"s": uSecond, "sec": uSecond, "second": uSecond, "seconds": uSecond, "secs": uSecond,
	"timezone": uTZ, "timezone_h": uTZ, "timezone_m": uTZ,
	"w": uWeek, "week": uWeek, "weeks": uWeek,
	"y": uYear, "year": uYear, "years": uYear, "yr": uYear, "yrs": uYear,
}

// Field bits for detecting a unit given twice, as PostgreSQL's DTK_M masks do.
const (
	mMicro = 1 << iota
	mMilli
	mSecond
	mMinute
	mHour
	mDay
	mWeek
	mMonth
	mYear
	mDecade
	mCentury
	mMillennium
	mTime    = mHour | mMinute | mSecond | mMilli | mMicro
	mAllSecs = mSecond | mMilli | mMicro
)

// itmIn accumulates parsed interval fields before they are folded into an
// IntervalValue (PostgreSQL's pg_itm_in).
type itmIn struct {
	usec int64
	mday int32
	mon  int32
	year int32
}

func addS32(a *int32, b int64) bool {
	s := int64(*a) + b
	if s < math.MinInt32 || s > math.MaxInt32 {
		return false
	}
	*a = int32(s)
	return true
}

func mulAdd64(val, mul int64, sum *int64) bool {
	if val != 0 && ((val*mul)/mul != val || (val == -1 && mul == math.MinInt64) || (mul == -1 && val == math.MinInt64)) {
		return false
	}
	p := val * mul
	s := *sum + p
	if (p > 0 && s < *sum) || (p < 0 && s > *sum) {
		return false
	}
	*sum = s
	return true
}

func (it *itmIn) fractMicros(frac float64, scale int64) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	usec := int64(frac)
	frac -= float64(usec)
	usec += int64(math.RoundToEven(frac))
	return mulAdd64(usec, 1, &it.usec)
}

func (it *itmIn) fractDays(frac float64, scale int) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	extra := int64(frac)
	if !addS32(&it.mday, extra) {
		return false
	}
	frac -= float64(extra)
	return it.fractMicros(frac, MicrosPerDay)
}

func (it *itmIn) fractYears(frac float64, scale int) bool {
	extra := int64(math.RoundToEven(frac * float64(scale) * MonthsPerYear))
	return addS32(&it.mon, extra)
}

func (it *itmIn) years(val int64, scale int) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	p := val * int64(scale)
	if p < math.MinInt32 || p > math.MaxInt32 {
		return false
	}
	return addS32(&it.year, p)
}

func (it *itmIn) days(val int64, scale int) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	p := val * int64(scale)
	if p < math.MinInt32 || p > math.MaxInt32 {
		return false
	}
	return addS32(&it.mday, p)
}

func (it *itmIn) months(val int64) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	return addS32(&it.mon, val)
}

func (it *itmIn) micros(val int64, frac float64, scale int64) bool {
	return mulAdd64(val, scale, &it.usec) && it.fractMicros(frac, scale)
}

// strtoi64 reads an optionally signed decimal integer at the start of s, as
// C's strtoll does, returning the rest.
func strtoi64(s string) (int64, string, bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	j := i
	var v uint64
	overflow := false
	for j < len(s) && isDigit(s[j]) {
		d := uint64(s[j] - '0')
		if v > (math.MaxUint64-d)/10 {
			overflow = true
		} else {
			v = v*10 + d
		}
		j++
	}
	if j == i {
		return 0, s, true // nothing parsed: like strtoll, rest is all of s
	}
	if overflow || (!neg && v > math.MaxInt64) || (neg && v > 1<<63) {
		return 0, s[j:], false
	}
	if neg {
		return -int64(v), s[j:], true
	}
	return int64(v), s[j:], true
}

// strtod reads a C-style decimal float prefix (digits, '.', digits) from s.
func strtod(s string) (float64, string, bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	f, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, s, false
	}
	return f, s[i:], true
}

// parseFraction reads ".digits" that must end the field.
func parseFraction(s string) (float64, ivErr) {
	if s == "." {
		return 0, ivOK
	}
	f, rest, ok := strtod(s)
	if !ok || rest != "" {
		return 0, ivBadFormat
	}
	return f, ivOK
}

// decodeTime reads h:mm[:ss[.frac]] or mm:ss.frac into microseconds.
func decodeTime(s string) (int64, ivErr) {
	hour, rest, ok := strtoi64(s)
	if !ok {
		return 0, ivFieldOverflow
	}
	if rest == "" || rest[0] != ':' {
		return 0, ivBadFormat
	}
	min, rest, ok := strtoi64(rest[1:])
	if !ok || min > math.MaxInt32 || min < math.MinInt32 {
		return 0, ivFieldOverflow
	}
	var sec, fsec int64
	switch {
	case rest == "":
	case rest[0] == '.':
		// mm:ss.fff is always minutes and seconds
		f, e := parseFraction(rest)
		if e != ivOK {
			return 0, e
		}
		fsec = int64(math.RoundToEven(f * 1e6))
		if hour > math.MaxInt32 || hour < math.MinInt32 {
			return 0, ivFieldOverflow
		}
		sec, min, hour = min, hour, 0
	case rest[0] == ':':
		sec, rest, ok = strtoi64(rest[1:])
		if !ok || sec > math.MaxInt32 || sec < math.MinInt32 {
			return 0, ivFieldOverflow
		}
		if rest != "" {
			if rest[0] != '.' {
				return 0, ivBadFormat
			}
			f, e := parseFraction(rest)
			if e != ivOK {
				return 0, e
			}
			fsec = int64(math.RoundToEven(f * 1e6))
		}
	default:
		return 0, ivBadFormat
	}
	if hour < 0 || min < 0 || min > 59 || sec < 0 || sec > 60 || fsec < 0 || fsec > MicrosPerSecond {
		return 0, ivFieldOverflow
	}
	us := fsec
	if !mulAdd64(hour, MicrosPerHour, &us) || !mulAdd64(min, MicrosPerMinute, &us) || !mulAdd64(sec, MicrosPerSecond, &us) {
		return 0, ivFieldOverflow
	}
	return us, ivOK
}

func decodeInterval(fs []ivField) (itmIn, ivErr) {
	var it itmIn
	typ := uNone
	fmask := 0
	parsingUnit := false
	isBefore := false
	for i := len(fs) - 1; i >= 0; i-- {
		f := fs[i]
		tmask := 0
		kind := f.kind
		if kind == 'z' && strings.IndexByte(f.s[1:], ':') >= 0 {
			// signed hh:mm[:ss]: a time with a sign
			us, e := decodeTime(f.s[1:])
			if e == ivOK {
				if f.s[0] == '-' {
					us = -us
				}
				// PostgreSQL's DecodeTimeForInterval assigns rather than
				// adds, dropping fractions of days or weeks read before
				it.usec = us
				tmask = mTime
				typ = uDay // '1 +02:03' reads the 1 as days
				parsingUnit = false
				if tmask&fmask != 0 {
					return it, ivBadFormat
				}
				fmask |= tmask
				continue
			}
		}
		switch kind {
		case 't':
			us, e := decodeTime(f.s)
			if e != ivOK {
				return it, e
			}
			it.usec = us // assigned, as above
			tmask = mTime
			typ = uDay
			parsingUnit = false
		case 'z', 'd', 'n':
			if typ == uNone {
				typ = uSecond
			}
			val, rest, ok := strtoi64(f.s)
			if !ok {
				return it, ivFieldOverflow
			}
			var fval float64
			switch {
			case rest == "":
			case rest[0] == '-':
				// SQL standard "years-months"
				v2, r2, ok := strtoi64(rest[1:])
				if !ok || v2 < 0 || v2 >= MonthsPerYear || (len(rest) > 1 && (rest[1] == '-' || rest[1] == '+')) {
					return it, ivFieldOverflow
				}
				if r2 != "" {
					return it, ivBadFormat
				}
				typ = uMonth
				if f.s[0] == '-' {
					v2 = -v2
				}
				if !mulAdd64(val, MonthsPerYear, &v2) {
					return it, ivFieldOverflow
				}
				val = v2
			case rest[0] == '.':
				fr, e := parseFraction(rest)
				if e != ivOK {
					return it, e
				}
				fval = fr
				if f.s[0] == '-' {
					fval = -fval
				}
			default:
				return it, ivBadFormat
			}
			ok = true
			switch typ {
			case uMicro:
				ok = it.micros(val, fval, 1)
				tmask = mMicro
			case uMilli:
				ok = it.micros(val, fval, 1000)
				tmask = mMilli
			case uSecond:
				ok = it.micros(val, fval, MicrosPerSecond)
				if fval == 0 {
					tmask = mSecond
				} else {
					tmask = mAllSecs
				}
			case uMinute:
				ok = it.micros(val, fval, MicrosPerMinute)
				tmask = mMinute
			case uHour:
				ok = it.micros(val, fval, MicrosPerHour)
				tmask = mHour
				typ = uDay
			case uDay:
				ok = it.days(val, 1) && it.fractMicros(fval, MicrosPerDay)
				tmask = mDay
			case uWeek:
				ok = it.days(val, 7) && it.fractDays(fval, 7)
				tmask = mWeek
			case uMonth:
				ok = it.months(val) && it.fractDays(fval, DaysPerMonth)
				tmask = mMonth
			case uYear:
				ok = it.years(val, 1) && it.fractYears(fval, 1)
				tmask = mYear
			case uDecade:
				ok = it.years(val, 10) && it.fractYears(fval, 10)
				tmask = mDecade
			case uCentury:
				ok = it.years(val, 100) && it.fractYears(fval, 100)
				tmask = mCentury
			case uMillennium:
				ok = it.years(val, 1000) && it.fractYears(fval, 1000)
				tmask = mMillennium
			default:
				return it, ivBadFormat
			}
			if !ok {
				return it, ivFieldOverflow
			}
			parsingUnit = false
		case 's':
			if parsingUnit {
				return it, ivBadFormat
			}
			u, ok := intervalUnits[truncTok(f.s)]
			if !ok || u == uTZ {
				return it, ivBadFormat
			}
			if u == uAgo {
				isBefore = true
				// a number right before "ago" has no unit: PostgreSQL
				// rejects it, so mark the unit as unusable
				typ = uInvalid
				continue
			}
			typ = u
			parsingUnit = true
		default:
			return it, ivBadFormat
		}
		if tmask&fmask != 0 {
			return it, ivBadFormat
		}
		fmask |= tmask
	}
	if fmask == 0 || parsingUnit {
		return it, ivBadFormat
	}
	if isBefore {
		if it.usec == math.MinInt64 || it.mday == math.MinInt32 || it.mon == math.MinInt32 || it.year == math.MinInt32 {
			return it, ivFieldOverflow
		}
		it.usec, it.mday, it.mon, it.year = -it.usec, -it.mday, -it.mon, -it.year
	}
	return it, ivOK
}

// parseISO8601Number reads [-]digits[.digits] for ISO 8601 durations.
func parseISO8601Number(s string) (int64, float64, string, ivErr) {
	sign := int64(1)
	if s != "" && s[0] == '-' {
		sign = -1
		s = s[1:]
	} else if s != "" && s[0] == '+' {
		s = s[1:]
	}
	start := s
	var ip int64
	if s != "" && isDigit(s[0]) {
		v, rest, ok := strtoi64(s)
		if !ok {
			return 0, 0, s, ivFieldOverflow
		}
		ip, s = v, rest
	}
	var fp float64
	if s != "" && s[0] == '.' {
		f, rest, ok := strtod(s)
		if !ok {
			return 0, 0, s, ivBadFormat
		}
		fp, s = f, rest
	}
	if len(s) == len(start) {
		return 0, 0, s, ivBadFormat
	}
	return ip * sign, fp * float64(sign), s, ivOK
}

// decodeISO8601 reads the designator form P[nY][nM][nW][nD][T[nH][nM][nS]].
// PostgreSQL's alternative form (P0001-02-03T04:05:06) is not accepted.
func decodeISO8601(s string) (itmIn, ivErr) {
	var it itmIn
	if len(s) < 2 || s[0] != 'P' {
		return it, ivBadFormat
	}
	s = s[1:]
	datePart := true
	for s != "" {
		if s[0] == 'T' {
			datePart = false
			s = s[1:]
			continue
		}
		val, fval, rest, e := parseISO8601Number(s)
		if e != ivOK {
			return it, e
		}
		if rest == "" {
			return it, ivBadFormat
		}
		unit := rest[0]
		s = rest[1:]
		ok := true
		if datePart {
			switch unit {
			case 'Y':
				ok = it.years(val, 1) && it.fractYears(fval, 1)
			case 'M':
				ok = it.months(val) && it.fractDays(fval, DaysPerMonth)
			case 'W':
				ok = it.days(val, 7) && it.fractDays(fval, 7)
			case 'D':
				ok = it.days(val, 1) && it.fractMicros(fval, MicrosPerDay)
			default:
				return it, ivBadFormat
			}
		} else {
			switch unit {
			case 'H':
				ok = it.micros(val, fval, MicrosPerHour)
			case 'M':
				ok = it.micros(val, fval, MicrosPerMinute)
			case 'S':
				ok = it.micros(val, fval, MicrosPerSecond)
			default:
				return it, ivBadFormat
			}
		}
		if !ok {
			return it, ivFieldOverflow
		}
	}
	return it, ivOK
}

// ParseInterval parses interval input as PostgreSQL's interval_in does
// (without a typmod): '1 day', '2 hours 30 minutes', '1 year 2 mons',
// '3 days 04:05:06', '-1 week', '1.5 hours', '@ 1 hour ago', '1-2'
// (years-months) and ISO 8601 'P1Y2M3DT4H5M6S'. Bad syntax is 22007, a field
// out of range 22015, a total out of range 22008.
func ParseInterval(s string) (IntervalValue, error) {
	fs, e := splitFields(s)
	var it itmIn
	if e == ivOK {
		it, e = decodeInterval(fs)
	}
	if e == ivBadFormat {
		it, e = decodeISO8601(s)
	}
	switch e {
	case ivBadFormat:
		return IntervalValue{}, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type interval: \"%s\"", s)
	case ivFieldOverflow:
		return IntervalValue{}, pgerr.New(IntervalFieldOverflow, "interval field value out of range: \"%s\"", s)
	}
	months := int64(it.year)*MonthsPerYear + int64(it.mon)
	if months < math.MinInt32 || months > math.MaxInt32 {
		return IntervalValue{}, ErrIntervalOutOfRange
	}
	return IntervalValue{Months: int32(months), Days: it.mday, Micros: it.usec}, nil
}

// IntervalFieldOverflow is SQLSTATE 22015 (pgerr has no name for it yet).
const IntervalFieldOverflow = "22015"

// ErrIntervalOutOfRange is PostgreSQL's "interval out of range" (22008).
var ErrIntervalOutOfRange = pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
