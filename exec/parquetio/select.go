package parquetio

import (
	"encoding/binary"
	"math"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// readSel is read for the rows sel (ascending positions among the next n)
// alone: v gets len(sel) values, and the reader moves past all n rows.
// Dictionary pages and PLAIN 32- and 64-bit numbers are read at the
// selected rows only; a page in another encoding has its segment decoded
// whole and the rows picked from it. Passing rows that are not selected
// costs a count of their definition levels.
func (c *colReader) readSel(v *vec.Vector, n int, sel []int32) error {
	m := len(sel)
	c.sizeVector(v, m)
	c.selNulls = resize(c.selNulls, m)
	clear(c.selNulls)
	anyNull := false
	off, a := 0, 0
	for off < n {
		if c.pageLeft == 0 {
			if err := c.nextPage(); err != nil {
				return err
			}
		}
		k := min(n-off, c.pageLeft)
		b := a
		for b < m && int(sel[b]) < off+k {
			b++
		}
		nulls, err := c.segmentSel(v, off, k, sel[a:b], a)
		if err != nil {
			return err
		}
		anyNull = anyNull || nulls
		a = b
		off += k
		c.pageLeft -= k
	}
	if anyNull {
		v.Nulls = c.selNulls
	} else {
		v.Nulls = nil
	}
	c.rowNext += int64(n)
	return nil
}

// segmentSel reads the rows ss (positions in the batch, all within the k
// rows at off of the current page) into v from index out on, and passes
// the page's k rows. It reports whether a selected row is NULL.
func (c *colReader) segmentSel(v *vec.Vector, off, k int, ss []int32, out int) (bool, error) {
	nn := k
	var defs []uint8
	if c.defs != nil {
		defs = c.defs[c.defPos : c.defPos+k]
		c.defPos += k
		nn = countOnes(defs)
	}
	if len(ss) == 0 {
		return false, c.passValues(nn)
	}
	nulls := c.selNulls[out : out+len(ss)]
	// at[t] is the position of row ss[t] among the segment's non-NULL
	// values, -1 for a NULL
	c.selAt = resize(c.selAt, len(ss))
	at, anyNull := c.selAt, valuePositions(c.selAt, defs, ss, off, nulls)
	if c.dict {
		if c.idxPos+nn > len(c.idx) {
			return false, c.corrupt("fewer dictionary indices than values")
		}
		idx := c.idx[c.idxPos : c.idxPos+nn]
		c.idxPos += nn
		switch c.plan.out {
		case types.StoreInt:
			pickDict(v.I64[out:], c.dI64, idx, at)
		case types.StoreFloat:
			pickDict(v.F64[out:], c.dF64, idx, at)
		case types.StoreBool:
			pickDict(v.B[out:], c.dB, idx, at)
		case types.StoreInterval:
			pickDict(v.Iv[out:], c.dIv, idx, at)
		default:
			pickDict(v.S[out:], c.dS, idx, at)
		}
		return anyNull, nil
	}
	if w := c.plainWidth(); w > 0 {
		if len(c.data)-c.st.pos < w*nn {
			return false, c.corrupt("page holds fewer values than announced")
		}
		vals := c.data[c.st.pos : c.st.pos+w*nn]
		c.st.pos += w * nn
		return anyNull, c.pickPlain(v.I64, v.F64, out, vals, w, at)
	}
	return anyNull, c.pickDecoded(v, k, nn, out, at)
}

// valuePositions sets at[t] to the position of row ss[t]-off of a page
// segment among its non-NULL values (defs nil: every row has one), -1 for
// a NULL, which it marks in nulls; it reports whether there was one.
func valuePositions(at []int32, defs []uint8, ss []int32, off int, nulls []bool) bool {
	if defs == nil {
		for t, r := range ss {
			at[t] = r - int32(off)
		}
		return false
	}
	anyNull := false
	j, prev := 0, 0
	for t, r := range ss {
		r := int(r) - off
		j += countOnes(defs[prev:r])
		prev = r
		if defs[r] == 0 {
			at[t], nulls[t], anyNull = -1, true, true
			continue
		}
		at[t] = int32(j)
	}
	return anyNull
}

// pickDict sets dst[t] to the dictionary value of the non-NULL value at[t]
// of a segment whose values have dictionary indices idx (zero for a NULL).
func pickDict[T any](dst, dict []T, idx []int32, at []int32) {
	var zero T
	dst = dst[:len(at)]
	for t, j := range at {
		if j < 0 {
			dst[t] = zero
			continue
		}
		dst[t] = dict[idx[j]]
	}
}

// plainWidth is the width of a PLAIN value that pickPlain reads at any row
// directly: 32- and 64-bit integers read as integers, doubles as doubles.
// 0 for the rest.
func (c *colReader) plainWidth() int {
	p := &c.plan
	if p.toText != convNone || p.decBytes || p.int96 {
		return 0
	}
	switch {
	case p.raw == types.StoreInt && p.out == types.StoreInt && p.src.phys == physInt64:
		return 8
	case p.raw == types.StoreInt && p.out == types.StoreInt && p.src.phys == physInt32:
		return 4
	case p.raw == types.StoreFloat && p.out == types.StoreFloat && p.src.phys == physDouble:
		return 8
	}
	return 0
}

// pickPlain reads the values at of a segment of PLAIN values of width w
// (plainWidth) into i64 or f64 from out on.
func (c *colReader) pickPlain(i64 []int64, f64 []float64, out int, vals []byte, w int, at []int32) error {
	p := &c.plan
	if p.out == types.StoreFloat {
		dst := f64[out : out+len(at)]
		for t, j := range at {
			if j < 0 {
				dst[t] = 0
				continue
			}
			dst[t] = math.Float64frombits(binary.LittleEndian.Uint64(vals[8*j:]))
		}
		return nil
	}
	dst := i64[out : out+len(at)]
	for t, j := range at {
		switch {
		case j < 0:
			dst[t] = 0
		case w == 8:
			dst[t] = int64(binary.LittleEndian.Uint64(vals[8*j:]))
		case p.unsigned:
			dst[t] = int64(binary.LittleEndian.Uint32(vals[4*j:]))
		default:
			dst[t] = int64(int32(binary.LittleEndian.Uint32(vals[4*j:])))
		}
	}
	if p.intConv() && !convertInts(dst, p) {
		return outOfRange(c)
	}
	return nil
}

// pickDecoded decodes a segment's nn non-NULL values whole into a scratch
// vector and copies the values at.
func (c *colReader) pickDecoded(v *vec.Vector, k, nn, out int, at []int32) error {
	if c.selVec == nil || c.selVec.Type.Storage() != c.want.Storage() {
		c.selVec = vec.New(c.want, k)
	}
	tmp := c.selVec
	c.sizeVector(tmp, nn)
	var d dest
	switch c.plan.out {
	case types.StoreInt:
		d.i64 = tmp.I64
	case types.StoreFloat:
		d.f64 = tmp.F64
	case types.StoreBool:
		d.b = tmp.B
	case types.StoreInterval:
		d.iv = tmp.Iv
	default:
		d.s = tmp.S
	}
	if err := c.decodeInto(d, nn); err != nil {
		return err
	}
	switch c.plan.out {
	case types.StoreInt:
		pickPacked(v.I64[out:], tmp.I64, at)
	case types.StoreFloat:
		pickPacked(v.F64[out:], tmp.F64, at)
	case types.StoreBool:
		pickPacked(v.B[out:], tmp.B, at)
	case types.StoreInterval:
		pickPacked(v.Iv[out:], tmp.Iv, at)
	default:
		pickPacked(v.S[out:], tmp.S, at)
	}
	return nil
}

// pickPacked is pickDict over values already decoded, packed without their
// NULLs.
func pickPacked[T any](dst, packed []T, at []int32) {
	var zero T
	dst = dst[:len(at)]
	for t, j := range at {
		if j < 0 {
			dst[t] = zero
			continue
		}
		dst[t] = packed[j]
	}
}

// passValues moves past the page's next nn non-NULL values undecoded.
func (c *colReader) passValues(nn int) error {
	if c.dict {
		if c.idxPos+nn > len(c.idx) {
			return c.corrupt("fewer dictionary indices than values")
		}
		c.idxPos += nn
		return nil
	}
	st := &c.st
	src := &c.plan.src
	w := 0
	switch src.phys {
	case physBoolean:
		bit := st.pos*8 + st.bit + nn
		if (bit+7)/8 > len(c.data) {
			return c.corrupt("page holds fewer values than announced")
		}
		st.pos, st.bit = bit>>3, bit&7
		return nil
	case physByteArray:
		pos := st.pos
		for range nn {
			if len(c.data)-pos < 4 {
				return c.corrupt("page holds fewer values than announced")
			}
			l := int(binary.LittleEndian.Uint32(c.data[pos:]))
			pos += 4
			if l < 0 || l > len(c.data)-pos {
				return c.corrupt("byte array overruns the page")
			}
			pos += l
		}
		st.pos = pos
		return nil
	case physInt32, physFloat:
		w = 4
	case physInt64, physDouble:
		w = 8
	case physInt96:
		w = 12
	case physFixed:
		w = src.typeLen
	}
	if w <= 0 || len(c.data)-st.pos < w*nn {
		return c.corrupt("page holds fewer values than announced")
	}
	st.pos += w * nn
	return nil
}
