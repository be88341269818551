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

// ParseDate parses ISO (and a few common) date spellings into days since the epoch.
func ParseDate(s string) (int64, error) {
	t := strings.TrimSpace(s)
	d, rest, ok := parseYMD(t)
	if ok && isZoneSuffix(rest) {
		// A zone after a date is read and ignored, as PostgreSQL does;
		// pgJDBC sends setDate values so ("2024-01-02 +00").
		rest = ""
	}
	if !ok || strings.TrimSpace(rest) != "" {
		// PostgreSQL accepts a timestamp string for a date and drops the time.
		if us, err := ParseTimestamp(t); err == nil {
			return floorDiv(us, 86400*1000000), nil
		}
		return 0, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type date: \"%s\"", s)
	}
	return d, nil
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
	if i < 1 || i >= len(s) || (s[i] != '-' && s[i] != '/') {
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

// ParseTimestamp parses a timestamp without time zone; any zone in the text is ignored, as PostgreSQL does.
func ParseTimestamp(s string) (int64, error) {
	us, _, _, err := parseTS(s, "timestamp")
	return us, err
}

// ParseTimestamptz parses a timestamp with time zone, interpreting text
// without a zone in loc.
func ParseTimestamptz(s string, loc *time.Location) (int64, error) {
	us, off, hasZone, err := parseTS(s, "timestamp with time zone")
	if err != nil || us == InfinityMicros || us == NegInfinityMicros {
		return us, err
	}
	if hasZone {
		return us - int64(off)*1000000, nil
	}
	// local wall time in loc
	t := time.UnixMicro(us).UTC()
	lt := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
	return lt.UnixMicro(), nil
}

// parseTS returns wall-clock micros, the zone offset in seconds and whether a zone was given.
func parseTS(s, typ string) (int64, int, bool, error) {
	t := strings.TrimSpace(s)
	bad := pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: \"%s\"", typ, s)
	switch strings.ToLower(t) {
	case "infinity", "+infinity":
		return InfinityMicros, 0, false, nil
	case "-infinity":
		return NegInfinityMicros, 0, false, nil
	case "epoch":
		return 0, 0, true, nil
	}
	bc := false
	if up := strings.ToUpper(t); strings.HasSuffix(up, " BC") {
		bc = true
		t = strings.TrimSpace(t[:len(t)-3])
	}
	days, rest, ok := parseYMD(t)
	if !ok {
		return 0, 0, false, bad
	}
	if bc {
		y := time.Unix(days*86400, 0).UTC()
		days = floorDiv(y.AddDate(1-2*y.Year(), 0, 0).Unix(), 86400)
	}
	us := days * 86400 * 1000000
	rest = strings.TrimLeft(rest, " T")
	if rest == "" {
		return us, 0, false, nil
	}
	clock, rest, ok := parseClock(rest)
	if !ok {
		return 0, 0, false, bad
	}
	us += clock
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return us, 0, false, nil
	}
	off, ok := parseZone(rest)
	if !ok {
		return 0, 0, false, bad
	}
	return us, off, true, nil
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
