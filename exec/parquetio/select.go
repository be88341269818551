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
	switch c.plan.out {
	case types.StoreInt:
		v.I64 = resize(v.I64, m)
	case types.StoreFloat:
		v.F64 = resize(v.F64, m)
	case types.StoreBool:
		v.B = resize(v.B, m)
	case types.StoreInterval:
		v.Iv = resize(v.Iv, m)
	default:
		v.S = resize(v.S, m)
	}
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
	if c.dict {
		if c.idxPos+nn > len(c.idx) {
			return false, c.corrupt("fewer dictionary indices than values")
		}
		idx := c.idx[c.idxPos : c.idxPos+nn]
		c.idxPos += nn
		switch c.plan.out {
		case types.StoreInt:
			return pickDict(v.I64[out:], c.dI64, idx, defs, ss, off, nulls), nil
		case types.StoreFloat:
			return pickDict(v.F64[out:], c.dF64, idx, defs, ss, off, nulls), nil
		case types.StoreBool:
			return pickDict(v.B[out:], c.dB, idx, defs, ss, off, nulls), nil
		case types.StoreInterval:
			return pickDict(v.Iv[out:], c.dIv, idx, defs, ss, off, nulls), nil
		default:
			return pickDict(v.S[out:], c.dS, idx, defs, ss, off, nulls), nil
		}
	}
	if w := c.plainWidth(); w > 0 {
		if len(c.data)-c.st.pos < w*nn {
			return false, c.corrupt("page holds fewer values than announced")
		}
		vals := c.data[c.st.pos : c.st.pos+w*nn]
		c.st.pos += w * nn
		return c.pickPlain(v, out, vals, w, defs, ss, off, nulls)
	}
	return c.pickDecoded(v, k, defs, nn, ss, off, out, nulls)
}

// pickDict sets dst[t] to the dictionary value of row ss[t]-off of a page
// segment whose non-NULL values have indices idx, NULL (zero, and marked in
// nulls) where defs says so.
func pickDict[T any](dst, dict []T, idx []int32, defs []uint8, ss []int32, off int, nulls []bool) bool {
	var zero T
	dst = dst[:len(ss)]
	if defs == nil {
		for t, r := range ss {
			dst[t] = dict[idx[int(r)-off]]
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
			dst[t], nulls[t], anyNull = zero, true, true
			continue
		}
		dst[t] = dict[idx[j]]
	}
	return anyNull
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

// pickPlain reads the selected rows of a segment of PLAIN values of width w.
func (c *colReader) pickPlain(v *vec.Vector, out int, vals []byte, w int, defs []uint8, ss []int32, off int, nulls []bool) (bool, error) {
	p := &c.plan
	anyNull := false
	j, prev := 0, 0
	if p.out == types.StoreFloat {
		dst := v.F64[out : out+len(ss)]
		for t, r := range ss {
			r := int(r) - off
			if defs != nil {
				j += countOnes(defs[prev:r])
				prev = r
				if defs[r] == 0 {
					dst[t], nulls[t], anyNull = 0, true, true
					continue
				}
			} else {
				j = r
			}
			dst[t] = math.Float64frombits(binary.LittleEndian.Uint64(vals[8*j:]))
		}
		return anyNull, nil
	}
	dst := v.I64[out : out+len(ss)]
	for t, r := range ss {
		r := int(r) - off
		if defs != nil {
			j += countOnes(defs[prev:r])
			prev = r
			if defs[r] == 0 {
				dst[t], nulls[t], anyNull = 0, true, true
				continue
			}
		} else {
			j = r
		}
		switch {
		case w == 8:
			dst[t] = int64(binary.LittleEndian.Uint64(vals[8*j:]))
		case p.unsigned:
			dst[t] = int64(binary.LittleEndian.Uint32(vals[4*j:]))
		default:
			dst[t] = int64(int32(binary.LittleEndian.Uint32(vals[4*j:])))
		}
	}
	if p.intConv() && !convertInts(dst, p) {
		return false, outOfRange(c)
	}
	return anyNull, nil
}

// pickDecoded decodes a whole segment of k rows (nn of them not NULL) into
// a scratch vector and copies the selected rows.
func (c *colReader) pickDecoded(v *vec.Vector, k int, defs []uint8, nn int, ss []int32, off, out int, nulls []bool) (bool, error) {
	if c.selVec == nil || c.selVec.Type.Storage() != c.want.Storage() {
		c.selVec = vec.New(c.want, k)
	}
	tmp := c.selVec
	var d dest
	switch c.plan.out {
	case types.StoreInt:
		tmp.I64 = resize(tmp.I64, k)
		d.i64 = tmp.I64[:nn]
	case types.StoreFloat:
		tmp.F64 = resize(tmp.F64, k)
		d.f64 = tmp.F64[:nn]
	case types.StoreBool:
		tmp.B = resize(tmp.B, k)
		d.b = tmp.B[:nn]
	case types.StoreInterval:
		tmp.Iv = resize(tmp.Iv, k)
		d.iv = tmp.Iv[:nn]
	default:
		tmp.S = resize(tmp.S, k)
		d.s = tmp.S[:nn]
	}
	if err := c.decodeInto(d, nn); err != nil {
		return false, err
	}
	switch c.plan.out {
	case types.StoreInt:
		return pickPacked(v.I64[out:], tmp.I64, defs, ss, off, nulls), nil
	case types.StoreFloat:
		return pickPacked(v.F64[out:], tmp.F64, defs, ss, off, nulls), nil
	case types.StoreBool:
		return pickPacked(v.B[out:], tmp.B, defs, ss, off, nulls), nil
	case types.StoreInterval:
		return pickPacked(v.Iv[out:], tmp.Iv, defs, ss, off, nulls), nil
	default:
		return pickPacked(v.S[out:], tmp.S, defs, ss, off, nulls), nil
	}
}

// pickPacked is pickDict over values already decoded, packed without their
// NULLs.
func pickPacked[T any](dst, packed []T, defs []uint8, ss []int32, off int, nulls []bool) bool {
	var zero T
	dst = dst[:len(ss)]
	if defs == nil {
		for t, r := range ss {
			dst[t] = packed[int(r)-off]
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
			dst[t], nulls[t], anyNull = zero, true, true
			continue
		}
		dst[t] = packed[j]
	}
	return anyNull
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

// CompactVector keeps the rows sel (ascending) of a flat vector, in place.
func CompactVector(v *vec.Vector, sel []int32) {
	switch v.Type.Storage() {
	case types.StoreInt:
		v.I64 = compactSlice(v.I64, sel)
	case types.StoreFloat:
		v.F64 = compactSlice(v.F64, sel)
	case types.StoreBool:
		v.B = compactSlice(v.B, sel)
	case types.StoreInterval:
		v.Iv = compactSlice(v.Iv, sel)
	default:
		v.S = compactSlice(v.S, sel)
	}
	if v.Nulls != nil {
		v.Nulls = compactSlice(v.Nulls, sel)
	}
}

func compactSlice[T any](s []T, sel []int32) []T {
	for t, r := range sel {
		s[t] = s[r]
	}
	return s[:len(sel)]
}
