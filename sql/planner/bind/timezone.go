package bind

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/types"
)

// TimeZoneLocation resolves a TimeZone setting as PostgreSQL's
// check_timezone does: a bare number is hours east of UTC; then a zone
// name of the tz database; then a POSIX TZ string ("UTC+3", "<+07>-7",
// "CET-1CEST,M3.5.0,M10.5.0/3", also a bare "-03:00"), whose offsets count
// hours west of UTC, the other way round from ISO 8601.
func TimeZoneLocation(v string) (*time.Location, error) {
	if h, err := strconv.ParseFloat(v, 64); err == nil && !math.IsInf(h, 0) && !math.IsNaN(h) && strings.TrimLeft(v, "+-.0123456789") == "" {
		return time.FixedZone(v, int(math.Round(h*3600))), nil
	}
	if off, ok := posixOffset(v); ok && len(v) > 0 && (v[0] == '+' || v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return time.FixedZone(v, -off), nil // "-03:00": a POSIX offset without a name
	}
	loc, err := types.LoadLocation(v)
	if err == nil {
		return loc, nil
	}
	if loc, ok := posixZone(v); ok {
		return loc, nil
	}
	return nil, err
}

// posixZone is a POSIX TZ string as a location: std name and offset, then
// optionally a DST name, its offset and the rules for switching. Go's
// time package reads such a string as the footer of tz data, so a tz file
// without transitions and with this footer is the zone.
func posixZone(v string) (*time.Location, bool) {
	name, rest, ok := posixName(v)
	if !ok {
		return nil, false
	}
	n := posixOffsetLen(rest)
	off, ok := posixOffset(rest[:n])
	if !ok {
		return nil, false
	}
	if rest = rest[n:]; rest != "" {
		// a DST part: its name, an optional offset, optional rules
		_, r, ok := posixName(rest)
		if !ok {
			return nil, false
		}
		if n := posixOffsetLen(r); n > 0 {
			if _, ok := posixOffset(r[:n]); !ok {
				return nil, false
			}
			r = r[n:]
		}
		if r != "" && (r[0] != ',' || strings.TrimLeft(r, ",/:+-.MJ0123456789") != "") {
			return nil, false
		}
	}
	loc, err := time.LoadLocationFromTZData(v, tzifFooterOnly(name, -off, v))
	if err != nil {
		return nil, false
	}
	return loc, true
}

// posixName reads a zone name: three or more letters, or <…> quoted.
func posixName(s string) (string, string, bool) {
	if strings.HasPrefix(s, "<") {
		end := strings.IndexByte(s, '>')
		if end < 4 {
			return "", "", false
		}
		return s[1:end], s[end+1:], true
	}
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
		i++
	}
	if i < 3 {
		return "", "", false
	}
	return s[:i], s[i:], true
}

// posixOffsetLen is the length of the offset at the start of s.
func posixOffsetLen(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == ':') {
		i++
	}
	return i
}

// posixOffset reads [+-]hh[:mm[:ss]] as seconds, positive west of UTC.
func posixOffset(s string) (int, bool) {
	sign := 1
	if s != "" && (s[0] == '+' || s[0] == '-') {
		if s[0] == '-' {
			sign = -1
		}
		s = s[1:]
	}
	parts := strings.Split(s, ":")
	if s == "" || len(parts) > 3 {
		return 0, false
	}
	secs := 0
	for i, p := range parts {
		if p == "" || len(p) > 2 && i > 0 || len(p) > 3 {
			return 0, false
		}
		x, err := strconv.Atoi(p)
		if err != nil || i > 0 && x > 59 || i == 0 && x > 167 {
			return 0, false
		}
		secs = secs*60 + x
	}
	for i := len(parts); i < 3; i++ {
		secs *= 60
	}
	return sign * secs, true
}

// tzifFooterOnly is tz data (TZif version 2) with no transitions, one
// zone type (abbrev at utoff seconds east) and footer tz, which then
// rules every instant.
func tzifFooterOnly(abbrev string, utoff int, tz string) []byte {
	block := func(b []byte) []byte {
		b = append(b, "TZif2"...)
		b = append(b, make([]byte, 15)...)
		// isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
		for _, n := range []int{0, 0, 0, 0, 1, len(abbrev) + 1} {
			b = binary.BigEndian.AppendUint32(b, uint32(n))
		}
		b = binary.BigEndian.AppendUint32(b, uint32(int32(utoff)))
		b = append(b, 0, 0) // not DST, abbreviation at 0
		b = append(b, abbrev...)
		return append(b, 0)
	}
	b := block(nil)
	b = block(b) // the 64-bit part: the same, having no times
	b = append(b, '\n')
	b = append(b, tz...)
	return append(b, '\n')
}

// BareHoursName is how PostgreSQL shows a TimeZone set to a bare number of
// hours east of UTC: as the POSIX zone it stands for, "+3" as "<+03>-03"
// and "-5.5" as "<-05:30>+05:30".
func BareHoursName(v string) (string, bool) {
	h, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(h, 0) || math.IsNaN(h) || strings.TrimLeft(v, "+-.0123456789") != "" {
		return "", false
	}
	east := int(math.Round(h * 3600))
	if east == 0 {
		return "", false
	}
	abs, sign, west := east, "+", "-"
	if east < 0 {
		abs, sign, west = -east, "-", "+"
	}
	hm := fmt.Sprintf("%02d", abs/3600)
	if abs%3600 != 0 {
		hm += fmt.Sprintf(":%02d", abs%3600/60)
		if abs%60 != 0 {
			hm += fmt.Sprintf(":%02d", abs%60)
		}
	}
	return "<" + sign + hm + ">" + west + hm, true
}
