package parquetio

import (
	"encoding/binary"
	"errors"
	"math"
)

// A minimal reader of the Thrift compact protocol, enough for the Parquet
// footer and page headers. It is ours rather than parquet-go's reflective
// decoder because page headers are parsed once per page on the hot path and
// must not allocate, and because the footer decoder must tell an absent
// field (null_count, field_id) from a zero one.

// Compact protocol type codes.
const (
	ctStop   = 0
	ctTrue   = 1
	ctFalse  = 2
	ctByte   = 3
	ctI16    = 4
	ctI32    = 5
	ctI64    = 6
	ctDouble = 7
	ctBinary = 8
	ctList   = 9
	ctSet    = 10
	ctMap    = 11
	ctStruct = 12
	ctUUID   = 13
)

var errThrift = errors.New("malformed thrift data")

// maxThriftDepth bounds nesting while skipping, so a corrupt file cannot
// exhaust the stack.
const maxThriftDepth = 64

type tReader struct {
	b   []byte
	p   int
	err error
}

func (r *tReader) fail() {
	if r.err == nil {
		r.err = errThrift
	}
	r.p = len(r.b)
}

func (r *tReader) byte1() byte {
	if r.p >= len(r.b) {
		r.fail()
		return 0
	}
	c := r.b[r.p]
	r.p++
	return c
}

func (r *tReader) uvarint() uint64 {
	var x uint64
	var s uint
	for i := 0; i < 10; i++ {
		if r.p >= len(r.b) {
			r.fail()
			return 0
		}
		c := r.b[r.p]
		r.p++
		if c < 0x80 {
			return x | uint64(c)<<s
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
	r.fail()
	return 0
}

func (r *tReader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (r *tReader) i32() int32 {
	v := r.varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.fail()
		return 0
	}
	return int32(v)
}

// binary returns a view of the next binary value (no copy).
func (r *tReader) binary() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)-r.p) {
		r.fail()
		return nil
	}
	v := r.b[r.p : r.p+int(n) : r.p+int(n)]
	r.p += int(n)
	return v
}

func (r *tReader) str() string { return string(r.binary()) }

// field reads the next field header of a struct; ok is false at the STOP
// marker or on error. last carries the previous field id for delta coding.
func (r *tReader) field(last *int16) (id int16, typ byte, ok bool) {
	b := r.byte1()
	if b == ctStop || r.err != nil {
		return 0, 0, false
	}
	typ = b & 0x0f
	if d := b >> 4; d != 0 {
		id = *last + int16(d)
	} else {
		id = int16(r.varint())
	}
	*last = id
	return id, typ, r.err == nil
}

// list reads a list or set header.
func (r *tReader) list() (n int, elem byte) {
	b := r.byte1()
	elem = b & 0x0f
	n = int(b >> 4)
	if n == 15 {
		u := r.uvarint()
		if u > uint64(len(r.b)) { // every element takes at least one byte, except bools in some writers; bounded anyway
			r.fail()
			return 0, 0
		}
		n = int(u)
	}
	return n, elem
}

// boolField decodes a bool struct field from its type code.
func boolField(typ byte) bool { return typ == ctTrue }

// skip skips one value of type typ.
func (r *tReader) skip(typ byte, depth int) {
	if depth > maxThriftDepth {
		r.fail()
		return
	}
	switch typ {
	case ctTrue, ctFalse:
		// the value lives in the field header (or one byte inside lists,
		// handled by skipElem)
	case ctByte:
		r.byte1()
	case ctI16, ctI32, ctI64:
		r.uvarint()
	case ctDouble:
		if len(r.b)-r.p < 8 {
			r.fail()
			return
		}
		r.p += 8
	case ctBinary:
		r.binary()
	case ctUUID:
		if len(r.b)-r.p < 16 {
			r.fail()
			return
		}
		r.p += 16
	case ctList, ctSet:
		n, elem := r.list()
		for i := 0; i < n && r.err == nil; i++ {
			r.skipElem(elem, depth+1)
		}
	case ctMap:
		n := r.uvarint()
		if n == 0 {
			return
		}
		if n > uint64(len(r.b)) {
			r.fail()
			return
		}
		kv := r.byte1()
		for i := uint64(0); i < n && r.err == nil; i++ {
			r.skipElem(kv>>4, depth+1)
			r.skipElem(kv&0x0f, depth+1)
		}
	case ctStruct:
		var last int16
		for r.err == nil {
			_, t, ok := r.field(&last)
			if !ok {
				return
			}
			r.skip(t, depth+1)
		}
	default:
		r.fail()
	}
}

// skipElem skips a list/map element: bools take one byte there.
func (r *tReader) skipElem(typ byte, depth int) {
	if typ == ctTrue || typ == ctFalse {
		r.byte1()
		return
	}
	r.skip(typ, depth)
}

// Page types.
const (
	pageData       = 0
	pageIndex      = 1
	pageDictionary = 2
	pageDataV2     = 3
)

// pageHeader is the part of a Parquet PageHeader the reader uses.
type pageHeader struct {
	typ              int32
	uncompressedSize int32
	compressedSize   int32
	numValues        int32
	encoding         int32
	defEncoding      int32
	repEncoding      int32
	// v2 only
	numNulls     int32
	defLen       int32
	repLen       int32
	isCompressed bool
}

// readPageHeader parses a page header at the start of b and returns its
// length in bytes. It never allocates.
func readPageHeader(b []byte, h *pageHeader) (int, error) {
	*h = pageHeader{typ: -1, isCompressed: true}
	r := tReader{b: b}
	var last int16
	for {
		id, typ, ok := r.field(&last)
		if !ok {
			break
		}
		switch {
		case id == 1 && typ == ctI32:
			h.typ = r.i32()
		case id == 2 && typ == ctI32:
			h.uncompressedSize = r.i32()
		case id == 3 && typ == ctI32:
			h.compressedSize = r.i32()
		case id == 5 && typ == ctStruct: // DataPageHeader
			var l int16
			for {
				fid, ft, ok := r.field(&l)
				if !ok {
					break
				}
				switch {
				case fid == 1 && ft == ctI32:
					h.numValues = r.i32()
				case fid == 2 && ft == ctI32:
					h.encoding = r.i32()
				case fid == 3 && ft == ctI32:
					h.defEncoding = r.i32()
				case fid == 4 && ft == ctI32:
					h.repEncoding = r.i32()
				default:
					r.skip(ft, 1)
				}
			}
		case id == 7 && typ == ctStruct: // DictionaryPageHeader
			var l int16
			for {
				fid, ft, ok := r.field(&l)
				if !ok {
					break
				}
				switch {
				case fid == 1 && ft == ctI32:
					h.numValues = r.i32()
				case fid == 2 && ft == ctI32:
					h.encoding = r.i32()
				default:
					r.skip(ft, 1)
				}
			}
		case id == 8 && typ == ctStruct: // DataPageHeaderV2
			var l int16
			for {
				fid, ft, ok := r.field(&l)
				if !ok {
					break
				}
				switch {
				case fid == 1 && ft == ctI32:
					h.numValues = r.i32()
				case fid == 2 && ft == ctI32:
					h.numNulls = r.i32()
				case fid == 4 && ft == ctI32:
					h.encoding = r.i32()
				case fid == 5 && ft == ctI32:
					h.defLen = r.i32()
				case fid == 6 && ft == ctI32:
					h.repLen = r.i32()
				case fid == 7 && (ft == ctTrue || ft == ctFalse):
					h.isCompressed = boolField(ft)
				default:
					r.skip(ft, 1)
				}
			}
		default:
			r.skip(typ, 0)
		}
	}
	if r.err != nil {
		return 0, r.err
	}
	if h.typ < 0 || h.compressedSize < 0 || h.uncompressedSize < 0 || h.numValues < 0 ||
		h.defLen < 0 || h.repLen < 0 || h.numNulls < 0 {
		return 0, errThrift
	}
	return r.p, nil
}

// readFooterLength validates the 8-byte tail of a Parquet file and says
// whether it is an encrypted-footer ("PARE") file.
func readFooterLength(tail []byte) (int64, bool, error) {
	if len(tail) != 8 {
		return 0, false, errors.New("short tail")
	}
	enc := false
	switch string(tail[4:]) {
	case "PAR1":
	case "PARE":
		enc = true
	default:
		return 0, false, errors.New("not a Parquet file (missing PAR1 magic)")
	}
	return int64(binary.LittleEndian.Uint32(tail[:4])), enc, nil
}
