package exec

import (
	"encoding/binary"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// AppendKey encodes row i of v so that equal values give equal bytes (NULL
// its own byte): the key encoding SetOp uses, for callers that keep rows in
// Go maps (unique constraint checks in sql).
func AppendKey(dst []byte, v *vec.Vector, i int) []byte { return appendKey(dst, v, i) }

// appendKey encodes row i of v so that equal values (and NULL) give equal
// bytes. SetOp keys its map with it.
func appendKey(dst []byte, v *vec.Vector, i int) []byte {
	if v.IsNull(i) {
		return append(dst, 0)
	}
	dst = append(dst, 1)
	switch v.Type.Storage() {
	case types.StoreInt:
		return binary.LittleEndian.AppendUint64(dst, uint64(v.I64[i]))
	case types.StoreFloat:
		return binary.LittleEndian.AppendUint64(dst, memory.FloatKeyBits(v.F64[i]))
	case types.StoreBool:
		if v.B[i] {
			return append(dst, 1)
		}
		return append(dst, 0)
	case types.StoreInterval:
		// equal intervals ('1 day', '24 hours') have equal spans
		d, us := v.Iv[i].Span()
		dst = binary.LittleEndian.AppendUint64(dst, uint64(d))
		return binary.LittleEndian.AppendUint64(dst, uint64(us))
	}
	s := v.S[i]
	if v.Type.DynNumeric() {
		s = memory.CanonDecimal(s)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(s)))
	return append(dst, s...)
}
