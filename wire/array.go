package wire

import (
	"encoding/binary"
	"strconv"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Binary arrays and records. array_send writes
//
//	int32 ndim (0 for an empty array), int32 has-NULLs flag, uint32 element
//	OID, ndim × (int32 length, int32 lower bound), then each element as
//	int32 length (-1: NULL) and its binary form;
//
// record_send writes int32 field count, then per field uint32 OID, int32
// length (-1: NULL) and the binary form. The elements of a value are
// decoded into a vector and written by encodeColumn, whose length-prefixed
// output is already the element layout both formats use.

func encodeNested(dst []byte, ends []int, v *vec.Vector, n int, enc encoding, loc *time.Location) ([]byte, []int) {
	be := binary.BigEndian
	var scratch []int
	if enc == encArray {
		elem := v.Type.Elem()
		eenc, _ := chooseEncoding(elem, binaryFormat)
		ev := vec.New(elem, 16)
		for i := 0; i < n; i++ {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
				ends = append(ends, len(dst))
				continue
			}
			ev.Reset()
			if vec.DecodeArray(ev, v.S[i]) != nil {
				ev.Reset() // a corrupt value: send an empty array rather than garbage
			}
			at := len(dst)
			dst = append(dst, 0, 0, 0, 0)
			m := ev.Len()
			hasNull := uint32(0)
			for _, x := range ev.Nulls {
				if x {
					hasNull = 1
					break
				}
			}
			if m == 0 {
				dst = be.AppendUint32(dst, 0)
			} else {
				dst = be.AppendUint32(dst, 1)
			}
			dst = be.AppendUint32(dst, hasNull)
			dst = be.AppendUint32(dst, elem.OID())
			if m > 0 {
				dst = be.AppendUint32(dst, uint32(m))
				dst = be.AppendUint32(dst, 1)
			}
			dst, scratch = encodeColumn(dst, scratch[:0], ev, m, eenc, loc)
			be.PutUint32(dst[at:], uint32(len(dst)-at-4))
			ends = append(ends, len(dst))
		}
		return dst, ends
	}
	fs := v.Type.Fields()
	encs := make([]encoding, len(fs))
	for k, f := range fs {
		encs[k], _ = chooseEncoding(f.Type, binaryFormat)
	}
	for i := 0; i < n; i++ {
		if v.IsNull(i) {
			dst = append(dst, nullValue...)
			ends = append(ends, len(dst))
			continue
		}
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		vals, err := vec.StructFields(v.Type, v.S[i])
		if err != nil {
			vals = nil
		}
		dst = be.AppendUint32(dst, uint32(len(vals)))
		for k, fv := range vals {
			dst = be.AppendUint32(dst, fs[k].Type.OID())
			dst, scratch = encodeColumn(dst, scratch[:0], fv, 1, encs[k], loc)
		}
		be.PutUint32(dst[at:], uint32(len(dst)-at-4))
		ends = append(ends, len(dst))
	}
	return dst, ends
}

// arrayParamText turns a binary array parameter of array type oid (element
// type elem) into the array's text form, each element through
// DecodeBinaryParam, so that the SQL layer parses it as it parses text.
func arrayParamText(oid, elem uint32, b []byte) (string, error) {
	be := binary.BigEndian
	bad := func() (string, error) {
		t, _ := types.FromOID(oid)
		return "", pgerr.New(codeInvalidBinary, "incorrect binary data format for %s", t)
	}
	if len(b) < 12 {
		return bad()
	}
	ndim := int32(be.Uint32(b))
	flags := be.Uint32(b[4:])
	got := be.Uint32(b[8:])
	b = b[12:]
	if ndim < 0 || flags > 1 {
		return bad()
	}
	if ndim > 1 {
		return "", pgerr.New(pgerr.FeatureNotSupported, "multidimensional arrays are not supported")
	}
	if ndim == 0 {
		if len(b) != 0 {
			return bad()
		}
		return "{}", nil
	}
	if got != elem && !(textLike(got) && textLike(elem)) {
		et, _ := types.FromOID(elem)
		gt, ok := types.FromOID(got)
		name := gt.String()
		if !ok {
			name = "type with OID " + strconv.FormatUint(uint64(got), 10)
		}
		return "", pgerr.New(pgerr.DatatypeMismatch, "binary data has array element type %d (%s) instead of expected %d (%s)", got, name, elem, et)
	}
	if len(b) < 8 {
		return bad()
	}
	n := int32(be.Uint32(b))
	lower := int32(be.Uint32(b[4:]))
	b = b[8:]
	if n < 0 || n > 1<<27 {
		return bad()
	}
	if lower != 1 && n > 0 {
		return "", pgerr.New(pgerr.FeatureNotSupported, "arrays with a lower bound other than 1 are not supported")
	}
	out := []byte{'{'}
	for k := int32(0); k < n; k++ {
		if len(b) < 4 {
			return bad()
		}
		l := int32(be.Uint32(b))
		b = b[4:]
		if k > 0 {
			out = append(out, ',')
		}
		if l < 0 {
			out = append(out, "NULL"...)
			continue
		}
		if int(l) > len(b) {
			return bad()
		}
		s, err := DecodeBinaryParam(got, b[:l])
		if err != nil {
			return "", err
		}
		out = types.AppendArrayElem(out, s)
		b = b[l:]
	}
	if len(b) != 0 {
		return bad()
	}
	return string(append(out, '}')), nil
}

func textLike(oid uint32) bool {
	switch oid {
	case types.OIDText, types.OIDVarchar, types.OIDBpchar, types.OIDName, oidJSON:
		return true
	}
	return false
}
