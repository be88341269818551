package wire

import (
	"encoding/binary"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// time and timetz in binary: time_send is int64 µs since midnight;
// timetz_send adds the zone as int32 seconds west of UTC (PostgreSQL's
// sign, the opposite of the printed offset).

func encodeTimes(dst []byte, ends []int, v *vec.Vector, n int, enc encoding) ([]byte, []int) {
	be := binary.BigEndian
	for i, x := range v.I64[:n] {
		switch {
		case v.IsNull(i):
			dst = append(dst, nullValue...)
		case enc == encTime:
			dst = be.AppendUint64(append(dst, 0, 0, 0, 8), uint64(x))
		default:
			local, off := types.UnpackTimeTZ(x)
			dst = be.AppendUint64(append(dst, 0, 0, 0, 12), uint64(local))
			dst = be.AppendUint32(dst, uint32(int32(-off)))
		}
		ends = append(ends, len(dst))
	}
	return dst, ends
}

// timeParamText decodes a binary time or timetz parameter to its text;
// ok is false for other OIDs.
func timeParamText(oid uint32, b []byte) (s string, ok bool, err error) {
	be := binary.BigEndian
	bad := func(name string) (string, bool, error) {
		return "", true, pgerr.New(codeInvalidBinary, "incorrect binary data format for %s (%d bytes)", name, len(b))
	}
	switch oid {
	case types.OIDTime:
		if len(b) != 8 {
			return bad("time without time zone")
		}
		us := int64(be.Uint64(b))
		if us < 0 || us > types.MicrosPerDay {
			return bad("time without time zone")
		}
		return string(types.AppendTime(nil, us)), true, nil
	case types.OIDTimeTZ:
		if len(b) != 12 {
			return bad("time with time zone")
		}
		us, zone := int64(be.Uint64(b)), int(int32(be.Uint32(b[8:])))
		if us < 0 || us > types.MicrosPerDay || zone <= -16*3600 || zone >= 16*3600 {
			return bad("time with time zone")
		}
		return string(types.AppendTimeTZ(nil, types.PackTimeTZ(us, -zone))), true, nil
	}
	return "", false, nil
}
