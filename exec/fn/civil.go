package fn

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Calendar arithmetic on lakepg's representations: dates are days since
// 1970-01-01, timestamps microseconds since 1970-01-01 00:00:00 (UTC for
// timestamptz, wall clock for timestamp). Years are astronomical (0 is 1 BC)
// in the proleptic Gregorian calendar, as PostgreSQL computes them.

const (
	usPerSec  = types.MicrosPerSecond
	usPerMin  = types.MicrosPerMinute
	usPerHour = types.MicrosPerHour
	usPerDay  = types.MicrosPerDay

	// unixEpochJD is the Julian day number of 1970-01-01.
	unixEpochJD = 2440588
	// minTimestamp is 4714-11-24 00:00:00 BC, PostgreSQL's lower bound.
	minTimestamp = -210866803200000000
	// minDate and maxDate bound PostgreSQL dates: Julian day 0 to
	// 5874897-12-31.
	minDate = -unixEpochJD
	maxDate = 2147483494 - unixEpochJD - 1
)

var (
	errTimestampRange = pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
	errDateRange      = pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range")
	errIntervalRange  = types.ErrIntervalOutOfRange
)

func validTS(us int64) bool { return us >= minTimestamp && us < types.InfinityMicros }

func finiteTS(us int64) bool { return us != types.InfinityMicros && us != types.NegInfinityMicros }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// civil returns the year, month and day of a day number.
func civil(days int64) (int64, int, int) {
	z := days + 719468
	era := z
	if z < 0 {
		era = z - 146096
	}
	era /= 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := int(doy - (153*mp+2)/5 + 1)
	m := int(mp + 3)
	if mp >= 10 {
		m = int(mp - 9)
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// daysFromCivil is the day number of y-m-d.
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if y < 0 {
		era = y - 399
	}
	era /= 400
	yoe := y - era*400
	mm := int64(m)
	if m > 2 {
		mm -= 3
	} else {
		mm += 9
	}
	doy := (153*mm+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

var monthLen = [2][12]int{
	{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
	{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
}

func daysIn(y int64, m int) int {
	if isLeap(y) {
		return monthLen[1][m-1]
	}
	return monthLen[0][m-1]
}

// weekday is PostgreSQL's j2day: 0 = Sunday.
func weekday(days int64) int { return int(floorMod(days+4, 7)) }

// isoWeek returns the ISO 8601 week number and week-numbering year.
func isoWeek(days int64) (week int, year int64) {
	y, _, _ := civil(days)
	// the Monday of week 1 is the Monday on or before January 4th
	week1 := func(y int64) int64 {
		j4 := daysFromCivil(y, 1, 4)
		return j4 - int64((weekday(j4)+6)%7)
	}
	start := week1(y)
	if days < start {
		y--
		start = week1(y)
	} else if next := week1(y + 1); days >= next {
		y++
		start = next
	}
	return int((days-start)/7 + 1), y
}

// tm is a broken-down timestamp, like PostgreSQL's struct pg_tm.
type tm struct {
	year           int64
	mon, mday      int
	hour, min, sec int
	usec           int64 // fraction of the second
	days           int64 // day number, kept for weekday and doy
	tod            int64 // microseconds since midnight
}

func toTm(us int64) tm {
	days := floorDiv(us, usPerDay)
	tod := us - days*usPerDay
	y, m, d := civil(days)
	return tm{year: y, mon: m, mday: d, hour: int(tod / usPerHour), min: int(tod / usPerMin % 60),
		sec: int(tod / usPerSec % 60), usec: tod % usPerSec, days: days, tod: tod}
}

// fromTm converts calendar fields (month day may exceed the month; it is
// clamped by callers) to microseconds, failing outside PostgreSQL's range.
func fromTm(y int64, m, d int, tod int64) (int64, error) {
	if y < -4713 || y > 294276 {
		return 0, errTimestampRange
	}
	days := daysFromCivil(y, m, d)
	us := days*usPerDay + tod
	if !validTS(us) {
		return 0, errTimestampRange
	}
	return us, nil
}

// zone answers UTC offsets of one time.Location. It remembers the periods
// of constant offset it has looked up (sorted, at most maxPeriods) and the
// last one hit, so a batch costs one comparison per row plus a binary search
// when the data moves to another period; time.Location lookups happen once
// per period per batch.
type zone struct {
	loc     *time.Location
	utc     bool
	period           // the last period hit; start > end when none
	periods []period // known periods, sorted by start, disjoint
}

// period is a span of Unix seconds [start, end) with offset off (seconds
// east of UTC).
type period struct{ start, end, off int64 }

const maxPeriods = 256

func newZone(loc *time.Location) *zone {
	z := &zone{loc: loc, period: period{start: 1, end: 0}}
	if loc == time.UTC {
		z.utc = true
	}
	return z
}

func fixedZone(offSec int64) *zone {
	return &zone{loc: time.FixedZone("", int(offSec)), period: period{math.MinInt64, math.MaxInt64, offSec}}
}

// offsetAt is the offset in seconds east of UTC at UTC instant us.
func (z *zone) offsetAt(us int64) int64 {
	if z.utc {
		return 0
	}
	sec := floorDiv(us, usPerSec)
	if sec >= z.start && sec < z.end {
		return z.off
	}
	return z.lookup(sec)
}

func (z *zone) lookup(sec int64) int64 {
	// first period ending after sec
	i, j := 0, len(z.periods)
	for i < j {
		h := int(uint(i+j) >> 1)
		if z.periods[h].end > sec {
			j = h
		} else {
			i = h + 1
		}
	}
	if i < len(z.periods) && z.periods[i].start <= sec {
		z.period = z.periods[i]
		return z.off
	}
	t := time.Unix(sec, 0).In(z.loc)
	_, off := t.Zone()
	s, e := t.ZoneBounds()
	p := period{math.MinInt64, math.MaxInt64, int64(off)}
	if !s.IsZero() {
		p.start = s.Unix()
	}
	if !e.IsZero() {
		p.end = e.Unix()
	}
	if len(z.periods) < maxPeriods {
		z.periods = slices.Insert(z.periods, i, p)
	}
	z.period = p
	return p.off
}

// abbrevAt is the zone abbreviation at UTC instant us.
func (z *zone) abbrevAt(us int64) string {
	if z.utc {
		return "UTC"
	}
	name, off := time.Unix(floorDiv(us, usPerSec), 0).In(z.loc).Zone()
	if name == "" {
		return formatOffset(int64(off), false)
	}
	return name
}

// toLocal converts a UTC instant to wall-clock microseconds in the zone.
func (z *zone) toLocal(us int64) int64 {
	if z.utc || !finiteTS(us) {
		return us
	}
	return us + z.offsetAt(us)*usPerSec
}

// fromLocal converts wall-clock microseconds to a UTC instant the way
// PostgreSQL's DetermineTimeZoneOffset does: a time skipped by a
// spring-forward change takes the offset from before it, a time repeated by
// a fall-back change the offset from after it.
func (z *zone) fromLocal(wall int64) int64 {
	if z.utc || !finiteTS(wall) {
		return wall
	}
	sec := floorDiv(wall, usPerSec)
	const margin = 2 * 86400
	if sec > math.MinInt64/2 && sec < math.MaxInt64/2 {
		// far from any change of offset the answer is the offset of the
		// period the wall time falls in: try the current period, then the
		// one its offset points to
		for k := 0; k < 2; k++ {
			if z.start < z.end && sec-z.off-margin >= z.start && sec-z.off+margin < z.end {
				return wall - z.off*usPerSec
			}
			z.offsetAt((sec - z.off) * usPerSec)
		}
	}
	prev := time.Unix(sec-86400, 0).In(z.loc)
	_, before := prev.Zone()
	_, end := prev.ZoneBounds()
	if end.IsZero() {
		z.offsetAt((sec - int64(before)) * usPerSec)
		return wall - int64(before)*usPerSec
	}
	boundary := end.Unix()
	_, after := end.In(z.loc).Zone()
	bt, at := sec-int64(before), sec-int64(after)
	off := int64(after)
	switch {
	case bt < boundary && at < boundary:
		off = int64(before)
	case bt > boundary && at >= boundary:
	case bt > at:
		off = int64(before)
	}
	z.offsetAt((sec - off) * usPerSec)
	return wall - off*usPerSec
}

// formatOffset prints seconds east of UTC as +HH[:MM[:SS]] (colon) or as
// PostgreSQL's abbreviation-less zone name, e.g. "+05" or "+0530".
func formatOffset(off int64, colon bool) string {
	sign := byte('+')
	if off < 0 {
		sign = '-'
		off = -off
	}
	b := []byte{sign}
	b = append(b, pad2(int(off/3600))...)
	m, s := off/60%60, off%60
	if m != 0 || s != 0 {
		if colon {
			b = append(b, ':')
		}
		b = append(b, pad2(int(m))...)
		if s != 0 {
			if colon {
				b = append(b, ':')
			}
			b = append(b, pad2(int(s))...)
		}
	}
	return string(b)
}

func pad2(v int) string {
	if v < 10 && v >= 0 {
		return "0" + strconv.Itoa(v)
	}
	return strconv.Itoa(v)
}

// zoneAbbrevs are fixed-offset abbreviations from PostgreSQL's Default
// timezone_abbreviations set (seconds east of UTC).
var zoneAbbrevs = map[string]int64{
	"utc": 0, "gmt": 0, "z": 0, "zulu": 0, "ut": 0, "uct": 0,
	"est": -5 * 3600, "edt": -4 * 3600, "cst": -6 * 3600, "cdt": -5 * 3600,
	"mst": -7 * 3600, "mdt": -6 * 3600, "pst": -8 * 3600, "pdt": -7 * 3600,
	"akst": -9 * 3600, "akdt": -8 * 3600, "hst": -10 * 3600, "ast": -4 * 3600, "adt": -3 * 3600,
	"nst": -(3*3600 + 1800), "ndt": -(2*3600 + 1800),
	"wet": 0, "west": 3600, "cet": 3600, "cest": 2 * 3600, "met": 3600, "mest": 2 * 3600,
	"eet": 2 * 3600, "eest": 3 * 3600, "bst": 3600, "ist": 2 * 3600, "idt": 3 * 3600,
	"msk": 3 * 3600, "jst": 9 * 3600, "kst": 9 * 3600, "hkt": 8 * 3600, "awst": 8 * 3600,
	"acst": 9*3600 + 1800, "acdt": 10*3600 + 1800, "aest": 10 * 3600, "aedt": 11 * 3600,
	"nzst": 12 * 3600, "nzdt": 13 * 3600, "sast": 2 * 3600, "cat": 2 * 3600, "eat": 3 * 3600, "wat": 3600,
}

var zoneCache sync.Map // name → *time.Location

// loadZone resolves a time zone name as AT TIME ZONE and the zone argument
// of date_trunc/make_timestamptz do: a fixed abbreviation, an IANA name
// (case-insensitive), or a POSIX-style offset such as 'UTC+3' or '+05',
// whose sign means west of Greenwich as in PostgreSQL.
func loadZone(name string) (*zone, error) {
	if off, ok := zoneAbbrevs[strings.ToLower(name)]; ok {
		if off == 0 {
			return newZone(time.UTC), nil
		}
		return fixedZone(off), nil
	}
	if l, ok := zoneCache.Load(name); ok {
		return newZone(l.(*time.Location)), nil
	}
	if off, ok := parsePosixOffset(name); ok {
		return fixedZone(off), nil
	}
	for _, cand := range zoneCandidates(name) {
		if cand == "" || strings.Contains(cand, "..") {
			continue
		}
		if l, err := time.LoadLocation(cand); err == nil {
			zoneCache.Store(name, l)
			return newZone(l), nil
		}
	}
	return nil, pgerr.New(pgerr.InvalidParameterValue, "time zone \"%s\" not recognized", name)
}

// zoneCandidates spells a zone name the ways the tz database capitalises.
func zoneCandidates(name string) []string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		words := strings.FieldsFunc(p, func(r rune) bool { return r == '_' || r == '-' })
		seps := []byte{}
		for _, c := range []byte(p) {
			if c == '_' || c == '-' {
				seps = append(seps, c)
			}
		}
		var b strings.Builder
		for k, w := range words {
			if k > 0 && k-1 < len(seps) {
				b.WriteByte(seps[k-1])
			}
			lw := strings.ToLower(w)
			if len(lw) <= 3 && k == 0 && i == 0 && len(parts) == 1 {
				b.WriteString(strings.ToUpper(lw))
				continue
			}
			b.WriteString(strings.ToUpper(lw[:1]) + lw[1:])
		}
		parts[i] = b.String()
	}
	title := strings.Join(parts, "/")
	return []string{name, title, strings.ToUpper(name), "Etc/" + strings.ToUpper(name)}
}

// parsePosixOffset reads [NAME]±hh[:mm[:ss]] (NAME alphabetic or <...>);
// POSIX offsets count west of Greenwich, so the result is negated.
func parsePosixOffset(s string) (int64, bool) {
	i := 0
	if strings.HasPrefix(s, "<") {
		j := strings.IndexByte(s, '>')
		if j < 0 {
			return 0, false
		}
		i = j + 1
	} else {
		for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			i++
		}
		if i > 0 && i < 3 {
			return 0, false
		}
	}
	rest := s[i:]
	if rest == "" {
		return 0, false
	}
	sign := int64(1)
	switch rest[0] {
	case '+':
		rest = rest[1:]
	case '-':
		sign = -1
		rest = rest[1:]
	default:
		if i == 0 {
			return 0, false
		}
	}
	fields := strings.Split(rest, ":")
	if len(fields) > 3 {
		return 0, false
	}
	var parts [3]int64
	for k, f := range fields {
		if f == "" || len(f) > 3 {
			return 0, false
		}
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil || v < 0 {
			return 0, false
		}
		parts[k] = v
	}
	if parts[0] > 168 || parts[1] > 59 || parts[2] > 59 {
		return 0, false
	}
	return -sign * (parts[0]*3600 + parts[1]*60 + parts[2]), true
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
