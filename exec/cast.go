package exec

import (
	"math"
	"math/big"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Cast converts E to To. Assign marks an assignment cast (INSERT/UPDATE),
// where an over-long varchar is an error instead of being truncated.
type Cast struct {
	E      Expr
	To     types.T
	Assign bool
}

func (c *Cast) Type() types.T { return c.To }

func (c *Cast) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	v, err := c.E.Eval(env, b)
	if err != nil {
		return nil, err
	}
	return CastVector(env, v, b.N, c.To, c.Assign)
}

// numericToFloat64 casts numerics to float8 exactly as castOne does, most
// values without text (numfloat.go).
func numericToFloat64(env *Env, v *vec.Vector, n int, out *vec.Vector, assign bool) (*vec.Vector, error) {
	out.F64 = out.F64[:0]
	dyn := v.Type.Scale < 0
	fixed := !dyn && v.Type.Scale <= 19
	for i := 0; i < n; i++ {
		if v.IsNull(i) {
			out.AppendNull()
			continue
		}
		switch {
		case dyn && v.NumericSpecial(i) == 0:
			if f, ok := decimalFloat64(v.S[i]); ok {
				out.AppendFloat(f)
				continue
			}
		case fixed:
			x := v.I64[i]
			u := uint64(x)
			if x < 0 {
				u = -u
			}
			out.AppendFloat(ScaledFloat64(x < 0, u, v.Type.Scale))
			continue
		}
		if err := castOne(env, v, i, out, assign); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CastVector converts the first n rows of v to type to.
func CastVector(env *Env, v *vec.Vector, n int, to types.T, assign bool) (*vec.Vector, error) {
	from := v.Type
	if from == to {
		return v, nil
	}
	if from.ID == types.Array && to.ID == types.Array {
		return castArray(env, v, n, to, assign)
	}
	if from.ID == types.Struct && to.ID == types.Struct {
		return castStruct(env, v, n, to, assign) // rowctor.go
	}
	if from.ID == to.ID && to.ID != types.Numeric && !(to.ID == types.Text && (to.Width > 0 || from.Bpchar && !to.Bpchar)) {
		o := *v
		o.Type = to
		return &o, nil
	}
	out := vec.New(to, n)
	// fast paths
	switch {
	case from.IsInteger() && to.IsInteger():
		lo, hi := intRange(to)
		for i := 0; i < n; i++ {
			x := v.I64[i]
			if (x < lo || x > hi) && !v.IsNull(i) {
				return nil, pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", to)
			}
			out.I64 = append(out.I64, x)
		}
		out.Nulls = v.Nulls
		return out, nil
	case from.IsInteger() && to.ID == types.Numeric && to.Scale == 0 && to.Precision >= 19:
		// every integer is its own scale-0 numeric
		out.I64 = append(out.I64, v.I64[:n]...)
		out.Nulls = v.Nulls
		return out, nil
	case from.IsInteger() && to.IsFloat():
		for i := 0; i < n; i++ {
			f := float64(v.I64[i])
			if to.ID == types.Float32 {
				f = float64(float32(f))
			}
			out.F64 = append(out.F64, f)
		}
		out.Nulls = v.Nulls
		return out, nil
	case from.ID == types.Numeric && to.ID == types.Float64:
		return numericToFloat64(env, v, n, out, assign)
	case from.IsFloat() && to.IsFloat():
		for i := 0; i < n; i++ {
			f := v.F64[i]
			if to.ID == types.Float32 {
				f32 := float32(f)
				if math.IsInf(float64(f32), 0) && !math.IsInf(f, 0) && !v.IsNull(i) {
					return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
				}
				f = float64(f32)
			}
			out.F64 = append(out.F64, f)
		}
		out.Nulls = v.Nulls
		return out, nil
	}
	for i := 0; i < n; i++ {
		if v.IsNull(i) {
			out.AppendNull()
			continue
		}
		if err := castOne(env, v, i, out, assign); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func castOne(env *Env, v *vec.Vector, i int, out *vec.Vector, assign bool) error {
	from, to := v.Type, out.Type
	loc := time.UTC
	if env != nil && env.Loc != nil {
		loc = env.Loc
	}
	if from.ID == types.Text || from.ID == types.Unknown {
		s := v.S[i]
		if from.Bpchar && !to.Bpchar {
			s = types.TrimBpchar(s) // PostgreSQL's bpchar to text (rtrim1)
		}
		order := types.MDY
		if env != nil {
			order = env.DateOrder
		}
		return parseIntoOrder(out, s, loc, order, assign)
	}
	if to.ID == types.Text {
		var s string
		if from.ID == types.Bool {
			s = "false"
			if v.B[i] {
				s = "true"
			}
		} else {
			s = string(v.AppendText(nil, i, loc))
		}
		return appendText(out, s, assign)
	}
	switch to.ID {
	case types.Int16, types.Int32, types.Int64:
		lo, hi := intRange(to)
		var x int64
		switch {
		case from.IsFloat():
			f := math.RoundToEven(v.F64[i])
			if math.IsNaN(f) || f < float64(lo) || f >= -float64(lo) {
				return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", to)
			}
			x = int64(f)
		case from.ID == types.Numeric:
			switch v.NumericSpecial(i) {
			case 2:
				return pgerr.New(pgerr.FeatureNotSupported, "cannot convert NaN to %s", to)
			case 1, -1:
				return pgerr.New(pgerr.FeatureNotSupported, "cannot convert infinity to %s", to)
			}
			d, s := NumericValue(v, i)
			r := types.RescaleBig(d, s, 0)
			if !r.IsInt64() {
				return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", to)
			}
			x = r.Int64()
		case from.ID == types.Bool && to.ID == types.Int32:
			if v.B[i] {
				x = 1
			}
		default:
			return cannotCast(from, to)
		}
		if x < lo || x > hi {
			return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", to)
		}
		out.AppendInt(x)
	case types.Float32, types.Float64:
		var f float64
		switch {
		case from.ID == types.Numeric && v.NumericSpecial(i) == 2:
			f = math.NaN()
		case from.ID == types.Numeric && v.NumericSpecial(i) != 0:
			f = math.Inf(v.NumericSpecial(i))
		case from.ID == types.Numeric:
			// PostgreSQL reads the numeric's text as float8in/float4in do;
			// an unconstrained numeric is that text already
			var txt string
			if from.Scale < 0 {
				txt = v.S[i]
			} else {
				txt = types.FormatScaled(v.I64[i], from.Scale)
			}
			bits := 64
			if to.ID == types.Float32 {
				bits = 32
			}
			var err error
			f, err = strconv.ParseFloat(txt, bits)
			if err != nil && !math.IsInf(f, 0) {
				// not the canonical text: read it as numeric first
				d, s := NumericValue(v, i)
				txt = types.FormatBig(d, s)
				f, err = strconv.ParseFloat(txt, bits)
			}
			if err != nil && math.IsInf(f, 0) {
				return pgerr.New(pgerr.NumericValueOutOfRange, "\"%s\" is out of range for type %s", txt, to)
			}
		default:
			return cannotCast(from, to)
		}
		if to.ID == types.Float32 {
			f = float64(float32(f))
		}
		out.AppendFloat(f)
	case types.Numeric:
		if from.ID == types.Numeric && v.NumericSpecial(i) != 0 {
			return appendNumericSpecial(out, v.S[i])
		}
		if from.IsFloat() {
			switch f := v.F64[i]; {
			case math.IsNaN(f):
				return appendNumericSpecial(out, types.NumericNaN)
			case math.IsInf(f, 1):
				return appendNumericSpecial(out, types.NumericInf)
			case math.IsInf(f, -1):
				return appendNumericSpecial(out, types.NumericNegInf)
			}
		}
		var d *big.Int
		var s int
		switch {
		case from.IsInteger():
			d, s = big.NewInt(v.I64[i]), 0
		case from.ID == types.Numeric:
			d, s = NumericValue(v, i)
		case from.IsFloat():
			f := v.F64[i]
			bits := 64
			if from.ID == types.Float32 {
				bits = 32
			}
			// PostgreSQL converts through 15 (or 6) significant digits
			digits := 15
			if bits == 32 {
				digits = 6
			}
			var err error
			d, s, err = types.ParseDecimal(strconv.FormatFloat(f, 'e', digits-1, bits))
			if err != nil {
				return err
			}
			d, s = memory.TrimDecimal(d, s)
		default:
			return cannotCast(from, to)
		}
		return appendDecimal(out, d, s)
	case types.Date:
		switch from.ID {
		case types.Timestamp, types.Timestamptz:
			switch v.I64[i] {
			case types.InfinityMicros:
				out.AppendInt(types.DateInfinity)
				return nil
			case types.NegInfinityMicros:
				out.AppendInt(types.DateNegInfinity)
				return nil
			}
		}
		switch from.ID {
		case types.Timestamp:
			out.AppendInt(floorDiv(v.I64[i], 86400e6))
		case types.Timestamptz:
			t := time.UnixMicro(v.I64[i]).In(loc)
			y, m, d := t.Date()
			out.AppendInt(floorDiv(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix(), 86400))
		default:
			return cannotCast(from, to)
		}
	case types.Timestamp, types.Timestamptz:
		if inf, ok := infiniteTimestamp(v, i); ok {
			out.AppendInt(inf)
			return nil
		}
		if to.ID == types.Timestamptz {
			return castToTimestamptz(v, i, out, loc)
		}
		switch from.ID {
		case types.Date:
			if err := dateFitsTimestamp(v.I64[i]); err != nil {
				return err
			}
			out.AppendInt(v.I64[i] * 86400e6)
		case types.Timestamptz:
			t := time.UnixMicro(v.I64[i]).In(loc)
			_, off := t.Zone()
			out.AppendInt(v.I64[i] + int64(off)*1e6)
		default:
			return cannotCast(from, to)
		}
	case types.Bool:
		if from.ID == types.Int32 || from.ID == types.Int64 || from.ID == types.Int16 {
			out.AppendBool(v.I64[i] != 0)
			return nil
		}
		return cannotCast(from, to)
	default:
		return castTimeOne(v, i, out, loc) // casttime.go
	}
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func cannotCast(from, to types.T) error {
	return pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", from, to)
}

func appendDecimal(out *vec.Vector, d *big.Int, s int) error {
	t := out.Type
	if t.Wide() {
		x, err := types.FitWide(t, d, s)
		if err != nil {
			return err
		}
		out.AppendString(x)
		return nil
	}
	if t.Scale < 0 {
		out.AppendString(types.FormatBig(d, s))
		return nil
	}
	p := t.Precision
	if p == 0 {
		p = types.MaxInt64Precision
	}
	x, err := types.FitNumeric(d, s, p, t.Scale)
	if err != nil {
		return err
	}
	out.AppendInt(x)
	return nil
}

func appendText(out *vec.Vector, s string, assign bool) error {
	if w := out.Type.Width; w > 0 && utf8.RuneCountInString(s) > w {
		// PostgreSQL ignores trailing spaces beyond the limit
		k, cut := 0, len(s)
		for idx := range s {
			if k == w {
				cut = idx
				break
			}
			k++
		}
		rest := s[cut:]
		allSpace := true
		for _, c := range rest {
			if c != ' ' {
				allSpace = false
				break
			}
		}
		if assign && !allSpace {
			return pgerr.New(pgerr.StringDataRightTrunc, "value too long for type %s", out.Type)
		}
		s = s[:cut]
	}
	if out.Type.Bpchar && out.Type.Width > 0 {
		s = types.PadBpchar(s, out.Type.Width)
	}
	out.AppendString(s)
	return nil
}

// ParseInto parses PostgreSQL text input s into a value of out's type,
// reading dates in DateStyle's default MDY order.
func ParseInto(out *vec.Vector, s string, loc *time.Location, assign bool) error {
	return parseIntoOrder(out, s, loc, types.MDY, assign)
}

func parseIntoOrder(out *vec.Vector, s string, loc *time.Location, order types.DateOrder, assign bool) error {
	t := out.Type
	switch t.ID {
	case types.Bool:
		b, err := types.ParseBool(s)
		if err != nil {
			return err
		}
		out.AppendBool(b)
	case types.Int16, types.Int32, types.Int64:
		bits := 64
		switch t.ID {
		case types.Int16:
			bits = 16
		case types.Int32:
			bits = 32
		}
		x, err := types.ParseInt(s, bits)
		if err != nil {
			return err
		}
		out.AppendInt(x)
	case types.Float32, types.Float64:
		bits := 64
		if t.ID == types.Float32 {
			bits = 32
		}
		f, err := types.ParseFloat(s, bits)
		if err != nil {
			return err
		}
		out.AppendFloat(f)
	case types.Numeric:
		if special, ok := types.NumericSpecialInput(s); ok {
			return appendNumericSpecial(out, special)
		}
		if t.Scale >= 0 && !t.Wide() {
			p := t.Precision
			if p == 0 {
				p = types.MaxInt64Precision
			}
			if x, ok := types.ParseNumericFast(s, p, t.Scale); ok {
				out.AppendInt(x)
				return nil
			}
		}
		d, sc, err := types.ParseDecimal(s)
		if err != nil {
			return err
		}
		return appendDecimal(out, d, sc)
	case types.Text, types.Unknown:
		return appendText(out, s, assign)
	case types.Bytea:
		b, err := types.ParseBytea(s)
		if err != nil {
			return err
		}
		out.AppendString(b)
	case types.UUID:
		u, err := types.ParseUUID(s)
		if err != nil {
			return err
		}
		out.AppendString(u)
	case types.Date:
		d, err := types.ParseDateOrder(s, loc, order)
		if err != nil {
			return err
		}
		out.AppendInt(d)
	case types.Timestamp:
		x, err := types.ParseTimestampOrder(s, loc, order)
		if err != nil {
			return err
		}
		out.AppendInt(x)
	case types.Timestamptz:
		x, err := types.ParseTimestamptzOrder(s, loc, order)
		if err != nil {
			return err
		}
		out.AppendInt(x)
	case types.Interval:
		x, err := types.ParseInterval(s)
		if err != nil {
			return err
		}
		out.AppendInterval(x)
	case types.Array:
		return parseArrayInto(out, s, loc, assign)
	case types.Time, types.TimeTZ, types.JSON:
		return parseTimeInto(out, s, loc) // casttime.go
	default:
		return pgerr.New(pgerr.FeatureNotSupported, "cannot parse type %s", t)
	}
	return nil
}

// appendNumericSpecial stores NaN or an infinity (text), which only an
// unconstrained numeric can hold.
func appendNumericSpecial(out *vec.Vector, text string) error {
	if out.Type.Scale >= 0 || out.Type.Wide() {
		return types.ErrNumericSpecial(out.Type, text)
	}
	out.AppendString(text)
	return nil
}
