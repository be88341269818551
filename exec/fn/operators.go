package fn

import (
	"math"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Date, timestamp and interval arithmetic, as PostgreSQL's date.c and
// timestamp.c define it. Operators with the interval on the left are the
// same kernels with the arguments swapped.

func init() {
	regOp("+", strict(kDatePlusInt, dateT, dateT, int4T))
	regOp("+", strict(swap(kDatePlusInt), dateT, int4T, dateT))
	regOp("-", strict(kDateMinusInt, dateT, dateT, int4T))
	regOp("-", strict(kDateMinusDate, int4T, dateT, dateT))

	regOp("+", strict(tsIntervalKernel(false, false, 1), timestampT, dateT, intervalT))
	regOp("+", strict(swap(tsIntervalKernel(false, false, 1)), timestampT, intervalT, dateT))
	regOp("-", strict(tsIntervalKernel(false, false, -1), timestampT, dateT, intervalT))
	regOp("+", strict(tsIntervalKernel(true, false, 1), timestampT, timestampT, intervalT))
	regOp("+", strict(swap(tsIntervalKernel(true, false, 1)), timestampT, intervalT, timestampT))
	regOp("-", strict(tsIntervalKernel(true, false, -1), timestampT, timestampT, intervalT))
	regOp("+", stable(tsIntervalKernel(true, true, 1), timestamptzT, timestamptzT, intervalT))
	regOp("+", stable(swap(tsIntervalKernel(true, true, 1)), timestamptzT, intervalT, timestamptzT))
	regOp("-", stable(tsIntervalKernel(true, true, -1), timestamptzT, timestamptzT, intervalT))

	regOp("-", strict(kTSMinusTS, intervalT, timestampT, timestampT))
	regOp("-", strict(kTSMinusTS, intervalT, timestamptzT, timestamptzT))

	regOp("+", strict(intervalAddKernel(1), intervalT, intervalT, intervalT))
	regOp("-", strict(intervalAddKernel(-1), intervalT, intervalT, intervalT))
	regOp("*", strict(kIntervalMul, intervalT, intervalT, float8T))
	regOp("*", strict(swap(kIntervalMul), intervalT, float8T, intervalT))
	regOp("/", strict(kIntervalDiv, intervalT, intervalT, float8T))
	regPrefix("-", strict(kIntervalNeg, intervalT, intervalT))
	reg("interval_um", strict(kIntervalNeg, intervalT, intervalT))

	for op, want := range map[string][2]int{"=": {0, 0}, "<>": {-1, 1}, "<": {-1, -1}, "<=": {-1, 0}, ">": {1, 1}, ">=": {0, 1}} {
		regOp(op, strict(intervalCmpKernel(want), boolT, intervalT, intervalT))
	}
}

// swap adapts a kernel to operands given in the other order.
func swap(k Kernel) Kernel {
	return func(ctx *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		return k(ctx, out, []*vec.Vector{a[1], a[0]}, n)
	}
}

func validDate(d int64) bool { return d >= minDate && d <= maxDate }

func finiteDate(d int64) bool { return d != types.DateInfinity && d != types.DateNegInfinity }

// dateToTS is a date's midnight, infinities kept infinite; a date past
// the timestamp range is 22008, as date2timestamp has it (the product
// wrapped around: DATE '5874897-12-31' + INTERVAL '1 year' was a date in
// 29358).
func dateToTS(d int64) (int64, error) {
	switch d {
	case types.DateInfinity:
		return types.InfinityMicros, nil
	case types.DateNegInfinity:
		return types.NegInfinityMicros, nil
	}
	if d >= types.InfinityMicros/usPerDay || d < minTimestamp/usPerDay || !validTS(d*usPerDay) {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range for timestamp")
	}
	return d * usPerDay, nil
}

// An infinite date plus or minus days stays itself, as date_pli has it.

func kDatePlusInt(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	x, y := a[0].I64[:n], a[1].I64[:n]
	dst := outI64(out, n)
	nl := out.Nulls
	for i := range dst {
		if !finiteDate(x[i]) {
			dst[i] = x[i]
			continue
		}
		r := x[i] + y[i]
		if !validDate(r) && !isNull(nl, i) {
			return errDateRange
		}
		dst[i] = r
	}
	return nil
}

func kDateMinusInt(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	x, y := a[0].I64[:n], a[1].I64[:n]
	dst := outI64(out, n)
	nl := out.Nulls
	for i := range dst {
		if !finiteDate(x[i]) {
			dst[i] = x[i]
			continue
		}
		r := x[i] - y[i]
		if !validDate(r) && !isNull(nl, i) {
			return errDateRange
		}
		dst[i] = r
	}
	return nil
}

func kDateMinusDate(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	x, y := a[0].I64[:n], a[1].I64[:n]
	dst := outI64(out, n)
	nl := out.Nulls
	for i := range dst {
		if (!finiteDate(x[i]) || !finiteDate(y[i])) && !isNull(nl, i) {
			return pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite dates")
		}
		dst[i] = x[i] - y[i]
	}
	return nil
}

// addMonthsWall adds months to a wall-clock timestamp, keeping the time of
// day and clamping the day to the new month's length.
func addMonthsWall(us int64, months int32) (int64, error) {
	days := floorDiv(us, usPerDay)
	tod := us - days*usPerDay
	y, m, d := civil(days)
	total := y*12 + int64(m-1) + int64(months)
	y, m = floorDiv(total, 12), int(floorMod(total, 12))+1
	d = min(d, daysIn(y, m))
	return fromTm(y, m, d, tod)
}

// tsPlusInterval is timestamp + interval on wall-clock time; z, when set,
// makes it timestamptz arithmetic: months and days move the local calendar
// of the zone and the offset is found again, the time part is exact.
func tsPlusInterval(us int64, v types.IntervalValue, z *zone) (int64, error) {
	if !finiteTS(us) {
		return us, nil
	}
	var err error
	if v.Months != 0 {
		wall := us
		if z != nil {
			wall = z.toLocal(us)
		}
		if wall, err = addMonthsWall(wall, v.Months); err != nil {
			return 0, err
		}
		us = wall
		if z != nil {
			us = z.fromLocal(wall)
		}
	}
	if v.Days != 0 {
		wall := us
		if z != nil {
			wall = z.toLocal(us)
		}
		wall += int64(v.Days) * usPerDay
		if !validTS(wall) {
			return 0, errTimestampRange
		}
		us = wall
		if z != nil {
			us = z.fromLocal(wall)
		}
	}
	r := us + v.Micros
	if (v.Micros > 0 && r < us) || (v.Micros < 0 && r > us) || !validTS(r) {
		return 0, errTimestampRange
	}
	return r, nil
}

func negInterval(v types.IntervalValue) (types.IntervalValue, error) {
	if v.Months == math.MinInt32 || v.Days == math.MinInt32 || v.Micros == math.MinInt64 {
		return v, errIntervalRange
	}
	return types.IntervalValue{Months: -v.Months, Days: -v.Days, Micros: -v.Micros}, nil
}

// tsIntervalKernel is date/timestamp/timestamptz ± interval; dates become
// timestamps at midnight first.
func tsIntervalKernel(isTS, tz bool, sign int) Kernel {
	return func(ctx *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		src, ivs := a[0].I64[:n], a[1].Iv[:n]
		dst := outI64(out, n)
		nl := out.Nulls
		var z *zone
		if tz {
			z = newZone(ctx.loc())
		}
		for i, us := range src {
			if isNull(nl, i) {
				continue
			}
			if !isTS {
				var err error
				if us, err = dateToTS(us); err != nil {
					return err
				}
			}
			v := ivs[i]
			if sign < 0 {
				var err error
				if v, err = negInterval(v); err != nil {
					return err
				}
			}
			r, err := tsPlusInterval(us, v, z)
			if err != nil {
				return err
			}
			dst[i] = r
		}
		return nil
	}
}

// kTSMinusTS is timestamp - timestamp (either kind): the exact difference
// with whole days moved into the day field (justify_hours).
func kTSMinusTS(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	x, y := a[0].I64[:n], a[1].I64[:n]
	dst := outIv(out, n)
	nl := out.Nulls
	for i := range dst {
		if isNull(nl, i) {
			continue
		}
		if !finiteTS(x[i]) || !finiteTS(y[i]) {
			return pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
		}
		d := x[i] - y[i]
		if (y[i] < 0 && d < x[i]) || (y[i] > 0 && d > x[i]) {
			return errIntervalRange
		}
		r, err := justifyHours(types.IntervalValue{Micros: d})
		if err != nil {
			return err
		}
		dst[i] = r
	}
	return nil
}

func addInterval(x, y types.IntervalValue, sign int) (types.IntervalValue, error) {
	m := int64(x.Months) + int64(sign)*int64(y.Months)
	d := int64(x.Days) + int64(sign)*int64(y.Days)
	if m > math.MaxInt32 || m < math.MinInt32 || d > math.MaxInt32 || d < math.MinInt32 {
		return x, errIntervalRange
	}
	var us int64
	if sign > 0 {
		us = x.Micros + y.Micros
		if (y.Micros > 0 && us < x.Micros) || (y.Micros < 0 && us > x.Micros) {
			return x, errIntervalRange
		}
	} else {
		us = x.Micros - y.Micros
		if (y.Micros < 0 && us < x.Micros) || (y.Micros > 0 && us > x.Micros) {
			return x, errIntervalRange
		}
	}
	return types.IntervalValue{Months: int32(m), Days: int32(d), Micros: us}, nil
}

func intervalAddKernel(sign int) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		x, y := a[0].Iv[:n], a[1].Iv[:n]
		dst := outIv(out, n)
		nl := out.Nulls
		for i := range dst {
			r, err := addInterval(x[i], y[i], sign)
			if err != nil && !isNull(nl, i) {
				return err
			}
			dst[i] = r
		}
		return nil
	}
}

// tsRound is PostgreSQL's TSROUND: round to microsecond precision so that
// float noise does not leave 0.999999 days behind.
func tsRound(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }

func fitsInt32(f float64) bool { return !math.IsNaN(f) && f <= math.MaxInt32 && f >= math.MinInt32 }

// mulInterval is interval_mul: whole months and days scale as they are,
// their fractions cascade down to days and seconds (never up).
func mulInterval(v types.IntervalValue, factor float64) (types.IntervalValue, error) {
	rm := float64(v.Months) * factor
	if !fitsInt32(rm) {
		return v, errIntervalRange
	}
	rd := float64(v.Days) * factor
	if !fitsInt32(rd) {
		return v, errIntervalRange
	}
	r := types.IntervalValue{Months: int32(rm), Days: int32(rd)}
	monthRem := tsRound((float64(v.Months)*factor - float64(r.Months)) * types.DaysPerMonth)
	secRem := tsRound((float64(v.Days)*factor - float64(r.Days) + monthRem - float64(int32(monthRem))) * 86400)
	if math.Abs(secRem) >= 86400 {
		d := int64(r.Days) + int64(int32(secRem/86400))
		if d > math.MaxInt32 || d < math.MinInt32 {
			return v, errIntervalRange
		}
		r.Days = int32(d)
		secRem -= float64(int32(secRem/86400)) * 86400
	}
	d := int64(r.Days) + int64(int32(monthRem))
	if d > math.MaxInt32 || d < math.MinInt32 {
		return v, errIntervalRange
	}
	r.Days = int32(d)
	t := math.RoundToEven(float64(v.Micros)*factor + secRem*1e6)
	if math.IsNaN(t) || t < -9223372036854775808.0 || t >= 9223372036854775808.0 {
		return v, errIntervalRange
	}
	r.Micros = int64(t)
	return r, nil
}

func kIntervalMul(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	x, f := a[0].Iv[:n], a[1].F64[:n]
	dst := outIv(out, n)
	nl := out.Nulls
	for i := range dst {
		if isNull(nl, i) {
			continue
		}
		r, err := mulInterval(x[i], f[i])
		if err != nil {
			return err
		}
		dst[i] = r
	}
	return nil
}

// divInterval is interval_div, the same cascade as mulInterval.
func divInterval(v types.IntervalValue, factor float64) (types.IntervalValue, error) {
	if factor == 0 {
		return v, errDivByZero
	}
	rm := float64(v.Months) / factor
	rd := float64(v.Days) / factor
	if !fitsInt32(rm) || !fitsInt32(rd) {
		return v, errIntervalRange
	}
	r := types.IntervalValue{Months: int32(rm), Days: int32(rd)}
	monthRem := tsRound((float64(v.Months)/factor - float64(r.Months)) * types.DaysPerMonth)
	secRem := tsRound((float64(v.Days)/factor - float64(r.Days) + monthRem - float64(int32(monthRem))) * 86400)
	if math.Abs(secRem) >= 86400 {
		r.Days += int32(secRem / 86400)
		secRem -= float64(int32(secRem/86400)) * 86400
	}
	r.Days += int32(monthRem)
	t := math.RoundToEven(float64(v.Micros)/factor + secRem*1e6)
	if math.IsNaN(t) || t < -9223372036854775808.0 || t >= 9223372036854775808.0 {
		return v, errIntervalRange
	}
	r.Micros = int64(t)
	return r, nil
}

func kIntervalDiv(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	x, f := a[0].Iv[:n], a[1].F64[:n]
	dst := outIv(out, n)
	nl := out.Nulls
	for i := range dst {
		if isNull(nl, i) {
			continue
		}
		r, err := divInterval(x[i], f[i])
		if err != nil {
			return err
		}
		dst[i] = r
	}
	return nil
}

func kIntervalNeg(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src := a[0].Iv[:n]
	dst := outIv(out, n)
	nl := out.Nulls
	for i, v := range src {
		r, err := negInterval(v)
		if err != nil && !isNull(nl, i) {
			return err
		}
		dst[i] = r
	}
	return nil
}

// intervalCmpKernel compares by total length (types.CompareInterval); want
// holds the comparison results that make the operator true.
func intervalCmpKernel(want [2]int) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		x, y := a[0].Iv[:n], a[1].Iv[:n]
		dst := outB(out, n)
		for i := range dst {
			c := types.CompareInterval(x[i], y[i])
			dst[i] = c == want[0] || c == want[1]
		}
		return nil
	}
}

// CompareInterval orders two intervals as PostgreSQL does (a month is 30
// days, a day 24 hours); it is types.CompareInterval, here for callers that
// look for interval support in this package.
func CompareInterval(a, b types.IntervalValue) int { return types.CompareInterval(a, b) }
