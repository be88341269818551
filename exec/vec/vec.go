// Package vec holds lakepg's column vectors and batches: typed Go slices, one
// per storage class, with an optional NULL mask. Every operator, the Parquet
// reader and writer, and the wire encoder work on these.
package vec

import (
	"time"

	"github.com/lakepg/lakepg/types"
)

// BatchSize is the number of rows operators aim to put in one batch.
const BatchSize = 2048

// Vector is one column of a batch. Exactly one of I64, F64, B, S, Iv holds
// the values, chosen by Type.Storage(). Nulls is nil when no value is NULL;
// otherwise Nulls[i] marks row i NULL (its value slot is the zero value).
type Vector struct {
	Type  types.T
	I64   []int64
	F64   []float64
	B     []bool
	S     []string
	Iv    []types.IntervalValue
	Nulls []bool
}

// New returns an empty vector of type t with capacity n.
func New(t types.T, n int) *Vector {
	v := &Vector{Type: t}
	switch t.Storage() {
	case types.StoreInt:
		v.I64 = make([]int64, 0, n)
	case types.StoreFloat:
		v.F64 = make([]float64, 0, n)
	case types.StoreBool:
		v.B = make([]bool, 0, n)
	case types.StoreInterval:
		v.Iv = make([]types.IntervalValue, 0, n)
	default:
		v.S = make([]string, 0, n)
	}
	return v
}

// Len is the number of values.
func (v *Vector) Len() int {
	switch v.Type.Storage() {
	case types.StoreInt:
		return len(v.I64)
	case types.StoreFloat:
		return len(v.F64)
	case types.StoreBool:
		return len(v.B)
	case types.StoreInterval:
		return len(v.Iv)
	}
	return len(v.S)
}

// Keep keeps only the rows at sel (ascending), moving them to the front
// of the vector's slices in place.
func (v *Vector) Keep(sel []int32) {
	switch v.Type.Storage() {
	case types.StoreInt:
		v.I64 = keep(v.I64, sel)
	case types.StoreFloat:
		v.F64 = keep(v.F64, sel)
	case types.StoreBool:
		v.B = keep(v.B, sel)
	case types.StoreInterval:
		v.Iv = keep(v.Iv, sel)
	default:
		v.S = keep(v.S, sel)
	}
	if v.Nulls != nil {
		v.Nulls = keep(v.Nulls, sel)
	}
}

func keep[T any](s []T, sel []int32) []T {
	for j, i := range sel {
		s[j] = s[i]
	}
	return s[:len(sel)]
}

// Cap is the number of values the vector's storage has room for.
func (v *Vector) Cap() int {
	switch v.Type.Storage() {
	case types.StoreInt:
		return cap(v.I64)
	case types.StoreFloat:
		return cap(v.F64)
	case types.StoreBool:
		return cap(v.B)
	case types.StoreInterval:
		return cap(v.Iv)
	}
	return cap(v.S)
}

// IsNull reports whether row i is NULL.
func (v *Vector) IsNull(i int) bool { return v.Nulls != nil && v.Nulls[i] }

// HasNulls reports whether any value may be NULL.
func (v *Vector) HasNulls() bool { return v.Nulls != nil }

// Reset empties v keeping its buffers.
func (v *Vector) Reset() {
	v.I64 = v.I64[:0]
	v.F64 = v.F64[:0]
	v.B = v.B[:0]
	v.S = v.S[:0]
	v.Iv = v.Iv[:0]
	v.Nulls = nil
}

// AppendNull appends a NULL.
func (v *Vector) AppendNull() {
	n := v.Len()
	if v.Nulls == nil {
		v.Nulls = make([]bool, n, max(n+1, BatchSize))
	}
	v.appendZero()
	v.Nulls = append(v.Nulls, true)
}

func (v *Vector) appendZero() {
	switch v.Type.Storage() {
	case types.StoreInt:
		v.I64 = append(v.I64, 0)
	case types.StoreFloat:
		v.F64 = append(v.F64, 0)
	case types.StoreBool:
		v.B = append(v.B, false)
	case types.StoreInterval:
		v.Iv = append(v.Iv, types.IntervalValue{})
	default:
		v.S = append(v.S, "")
	}
}

func (v *Vector) markValid() {
	if v.Nulls != nil {
		v.Nulls = append(v.Nulls, false)
	}
}

// AppendInt appends to an int-stored vector.
func (v *Vector) AppendInt(x int64) { v.I64 = append(v.I64, x); v.markValid() }

// AppendFloat appends to a float-stored vector.
func (v *Vector) AppendFloat(x float64) { v.F64 = append(v.F64, x); v.markValid() }

// AppendBool appends to a bool-stored vector.
func (v *Vector) AppendBool(x bool) { v.B = append(v.B, x); v.markValid() }

// AppendString appends to a bytes-stored vector.
func (v *Vector) AppendString(x string) { v.S = append(v.S, x); v.markValid() }

// AppendInterval appends to an interval vector.
func (v *Vector) AppendInterval(x types.IntervalValue) { v.Iv = append(v.Iv, x); v.markValid() }

// AppendFrom appends row i of src (same storage class) to v.
func (v *Vector) AppendFrom(src *Vector, i int) {
	if src.IsNull(i) {
		v.AppendNull()
		return
	}
	switch v.Type.Storage() {
	case types.StoreInt:
		v.AppendInt(src.I64[i])
	case types.StoreFloat:
		v.AppendFloat(src.F64[i])
	case types.StoreBool:
		v.AppendBool(src.B[i])
	case types.StoreInterval:
		v.AppendInterval(src.Iv[i])
	default:
		v.AppendString(src.S[i])
	}
}

// Gather appends the rows of src at positions sel to v.
func (v *Vector) Gather(src *Vector, sel []int) {
	switch v.Type.Storage() {
	case types.StoreInt:
		for _, i := range sel {
			v.I64 = append(v.I64, src.I64[i])
		}
	case types.StoreFloat:
		for _, i := range sel {
			v.F64 = append(v.F64, src.F64[i])
		}
	case types.StoreBool:
		for _, i := range sel {
			v.B = append(v.B, src.B[i])
		}
	case types.StoreInterval:
		for _, i := range sel {
			v.Iv = append(v.Iv, src.Iv[i])
		}
	default:
		for _, i := range sel {
			v.S = append(v.S, src.S[i])
		}
	}
	n := v.Len()
	if src.Nulls == nil && v.Nulls == nil {
		return
	}
	if v.Nulls == nil {
		v.Nulls = make([]bool, n-len(sel), n)
	}
	for _, i := range sel {
		v.Nulls = append(v.Nulls, src.IsNull(i))
	}
}

// Slice returns a view of rows [lo, hi).
func (v *Vector) Slice(lo, hi int) *Vector {
	o := &Vector{}
	v.SliceInto(o, lo, hi)
	return o
}

// SliceInto makes o a view of rows [lo, hi) of v, as Slice does, reusing
// the Vector struct o (operators that cut every batch keep theirs).
func (v *Vector) SliceInto(o *Vector, lo, hi int) {
	*o = Vector{Type: v.Type}
	switch v.Type.Storage() {
	case types.StoreInt:
		o.I64 = v.I64[lo:hi:hi]
	case types.StoreFloat:
		o.F64 = v.F64[lo:hi:hi]
	case types.StoreBool:
		o.B = v.B[lo:hi:hi]
	case types.StoreInterval:
		o.Iv = v.Iv[lo:hi:hi]
	default:
		o.S = v.S[lo:hi:hi]
	}
	if v.Nulls != nil {
		o.Nulls = v.Nulls[lo:hi:hi]
	}
}

// Constant returns a vector of n copies of row i of src.
func Constant(src *Vector, i, n int) *Vector {
	o := New(src.Type, n)
	for k := 0; k < n; k++ {
		o.AppendFrom(src, i)
	}
	return o
}

// AppendText appends the PostgreSQL text output of row i (which must not be
// NULL). loc is the session TimeZone for timestamptz.
// NumericSpecial classifies row i of a numeric vector as
// types.NumericSpecial does: 0 for a number, -1 and 1 for the infinities,
// 2 for NaN (only unconstrained numerics, text, hold them).
func (v *Vector) NumericSpecial(i int) int {
	if v.Type.Scale >= 0 {
		return 0
	}
	return types.NumericSpecial(v.S[i])
}

func (v *Vector) AppendText(dst []byte, i int, loc *time.Location) []byte {
	t := v.Type
	switch t.ID {
	case types.Bool:
		return types.AppendBool(dst, v.B[i])
	case types.Int16, types.Int32, types.Int64:
		return types.AppendInt(dst, v.I64[i])
	case types.Float32:
		return types.AppendFloat(dst, v.F64[i], 32)
	case types.Float64:
		return types.AppendFloat(dst, v.F64[i], 64)
	case types.Numeric:
		if t.Scale < 0 {
			return append(dst, v.S[i]...)
		}
		return types.AppendNumeric(dst, v.I64[i], t.Scale)
	case types.Bytea:
		return types.AppendBytea(dst, v.S[i])
	case types.UUID:
		return types.AppendUUID(dst, v.S[i])
	case types.Date:
		return types.AppendDate(dst, v.I64[i])
	case types.Timestamp:
		switch v.I64[i] {
		case types.InfinityMicros:
			return append(dst, "infinity"...)
		case types.NegInfinityMicros:
			return append(dst, "-infinity"...)
		}
		return types.AppendTimestamp(dst, v.I64[i])
	case types.Timestamptz:
		switch v.I64[i] {
		case types.InfinityMicros:
			return append(dst, "infinity"...)
		case types.NegInfinityMicros:
			return append(dst, "-infinity"...)
		}
		return types.AppendTimestamptz(dst, v.I64[i], loc)
	case types.Interval:
		return types.AppendInterval(dst, v.Iv[i])
	case types.Time:
		return types.AppendTime(dst, v.I64[i])
	case types.TimeTZ:
		return types.AppendTimeTZ(dst, v.I64[i])
	case types.Array:
		return AppendArrayText(dst, t, v.S[i], loc)
	case types.Struct:
		return AppendStructText(dst, t, v.S[i], loc)
	}
	return append(dst, v.S[i]...)
}

// Batch is a set of equally long vectors.
type Batch struct {
	Vecs []*Vector
	N    int
}

// NewBatch makes an empty batch for the given column types.
func NewBatch(ts []types.T, capacity int) *Batch {
	b := &Batch{Vecs: make([]*Vector, len(ts))}
	for i, t := range ts {
		b.Vecs[i] = New(t, capacity)
	}
	return b
}

// Reset empties every vector.
func (b *Batch) Reset() {
	for _, v := range b.Vecs {
		v.Reset()
	}
	b.N = 0
}
