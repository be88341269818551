package exec

import (
	"math"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Casts to and from time, timetz and json, as PostgreSQL's date.c and
// json.c define them. Infinite timestamps give NULL times, as
// timestamp_time does.

func parseTimeInto(out *vec.Vector, s string, loc *time.Location) error {
	switch out.Type.ID {
	case types.Time:
		x, err := types.ParseTimeIn(s, loc)
		if err != nil {
			return err
		}
		out.AppendInt(x)
	case types.TimeTZ:
		x, err := types.ParseTimeTZ(s, loc)
		if err != nil {
			return err
		}
		out.AppendInt(x)
	default:
		x, err := types.ParseJSON(s)
		if err != nil {
			return err
		}
		out.AppendString(x)
	}
	return nil
}

func castTimeOne(v *vec.Vector, i int, out *vec.Vector, loc *time.Location) error {
	from, to := v.Type, out.Type
	finite := func(us int64) bool { return us != types.InfinityMicros && us != types.NegInfinityMicros }
	switch {
	case to.ID == types.Time && from.ID == types.Timestamp:
		if !finite(v.I64[i]) {
			out.AppendNull()
			return nil
		}
		out.AppendInt(timeOfDay(v.I64[i]))
	case (to.ID == types.Time || to.ID == types.TimeTZ) && from.ID == types.Timestamptz:
		us := v.I64[i]
		if !finite(us) {
			out.AppendNull()
			return nil
		}
		_, off := time.UnixMicro(us).In(loc).Zone()
		local := timeOfDay(us + int64(off)*1e6)
		if to.ID == types.Time {
			out.AppendInt(local)
		} else {
			out.AppendInt(types.PackTimeTZ(local, off))
		}
	case to.ID == types.TimeTZ && from.ID == types.Time:
		_, off := time.Now().In(loc).Zone()
		out.AppendInt(types.PackTimeTZ(v.I64[i], off))
	case to.ID == types.Time && from.ID == types.TimeTZ:
		local, _ := types.UnpackTimeTZ(v.I64[i])
		out.AppendInt(local)
	case to.ID == types.Interval && from.ID == types.Time:
		out.AppendInterval(types.IntervalValue{Micros: v.I64[i]})
	case to.ID == types.Time && from.ID == types.Interval:
		out.AppendInt(timeOfDay(v.Iv[i].Micros))
	default:
		return cannotCast(from, to)
	}
	return nil
}

// timeOfDay is the time of day of a microsecond count, floored into [0, 24h).
func timeOfDay(us int64) int64 {
	r := us % types.MicrosPerDay
	if r < 0 {
		r += types.MicrosPerDay
	}
	return r
}

// infiniteTimestamp maps an infinite date or timestamp to the infinite
// timestamp of the same sign, as date2timestamp and friends do.
func infiniteTimestamp(v *vec.Vector, i int) (int64, bool) {
	x := v.I64[i]
	switch v.Type.ID {
	case types.Date:
		switch x {
		case types.DateInfinity:
			return types.InfinityMicros, true
		case types.DateNegInfinity:
			return types.NegInfinityMicros, true
		case dateBeyond:
			return types.InfinityMicros - 1, true
		case -dateBeyond:
			return types.NegInfinityMicros + 1, true
		}
	case types.Timestamp, types.Timestamptz:
		if x == types.InfinityMicros || x == types.NegInfinityMicros {
			return x, true
		}
	}
	return 0, false
}

// dateFitsTimestamp rejects dates past the last timestamp, as
// date2timestamp does with 22008.
func dateFitsTimestamp(days int64) error {
	if days >= math.MaxInt64/types.MicrosPerDay || days <= math.MinInt64/types.MicrosPerDay {
		return pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range for timestamp")
	}
	return nil
}

func castToTimestamptz(v *vec.Vector, i int, out *vec.Vector, loc *time.Location) error {
	var wall int64
	switch v.Type.ID {
	case types.Date:
		if err := dateFitsTimestamp(v.I64[i]); err != nil {
			return err
		}
		wall = v.I64[i] * types.MicrosPerDay
	case types.Timestamp:
		wall = v.I64[i]
	default:
		return cannotCast(v.Type, out.Type)
	}
	out.AppendInt(types.LocalToUTC(wall, loc))
	return nil
}

// DateClamp passes dates through, except that a date past either end of
// the timestamp range becomes dateBeyond of its sign, which the cast to a
// timestamp takes to the timestamp next to infinity: compared with a
// timestamp it is then later (or earlier) than every finite one but not
// infinity, as date_cmp_timestamp compares it, where the cast alone fails
// with 22008.
type DateClamp struct{ E Expr }

// dateBeyond is no date (the dates end at 5874897-12-31, near 2^31 - 2^21
// days): only DateClamp makes it.
const dateBeyond = types.DateInfinity - 1

func (c *DateClamp) Type() types.T { return c.E.Type() }

func (c *DateClamp) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	v, err := c.E.Eval(env, b)
	if err != nil {
		return nil, err
	}
	var out *vec.Vector
	for i, d := range v.I64 {
		if dateFitsTimestamp(d) == nil || v.IsNull(i) || d == types.DateInfinity || d == types.DateNegInfinity {
			continue
		}
		if out == nil {
			cp := *v
			cp.I64 = append([]int64(nil), v.I64...)
			out = &cp
		}
		if d > 0 {
			out.I64[i] = dateBeyond
		} else {
			out.I64[i] = -dateBeyond
		}
	}
	if out == nil {
		return v, nil
	}
	return out, nil
}

func (c *DateClamp) MapColumns(fn func(int) int) Expr { return &DateClamp{E: MapColumns(c.E, fn)} }
