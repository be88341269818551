package parquetio

import (
	"encoding/binary"
	"math/bits"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Pages of a leaf under a nested field: besides definition levels of any
// height they carry repetition levels, and a page holds level entries, not
// rows. The colReader's page machinery (chunk, decompression, dictionary,
// PLAIN and dictionary decoding) is shared; only the levels differ, and the
// values are decoded densely (one per entry whose level is the maximum).

type nestLevels struct {
	maxDef, maxRep int
	rep, def       []uint8 // the current page's levels, one per entry
	pos            int     // next entry of the page
	repBuf, defBuf []uint8
}

func newNestLevels(maxDef, maxRep int) *nestLevels {
	return &nestLevels{maxDef: maxDef, maxRep: maxRep}
}

func levelWidth(max int) uint { return uint(bits.Len(uint(max))) }

// decodeLevelRun decodes n levels of the given maximum from RLE/bit-packed
// src into buf; levels above max are corrupt.
func decodeLevelRun(buf []uint8, src []byte, n, max int) ([]uint8, error) {
	buf = resize(buf, n)
	if max == 0 {
		clear(buf)
		return buf, nil
	}
	if _, err := decodeLevels(buf, src, levelWidth(max)); err != nil {
		return buf, err
	}
	for _, l := range buf {
		if int(l) > max {
			return buf, errRLE
		}
	}
	return buf, nil
}

func (c *colReader) loadNestedV1(h *pageHeader, body []byte) error {
	page, err := c.decompress(body, int(h.uncompressedSize))
	if err != nil {
		return err
	}
	nl := c.nest
	n := int(h.numValues)
	p := 0
	section := func(max int, enc int32, what string) ([]byte, error) {
		if max == 0 {
			return nil, nil
		}
		if enc != encRLE {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "Parquet %s level encoding %d is not supported", what, enc)
		}
		if len(page)-p < 4 {
			return nil, c.corrupt("short %s levels", what)
		}
		l := int(binary.LittleEndian.Uint32(page[p:]))
		if l < 0 || l > len(page)-p-4 {
			return nil, c.corrupt("%s levels overrun the page", what)
		}
		src := page[p+4 : p+4+l]
		p += 4 + l
		return src, nil
	}
	repSrc, err := section(nl.maxRep, h.repEncoding, "repetition")
	if err != nil {
		return err
	}
	defSrc, err := section(nl.maxDef, h.defEncoding, "definition")
	if err != nil {
		return err
	}
	if err := c.nestedLevels(repSrc, defSrc, n); err != nil {
		return err
	}
	return c.loadValues(h.encoding, page[p:], n, c.nestValues())
}

func (c *colReader) loadNestedV2(h *pageHeader, body []byte) error {
	n := int(h.numValues)
	rl, dl := int(h.repLen), int(h.defLen)
	if rl+dl > len(body) {
		return c.corrupt("levels overrun the page")
	}
	if err := c.nestedLevels(body[:rl], body[rl:rl+dl], n); err != nil {
		return err
	}
	vals := body[rl+dl:]
	if h.isCompressed {
		var err error
		if vals, err = c.decompress(vals, int(h.uncompressedSize)-rl-dl); err != nil {
			return err
		}
	} else if c.codec != codecUncompressed {
		c.matBuf = growBytes(c.matBuf, len(vals)+bitpackPad)[:len(vals)]
		copy(c.matBuf, vals)
		vals = c.matBuf
	}
	return c.loadValues(h.encoding, vals, n, c.nestValues())
}

func (c *colReader) nestedLevels(repSrc, defSrc []byte, n int) error {
	nl := c.nest
	var err error
	if nl.repBuf, err = decodeLevelRun(nl.repBuf, repSrc, n, nl.maxRep); err != nil {
		return c.corrupt("repetition levels: %v", err)
	}
	if nl.defBuf, err = decodeLevelRun(nl.defBuf, defSrc, n, nl.maxDef); err != nil {
		return c.corrupt("definition levels: %v", err)
	}
	nl.rep, nl.def, nl.pos = nl.repBuf, nl.defBuf, 0
	c.defs = nil
	return nil
}

// nestValues is the number of values the current page holds: its entries
// at the maximum definition level.
func (c *colReader) nestValues() int {
	nl := c.nest
	m := uint8(nl.maxDef)
	k := 0
	for _, d := range nl.def {
		if d == m {
			k++
		}
	}
	return k
}

// leafBatch is one leaf's share of a batch: the levels of its rows and
// their values, densely.
type leafBatch struct {
	rep, def []uint8
	vals     *vec.Vector
	pos, vp  int // assembly cursors into the levels and the values
}

// fillRows reads the level entries of the next rows rows of the chunk into
// lb (replacing what it held).
func (c *colReader) fillRows(lb *leafBatch, rows int) error {
	nl := c.nest
	lb.rep, lb.def = lb.rep[:0], lb.def[:0]
	lb.pos, lb.vp = 0, 0
	v := lb.vals
	v.Reset()
	seen := 0
	for {
		if c.pageLeft == 0 {
			if c.unpagedRows == 0 {
				break
			}
			if err := c.nextPage(); err != nil {
				return err
			}
			continue
		}
		start := nl.pos
		end := start + c.pageLeft
		i := start
		full := false
		for ; i < end; i++ {
			if nl.rep[i] == 0 {
				if seen == rows {
					full = true
					break
				}
				seen++
			} else if len(lb.rep) == 0 && i == start {
				return c.corrupt("a row starts with repetition level %d", nl.rep[i])
			}
		}
		lb.rep = append(lb.rep, nl.rep[start:i]...)
		lb.def = append(lb.def, nl.def[start:i]...)
		k := 0
		m := uint8(nl.maxDef)
		for _, d := range nl.def[start:i] {
			if d == m {
				k++
			}
		}
		if k > 0 {
			if err := c.denseValues(v, k); err != nil {
				return err
			}
		}
		nl.pos = i
		c.pageLeft -= i - start
		if full {
			break
		}
	}
	if seen != rows {
		return c.corrupt("column chunk holds fewer rows than its row group")
	}
	return nil
}

// denseValues appends the page's next k values to v.
func (c *colReader) denseValues(v *vec.Vector, k int) error {
	off := v.Len()
	var d dest
	switch c.plan.out {
	case types.StoreInt:
		v.I64 = growKeep(v.I64, off+k)
		d.i64 = v.I64[off:]
	case types.StoreFloat:
		v.F64 = growKeep(v.F64, off+k)
		d.f64 = v.F64[off:]
	case types.StoreBool:
		v.B = growKeep(v.B, off+k)
		d.b = v.B[off:]
	case types.StoreInterval:
		v.Iv = growKeep(v.Iv, off+k)
		d.iv = v.Iv[off:]
	default:
		v.S = growKeep(v.S, off+k)
		d.s = v.S[off:]
	}
	return c.decodeInto(d, k)
}

// growKeep extends s to length n, keeping its contents.
func growKeep[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	t := make([]T, n, n+n/2)
	copy(t, s)
	return t
}
