package fn

import (
	"math"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Numeric NaN (only unconstrained numerics hold one, as the text "NaN")
// passes through the numeric functions as PostgreSQL's numeric.c lets it:
// a NaN argument gives a NaN result. Kernels never see such a row: Eval
// masks it like a NULL, runs the kernel, then writes NaN into it.

func hasNumericArg(args []types.T) bool {
	for _, t := range args {
		if t.ID == types.Numeric {
			return true
		}
	}
	return false
}

// nanRows marks the rows (not already NULL) where a numeric argument is NaN;
// nil when there are none.
func nanRows(args []*vec.Vector, n int, nulls []bool) []bool {
	var rows []bool
	for _, a := range args {
		if !a.Type.DynNumeric() {
			continue
		}
		for i, s := range a.S[:n] {
			if s == types.NumericNaN && !isNull(nulls, i) && !a.IsNull(i) {
				if rows == nil {
					rows = make([]bool, n)
				}
				rows[i] = true
			}
		}
	}
	return rows
}

func (o *Overload) evalNaN(ctx *Ctx, out *vec.Vector, args []*vec.Vector, n int, rows []bool) error {
	dyn := out.Type.DynNumeric()
	// An integer answer about a NaN (scale) is NULL, as PostgreSQL gives.
	asNull := out.Type.IsInteger()
	if !dyn && !asNull && !out.Type.IsFloat() {
		return pgerr.New(pgerr.FeatureNotSupported, "%s of NaN is not supported", o.Name)
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
		out.Nulls[i] = false
		if dyn {
			out.S[i] = types.NumericNaN
		} else {
			out.F64[i] = math.NaN()
		}
	}
	return nil
}
