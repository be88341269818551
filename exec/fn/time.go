package fn

import (
	"math"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Operators and functions of time and timetz, as PostgreSQL's date.c
// defines them: time − time is an interval, time ± interval wraps around
// midnight, date + time is a timestamp, date + timetz a timestamptz.

var (
	timeT   = types.TimeT
	timeTZT = types.TimeTZT
)

func init() {
	regOp("-", strict(kTimeMinusTime, intervalT, timeT, timeT))
	regOp("+", strict(timeIntervalKernel(false, 1), timeT, timeT, intervalT))
	regOp("+", strict(swap(timeIntervalKernel(false, 1)), timeT, intervalT, timeT))
	regOp("-", strict(timeIntervalKernel(false, -1), timeT, timeT, intervalT))
	regOp("+", strict(timeIntervalKernel(true, 1), timeTZT, timeTZT, intervalT))
	regOp("+", strict(swap(timeIntervalKernel(true, 1)), timeTZT, intervalT, timeTZT))
	regOp("-", strict(timeIntervalKernel(true, -1), timeTZT, timeTZT, intervalT))
	regOp("+", strict(dateTimeKernel(false), timestampT, dateT, timeT))
	regOp("+", strict(swap(dateTimeKernel(false)), timestampT, timeT, dateT))
	regOp("+", strict(dateTimeKernel(true), timestamptzT, dateT, timeTZT))
	regOp("+", strict(swap(dateTimeKernel(true)), timestamptzT, timeTZT, dateT))
	for _, t := range []types.T{timeT, timeTZT} {
		reg("date_part", &Overload{Args: []types.T{textT, t}, Ret: ret(float8T), Strict: true, Kernel: timeExtractKernel})
		reg("extract", &Overload{Args: []types.T{textT, t}, Ret: ret(numericT), RetConst: extractRetConst, Strict: true, Kernel: timeExtractKernel})
	}
	reg("make_time", strict(kMakeTime, timeT, int4T, int4T, float8T))
}

func kTimeMinusTime(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	x, y := a[0].I64[:n], a[1].I64[:n]
	dst := outIv(out, n)
	for i := range dst {
		dst[i] = types.IntervalValue{Micros: x[i] - y[i]}
	}
	return nil
}

// timeIntervalKernel adds the interval's time part (months and days do
// not move a time of day) and wraps into [0, 24h), as time_pl_interval.
func timeIntervalKernel(tz bool, sign int64) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		x, y := a[0].I64[:n], a[1].Iv[:n]
		dst := outI64(out, n)
		for i := range dst {
			if !tz {
				dst[i] = floorMod(x[i]+sign*(y[i].Micros%usPerDay), usPerDay)
				continue
			}
			local, off := types.UnpackTimeTZ(x[i])
			dst[i] = types.PackTimeTZ(floorMod(local+sign*(y[i].Micros%usPerDay), usPerDay), off)
		}
		return nil
	}
}

func dateTimeKernel(tz bool) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		d, t := a[0].I64[:n], a[1].I64[:n]
		dst := outI64(out, n)
		nl := out.Nulls
		for i := range dst {
			tod := t[i]
			var off int64
			if tz {
				local, east := types.UnpackTimeTZ(tod)
				tod, off = local, int64(east)
			}
			us := d[i]*usPerDay + tod - off*usPerSec
			if !validTS(us) && !isNull(nl, i) {
				return errTimestampRange
			}
			dst[i] = us
		}
		return nil
	}
}

// timeField extracts u from a time of day; tz is set for timetz, with the
// offset east of UTC in seconds.
func timeField(u dtUnit, us int64, tz bool, off int64) (fieldResult, error) {
	sec := us / usPerSec % 60
	frac := us % usPerSec
	switch u {
	case dtMicro:
		return intField(sec*usPerSec + frac), nil
	case dtMilli:
		return fieldResult{v: sec*usPerSec + frac, scale: 3, f: float64(sec)*1000.0 + float64(frac)/1000.0}, nil
	case dtSecond:
		return fieldResult{v: sec*usPerSec + frac, scale: 6, f: float64(sec) + float64(frac)/1000000.0}, nil
	case dtMinute:
		return intField(us / usPerMin % 60), nil
	case dtHour:
		return intField(us / usPerHour), nil
	case dtEpoch:
		e := us - off*usPerSec
		return fieldResult{v: e, scale: 6, f: float64(e) / 1000000.0}, nil
	case dtTZ, dtTZHour, dtTZMinute:
		if !tz {
			break
		}
		return tzField(u, off), nil
	}
	return fieldResult{}, errUnsupported
}

// timeExtractKernel serves extract (numeric) and date_part (double) of
// time and timetz.
func timeExtractKernel(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
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
	tz := typ.ID == types.TimeTZ
	var up unitPicker
	for i := 0; i < n; i++ {
		if isNull(nl, i) {
			continue
		}
		u, low := up.get(units[i])
		if u == dtNone {
			return unitNotRecognized(low, typ)
		}
		us, off := src.I64[i], int64(0)
		if tz {
			local, east := types.UnpackTimeTZ(us)
			us, off = local, int64(east)
		}
		r, err := timeField(u, us, tz, off)
		if err != nil {
			return unitNotSupported(low, typ)
		}
		if asFloat {
			fdst[i] = r.f
			continue
		}
		if err := putDecI64(out, i, r.v, r.scale); err != nil {
			return err
		}
	}
	return nil
}

// kMakeTime is make_time(hour, min, sec), checked as PostgreSQL does.
func kMakeTime(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	h, m, s := a[0].I64[:n], a[1].I64[:n], a[2].F64[:n]
	dst := outI64(out, n)
	nl := out.Nulls
	for i := range dst {
		if isNull(nl, i) {
			continue
		}
		if h[i] < 0 || m[i] < 0 || m[i] > 59 || s[i] < 0 || s[i] > 60 || math.IsNaN(s[i]) ||
			h[i]*usPerHour+m[i]*usPerMin+int64(math.Round(s[i]*1e6)) > usPerDay {
			return pgerr.New(pgerr.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", h[i], m[i], string(types.AppendFloat(nil, s[i], 64)))
		}
		dst[i] = h[i]*usPerHour + m[i]*usPerMin + int64(math.Round(s[i]*1e6))
	}
	return nil
}
