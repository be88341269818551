package fn

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

var (
	dateT        = types.DateT
	timestampT   = types.TimestampT
	timestamptzT = types.TimestamptzT
	intervalT    = types.IntervalT
)

func stable(k Kernel, r types.T, args ...types.T) *Overload {
	o := strict(k, r, args...)
	o.Stable = true
	return o
}

func init() {
	reg("date_trunc", strict(truncKernel(false, false), timestampT, textT, timestampT))
	reg("date_trunc", stable(truncKernel(true, false), timestamptzT, textT, timestamptzT))
	reg("date_trunc", stable(truncKernel(true, true), timestamptzT, textT, timestamptzT, textT))
	reg("date_trunc", strict(kTruncInterval, intervalT, textT, intervalT))
	for _, t := range []types.T{timestampT, timestamptzT, dateT, intervalT} {
		reg("date_part", &Overload{Args: []types.T{textT, t}, Ret: ret(float8T), Strict: true, Stable: t.ID == types.Timestamptz, Kernel: extractKernel})
		reg("extract", &Overload{Args: []types.T{textT, t}, Ret: ret(numericT), RetConst: extractRetConst, Strict: true, Stable: t.ID == types.Timestamptz, Kernel: extractKernel})
	}
	reg("age", strict(ageKernel(false, false), intervalT, timestampT, timestampT))
	reg("age", stable(ageKernel(true, false), intervalT, timestamptzT, timestamptzT))
	reg("age", stable(ageKernel(false, true), intervalT, timestampT))
	reg("age", stable(ageKernel(true, true), intervalT, timestamptzT))
	reg("make_date", strict(kMakeDate, dateT, int4T, int4T, int4T))
	reg("make_timestamp", strict(makeTSKernel(false), timestampT, int4T, int4T, int4T, int4T, int4T, float8T))
	reg("make_timestamptz", stable(makeTSKernel(true), timestamptzT, int4T, int4T, int4T, int4T, int4T, float8T))
	reg("make_timestamptz", stable(makeTSKernel(true), timestamptzT, int4T, int4T, int4T, int4T, int4T, float8T, textT))
	for k := 0; k <= 7; k++ {
		args := []types.T{int4T, int4T, int4T, int4T, int4T, int4T, float8T}[:k]
		reg("make_interval", strict(kMakeInterval, intervalT, args...))
	}
	reg("to_timestamp", strict(kToTimestampEpoch, timestamptzT, float8T))
	reg("date_bin", strict(kDateBin, timestampT, intervalT, timestampT, timestampT))
	reg("date_bin", strict(kDateBin, timestamptzT, intervalT, timestamptzT, timestamptzT))
	reg("justify_days", strict(justifyKernel(justifyDays), intervalT, intervalT))
	reg("justify_hours", strict(justifyKernel(justifyHours), intervalT, intervalT))
	reg("justify_interval", strict(justifyKernel(justifyInterval), intervalT, intervalT))
	reg("isfinite", strict(kIsFiniteDate, boolT, dateT))
	reg("isfinite", strict(kIsFiniteTS, boolT, timestampT))
	reg("isfinite", strict(kIsFiniteTS, boolT, timestamptzT))
	reg("isfinite", strict(kIsFiniteInterval, boolT, intervalT))
	reg("timezone", strict(kTimezoneOfTZ, timestampT, textT, timestamptzT))
	reg("timezone", strict(kTimezoneOfTS, timestamptzT, textT, timestampT))
	reg("timezone", strict(kTimezoneOfTZ, timestampT, intervalT, timestamptzT))
	reg("timezone", strict(kTimezoneOfTS, timestamptzT, intervalT, timestampT))
	for _, name := range []string{"now", "transaction_timestamp", "statement_timestamp"} {
		reg(name, &Overload{Ret: ret(timestamptzT), Stable: true, Kernel: kNow})
	}
	reg("clock_timestamp", &Overload{Ret: ret(timestamptzT), Volatile: true, Kernel: kClock})
}

// dtUnit is a date/time field name as date_trunc and extract take them.
type dtUnit uint8

const (
	dtNone dtUnit = iota
	dtMicro
	dtMilli
	dtSecond
	dtMinute
	dtHour
	dtDay
	dtWeek
	dtMonth
	dtQuarter
	dtYear
	dtDecade
	dtCentury
	dtMillennium
	dtDow
	dtIsodow
	dtDoy
	dtIsoyear
	dtEpoch
	dtJulian
	dtTZ
	dtTZHour
	dtTZMinute
)

// dtUnits maps PostgreSQL's unit spellings (compared on their first ten
// characters, as DecodeUnits does) to fields.
var dtUnits = map[string]dtUnit{
	"c": dtCentury, "cent": dtCentury, "centuries": dtCentury, "century": dtCentury,
	"d": dtDay, "day": dtDay, "days": dtDay,
	"dec": dtDecade, "decade": dtDecade, "decades": dtDecade, "decs": dtDecade,
	"h": dtHour, "hour": dtHour, "hours": dtHour, "hr": dtHour, "hrs": dtHour,
	"m": dtMinute, "min": dtMinute, "mins": dtMinute, "minute": dtMinute, "minutes": dtMinute,
	"microsecon": dtMicro, "us": dtMicro, "usec": dtMicro, "usecond": dtMicro, "useconds": dtMicro, "usecs": dtMicro,
	"mil": dtMillennium, "millennia": dtMillennium, "millennium": dtMillennium, "mils": dtMillennium,
	"millisecon": dtMilli, "ms": dtMilli, "msec": dtMilli, "msecond": dtMilli, "mseconds": dtMilli, "msecs": dtMilli,
	"mon": dtMonth, "mons": dtMonth, "month": dtMonth, "months": dtMonth,
	"qtr": dtQuarter, "quarter": dtQuarter,
	"s": dtSecond, "sec": dtSecond, "second": dtSecond, "seconds": dtSecond, "secs": dtSecond,
	"w": dtWeek, "week": dtWeek, "weeks": dtWeek,
	"y": dtYear, "year": dtYear, "years": dtYear, "yr": dtYear, "yrs": dtYear,
	"dow": dtDow, "isodow": dtIsodow, "doy": dtDoy, "isoyear": dtIsoyear, "epoch": dtEpoch,
	"j": dtJulian, "jd": dtJulian, "julian": dtJulian,
	"timezone": dtTZ, "timezone_h": dtTZHour, "timezone_m": dtTZMinute,
}

// deltaUnit reports the units PostgreSQL's DecodeUnits knows (the interval
// unit table), the only ones date_trunc recognises; extract also knows dow,
// doy, epoch and the like.
func deltaUnit(u dtUnit) bool {
	return u != dtNone && (u <= dtMillennium || u >= dtTZ)
}

func lookupUnit(s string) (dtUnit, string) {
	low := strings.ToLower(s)
	key := low
	if len(key) > 10 {
		key = key[:10]
	}
	return dtUnits[key], low
}

func unitNotRecognized(low string, t types.T) error {
	return pgerr.New(pgerr.InvalidParameterValue, "unit \"%s\" not recognized for type %s", low, TypeName(t))
}

func unitNotSupported(low string, t types.T) error {
	return pgerr.New(pgerr.FeatureNotSupported, "unit \"%s\" not supported for type %s", low, TypeName(t))
}

// unitPicker parses the unit argument, reusing the last parse while it
// repeats (normally a constant).
type unitPicker struct {
	last string
	set  bool
	u    dtUnit
	low  string
}

func (p *unitPicker) get(s string) (dtUnit, string) {
	if !p.set || s != p.last {
		p.last, p.set = s, true
		p.u, p.low = lookupUnit(s)
	}
	return p.u, p.low
}

// truncYear applies PostgreSQL's decade/century/millennium rounding of an
// astronomical year.
func truncYear(u dtUnit, y int64) int64 {
	switch u {
	case dtMillennium:
		if y > 0 {
			return (y+999)/1000*1000 - 999
		}
		return -((999-(y-1))/1000)*1000 + 1
	case dtCentury:
		if y > 0 {
			return (y+99)/100*100 - 99
		}
		return -((99-(y-1))/100)*100 + 1
	case dtDecade:
		if y > 0 {
			return y / 10 * 10
		}
		return -((8 - (y - 1)) / 10) * 10
	}
	return y
}

// truncWall truncates wall-clock microseconds to unit u.
func truncWall(u dtUnit, us int64) (int64, error) {
	switch u {
	case dtMicro:
		return us, nil
	case dtMilli:
		return us - floorMod(us, 1000), nil
	case dtSecond:
		return us - floorMod(us, usPerSec), nil
	case dtMinute:
		return us - floorMod(us, usPerMin), nil
	case dtHour:
		return us - floorMod(us, usPerHour), nil
	case dtDay:
		return floorDiv(us, usPerDay) * usPerDay, nil
	case dtWeek:
		days := floorDiv(us, usPerDay)
		return (days - int64((weekday(days)+6)%7)) * usPerDay, nil
	}
	y, m, _ := civil(floorDiv(us, usPerDay))
	switch u {
	case dtMonth:
	case dtQuarter:
		m = 3*((m-1)/3) + 1
	case dtYear:
		m = 1
	default:
		y, m = truncYear(u, y), 1
	}
	return fromTm(y, m, 1, 0)
}

// truncKernel is date_trunc over timestamp (tz=false) or timestamptz in the
// session zone or, with a third argument, in the given zone. Units of a day
// and up are truncated on the local calendar and the zone offset is found
// again; smaller units keep the offset the instant had, as PostgreSQL does.
func truncKernel(tz, zoneArg bool) Kernel {
	return func(ctx *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		units, src := a[0].S[:n], a[1].I64[:n]
		dst := outI64(out, n)
		nl := out.Nulls
		typ := timestampT
		var z *zone
		if tz {
			typ = timestamptzT
			z = newZone(ctx.loc())
		}
		if !zoneArg && sameStrings(units) {
			// one unit for the batch: validate once, then a tight loop
			u, low := lookupUnit(units[0])
			switch {
			case !deltaUnit(u):
				return unitNotRecognized(low, typ)
			case u > dtMillennium:
				return unitNotSupported(low, typ)
			}
			if tz {
				return truncZoneLoop(u, src, dst, z)
			}
			return truncWallLoop(u, src, dst)
		}
		var up unitPicker
		lastZone, zoneSet := "", false
		for i, us := range src {
			if isNull(nl, i) {
				continue
			}
			u, low := up.get(units[i])
			switch {
			case !deltaUnit(u):
				return unitNotRecognized(low, typ)
			case u > dtMillennium:
				return unitNotSupported(low, typ)
			}
			if !finiteTS(us) {
				dst[i] = us
				continue
			}
			if !tz {
				r, err := truncWall(u, us)
				if err != nil {
					return err
				}
				dst[i] = r
				continue
			}
			if zoneArg && (!zoneSet || a[2].S[i] != lastZone) {
				zz, err := loadZone(a[2].S[i])
				if err != nil {
					return err
				}
				z, lastZone, zoneSet = zz, a[2].S[i], true
			}
			off := z.offsetAt(us) * usPerSec
			r, err := truncWall(u, us+off)
			if err != nil {
				return err
			}
			if u >= dtDay {
				dst[i] = z.fromLocal(r)
			} else {
				dst[i] = r - off
			}
		}
		return nil
	}
}

// sameStrings reports whether every element equals the first. A constant
// argument repeats one string, so comparing data pointers settles most rows
// without looking at the bytes.
func sameStrings(ss []string) bool {
	if len(ss) == 0 {
		return true
	}
	first := ss[0]
	p := unsafe.StringData(first)
	for _, s := range ss {
		if len(s) != len(first) || (unsafe.StringData(s) != p && s != first) {
			return false
		}
	}
	return true
}

// truncWallLoop truncates every timestamp to u (u valid for date_trunc);
// NULL rows hold 0 and truncate harmlessly.
func truncWallLoop(u dtUnit, src, dst []int64) error {
	var m int64
	switch u {
	case dtMicro:
		copy(dst, src)
		return nil
	case dtMilli:
		m = 1000
	case dtSecond:
		m = usPerSec
	case dtMinute:
		m = usPerMin
	case dtHour:
		m = usPerHour
	case dtDay:
		m = usPerDay
	}
	if m != 0 {
		for i, us := range src {
			r := us % m
			if r < 0 {
				r += m
			}
			if finiteTS(us) {
				us -= r
			}
			dst[i] = us
		}
		return nil
	}
	for i, us := range src {
		if !finiteTS(us) {
			dst[i] = us
			continue
		}
		r, err := truncWall(u, us)
		if err != nil {
			return err
		}
		dst[i] = r
	}
	return nil
}

// truncZoneLoop is truncWallLoop on timestamptz in zone z.
func truncZoneLoop(u dtUnit, src, dst []int64, z *zone) error {
	for i, us := range src {
		if !finiteTS(us) {
			dst[i] = us
			continue
		}
		off := z.offsetAt(us) * usPerSec
		r, err := truncWall(u, us+off)
		if err != nil {
			return err
		}
		if u >= dtDay {
			dst[i] = z.fromLocal(r)
		} else {
			dst[i] = r - off
		}
	}
	return nil
}

// itm is an interval broken down as PostgreSQL's interval2itm does.
type itm struct {
	year, mon, mday      int64
	hour, min, sec, usec int64
}

func toItm(v types.IntervalValue) itm {
	t := v.Micros
	r := itm{year: int64(v.Months) / 12, mon: int64(v.Months) % 12, mday: int64(v.Days)}
	r.hour = t / usPerHour
	t -= r.hour * usPerHour
	r.min = t / usPerMin
	t -= r.min * usPerMin
	r.sec = t / usPerSec
	r.usec = t - r.sec*usPerSec
	return r
}

func fromItm(t itm) (types.IntervalValue, error) {
	months := t.year*12 + t.mon
	if months > math.MaxInt32 || months < math.MinInt32 || t.mday > math.MaxInt32 || t.mday < math.MinInt32 {
		return types.IntervalValue{}, errIntervalRange
	}
	us := t.usec
	for _, p := range [][2]int64{{t.hour, usPerHour}, {t.min, usPerMin}, {t.sec, usPerSec}} {
		x, ok := mul64(p[0], p[1])
		if !ok {
			return types.IntervalValue{}, errIntervalRange
		}
		s := us + x
		if (x > 0 && s < us) || (x < 0 && s > us) {
			return types.IntervalValue{}, errIntervalRange
		}
		us = s
	}
	return types.IntervalValue{Months: int32(months), Days: int32(t.mday), Micros: us}, nil
}

func kTruncInterval(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	units, src := a[0].S[:n], a[1].Iv[:n]
	dst := outIv(out, n)
	nl := out.Nulls
	var up unitPicker
	for i, v := range src {
		if isNull(nl, i) {
			continue
		}
		u, low := up.get(units[i])
		t := toItm(v)
		switch u {
		case dtMillennium:
			t.year = t.year / 1000 * 1000
			fallthrough
		case dtCentury:
			t.year = t.year / 100 * 100
			fallthrough
		case dtDecade:
			t.year = t.year / 10 * 10
			fallthrough
		case dtYear:
			t.mon = 0
			fallthrough
		case dtQuarter:
			t.mon = 3 * (t.mon / 3)
			fallthrough
		case dtMonth:
			t.mday = 0
			fallthrough
		case dtDay:
			t.hour = 0
			fallthrough
		case dtHour:
			t.min = 0
			fallthrough
		case dtMinute:
			t.sec = 0
			fallthrough
		case dtSecond:
			t.usec = 0
		case dtMilli:
			t.usec = t.usec / 1000 * 1000
		case dtMicro:
		default:
			if !deltaUnit(u) {
				return unitNotRecognized(low, intervalT)
			}
			e := pgerr.New(pgerr.FeatureNotSupported, "unit \"%s\" not supported for type %s", low, TypeName(intervalT))
			if u == dtWeek {
				e.Detail = "Months usually have fractional weeks."
			}
			return e
		}
		r, err := fromItm(t)
		if err != nil {
			return err
		}
		dst[i] = r
	}
	return nil
}

// extractScale is the numeric scale extract() gives a unit, -1 when the
// unit's result is not a plain scaled integer (julian on timestamps).
func extractScale(u dtUnit, t types.T) int {
	switch u {
	case dtSecond, dtEpoch:
		if t.ID == types.Date {
			return 0
		}
		return 6
	case dtMilli:
		return 3
	case dtJulian:
		if t.ID == types.Date {
			return 0
		}
		return -1
	}
	return 0
}

// extractRetConst narrows extract(unit, x) with a constant unit to its fixed
// numeric scale, e.g. numeric scale 0 for year, 6 for epoch.
func extractRetConst(args []types.T, consts []*vec.Vector) types.T {
	if len(consts) < 1 || consts[0] == nil || consts[0].IsNull(0) {
		return numericT
	}
	u, _ := lookupUnit(consts[0].S[0])
	if u == dtNone {
		return numericT
	}
	s := extractScale(u, args[1])
	if s < 0 {
		return numericT
	}
	// a fixed scale computes and groups as integers (as numeric text,
	// TPC-H Q7–Q9 ran 9–26 % slower), at the price of the ±Infinity of
	// an infinite date's year or epoch: a scaled integer has none (NULL)
	return types.T{ID: types.Numeric, Scale: s}
}

// fieldResult is one extracted value: an exact decimal (v·10^-scale) for
// extract, a float for date_part; null for fields of infinite values.
type fieldResult struct {
	v     int64
	scale int
	f     float64
	big   *big.Int // julian on timestamps: an exact decimal that needs more room
	null  bool     // NULL for extract and date_part
	inf   int      // ±1: the field of an infinite value is ±Infinity (f holds it too)
}

func intField(v int64) fieldResult { return fieldResult{v: v, f: float64(v)} }

// yearField etc. are PostgreSQL's BC-aware year numbering for extract.
func yearField(u dtUnit, y int64) int64 {
	switch u {
	case dtYear:
		if y > 0 {
			return y
		}
		return y - 1
	case dtDecade:
		if y >= 0 {
			return y / 10
		}
		return -((8 - (y - 1)) / 10)
	case dtCentury:
		if y > 0 {
			return (y + 99) / 100
		}
		return -((99 - (y - 1)) / 100)
	case dtMillennium:
		if y > 0 {
			return (y + 999) / 1000
		}
		return -((999 - (y - 1)) / 1000)
	}
	return y
}

// timestampField extracts u from wall-clock microseconds; off is the zone
// offset in seconds (timestamptz only), utc the instant for epoch.
func timestampField(u dtUnit, wall, utc int64, off int64, typ types.T) (fieldResult, error) {
	t := toTm(wall)
	secUS := int64(t.sec)*usPerSec + t.usec
	switch u {
	case dtMicro:
		r := intField(secUS)
		r.f = float64(t.sec)*1000000.0 + float64(t.usec)
		return r, nil
	case dtMilli:
		return fieldResult{v: secUS, scale: 3, f: float64(t.sec)*1000.0 + float64(t.usec)/1000.0}, nil
	case dtSecond:
		return fieldResult{v: secUS, scale: 6, f: float64(t.sec) + float64(t.usec)/1000000.0}, nil
	case dtMinute:
		return intField(int64(t.min)), nil
	case dtHour:
		return intField(int64(t.hour)), nil
	case dtDay:
		return intField(int64(t.mday)), nil
	case dtMonth:
		return intField(int64(t.mon)), nil
	case dtQuarter:
		return intField(int64((t.mon-1)/3 + 1)), nil
	case dtWeek:
		w, _ := isoWeek(t.days)
		return intField(int64(w)), nil
	case dtYear, dtDecade, dtCentury, dtMillennium:
		return intField(yearField(u, t.year)), nil
	case dtIsoyear:
		_, y := isoWeek(t.days)
		if y <= 0 {
			y--
		}
		return intField(y), nil
	case dtDow:
		return intField(int64(weekday(t.days))), nil
	case dtIsodow:
		d := weekday(t.days)
		if d == 0 {
			d = 7
		}
		return intField(int64(d)), nil
	case dtDoy:
		return intField(t.days - daysFromCivil(t.year, 1, 1) + 1), nil
	case dtEpoch:
		return fieldResult{v: utc, scale: 6, f: float64(utc) / 1000000.0}, nil
	case dtJulian:
		jd := t.days + unixEpochJD
		q, qs, _ := decDiv(big.NewInt(t.tod), 0, big.NewInt(usPerDay), 0)
		q.Add(q, new(big.Int).Mul(big.NewInt(jd), pow10Big(qs)))
		r := fieldResult{big: q, scale: qs}
		r.f = float64(jd) + (float64((int64(t.hour)*60+int64(t.min))*60+int64(t.sec))+float64(t.usec)/1000000.0)/86400.0
		return r, nil
	case dtTZ, dtTZHour, dtTZMinute:
		if typ.ID != types.Timestamptz {
			break
		}
		return tzField(u, off), nil
	}
	return fieldResult{}, errUnsupported
}

// tzField is timezone, timezone_hour or timezone_minute of a zone offset
// of off seconds east of UTC.
func tzField(u dtUnit, off int64) fieldResult {
	switch u {
	case dtTZ:
		return intField(off)
	case dtTZHour:
		return intField(off / 3600)
	}
	return intField(off / 60 % 60)
}

// errUnsupported is replaced by the caller with the unit-specific message.
var errUnsupported = pgerr.New(pgerr.FeatureNotSupported, "unsupported unit")

func dateField(u dtUnit, days int64) (fieldResult, error) {
	switch u {
	case dtDay, dtMonth, dtQuarter, dtYear, dtDecade, dtCentury, dtMillennium, dtIsoyear, dtWeek, dtDow, dtIsodow, dtDoy:
		return timestampField(u, days*usPerDay, days*usPerDay, 0, dateT)
	case dtJulian:
		return intField(days + unixEpochJD), nil
	case dtEpoch:
		return intField(days * 86400), nil
	}
	return fieldResult{}, errUnsupported
}

func intervalField(u dtUnit, v types.IntervalValue) (fieldResult, error) {
	t := toItm(v)
	switch u {
	case dtMicro:
		x := t.sec*usPerSec + t.usec
		r := intField(x)
		r.f = float64(t.sec)*1000000.0 + float64(t.usec)
		return r, nil
	case dtMilli:
		return fieldResult{v: t.sec*usPerSec + t.usec, scale: 3, f: float64(t.sec)*1000.0 + float64(t.usec)/1000.0}, nil
	case dtSecond:
		return fieldResult{v: t.sec*usPerSec + t.usec, scale: 6, f: float64(t.sec) + float64(t.usec)/1000000.0}, nil
	case dtMinute:
		return intField(t.min), nil
	case dtHour:
		return intField(t.hour), nil
	case dtDay:
		return intField(t.mday), nil
	case dtMonth:
		return intField(t.mon), nil
	case dtQuarter:
		return intField(t.mon/3 + 1), nil
	case dtYear:
		return intField(t.year), nil
	case dtDecade:
		return intField(t.year / 10), nil
	case dtCentury:
		return intField(t.year / 100), nil
	case dtMillennium:
		return intField(t.year / 1000), nil
	case dtEpoch:
		// 365.25 days a year, 30 a month, as PostgreSQL counts; computed
		// ×4 to stay in integers
		m := int64(v.Months)
		secs := (1461*(m/12) + 4*30*(m%12) + 4*int64(v.Days)) * (86400 / 4)
		f := float64(v.Micros)/1000000.0 + 365.25*86400*float64(m/12) + 30.0*86400*float64(m%12) + 86400.0*float64(v.Days)
		if x, ok := mul64(secs, usPerSec); ok {
			if s := x + v.Micros; (v.Micros >= 0) == (s >= x) {
				return fieldResult{v: s, scale: 6, f: f}, nil
			}
		}
		b := new(big.Int).Mul(big.NewInt(secs), big.NewInt(usPerSec))
		b.Add(b, big.NewInt(v.Micros))
		return fieldResult{big: b, scale: 6, f: f}, nil
	}
	return fieldResult{}, errUnsupported
}

// infiniteField is what extract/date_part give for ±infinity: ±Infinity
// for fields that grow with time, NULL for the others.
func infiniteField(u dtUnit, neg bool) fieldResult {
	switch u {
	case dtYear, dtDecade, dtCentury, dtMillennium, dtJulian, dtIsoyear, dtEpoch:
		k := 1
		if neg {
			k = -1
		}
		return fieldResult{f: math.Inf(k), inf: k}
	}
	return fieldResult{null: true}
}

// extractKernel serves extract (numeric output) and date_part (double).
func extractKernel(ctx *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	units, src := a[0].S[:n], a[1]
	typ := src.Type
	asFloat := out.Type.ID == types.Float64
	var fdst []float64
	if asFloat {
		fdst = outF64(out, n)
	} else {
		numOut(out, n)
	}
	nl := out.Nulls
	var z *zone
	if typ.ID == types.Timestamptz {
		z = newZone(ctx.loc())
	}
	if typ.ID != types.Interval && sameStrings(units) {
		if u, _ := lookupUnit(units[0]); extractFast(u, src, out, z, n) {
			return nil
		}
	}
	var up unitPicker
	for i := 0; i < n; i++ {
		if isNull(nl, i) {
			continue
		}
		u, low := up.get(units[i])
		if u == dtNone {
			return unitNotRecognized(low, partType(typ, asFloat))
		}
		var r fieldResult
		var err error
		switch typ.ID {
		case types.Timestamp, types.Timestamptz:
			us := src.I64[i]
			if !finiteTS(us) {
				if _, err := timestampField(u, 0, 0, 0, typ); err != nil {
					return unitNotSupported(low, typ)
				}
				r = infiniteField(u, us < 0)
				break
			}
			var off int64
			wall := us
			if z != nil {
				off = z.offsetAt(us)
				wall = us + off*usPerSec
			}
			r, err = timestampField(u, wall, us, off, typ)
		case types.Date:
			if d := src.I64[i]; !finiteDate(d) {
				// as an infinite timestamp: ±Infinity or NULL by field
				if _, err := dateField(u, 0); err != nil && !asFloat {
					return unitNotSupported(low, typ)
				}
				if _, err := timestampField(u, 0, 0, 0, timestampT); err != nil && asFloat {
					return unitNotSupported(low, timestampT)
				}
				r = infiniteField(u, d < 0)
				break
			}
			if asFloat {
				// date_part(text, date) is date_part on the timestamp
				r, err = timestampField(u, src.I64[i]*usPerDay, src.I64[i]*usPerDay, 0, timestampT)
				if err != nil {
					return unitNotSupported(low, timestampT)
				}
			} else {
				r, err = dateField(u, src.I64[i])
			}
		case types.Interval:
			r, err = intervalField(u, src.Iv[i])
		}
		if err != nil {
			return unitNotSupported(low, partType(typ, asFloat))
		}
		if r.null || (!asFloat && r.inf != 0 && !out.Type.DynNumeric()) {
			setNull(out, i, n)
			continue
		}
		if asFloat {
			fdst[i] = r.f
			continue
		}
		if r.inf != 0 {
			out.S[i] = types.NumericSpecialText(r.inf)
			continue
		}
		if r.big != nil {
			err = putDec(out, i, r.big, r.scale)
		} else {
			err = putDecI64(out, i, r.v, r.scale)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// extractFast is extract/date_part of the common integer fields of dates
// and timestamps in one tight loop per batch (unit constant). It reports
// false for units or outputs it does not cover, leaving them to the general
// loop; infinite timestamps send the batch there too.
func extractFast(u dtUnit, src, out *vec.Vector, z *zone, n int) bool {
	switch u {
	case dtYear, dtMonth, dtDay, dtQuarter, dtHour, dtMinute, dtDow, dtIsodow, dtDoy, dtEpoch:
	default:
		return false
	}
	isDate := src.Type.ID == types.Date
	if isDate && (u == dtHour || u == dtMinute) {
		if out.Type.ID != types.Float64 {
			return false // extract(hour from date) is an error
		}
	}
	in := src.I64[:n]
	for _, x := range in {
		if isDate && !finiteDate(x) || !isDate && !finiteTS(x) {
			return false
		}
	}
	scale := 0
	if u == dtEpoch && !isDate {
		scale = 6
	}
	const (
		toInt = iota
		toFloat
		toText
	)
	mode := toInt
	var ints []int64
	var floats []float64
	var texts []string
	switch {
	case out.Type.ID == types.Float64:
		mode, floats = toFloat, outF64(out, n)
	case out.Type.Scale < 0:
		mode, texts = toText, outS(out, n)
	case out.Type.Scale != scale:
		return false
	default:
		ints = outI64(out, n)
	}
	div := float64(types.Pow10(scale))
	for i, x := range in {
		var days, tod int64
		if isDate {
			days = x
		} else {
			wall := x
			if z != nil {
				wall += z.offsetAt(x) * usPerSec
			}
			days = floorDiv(wall, usPerDay)
			tod = wall - days*usPerDay
		}
		var v int64
		switch u {
		case dtHour:
			v = tod / usPerHour
		case dtMinute:
			v = tod / usPerMin % 60
		case dtDow:
			v = int64(weekday(days))
		case dtIsodow:
			v = int64((weekday(days)+6)%7 + 1)
		case dtEpoch:
			if isDate {
				v = days * 86400
			} else {
				v = x
			}
		default:
			y, m, d := civil(days)
			switch u {
			case dtYear:
				v = yearField(dtYear, y)
			case dtMonth:
				v = int64(m)
			case dtDay:
				v = int64(d)
			case dtQuarter:
				v = int64((m-1)/3 + 1)
			case dtDoy:
				v = days - daysFromCivil(y, 1, 1) + 1
			}
		}
		switch mode {
		case toInt:
			ints[i] = v
		case toFloat:
			floats[i] = float64(v) / div
		default:
			texts[i] = string(types.AppendNumeric(nil, v, scale))
		}
	}
	return true
}

func partType(t types.T, asFloat bool) types.T {
	if asFloat && t.ID == types.Date {
		return timestampT
	}
	return t
}

// age computes PostgreSQL's symbolic difference of two broken-down
// timestamps: field-wise subtraction, borrowing from the next field, with
// the month length taken from the earlier date.
func age(t1, t2 tm, neg bool) (types.IntervalValue, error) {
	fsec := t1.usec - t2.usec
	sec := int64(t1.sec - t2.sec)
	min := int64(t1.min - t2.min)
	hour := int64(t1.hour - t2.hour)
	mday := int64(t1.mday - t2.mday)
	mon := int64(t1.mon - t2.mon)
	year := t1.year - t2.year
	if neg {
		fsec, sec, min, hour, mday, mon, year = -fsec, -sec, -min, -hour, -mday, -mon, -year
	}
	for fsec < 0 {
		fsec += usPerSec
		sec--
	}
	for sec < 0 {
		sec += 60
		min--
	}
	for min < 0 {
		min += 60
		hour--
	}
	for hour < 0 {
		hour += 24
		mday--
	}
	for mday < 0 {
		if neg {
			mday += int64(daysIn(t1.year, t1.mon))
		} else {
			mday += int64(daysIn(t2.year, t2.mon))
		}
		mon--
	}
	for mon < 0 {
		mon += 12
		year--
	}
	if neg {
		fsec, sec, min, hour, mday, mon, year = -fsec, -sec, -min, -hour, -mday, -mon, -year
	}
	return fromItm(itm{year: year, mon: mon, mday: mday, hour: hour, min: min, sec: sec, usec: fsec})
}

// ageKernel is age(a, b) or, with one argument, age(current_date, a) where
// current_date is midnight of the statement's date in the session zone.
func ageKernel(tz, oneArg bool) Kernel {
	return func(ctx *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		dst := outIv(out, n)
		nl := out.Nulls
		z := newZone(ctx.loc())
		var today int64
		if oneArg {
			now := ctx.now().UnixMicro()
			today = floorDiv(z.toLocal(now), usPerDay) * usPerDay
			if tz {
				today = z.fromLocal(today)
			}
		}
		for i := 0; i < n; i++ {
			if isNull(nl, i) {
				continue
			}
			var x, y int64
			if oneArg {
				x, y = today, a[0].I64[i]
			} else {
				x, y = a[0].I64[i], a[1].I64[i]
			}
			if !finiteTS(x) || !finiteTS(y) {
				return pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
			}
			wx, wy := x, y
			if tz {
				wx, wy = z.toLocal(x), z.toLocal(y)
			}
			r, err := age(toTm(wx), toTm(wy), x < y)
			if err != nil {
				return err
			}
			dst[i] = r
		}
		return nil
	}
}

// civilDate validates make_date-style fields (negative years are BC) and
// returns the day number.
func civilDate(y, m, d int64) (int64, bool) {
	if y < 0 {
		y = -y
		y = -(y - 1)
	} else if y == 0 {
		return 0, false
	}
	if m < 1 || m > 12 || d < 1 || d > int64(daysIn(y, int(m))) || y < -4713 || y > 5874897 {
		return 0, false
	}
	days := daysFromCivil(y, int(m), int(d))
	if days < minDate || days > maxDate {
		return 0, false
	}
	return days, true
}

func kMakeDate(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	ys, ms, ds := a[0].I64[:n], a[1].I64[:n], a[2].I64[:n]
	dst := outI64(out, n)
	nl := out.Nulls
	for i := range dst {
		if isNull(nl, i) {
			continue
		}
		days, ok := civilDate(ys[i], ms[i], ds[i])
		if !ok {
			y := ys[i]
			if y < 0 {
				y = -y
			}
			return pgerr.New(pgerr.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y, ms[i], ds[i])
		}
		dst[i] = days
	}
	return nil
}

// fmtG formats like C's %02g.
func fmtG(f float64) string {
	s := strconv.FormatFloat(f, 'g', 6, 64)
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}

func makeTSKernel(tz bool) Kernel {
	return func(ctx *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		dst := outI64(out, n)
		nl := out.Nulls
		z := newZone(ctx.loc())
		lastZone, zoneSet := "", false
		for i := range dst {
			if isNull(nl, i) {
				continue
			}
			y, mo, d, h, mi, sec := a[0].I64[i], a[1].I64[i], a[2].I64[i], a[3].I64[i], a[4].I64[i], a[5].F64[i]
			days, ok := civilDate(y, mo, d)
			if !ok {
				return pgerr.New(pgerr.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y, mo, d)
			}
			secUS := math.RoundToEven(sec * 1e6)
			if h < 0 || h > 24 || mi < 0 || mi >= 60 || math.IsNaN(sec) || secUS < 0 || secUS > 60e6 ||
				(h*60+mi)*60*usPerSec+int64(secUS) > usPerDay {
				return pgerr.New(pgerr.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", h, mi, fmtG(sec))
			}
			us := days*usPerDay + (h*60+mi)*60*usPerSec + int64(secUS)
			if !validTS(us) {
				return pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: %d-%02d-%02d %d:%02d:%s", y, mo, d, h, mi, fmtG(sec))
			}
			if tz {
				if len(a) > 6 && (!zoneSet || a[6].S[i] != lastZone) {
					zz, err := loadZone(a[6].S[i])
					if err != nil {
						return err
					}
					z, lastZone, zoneSet = zz, a[6].S[i], true
				}
				us = z.fromLocal(us)
			}
			dst[i] = us
		}
		return nil
	}
}

func kMakeInterval(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	dst := outIv(out, n)
	nl := out.Nulls
	for i := range dst {
		if isNull(nl, i) {
			continue
		}
		var f [6]int64
		for k := 0; k < len(a) && k < 6; k++ {
			f[k] = a[k].I64[i]
		}
		secs := 0.0
		if len(a) == 7 {
			secs = a[6].F64[i]
		}
		if math.IsInf(secs, 0) || math.IsNaN(secs) {
			return errIntervalRange
		}
		months := f[0]*12 + f[1]
		days := f[2]*7 + f[3]
		us := math.RoundToEven(secs * 1e6)
		t := float64(f[4])*float64(usPerHour) + float64(f[5])*float64(usPerMin) + us
		if months > math.MaxInt32 || months < math.MinInt32 || days > math.MaxInt32 || days < math.MinInt32 || math.Abs(t) >= 9.2e18 {
			return errIntervalRange
		}
		dst[i] = types.IntervalValue{Months: int32(months), Days: int32(days), Micros: f[4]*usPerHour + f[5]*usPerMin + int64(us)}
	}
	return nil
}

func kToTimestampEpoch(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].F64[:n]
	dst := outI64(out, n)
	nl := out.Nulls
	for i, f := range src {
		if isNull(nl, i) {
			continue
		}
		switch {
		case math.IsNaN(f):
			return pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp cannot be NaN")
		case math.IsInf(f, 1):
			dst[i] = types.InfinityMicros
		case math.IsInf(f, -1):
			dst[i] = types.NegInfinityMicros
		default:
			if f < float64(minTimestamp)/1e6 || f >= 9223371331200000000.0/1e6 {
				return pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", strconv.FormatFloat(f, 'g', -1, 64))
			}
			dst[i] = int64(math.RoundToEven(f * 1e6))
		}
	}
	return nil
}

func kDateBin(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	strides, src, origins := a[0].Iv[:n], a[1].I64[:n], a[2].I64[:n]
	dst := outI64(out, n)
	nl := out.Nulls
	for i, ts := range src {
		if isNull(nl, i) {
			continue
		}
		if !finiteTS(ts) {
			dst[i] = ts
			continue
		}
		origin, st := origins[i], strides[i]
		if !finiteTS(origin) {
			return pgerr.New(pgerr.DatetimeFieldOverflow, "origin out of range")
		}
		if st.Months != 0 {
			return pgerr.New(pgerr.FeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
		}
		stride, ok := mul64(int64(st.Days), usPerDay)
		if !ok || (st.Micros > 0 && stride > math.MaxInt64-st.Micros) || (st.Micros < 0 && stride < math.MinInt64-st.Micros) {
			return errIntervalRange
		}
		stride += st.Micros
		if stride <= 0 {
			return pgerr.New(pgerr.DatetimeFieldOverflow, "stride must be greater than zero")
		}
		diff := ts - origin
		if (origin < 0 && ts > 0 && diff < 0) || (origin > 0 && ts < 0 && diff > 0) {
			return errIntervalRange
		}
		delta := diff - diff%stride
		if diff < 0 && delta != diff {
			delta -= stride
		}
		r := origin + delta
		if !validTS(r) {
			return errTimestampRange
		}
		dst[i] = r
	}
	return nil
}

func justifyKernel(f func(types.IntervalValue) (types.IntervalValue, error)) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		src := a[0].Iv[:n]
		dst := outIv(out, n)
		nl := out.Nulls
		for i, v := range src {
			if isNull(nl, i) {
				continue
			}
			r, err := f(v)
			if err != nil {
				return err
			}
			dst[i] = r
		}
		return nil
	}
}

func addMonths32(m int32, d int64) (int32, error) {
	s := int64(m) + d
	if s > math.MaxInt32 || s < math.MinInt32 {
		return 0, errIntervalRange
	}
	return int32(s), nil
}

func justifyDays(v types.IntervalValue) (types.IntervalValue, error) {
	whole := v.Days / types.DaysPerMonth
	v.Days -= whole * types.DaysPerMonth
	m, err := addMonths32(v.Months, int64(whole))
	if err != nil {
		return v, err
	}
	v.Months = m
	if v.Months > 0 && v.Days < 0 {
		v.Days += types.DaysPerMonth
		v.Months--
	} else if v.Months < 0 && v.Days > 0 {
		v.Days -= types.DaysPerMonth
		v.Months++
	}
	return v, nil
}

func justifyHours(v types.IntervalValue) (types.IntervalValue, error) {
	whole := v.Micros / usPerDay
	v.Micros -= whole * usPerDay
	d := int64(v.Days) + whole
	if d > math.MaxInt32 || d < math.MinInt32 {
		return v, errIntervalRange
	}
	v.Days = int32(d)
	if v.Days > 0 && v.Micros < 0 {
		v.Micros += usPerDay
		v.Days--
	} else if v.Days < 0 && v.Micros > 0 {
		v.Micros -= usPerDay
		v.Days++
	}
	return v, nil
}

func justifyInterval(v types.IntervalValue) (types.IntervalValue, error) {
	var err error
	if (v.Days > 0 && v.Micros > 0) || (v.Days < 0 && v.Micros < 0) {
		whole := v.Days / types.DaysPerMonth
		v.Days -= whole * types.DaysPerMonth
		if v.Months, err = addMonths32(v.Months, int64(whole)); err != nil {
			return v, err
		}
	}
	wholeDay := v.Micros / usPerDay
	v.Micros -= wholeDay * usPerDay
	days := int64(v.Days) + wholeDay
	whole := days / types.DaysPerMonth
	days -= whole * types.DaysPerMonth
	if v.Months, err = addMonths32(v.Months, whole); err != nil {
		return v, err
	}
	v.Days = int32(days)
	if v.Months > 0 && (v.Days < 0 || (v.Days == 0 && v.Micros < 0)) {
		v.Days += types.DaysPerMonth
		v.Months--
	} else if v.Months < 0 && (v.Days > 0 || (v.Days == 0 && v.Micros > 0)) {
		v.Days -= types.DaysPerMonth
		v.Months++
	}
	if v.Days > 0 && v.Micros < 0 {
		v.Micros += usPerDay
		v.Days--
	} else if v.Days < 0 && v.Micros > 0 {
		v.Micros -= usPerDay
		v.Days++
	}
	return v, nil
}

func kIsFiniteDate(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].I64[:n]
	dst := outB(out, n)
	for i, d := range src {
		dst[i] = d != types.DateInfinity && d != types.DateNegInfinity
	}
	return nil
}

func kIsFiniteTS(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].I64[:n]
	dst := outB(out, n)
	for i, us := range src {
		dst[i] = finiteTS(us)
	}
	return nil
}

func kIsFiniteInterval(_ *Ctx, out *vec.Vector, _ []*vec.Vector, n int) error {
	dst := outB(out, n)
	for i := range dst {
		dst[i] = true
	}
	return nil
}

// zoneArg resolves the zone argument of AT TIME ZONE: a name or an interval
// (a fixed offset east of UTC without months or days).
type zoneArg struct {
	last   string
	lastIv types.IntervalValue
	set    bool
	z      *zone
}

func (p *zoneArg) get(v *vec.Vector, i int) (*zone, error) {
	if v.Type.ID == types.Interval {
		iv := v.Iv[i]
		if p.set && iv == p.lastIv {
			return p.z, nil
		}
		if iv.Months != 0 || iv.Days != 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "interval time zone \"%s\" must not include months or days", types.AppendInterval(nil, iv))
		}
		p.lastIv, p.set, p.z = iv, true, fixedZone(iv.Micros/usPerSec)
		if iv.Micros/usPerSec == 0 {
			p.z = newZone(time.UTC)
		}
		return p.z, nil
	}
	s := v.S[i]
	if p.set && s == p.last {
		return p.z, nil
	}
	z, err := loadZone(s)
	if err != nil {
		return nil, err
	}
	p.last, p.set, p.z = s, true, z
	return z, nil
}

// kTimezoneOfTZ is timestamptz AT TIME ZONE zone: the wall clock there.
func kTimezoneOfTZ(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[1].I64[:n]
	dst := outI64(out, n)
	nl := out.Nulls
	var p zoneArg
	for i, us := range src {
		if isNull(nl, i) {
			continue
		}
		z, err := p.get(a[0], i)
		if err != nil {
			return err
		}
		r := z.toLocal(us)
		if finiteTS(r) && !validTS(r) {
			return errTimestampRange
		}
		dst[i] = r
	}
	return nil
}

// kTimezoneOfTS is timestamp AT TIME ZONE zone: that wall clock there, as
// an instant.
func kTimezoneOfTS(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[1].I64[:n]
	dst := outI64(out, n)
	nl := out.Nulls
	var p zoneArg
	for i, us := range src {
		if isNull(nl, i) {
			continue
		}
		z, err := p.get(a[0], i)
		if err != nil {
			return err
		}
		r := z.fromLocal(us)
		if finiteTS(r) && !validTS(r) {
			return errTimestampRange
		}
		dst[i] = r
	}
	return nil
}

func kNow(ctx *Ctx, out *vec.Vector, _ []*vec.Vector, n int) error {
	dst := outI64(out, n)
	now := ctx.now().UnixMicro()
	for i := range dst {
		dst[i] = now
	}
	return nil
}

func kClock(_ *Ctx, out *vec.Vector, _ []*vec.Vector, n int) error {
	return kNow(nil, out, nil, n)
}
