package parquetio

import (
	"encoding/binary"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Wide numerics (precision above 18) are decimal text in vectors
// (types/numeric_wide.go). DuckDB writes decimal(P>18,S) as
// FIXED_LEN_BYTE_ARRAY(16) big-endian two's complement, uint64 as INT64
// UINT_64, and int128/uint128 as DOUBLE; all of them read as text here.
// Times are INT64 TIME(micros): timetz values hold the UTC time of day.

// textConv says how a chunk's physical values become decimal text.
type textConv uint8

const (
	convNone     textConv = iota
	convDecBytes          // BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY decimal
	convInt               // INT32 / INT64, signed, with the source scale
	convUint              // INT32 / INT64 unsigned
	convDouble            // DOUBLE holding an integer (DuckDB's int128)
)

func widePlan(name string, s srcInfo, t types.T, p plan) (plan, error) {
	p.raw = types.StoreBytes
	isInt := s.phys == physInt32 || s.phys == physInt64
	switch {
	case s.kind == skDecimal && (s.phys == physFixed && s.typeLen <= 32 || s.phys == physByteArray):
		p.toText = convDecBytes
	case (s.kind == skDecimal || s.kind == skInt) && isInt:
		p.toText = convInt
	case s.kind == skUint && isInt:
		p.toText = convUint
	case s.kind == skDouble && s.phys == physDouble && t.DeclScale == 0:
		p.toText = convDouble
	default:
		return plan{}, unsupported(name, s, t)
	}
	return p, nil
}

func timePlan(name string, s srcInfo, t types.T, p plan) (plan, error) {
	p.raw = types.StoreInt
	switch {
	case s.kind == skInt && s.phys == physInt64:
		// an unannotated INT64 read as a time holds microseconds
	case s.kind == skTime && s.unit == unitMicros && s.phys == physInt64:
	case s.kind == skTime && s.unit == unitMillis && s.phys == physInt32:
		p.mul = 1000
	case s.kind == skTime && s.unit == unitNanos && s.phys == physInt64 && t.ID == types.Time:
		p.div = 1000
	default:
		return plan{}, unsupported(name, s, t)
	}
	if t.ID == types.TimeTZ {
		p.mul *= types.TimeTZShift // zone +00: DuckDB keeps only the UTC time
	}
	return p, nil
}

// naturalTime: TIME adjusted to UTC is DuckDB's timetz.
func naturalTime(s srcInfo) (types.T, bool) {
	t := types.TimeT
	if s.utc {
		t = types.TimeTZT
	}
	ok := s.phys == physInt64 && (s.unit == unitMicros || s.unit == unitNanos && !s.utc) || s.phys == physInt32 && s.unit == unitMillis
	return t, ok
}

// plainText decodes PLAIN values into decimal text with the wanted
// type's declared scale. The texts of one call share one string.
func (c *colReader) plainText(ss []string, src []byte, st *plainState) error {
	p := &c.plan
	t := c.want
	w := p.src.typeLen
	switch p.src.phys {
	case physInt32:
		w = 4
	case physInt64, physDouble:
		w = 8
	}
	pos := st.pos
	buf := make([]byte, 0, len(ss)*(t.Precision+3))
	ends := make([]int, len(ss))
	var bi big.Int
	for i := range ss {
		l := w
		if p.src.phys == physByteArray {
			if len(src)-pos < 4 {
				return c.corrupt("page holds fewer values than announced")
			}
			l = int(binary.LittleEndian.Uint32(src[pos:]))
			pos += 4
		}
		if l < 0 || l > len(src)-pos {
			return c.corrupt("page holds fewer values than announced")
		}
		b := src[pos : pos+l]
		pos += l
		var err error
		switch p.toText {
		case convInt:
			var x int64
			if l == 4 {
				x = int64(int32(binary.LittleEndian.Uint32(b)))
			} else {
				x = int64(binary.LittleEndian.Uint64(b))
			}
			buf, err = appendScaled(buf, t, bi.SetInt64(x), p.src.scale)
		case convUint:
			var x uint64
			if l == 4 {
				x = uint64(binary.LittleEndian.Uint32(b))
			} else {
				x = binary.LittleEndian.Uint64(b)
			}
			buf, err = appendScaled(buf, t, bi.SetUint64(x), 0)
		case convDouble:
			f := math.Float64frombits(binary.LittleEndian.Uint64(b))
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return pgerr.New(pgerr.NumericValueOutOfRange, "value %s in Parquet column %q is out of range for type %s", strconv.FormatFloat(f, 'g', -1, 64), c.name, t)
			}
			new(big.Float).SetFloat64(math.RoundToEven(f)).Int(&bi)
			buf, err = appendScaled(buf, t, &bi, 0)
		default:
			beBig(&bi, b)
			buf, err = appendScaled(buf, t, &bi, p.src.scale)
		}
		if err != nil {
			return err
		}
		ends[i] = len(buf)
	}
	st.pos = pos
	all := string(buf)
	start := 0
	for i, e := range ends {
		ss[i] = all[start:e]
		start = e
	}
	return nil
}

// appendScaled appends v·10^-scale as text with t's declared scale.
func appendScaled(dst []byte, t types.T, v *big.Int, scale int) ([]byte, error) {
	if scale == t.DeclScale {
		if v.IsInt64() {
			return types.AppendNumeric(dst, v.Int64(), scale), nil
		}
		return append(dst, types.FormatBig(v, scale)...), nil
	}
	s, err := types.FitWide(t, v, scale)
	return append(dst, s...), err
}

// beBig sets v to the big-endian two's complement integer b.
func beBig(v *big.Int, b []byte) {
	v.SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
}

// wideNode is the Parquet leaf DuckDB writes for decimal(P>18,S).
func wideNode(t types.T) parquet.Node {
	return parquet.Decimal(t.DeclScale, t.Precision, parquet.FixedLenByteArrayType(16))
}

// wideValue converts a wide numeric's text to FIXED_LEN_BYTE_ARRAY(16)
// big-endian two's complement, in b.
func wideValue(b []byte, t types.T, s string) error {
	d, sc, err := types.ParseDecimal(s)
	if err != nil {
		return err
	}
	if sc != t.DeclScale {
		txt, err := types.FitWide(t, d, sc)
		if err != nil {
			return err
		}
		if d, _, err = types.ParseDecimal(txt); err != nil {
			return err
		}
	}
	if d.Sign() < 0 {
		d.Add(d, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	if d.Sign() < 0 || d.BitLen() > 128 {
		return pgerr.New(pgerr.NumericValueOutOfRange, "numeric value %s does not fit in 16 bytes", s)
	}
	d.FillBytes(b)
	return nil
}

// timeStatText formats a time's stats text as DuckDB does: HH:MM:SS with
// the fraction's trailing zeros dropped.
func timeStatText(dst []byte, us int64) []byte { return types.AppendTime(dst, us) }

// wideLess orders two wide numeric texts by value, for min/max stats.
func wideLess(a, b string) bool {
	x, ok1 := new(big.Rat).SetString(a)
	y, ok2 := new(big.Rat).SetString(b)
	return ok1 && ok2 && x.Cmp(y) < 0
}

// addWide accumulates min/max of wide numeric texts by value.
func (a *statAcc) addWide(v *vec.Vector, lo, hi int) {
	for i := lo; i < hi; i++ {
		if v.IsNull(i) {
			continue
		}
		x := v.S[i]
		switch {
		case !a.has:
			a.minS, a.maxS, a.has = strings.Clone(x), strings.Clone(x), true
		case wideLess(x, a.minS):
			a.minS = strings.Clone(x)
		case wideLess(a.maxS, x):
			a.maxS = strings.Clone(x)
		}
	}
}

// noChunkBounds lists the columns whose Parquet chunk min/max are left
// out: DuckDB writes none for timetz, and parquet-go would order
// FIXED_LEN_BYTE_ARRAY decimals as unsigned bytes, which is wrong for
// negative values.
func noChunkBounds(t types.T) bool { return t.ID == types.TimeTZ || t.Wide() }
