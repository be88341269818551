package fn

import (
	"math"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Numeric NaN and the infinities (only unconstrained numerics hold them, as
// their text) pass through the numeric functions as PostgreSQL's numeric.c
// lets them: a NaN argument gives a NaN result, an infinite one what each
// function defines (abs, sign, rounding, sqrt, exp, ln, mod). Kernels never
// see such a row: Eval masks it like a NULL, runs the kernel, then writes
// the special result into it.

func hasNumericArg(args []types.T) bool {
	for _, t := range args {
		if t.ID == types.Numeric {
			return true
		}
	}
	return false
}

// specialRows marks the rows (not already NULL) where a numeric argument
// is NaN or infinite; nil when there are none.
func specialRows(args []*vec.Vector, n int, nulls []bool) []bool {
	var rows []bool
	for _, a := range args {
		if !a.Type.DynNumeric() {
			continue
		}
		for i := range a.S[:n] {
			if !isNull(nulls, i) && !a.IsNull(i) && a.NumericSpecial(i) != 0 {
				if rows == nil {
					rows = make([]bool, n)
				}
				rows[i] = true
			}
		}
	}
	return rows
}

// specialNumber marks a special result that is a number (its text).
const specialNumber = 3

// specialResult is o's value at row i of args, a row with a special
// argument: its kind as types.NumericSpecial gives, or specialNumber
// with the number's text.
func (o *Overload) specialResult(args []*vec.Vector, i int) (int, string, error) {
	kinds := make([]int, len(args))
	var inf int
	for j, a := range args {
		if a.Type.ID != types.Numeric {
			continue
		}
		switch k := a.NumericSpecial(i); k {
		case 2:
			return 2, "", nil
		case 1, -1:
			kinds[j], inf = k, k
		}
	}
	if len(args) == 1 || o.Name == "round" || o.Name == "trunc" {
		// the value of a one-argument function (or a rounding to some
		// digits) at an infinity
		switch o.Name {
		case "abs":
			return 1, "", nil
		case "sign":
			if inf < 0 {
				return specialNumber, "-1", nil
			}
			return specialNumber, "1", nil
		case "ceil", "ceiling", "floor", "round", "trunc", "trim_scale":
			return inf, "", nil
		case "sqrt":
			if inf < 0 {
				return 0, "", errSqrtNeg
			}
			return 1, "", nil
		case "exp":
			if inf < 0 {
				return specialNumber, "0", nil
			}
			return 1, "", nil
		case "ln", "log", "log10":
			if inf < 0 {
				return 0, "", errLogNeg
			}
			return 1, "", nil
		case "scale", "min_scale":
			return 2, "", nil // NULL, as for NaN
		}
	}
	if o.Name == "mod" && len(args) == 2 {
		// numeric_mod: an infinite dividend gives NaN (a zero divisor
		// still fails), an infinite divisor the dividend
		if kinds[0] != 0 {
			if kinds[1] == 0 && isZeroNumeric(args[1], i) {
				return 0, "", pgerr.New(pgerr.DivisionByZero, "division by zero")
			}
			return 2, "", nil
		}
		return specialNumber, string(args[0].AppendText(nil, i, nil)), nil
	}
	return 0, "", pgerr.New(pgerr.FeatureNotSupported, "%s of an infinite numeric is not supported", o.Name)
}

func isZeroNumeric(v *vec.Vector, i int) bool {
	if v.Type.Scale >= 0 {
		return v.I64[i] == 0
	}
	d, _ := decAt(v, i)
	return d.Sign() == 0
}

func (o *Overload) evalSpecial(ctx *Ctx, out *vec.Vector, args []*vec.Vector, n int, rows []bool) error {
	dyn := out.Type.DynNumeric()
	// An integer answer about a NaN or an infinity (scale) is NULL, as
	// PostgreSQL gives.
	asNull := out.Type.IsInteger()
	if !dyn && !asNull && !out.Type.IsFloat() {
		return pgerr.New(pgerr.FeatureNotSupported, "%s of NaN or an infinite numeric is not supported", o.Name)
	}
	if out.Nulls == nil {
		out.Nulls = make([]bool, n)
	}
	for i, r := range rows {
		if r {
			out.Nulls[i] = true
		}
	}
	if err := o.Kernel(ctx, out, args, n); err != nil {
		return err
	}
	clearNullSlots(out)
	for i, r := range rows {
		if !r || asNull {
			continue
		}
		k, num, err := o.specialResult(args, i)
		if err != nil {
			return err
		}
		out.Nulls[i] = false
		switch {
		case dyn && k == specialNumber:
			out.S[i] = num
		case dyn:
			out.S[i] = types.NumericSpecialText(k)
		case k == specialNumber:
			out.F64[i], _ = types.ParseFloat(num, 64)
		case k == 2:
			out.F64[i] = math.NaN()
		default:
			out.F64[i] = math.Inf(k)
		}
	}
	return nil
}
