package parquetio

import (
	"encoding/binary"
	"errors"

	"github.com/parquet-go/bitpack"
)

// The RLE / bit-packed hybrid encoding (definition levels, dictionary
// indices, RLE booleans). A page's runs are decoded in one go into a reused
// slice, so batches that straddle runs need no decoder state.

var errRLE = errors.New("malformed RLE/bit-packed data")

// bitpackPad is the slack bitpack.Unpack may read past the packed bytes.
const bitpackPad = bitpack.PaddingInt64

func readUvarint(b []byte, p int) (uint64, int, bool) {
	var x uint64
	var s uint
	for i := 0; i < 10 && p < len(b); i++ {
		c := b[p]
		p++
		if c < 0x80 {
			return x | uint64(c)<<s, p, true
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
	return 0, p, false
}

// decodeHybridInt32 decodes len(dst) values of bit width bw from src into
// dst. scratch is a reusable buffer for the rare case where a bit-packed run
// sits too close to the end of src's capacity for the vectorised unpacker.
// It returns the grown scratch.
func decodeHybridInt32(dst []int32, src []byte, bw uint, scratch []byte) ([]byte, error) {
	if bw > 32 {
		return scratch, errRLE
	}
	n := len(dst)
	i := 0
	p := 0
	vbytes := int(bw+7) / 8
	for i < n {
		h, np, ok := readUvarint(src, p)
		if !ok {
			return scratch, errRLE
		}
		p = np
		if h&1 == 0 { // RLE run
			cnt := h >> 1
			if p+vbytes > len(src) {
				return scratch, errRLE
			}
			var v uint32
			for k := 0; k < vbytes; k++ {
				v |= uint32(src[p+k]) << (8 * k)
			}
			p += vbytes
			if bw < 32 && v>>bw != 0 {
				return scratch, errRLE
			}
			m := n - i
			if cnt < uint64(m) {
				m = int(cnt)
			}
			fill32(dst[i:i+m], int32(v))
			i += m
			continue
		}
		groups := h >> 1
		if groups > uint64(len(src)) {
			return scratch, errRLE
		}
		nbytes := int(groups) * int(bw)
		if p+nbytes > len(src) {
			// Some writers cut the last run short; take what is there.
			nbytes = len(src) - p
		}
		vals := int(groups) * 8
		if bw > 0 {
			if avail := nbytes * 8 / int(bw); avail < vals {
				vals = avail
			}
		}
		m := n - i
		if vals < m {
			m = vals
		}
		if m <= 0 {
			return scratch, errRLE
		}
		if bw == 0 {
			fill32(dst[i:i+m], 0)
		} else {
			need := (m*int(bw)+7)/8 + bitpackPad
			in := src[p:]
			if cap(in) < need {
				if cap(scratch) < need {
					scratch = make([]byte, need)
				}
				scratch = scratch[:need]
				k := copy(scratch, src[p:p+nbytes])
				clear(scratch[k:])
				in = scratch
			}
			bitpack.Unpack(dst[i:i+m], in, bw)
		}
		i += m
		p += nbytes
	}
	return scratch, nil
}

func fill32(d []int32, v int32) {
	for k := range d {
		d[k] = v
	}
}

// allOnes reports whether 1-bit levels src start with one RLE run of ones
// covering n values, as writers encode the levels of a page without NULLs:
// such a page needs no level decoded.
func allOnes(src []byte, n int) bool {
	h, p, ok := readUvarint(src, 0)
	return ok && h&1 == 0 && h>>1 >= uint64(n) && p < len(src) && src[p] == 1
}

// decodeLevels decodes len(dst) values of bit width bw (at most 8) — levels
// or RLE booleans — and returns how many of them equal one. That count is
// what an optional flat column needs: the number of non-NULL values.
func decodeLevels(dst []uint8, src []byte, bw uint) (ones int, err error) {
	if bw > 8 {
		return 0, errRLE
	}
	n := len(dst)
	i := 0
	p := 0
	for i < n {
		h, np, ok := readUvarint(src, p)
		if !ok {
			return 0, errRLE
		}
		p = np
		if h&1 == 0 {
			cnt := h >> 1
			var v uint8
			if bw > 0 {
				if p >= len(src) {
					return 0, errRLE
				}
				v = src[p]
				p++
				if bw < 8 && v>>bw != 0 {
					return 0, errRLE
				}
			}
			m := n - i
			if cnt < uint64(m) {
				m = int(cnt)
			}
			d := dst[i : i+m]
			for k := range d {
				d[k] = v
			}
			if v == 1 {
				ones += m
			}
			i += m
			continue
		}
		groups := h >> 1
		if groups > uint64(len(src)) {
			return 0, errRLE
		}
		nbytes := int(groups) * int(bw)
		if p+nbytes > len(src) {
			nbytes = len(src) - p
		}
		vals := int(groups) * 8
		if bw > 0 {
			if avail := nbytes * 8 / int(bw); avail < vals {
				vals = avail
			}
		}
		m := n - i
		if vals < m {
			m = vals
		}
		if m <= 0 {
			return 0, errRLE
		}
		in := src[p : p+nbytes]
		d := dst[i : i+m]
		switch bw {
		case 0:
			for k := range d {
				d[k] = 0
			}
		case 1:
			// Eight levels per byte, least significant bit first.
			full := m / 8
			for g := 0; g < full; g++ {
				c := in[g]
				binary.LittleEndian.PutUint64(d[g*8:g*8+8], spreadBits[c])
				ones += int(bitsSet[c])
			}
			for k := full * 8; k < m; k++ {
				v := (in[k>>3] >> (k & 7)) & 1
				d[k] = v
				ones += int(v)
			}
		default:
			mask := uint32(1)<<bw - 1
			for k := 0; k < m; k++ {
				bit := k * int(bw)
				w := uint32(in[bit>>3])
				if (bit>>3)+1 < len(in) {
					w |= uint32(in[(bit>>3)+1]) << 8
				}
				v := uint8((w >> (bit & 7)) & mask)
				d[k] = v
				if v == 1 {
					ones++
				}
			}
		}
		i += m
		p += nbytes
	}
	return ones, nil
}

// spreadBits[c] holds bit k of c in its byte k: one byte of packed
// 1-bit levels becomes eight level bytes in one store.
var spreadBits = func() (t [256]uint64) {
	for c := range t {
		for k := 0; k < 8; k++ {
			t[c] |= uint64(c>>k&1) << (8 * k)
		}
	}
	return t
}()

var bitsSet = func() (t [256]uint8) {
	for i := range t {
		for v := i; v != 0; v &= v - 1 {
			t[i]++
		}
	}
	return
}()
