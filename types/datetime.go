package types

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/pgerr"
)

// Special timestamp values, as DuckDB and PostgreSQL store them.
const (
	InfinityMicros    = int64(1<<63 - 1)
	NegInfinityMicros = -InfinityMicros
)

// Date infinities, stored as DuckDB stores them (the int32 extremes) so
// they survive Parquet and DuckLake.
const (
	DateInfinity    = int64(math.MaxInt32)
	DateNegInfinity = -int64(math.MaxInt32)
)

// PostgreSQL's ranges: dates from Julian day 0 (4714-11-24 BC) through
// 5874897-12-31, timestamps from the same day through 294276-12-31.
const (
	minDateDays = -2440588
	maxDateDays = 2147483493 - 2440588
)

// endTimestampDays bounds timestamps from above: PostgreSQL's end is
// 294277-01-01, but microseconds since 1970 in an int64 end 30 years
// earlier (294247-01-10, and the last value is infinity).
const endTimestampDays = (math.MaxInt64 - MicrosPerDay) / MicrosPerDay

// ParseDate parses date input with relative words (today) taken in UTC.
func ParseDate(s string) (int64, error) { return ParseDateIn(s, time.UTC) }

// ParseDateIn parses date input into days since the epoch, as date_in
// does; today, tomorrow and yesterday are days in loc.
func ParseDateIn(s string, loc *time.Location) (int64, error) { return ParseDateOrder(s, loc, MDY) }

// ParseDateOrder is ParseDateIn with DateStyle's field order.
func ParseDateOrder(s string, loc *time.Location, order DateOrder) (int64, error) {
	t := strings.TrimSpace(s)
	d, rest, ok := parseYMD(t)
	if ok && (isZoneSuffix(rest) || strings.TrimSpace(rest) == "") {
		// A zone after a date is read and ignored, as PostgreSQL does;
		// pgJDBC sends setDate values so ("2024-01-02 +00").
		return checkDate(d, s)
	}
	in, err := decodeDateTime(t, order)
	if err != nil {
		return 0, dtError(err, "date", s)
	}
	switch in.special {
	case specNone:
		return checkDate(daysOf(in.y, in.m, in.d), s)
	case specEpoch:
		return 0, nil
	case specInfinity:
		return DateInfinity, nil
	case specNegInfinity:
		return DateNegInfinity, nil
	case specNow, specToday, specTomorrow, specYesterday:
		return today(loc) + dayShift(in.special), nil
	}
	return 0, dtError(errDTSyntax, "date", s)
}

func checkDate(d int64, s string) (int64, error) {
	if d < minDateDays || d > maxDateDays {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: \"%s\"", s)
	}
	return d, nil
}

func dtError(err error, typ, s string) error {
	if z, ok := err.(*unknownZoneError); ok {
		return pgerr.New(pgerr.InvalidParameterValue, "time zone \"%s\" not recognized", strings.ToLower(z.name))
	}
	if err == errDTRange {
		return pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
	}
	return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: \"%s\"", typ, s)
}

// daysOf is the day number of a proleptic Gregorian date (year 0 = 1 BC).
func daysOf(y, m, d int) int64 {
	return floorDiv(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix(), 86400)
}

// today is the current date in loc. PostgreSQL takes it at the start of
// the transaction; input conversion here has no transaction, so it reads
// the clock.
func today(loc *time.Location) int64 {
	if loc == nil {
		loc = time.UTC
	}
	y, m, d := time.Now().In(loc).Date()
	return daysOf(y, int(m), d)
}

func dayShift(sp dtSpecial) int64 {
	switch sp {
	case specTomorrow:
		return 1
	case specYesterday:
		return -1
	}
	return 0
}

// isZoneSuffix reports a numeric zone offset such as " +00", "-05:30".
func isZoneSuffix(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) < 2 || (s[0] != '+' && s[0] != '-') {
		return false
	}
	return strings.Trim(s[1:], "0123456789:") == ""
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// parseYMD reads YYYY-MM-DD at the start of s, returning days since the epoch.
func parseYMD(s string) (int64, string, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	// a year needs three digits at least: 01-02-24 is DateStyle's order
	if i < 3 || i >= len(s) || (s[i] != '-' && s[i] != '/') {
		return 0, s, false
	}
	y, _ := strconv.Atoi(s[:i])
	sep := s[i]
	rest := s[i+1:]
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	if j < 1 || j > 2 || j >= len(rest) || rest[j] != sep {
		return 0, s, false
	}
	m, _ := strconv.Atoi(rest[:j])
	rest = rest[j+1:]
	k := 0
	for k < len(rest) && rest[k] >= '0' && rest[k] <= '9' {
		k++
	}
	if k < 1 || k > 2 {
		return 0, s, false
	}
	d, _ := strconv.Atoi(rest[:k])
	rest = rest[k:]
	if up := strings.ToUpper(strings.TrimSpace(rest)); strings.HasSuffix(up, " BC") || up == "BC" {
		y = 1 - y
		rest = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(rest), "BC"), "bc")
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, s, false
	}
	tm := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	return floorDiv(tm.Unix(), 86400), rest, true
}

func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// parseClock reads HH:MM[:SS[.ffffff]] and returns microseconds since midnight.
func parseClock(s string) (int64, string, bool) {
	fields := 0
	var parts [3]int64
	i := 0
	for fields < 3 {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i || j-i > 2 {
			return 0, s, false
		}
		v, _ := strconv.ParseInt(s[i:j], 10, 64)
		parts[fields] = v
		fields++
		i = j
		if i < len(s) && s[i] == ':' && fields < 3 {
			i++
			continue
		}
		break
	}
	if fields < 2 {
		return 0, s, false
	}
	var frac int64
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		digits := s[i+1 : j]
		if len(digits) > 6 {
			// PostgreSQL reads the fraction as a double and rounds it
			// to microseconds with rint (half to even)
			f, _ := strconv.ParseFloat("0."+digits, 64)
			frac = int64(math.RoundToEven(f * 1e6))
		} else if len(digits) > 0 {
			f, _ := strconv.ParseInt(digits, 10, 64)
			frac = f * pow10[6-len(digits)]
		}
		i = j
	}
	if parts[0] > 24 || parts[1] > 59 || parts[2] > 60 {
		return 0, s, false
	}
	return ((parts[0]*60+parts[1])*60+parts[2])*1000000 + frac, s[i:], true
}

// ParseTimestamp parses a timestamp without time zone; any zone in the
// text is ignored, as PostgreSQL does. Relative words use UTC.
func ParseTimestamp(s string) (int64, error) { return ParseTimestampIn(s, time.UTC) }

// ParseTimestampIn is ParseTimestamp with now/today read in loc.
func ParseTimestampIn(s string, loc *time.Location) (int64, error) {
	return ParseTimestampOrder(s, loc, MDY)
}

// ParseTimestampOrder is ParseTimestampIn with DateStyle's field order.
func ParseTimestampOrder(s string, loc *time.Location, order DateOrder) (int64, error) {
	us, _, _, _, err := parseTS(s, "timestamp", loc, order)
	if err == nil && isNowWord(s) {
		// now is an instant; a timestamp takes its wall time in loc
		if loc == nil {
			loc = time.UTC
		}
		_, off := time.UnixMicro(us).In(loc).Zone()
		return us + int64(off)*1000000, nil
	}
	return us, err
}

func isNowWord(s string) bool { return strings.EqualFold(strings.TrimSpace(s), "now") }

// ParseTimestamptz parses a timestamp with time zone, interpreting text
// without a zone in loc.
func ParseTimestamptz(s string, loc *time.Location) (int64, error) {
	return ParseTimestamptzOrder(s, loc, MDY)
}

// ParseTimestamptzOrder is ParseTimestamptz with DateStyle's field order.
func ParseTimestamptzOrder(s string, loc *time.Location, order DateOrder) (int64, error) {
	us, off, zl, hasZone, err := parseTS(s, "timestamp with time zone", loc, order)
	if err != nil || us == InfinityMicros || us == NegInfinityMicros {
		return us, err
	}
	switch {
	case hasZone && zl != nil:
		return LocalToUTC(us, zl), nil
	case hasZone:
		return us - int64(off)*1000000, nil
	}
	return LocalToUTC(us, loc), nil
}

// LocalToUTC converts a wall time in loc to an instant, choosing across
// DST changes as PostgreSQL does.
func LocalToUTC(wall int64, loc *time.Location) int64 {
	if loc == nil {
		loc = time.UTC
	}
	if loc == time.UTC {
		return wall
	}
	w := floorDiv(wall, 1000000)
	_, before := time.Unix(w-86400, 0).In(loc).Zone()
	_, after := time.Unix(w+86400, 0).In(loc).Zone()
	off := before
	if before != after {
		// Near a transition: take the offset whose reading is consistent.
		// In a gap (spring forward) or an overlap (fall back) take the
		// smaller offset, the later instant, as DetermineTimeZoneOffset
		// does.
		okB := offsetAt(loc, w-int64(before)) == before
		okA := offsetAt(loc, w-int64(after)) == after
		switch {
		case okB && !okA:
			off = before
		case okA && !okB:
			off = after
		default:
			off = min(before, after)
		}
	}
	return wall - int64(off)*1000000
}

func offsetAt(loc *time.Location, unix int64) int {
	_, off := time.Unix(unix, 0).In(loc).Zone()
	return off
}

// parseTS returns wall-clock micros, the zone (an offset east in seconds,
// or a named zone) and whether a zone was given. now is returned as an
// instant with a zero offset.
func parseTS(s, typ string, loc *time.Location, order DateOrder) (int64, int, *time.Location, bool, error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "infinity":
		return InfinityMicros, 0, nil, false, nil
	case "-infinity":
		return NegInfinityMicros, 0, nil, false, nil
	case "epoch":
		return 0, 0, nil, true, nil
	}
	if days, clock, off, hasZone, ok := parseISOTimestamp(t); ok {
		us, err := checkTimestamp(days, clock, s)
		return us, off, nil, hasZone, err
	}
	in, err := decodeDateTime(t, order)
	if err != nil {
		return 0, 0, nil, false, dtError(err, typ, s)
	}
	switch in.special {
	case specNone:
	case specNow:
		return time.Now().UnixMicro(), 0, nil, true, nil
	case specToday, specTomorrow, specYesterday:
		us := (today(loc) + dayShift(in.special)) * MicrosPerDay
		if in.hasClock {
			us += in.clock
		}
		return us, in.off, in.loc, in.hasZone, nil
	default:
		return 0, 0, nil, false, dtError(errDTSyntax, typ, s)
	}
	us, err := checkTimestamp(daysOf(in.y, in.m, in.d), in.clock, s)
	return us, in.off, in.loc, in.hasZone, err
}

func checkTimestamp(days, clock int64, s string) (int64, error) {
	if days < minDateDays || days >= endTimestampDays {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", s)
	}
	return days*MicrosPerDay + clock, nil
}

// parseISOTimestamp is the fast path: YYYY-MM-DD[( |T)HH:MM[:SS[.f]]][ zone][ BC].
func parseISOTimestamp(t string) (days, clock int64, off int, hasZone, ok bool) {
	bc := false
	if up := strings.ToUpper(t); strings.HasSuffix(up, " BC") {
		bc = true
		t = strings.TrimSpace(t[:len(t)-3])
	}
	days, rest, ok := parseYMD(t)
	if !ok {
		return 0, 0, 0, false, false
	}
	if bc {
		y := time.Unix(days*86400, 0).UTC()
		days = floorDiv(y.AddDate(1-2*y.Year(), 0, 0).Unix(), 86400)
	}
	rest = strings.TrimLeft(rest, " T")
	if rest == "" {
		return days, 0, 0, false, true
	}
	clock, rest, ok = parseClock(rest)
	if !ok {
		return 0, 0, 0, false, false
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return days, clock, 0, false, true
	}
	off, ok = parseZone(rest)
	if !ok {
		return 0, 0, 0, false, false
	}
	return days, clock, off, true, true
}

// parseZone reads Z, UTC, GMT, +HH, +HHMM, +HH:MM or a named IANA zone (at
// the instant's offset in 1970 when named; good enough for fixed zones).
func parseZone(z string) (int, bool) {
	switch strings.ToUpper(z) {
	case "Z", "UTC", "GMT", "+00", "-00":
		return 0, true
	}
	if z[0] == '+' || z[0] == '-' {
		sign := 1
		if z[0] == '-' {
			sign = -1
		}
		body := strings.ReplaceAll(z[1:], ":", "")
		var h, m, sec int
		var err error
		switch len(body) {
		case 1, 2:
			h, err = strconv.Atoi(body)
		case 4:
			h, err = strconv.Atoi(body[:2])
			if err == nil {
				m, err = strconv.Atoi(body[2:])
			}
		case 6:
			h, err = strconv.Atoi(body[:2])
			if err == nil {
				m, err = strconv.Atoi(body[2:4])
			}
			if err == nil {
				sec, err = strconv.Atoi(body[4:])
			}
		default:
			return 0, false
		}
		if err != nil || h > 15 || m > 59 {
			return 0, false
		}
		return sign * (h*3600 + m*60 + sec), true
	}
	return 0, false
}

// LoadLocation resolves a PostgreSQL TimeZone setting.
func LoadLocation(name string) (*time.Location, error) {
	switch strings.ToUpper(name) {
	case "", "UTC", "GMT", "Z", "ETC/UTC":
		return time.UTC, nil
	}
	if off, ok := parseZone(name); ok {
		// POSIX-style offsets in PostgreSQL settings are inverted; ISO ones are not.
		return time.FixedZone(name, off), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"TimeZone\": \"%s\"", name)
	}
	return loc, nil
}
