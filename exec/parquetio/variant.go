package parquetio

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// Variant values (DuckDB's VARIANT, DuckLake type variant) as Parquet's
// Variant encoding stores them: a group of metadata (a dictionary of object
// keys), value (the binary encoding of one value) and, when the writer
// shredded the column, typed_value (the value in a typed column, itself
// variant groups for the fields of objects and the elements of arrays).
// lakepg reads them as json text.

var errVariant = errors.New("corrupt variant value")

type variantMeta struct {
	keys []string
}

// parseVariantMeta reads the metadata: a header byte (version 1 in its low
// four bits, the byte size of offsets less one in its top two), the
// dictionary size and offsets in that size, then the key bytes.
func parseVariantMeta(b []byte) (variantMeta, error) {
	var m variantMeta
	if len(b) < 1 || b[0]&0x0f != 1 {
		return m, errVariant
	}
	size := int(b[0]>>6) + 1
	p := 1
	n, ok := readUintN(b, p, size)
	if !ok || n > uint64(len(b)) {
		return m, errVariant
	}
	p += size
	offs := make([]int, n+1)
	for i := range offs {
		o, ok := readUintN(b, p, size)
		if !ok {
			return m, errVariant
		}
		offs[i] = int(o)
		p += size
	}
	data := b[p:]
	m.keys = make([]string, n)
	for i := range m.keys {
		if offs[i] > offs[i+1] || offs[i+1] > len(data) {
			return m, errVariant
		}
		m.keys[i] = string(data[offs[i]:offs[i+1]])
	}
	return m, nil
}

func readUintN(b []byte, p, n int) (uint64, bool) {
	if p < 0 || n < 1 || n > 4 || p+n > len(b) {
		return 0, false
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[p+i])
	}
	return v, true
}

// appendVariantJSON appends the value encoded in v as JSON text.
func appendVariantJSON(dst []byte, m *variantMeta, v []byte, depth int) ([]byte, error) {
	if len(v) < 1 || depth > 64 {
		return dst, errVariant
	}
	basic, hdr := v[0]&3, v[0]>>2
	switch basic {
	case 1: // short string
		n := int(hdr)
		if 1+n > len(v) {
			return dst, errVariant
		}
		return appendJSONString(dst, string(v[1:1+n])), nil
	case 2: // object
		idSize, offSize := int(hdr>>2&3)+1, int(hdr&3)+1
		large := hdr>>4&1 == 1
		p, count, ok := variantCount(v, large)
		if !ok {
			return dst, errVariant
		}
		idsAt, offsAt := p, p+count*idSize
		valsAt := offsAt + (count+1)*offSize
		if valsAt > len(v) {
			return dst, errVariant
		}
		dst = append(dst, '{')
		for i := 0; i < count; i++ {
			id, ok1 := readUintN(v, idsAt+i*idSize, idSize)
			off, ok2 := readUintN(v, offsAt+i*offSize, offSize)
			if !ok1 || !ok2 || id >= uint64(len(m.keys)) || valsAt+int(off) >= len(v) {
				return dst, errVariant
			}
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendJSONString(dst, m.keys[id])
			dst = append(dst, ": "...)
			var err error
			if dst, err = appendVariantJSON(dst, m, v[valsAt+int(off):], depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	case 3: // array
		offSize := int(hdr&3) + 1
		large := hdr>>2&1 == 1
		p, count, ok := variantCount(v, large)
		if !ok {
			return dst, errVariant
		}
		valsAt := p + (count+1)*offSize
		if valsAt > len(v) {
			return dst, errVariant
		}
		dst = append(dst, '[')
		for i := 0; i < count; i++ {
			off, ok := readUintN(v, p+i*offSize, offSize)
			if !ok || valsAt+int(off) >= len(v) {
				return dst, errVariant
			}
			if i > 0 {
				dst = append(dst, ", "...)
			}
			var err error
			if dst, err = appendVariantJSON(dst, m, v[valsAt+int(off):], depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}
	return appendVariantPrimitive(dst, hdr, v[1:])
}

// variantCount reads an object's or array's element count: one byte, or
// four when large.
func variantCount(v []byte, large bool) (p, n int, ok bool) {
	size := 1
	if large {
		size = 4
	}
	c, ok := readUintN(v, 1, size)
	if !ok || c > uint64(len(v)) {
		return 0, 0, false
	}
	return 1 + size, int(c), true
}

func appendVariantPrimitive(dst []byte, typ byte, b []byte) ([]byte, error) {
	need := func(n int) bool { return len(b) >= n }
	le := binary.LittleEndian
	switch typ {
	case 0:
		return append(dst, "null"...), nil
	case 1:
		return append(dst, "true"...), nil
	case 2:
		return append(dst, "false"...), nil
	case 3:
		if need(1) {
			return strconv.AppendInt(dst, int64(int8(b[0])), 10), nil
		}
	case 4:
		if need(2) {
			return strconv.AppendInt(dst, int64(int16(le.Uint16(b))), 10), nil
		}
	case 5:
		if need(4) {
			return strconv.AppendInt(dst, int64(int32(le.Uint32(b))), 10), nil
		}
	case 6:
		if need(8) {
			return strconv.AppendInt(dst, int64(le.Uint64(b)), 10), nil
		}
	case 7:
		if need(8) {
			return appendJSONFloat(dst, math.Float64frombits(le.Uint64(b)), 64), nil
		}
	case 14:
		if need(4) {
			return appendJSONFloat(dst, float64(math.Float32frombits(le.Uint32(b))), 32), nil
		}
	case 8, 9, 10: // decimal4/8/16: a scale byte, then the unscaled integer
		size := map[byte]int{8: 4, 9: 8, 10: 16}[typ]
		if need(1 + size) {
			u := make([]byte, size)
			for i := range size { // little-endian to big-endian
				u[i] = b[size-i]
			}
			n := new(big.Int).SetBytes(u)
			if u[0]&0x80 != 0 {
				n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*size)))
			}
			return appendVariantDecimal(dst, n.String(), int(b[0])), nil
		}
	case 11:
		if need(4) {
			d := time.Unix(int64(int32(le.Uint32(b)))*86400, 0).UTC()
			return appendJSONString(dst, d.Format("2006-01-02")), nil
		}
	case 12, 13:
		if need(8) {
			ts := time.UnixMicro(int64(le.Uint64(b))).UTC()
			s := ts.Format("2006-01-02 15:04:05.999999")
			if typ == 12 {
				s += "+00"
			}
			return appendJSONString(dst, s), nil
		}
	case 18, 19:
		if need(8) {
			ns := int64(le.Uint64(b))
			ts := time.Unix(0, ns).UTC()
			s := ts.Format("2006-01-02 15:04:05.999999999")
			if typ == 18 {
				s += "+00"
			}
			return appendJSONString(dst, s), nil
		}
	case 17:
		if need(8) {
			us := int64(le.Uint64(b))
			t := time.UnixMicro(us).UTC()
			return appendJSONString(dst, t.Format("15:04:05.999999")), nil
		}
	case 15, 16:
		if need(4) {
			n := int(le.Uint32(b))
			if n <= len(b)-4 {
				if typ == 16 {
					return appendJSONString(dst, string(b[4:4+n])), nil
				}
				return appendJSONString(dst, base64.StdEncoding.EncodeToString(b[4:4+n])), nil
			}
		}
	case 20:
		if need(16) {
			u, _ := uuid.FromBytes(b[:16])
			return appendJSONString(dst, u.String()), nil
		}
	default:
		return dst, fmt.Errorf("%w: primitive type %d", errVariant, typ)
	}
	return dst, errVariant
}

func appendJSONFloat(dst []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return appendJSONString(dst, strconv.FormatFloat(f, 'g', -1, bits))
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}

// appendVariantDecimal writes the integer text s with scale digits after the point.
func appendVariantDecimal(dst []byte, s string, scale int) []byte {
	if scale <= 0 {
		return append(dst, s...)
	}
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
		dst = append(dst, '-')
	}
	for len(s) <= scale {
		s = "0" + s
	}
	dst = append(dst, s[:len(s)-scale]...)
	dst = append(dst, '.')
	return append(dst, s[len(s)-scale:]...)
}
