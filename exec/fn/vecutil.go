package fn

import (
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// The out* helpers size out's value slice to n zeroed slots, reusing its
// buffer, so kernels can write by index and leave NULL rows alone.

func outI64(out *vec.Vector, n int) []int64 {
	if cap(out.I64) >= n {
		out.I64 = out.I64[:n]
		clear(out.I64)
	} else {
		out.I64 = make([]int64, n)
	}
	return out.I64
}

func outF64(out *vec.Vector, n int) []float64 {
	if cap(out.F64) >= n {
		out.F64 = out.F64[:n]
		clear(out.F64)
	} else {
		out.F64 = make([]float64, n)
	}
	return out.F64
}

func outB(out *vec.Vector, n int) []bool {
	if cap(out.B) >= n {
		out.B = out.B[:n]
		clear(out.B)
	} else {
		out.B = make([]bool, n)
	}
	return out.B
}

func outS(out *vec.Vector, n int) []string {
	if cap(out.S) >= n {
		out.S = out.S[:n]
		clear(out.S)
	} else {
		out.S = make([]string, n)
	}
	return out.S
}

func outIv(out *vec.Vector, n int) []types.IntervalValue {
	if cap(out.Iv) >= n {
		out.Iv = out.Iv[:n]
		clear(out.Iv)
	} else {
		out.Iv = make([]types.IntervalValue, n)
	}
	return out.Iv
}

// setNull marks row i of an n-row output NULL.
func setNull(out *vec.Vector, i, n int) {
	if out.Nulls == nil {
		out.Nulls = make([]bool, n)
	}
	out.Nulls[i] = true
}

// fillZero gives out n zero values of its storage class.
func fillZero(out *vec.Vector, n int) {
	switch out.Type.Storage() {
	case types.StoreInt:
		outI64(out, n)
	case types.StoreFloat:
		outF64(out, n)
	case types.StoreBool:
		outB(out, n)
	case types.StoreInterval:
		outIv(out, n)
	default:
		outS(out, n)
	}
}

// clearNullSlots restores the zero value in NULL rows, which kernels are
// allowed to fill with whatever their loop computed.
func clearNullSlots(out *vec.Vector) {
	nl := out.Nulls
	switch out.Type.Storage() {
	case types.StoreInt:
		v := out.I64[:len(nl)]
		for i, isNull := range nl {
			if isNull {
				v[i] = 0
			}
		}
	case types.StoreFloat:
		v := out.F64[:len(nl)]
		for i, isNull := range nl {
			if isNull {
				v[i] = 0
			}
		}
	case types.StoreBool:
		v := out.B[:len(nl)]
		for i, isNull := range nl {
			if isNull {
				v[i] = false
			}
		}
	case types.StoreInterval:
		v := out.Iv[:len(nl)]
		for i, isNull := range nl {
			if isNull {
				v[i] = types.IntervalValue{}
			}
		}
	default:
		v := out.S[:len(nl)]
		for i, isNull := range nl {
			if isNull {
				v[i] = ""
			}
		}
	}
}

// isNull reports whether row i is masked (a strict kernel's NULL input row
// or a row a non-strict kernel already decided is NULL).
func isNull(nl []bool, i int) bool { return nl != nil && nl[i] }
