package types

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/lakepg/lakepg/pgerr"
)

// time, timetz and json: PostgreSQL's types of the same names.
//
// A time is microseconds since midnight, 0 through 24:00:00 inclusive, as
// in PostgreSQL and DuckDB. A timetz is a local time plus a zone offset;
// PostgreSQL orders timetz values by their UTC instant and then by zone
// (timetz_cmp_internal), and two values are equal only when both parts are.
// lakepg packs both parts into one int64 whose integer order is exactly that
// order, so comparison, sorting, hashing and min/max need nothing special:
//
//	packed = utc·2^17 + zone   utc = local + zone·10^6 µs, zone = seconds west of UTC
//
// |zone| < 16 h < 2^16 s, so the zone never disturbs the utc part. DuckDB
// stores only the UTC time of day in Parquet (offsets are lost); such a
// value reads as that time with zone +00 (packed = utc·2^17).

// OIDs of the time types.
const (
	OIDTime   = 1083
	OIDTimeTZ = 1266
)

// The time types and json.
var (
	TimeT   = T{ID: Time}
	TimeTZT = T{ID: TimeTZ}
	JSONT   = T{ID: JSON}
)

// TimeTZShift is the packing factor of timetz: packed = utc·TimeTZShift + zone.
const TimeTZShift = 1 << 17

// maxZoneSeconds bounds timetz offsets as PostgreSQL's TZDISP_LIMIT does.
const maxZoneSeconds = 16 * 3600

// PackTimeTZ packs a local time of day and its offset east of UTC in seconds.
func PackTimeTZ(local int64, offsetEast int) int64 {
	zone := int64(-offsetEast)
	return (local+zone*1000000)*TimeTZShift + zone
}

// UnpackTimeTZ returns the local time of day and the offset east of UTC.
func UnpackTimeTZ(p int64) (local int64, offsetEast int) {
	utc := floorDiv(p+TimeTZShift/2, TimeTZShift)
	zone := p - utc*TimeTZShift
	return utc - zone*1000000, int(-zone)
}

// TimeTZUTC is the UTC time of day of a packed timetz, in [0, 24h): what
// Parquet's TIME(isAdjustedToUTC=true) holds.
func TimeTZUTC(p int64) int64 {
	local, off := UnpackTimeTZ(p)
	u := local - int64(off)*1000000
	if u == MicrosPerDay {
		return u // 24:00:00+00 stays itself, as DuckDB keeps it
	}
	u %= MicrosPerDay
	if u < 0 {
		u += MicrosPerDay
	}
	return u
}

// AppendTime formats a time as PostgreSQL does: HH:MM:SS[.ffffff] without
// trailing zeros.
func AppendTime(dst []byte, us int64) []byte {
	s := us / 1000000
	dst = appendPad(dst, int(s/3600), 2)
	dst = append(dst, ':')
	dst = appendPad(dst, int(s/60%60), 2)
	dst = append(dst, ':')
	dst = appendPad(dst, int(s%60), 2)
	if f := us % 1000000; f != 0 {
		dst = append(dst, '.')
		d := appendPad(nil, int(f), 6)
		for len(d) > 0 && d[len(d)-1] == '0' {
			d = d[:len(d)-1]
		}
		dst = append(dst, d...)
	}
	return dst
}

// AppendTimeTZ formats a packed timetz: the local time, then the offset as
// +HH, +HH:MM or +HH:MM:SS.
func AppendTimeTZ(dst []byte, p int64) []byte {
	local, off := UnpackTimeTZ(p)
	dst = AppendTime(dst, local)
	return appendOffset(dst, off)
}

func appendOffset(dst []byte, off int) []byte {
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	dst = append(dst, sign)
	dst = appendPad(dst, off/3600, 2)
	if m, sec := off%3600/60, off%60; m != 0 || sec != 0 {
		dst = append(dst, ':')
		dst = appendPad(dst, m, 2)
		if sec != 0 {
			dst = append(dst, ':')
			dst = appendPad(dst, sec, 2)
		}
	}
	return dst
}

// ParseTime parses PostgreSQL time input: HH:MM[:SS[.frac]] (fractions
// rounded to microseconds), optionally after a date and before a zone,
// both ignored, or "allballs".
func ParseTime(s string) (int64, error) { return ParseTimeIn(s, time.UTC) }

// ParseTimeIn is ParseTime with now read in loc.
func ParseTimeIn(s string, loc *time.Location) (int64, error) {
	us, _, _, err := parseTimeOfDay(s, "time", loc)
	return us, err
}

// ParseTimeTZ parses timetz input; text without a zone takes loc's
// current offset, as PostgreSQL takes the session TimeZone's.
func ParseTimeTZ(s string, loc *time.Location) (int64, error) {
	us, off, hasZone, err := parseTimeOfDay(s, "time with time zone", loc)
	if err != nil {
		return 0, err
	}
	if !hasZone {
		if loc == nil {
			loc = time.UTC
		}
		_, off = time.Now().In(loc).Zone()
	}
	return PackTimeTZ(us, off), nil
}

// parseTimeOfDay reads time input: the ISO fast path, else the general
// reader (AM/PM, zone names and abbreviations, allballs, now in loc).
func parseTimeOfDay(s, typ string, loc *time.Location) (int64, int, bool, error) {
	us, off, hasZone, err := parseTimeOfDayISO(s, typ)
	if pe, ok := err.(*pgerr.Error); !ok || pe.Code != pgerr.InvalidDatetimeFormat {
		return us, off, hasZone, err
	}
	in, derr := decodeFields(strings.TrimSpace(s), false, MDY)
	_, badZone := derr.(*unknownZoneError)
	switch {
	case derr == errDTRange || badZone:
		return 0, 0, false, dtError(derr, typ, s)
	case derr != nil:
		return 0, 0, false, err
	}
	if loc == nil {
		loc = time.UTC
	}
	switch in.special {
	case specNone:
		if !in.hasClock {
			return 0, 0, false, err
		}
	case specAllballs:
		return 0, 0, false, nil
	case specNow:
		now := time.Now().In(loc)
		_, o := now.Zone()
		return timeOfDayMicros(now), o, true, nil
	default:
		return 0, 0, false, err
	}
	if in.loc != nil {
		// a named zone's offset needs the date it applies on
		if !in.hasDate {
			return 0, 0, false, err
		}
		wall := daysOf(in.y, in.m, in.d)*MicrosPerDay + in.clock
		in.off = int((wall - LocalToUTC(wall, in.loc)) / 1000000)
	}
	return in.clock, in.off, in.hasZone, nil
}

func timeOfDayMicros(t time.Time) int64 {
	h, m, sec := t.Clock()
	return (int64(h)*3600+int64(m)*60+int64(sec))*1000000 + int64(t.Nanosecond()/1000)
}

func parseTimeOfDayISO(s, typ string) (int64, int, bool, error) {
	t := strings.TrimSpace(s)
	bad := pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: \"%s\"", typ, s)
	if strings.EqualFold(t, "allballs") {
		return 0, 0, false, nil
	}
	if _, rest, ok := parseYMD(t); ok && len(rest) < len(t) && strings.Contains(t[:len(t)-len(rest)], "-") {
		t = strings.TrimLeft(rest, " T")
	}
	us, rest, ok := parseClock(t)
	if !ok {
		if len(t) > 0 && t[0] >= '0' && t[0] <= '9' && strings.Contains(t, ":") {
			return 0, 0, false, pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
		}
		return 0, 0, false, bad
	}
	if us > MicrosPerDay {
		return 0, 0, false, pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return us, 0, false, nil
	}
	off, ok := parseZone(rest)
	if !ok {
		return 0, 0, false, bad
	}
	if off >= maxZoneSeconds || off <= -maxZoneSeconds {
		return 0, 0, false, pgerr.New("22009", "time zone displacement out of range: \"%s\"", s)
	}
	return us, off, true, nil
}

// ParseJSON checks json input as PostgreSQL's json_in does and returns it
// unchanged (json keeps its text, whitespace and key order).
func ParseJSON(s string) (string, error) {
	if !json.Valid([]byte(s)) {
		return "", pgerr.New(pgerr.InvalidTextRepr, "invalid input syntax for type json")
	}
	return s, nil
}
