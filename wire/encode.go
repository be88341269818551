package wire

import (
	"encoding/binary"
	"math"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Format codes of the protocol.
const (
	textFormat   int16 = 0
	binaryFormat int16 = 1
)

// Epoch shifts: lakepg counts from 1970-01-01 (the Parquet convention),
// PostgreSQL's binary formats from 2000-01-01.
const (
	pgEpochDays   = 10957
	pgEpochMicros = pgEpochDays * 86400 * 1000000
)

// encoding is how one result column is written, chosen once per portal
// (type × format) so the per-row work is a tight loop with no dispatch.
type encoding uint8

const (
	encText encoding = iota
	encBool
	encInt2
	encInt4
	encInt8
	encFloat4
	encFloat8
	encBytes   // text, varchar, bytea, uuid, unknown: the stored bytes as is
	encNumeric // scaled int64
	encDynNumeric
	encDate
	encTimestamp // timestamp and timestamptz: both are UTC microseconds on the wire
	encInterval  // int64 µs, int32 days, int32 months
	encArray     // array_send (array.go)
	encRecord    // record_send (array.go)
	encTime      // int64 µs (time.go)
	encTimeTZ    // int64 µs, int32 zone seconds west (time.go)

	// text format of the common types of big results, without AppendText's
	// per-value dispatch (text itself is encBytes: its text is its bytes)
	encTextInt
	encTextNumeric // scaled int64
	encTextDate
)

// chooseEncoding picks the encoder for a column of type t in format f.
func chooseEncoding(t types.T, f int16) (encoding, error) {
	switch f {
	case textFormat:
		switch {
		case t.ID == types.Text:
			return encBytes, nil
		case t.ID == types.Int16 || t.ID == types.Int32 || t.ID == types.Int64:
			return encTextInt, nil
		case t.ID == types.Numeric && t.Scale >= 0:
			return encTextNumeric, nil
		case t.ID == types.Date:
			return encTextDate, nil
		}
		return encText, nil
	case binaryFormat:
	default:
		return 0, pgerr.New(pgerr.InvalidParameterValue, "unsupported format code: %d", f)
	}
	switch t.ID {
	case types.Bool:
		return encBool, nil
	case types.Int16:
		return encInt2, nil
	case types.Int32:
		return encInt4, nil
	case types.Int64:
		return encInt8, nil
	case types.Float32:
		return encFloat4, nil
	case types.Float64:
		return encFloat8, nil
	case types.Text, types.Bytea, types.UUID, types.Unknown, types.JSON:
		return encBytes, nil
	case types.Time:
		return encTime, nil
	case types.TimeTZ:
		return encTimeTZ, nil
	case types.Numeric:
		if t.DynNumeric() {
			return encDynNumeric, nil
		}
		return encNumeric, nil
	case types.Date:
		return encDate, nil
	case types.Timestamp, types.Timestamptz:
		return encTimestamp, nil
	case types.Interval:
		return encInterval, nil
	case types.Array:
		if _, err := chooseEncoding(t.Elem(), f); err != nil {
			return 0, err
		}
		return encArray, nil
	case types.Struct:
		for _, fl := range t.Fields() {
			if _, err := chooseEncoding(fl.Type, f); err != nil {
				return 0, err
			}
		}
		return encRecord, nil
	}
	return 0, pgerr.New(pgerr.FeatureNotSupported, "binary output is not supported for type %s", t)
}

// expandFormats applies Bind's format-code rules (none = all text, one =
// all alike, else one per item) to n parameters or result columns.
func expandFormats(codes []int16, n int, what string) ([]int16, error) {
	out := make([]int16, n)
	switch len(codes) {
	case 0:
	case 1:
		for i := range out {
			out[i] = codes[0]
		}
	case n:
		copy(out, codes)
	default:
		if what == "result" {
			return nil, pgerr.New(pgerr.ProtocolViolation, "bind message has %d result formats but query has %d columns", len(codes), n)
		}
		return nil, pgerr.New(pgerr.ProtocolViolation, "bind message has %d parameter formats but %d parameters", len(codes), n)
	}
	return out, nil
}

// rowDescription describes cols in the given formats (nil = all text).
func rowDescription(cols []Column, formats []int16) *pgproto3.RowDescription {
	fields := make([]pgproto3.FieldDescription, len(cols))
	for i, col := range cols {
		f := textFormat
		if formats != nil {
			f = formats[i]
		}
		fields[i] = pgproto3.FieldDescription{
			Name:                 []byte(col.Name),
			TableOID:             col.TableOID,
			TableAttributeNumber: uint16(col.Attnum),
			DataTypeOID:          col.Type.OID(),
			DataTypeSize:         col.Type.Size(),
			TypeModifier:         col.Type.Typmod(),
			Format:               f,
		}
	}
	return &pgproto3.RowDescription{Fields: fields}
}

// rowBuf holds one batch encoded column by column: for column k, vals[k]
// is the concatenation of every row's length-prefixed value (length -1 for
// NULL) and ends[k][i] is where row i's value ends. Encoding a column at a
// time keeps each loop on one typed slice; a DataRow is then a few copies.
// The encoded rows are ours, so a portal suspended mid-batch can keep them
// across Execute messages without holding the engine's batch.
type rowBuf struct {
	vals [][]byte
	ends [][]int
	n    int // rows encoded
	next int // next row to send
}

func (rb *rowBuf) pending() int { return rb.n - rb.next }

// fill encodes the first b.N rows of b.
func (rb *rowBuf) fill(b *vec.Batch, cols []Column, encs []encoding, loc *time.Location) error {
	if len(b.Vecs) != len(cols) {
		return pgerr.New(pgerr.Internal, "result batch has %d columns, expected %d", len(b.Vecs), len(cols))
	}
	if rb.vals == nil {
		rb.vals = make([][]byte, len(cols))
		rb.ends = make([][]int, len(cols))
	}
	for k, v := range b.Vecs {
		if v.Type.Storage() != cols[k].Type.Storage() || v.Len() < b.N {
			return pgerr.New(pgerr.Internal, "result column %d holds %s values (%d rows), described as %s (%d rows)",
				k+1, v.Type, v.Len(), cols[k].Type, b.N)
		}
		rb.vals[k], rb.ends[k] = encodeColumn(rb.vals[k][:0], rb.ends[k][:0], v, b.N, encs[k], loc)
	}
	rb.n, rb.next = b.N, 0
	return nil
}

// appendDataRow appends row i of rb as a DataRow message.
func (rb *rowBuf) appendDataRow(dst []byte, i int) []byte {
	size := 4 + 2
	for k := range rb.vals {
		size += rb.ends[k][i] - rb.start(k, i)
	}
	dst = append(dst, 'D')
	dst = binary.BigEndian.AppendUint32(dst, uint32(size))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(rb.vals)))
	for k, vals := range rb.vals {
		dst = append(dst, vals[rb.start(k, i):rb.ends[k][i]]...)
	}
	return dst
}

func (rb *rowBuf) start(k, i int) int {
	if i == 0 {
		return 0
	}
	return rb.ends[k][i-1]
}

var nullValue = []byte{0xff, 0xff, 0xff, 0xff}

// encodeColumn appends n values of v, each prefixed by its int32 length.
// The loop is chosen once per column per batch; inside it each case works
// on one typed slice with no per-value dispatch.
func encodeColumn(dst []byte, ends []int, v *vec.Vector, n int, enc encoding, loc *time.Location) ([]byte, []int) {
	be := binary.BigEndian
	switch enc {
	case encText:
		for i := 0; i < n; i++ {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				at := len(dst)
				dst = v.AppendText(append(dst, 0, 0, 0, 0), i, loc)
				be.PutUint32(dst[at:], uint32(len(dst)-at-4))
			}
			ends = append(ends, len(dst))
		}
	case encTextInt:
		for i, x := range v.I64[:n] {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				at := len(dst)
				dst = strconv.AppendInt(append(dst, 0, 0, 0, 0), x, 10)
				be.PutUint32(dst[at:], uint32(len(dst)-at-4))
			}
			ends = append(ends, len(dst))
		}
	case encTextNumeric:
		scale := v.Type.Scale
		for i, x := range v.I64[:n] {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				at := len(dst)
				dst = types.AppendNumeric(append(dst, 0, 0, 0, 0), x, scale)
				be.PutUint32(dst[at:], uint32(len(dst)-at-4))
			}
			ends = append(ends, len(dst))
		}
	case encTextDate:
		for i, x := range v.I64[:n] {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				at := len(dst)
				dst = types.AppendDate(append(dst, 0, 0, 0, 0), x)
				be.PutUint32(dst[at:], uint32(len(dst)-at-4))
			}
			ends = append(ends, len(dst))
		}
	case encBytes:
		for i, s := range v.S[:n] {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				dst = append(be.AppendUint32(dst, uint32(len(s))), s...)
			}
			ends = append(ends, len(dst))
		}
	case encBool:
		for i, b := range v.B[:n] {
			switch {
			case v.IsNull(i):
				dst = append(dst, nullValue...)
			case b:
				dst = append(dst, 0, 0, 0, 1, 1)
			default:
				dst = append(dst, 0, 0, 0, 1, 0)
			}
			ends = append(ends, len(dst))
		}
	case encInt2:
		for i, x := range v.I64[:n] {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				dst = be.AppendUint16(append(dst, 0, 0, 0, 2), uint16(x))
			}
			ends = append(ends, len(dst))
		}
	case encInt4:
		for i, x := range v.I64[:n] {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				dst = be.AppendUint32(append(dst, 0, 0, 0, 4), uint32(x))
			}
			ends = append(ends, len(dst))
		}
	case encInt8:
		for i, x := range v.I64[:n] {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				dst = be.AppendUint64(append(dst, 0, 0, 0, 8), uint64(x))
			}
			ends = append(ends, len(dst))
		}
	case encFloat4:
		for i, f := range v.F64[:n] {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				dst = be.AppendUint32(append(dst, 0, 0, 0, 4), math.Float32bits(float32(f)))
			}
			ends = append(ends, len(dst))
		}
	case encFloat8:
		for i, f := range v.F64[:n] {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				dst = be.AppendUint64(append(dst, 0, 0, 0, 8), math.Float64bits(f))
			}
			ends = append(ends, len(dst))
		}
	case encNumeric:
		scale := v.Type.Scale
		for i, x := range v.I64[:n] {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				at := len(dst)
				dst = appendNumericScaled(append(dst, 0, 0, 0, 0), x, scale)
				be.PutUint32(dst[at:], uint32(len(dst)-at-4))
			}
			ends = append(ends, len(dst))
		}
	case encDynNumeric:
		for i, s := range v.S[:n] {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				at := len(dst)
				dst = appendNumericText(append(dst, 0, 0, 0, 0), s)
				be.PutUint32(dst[at:], uint32(len(dst)-at-4))
			}
			ends = append(ends, len(dst))
		}
	case encDate:
		for i, d := range v.I64[:n] {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				dst = be.AppendUint32(append(dst, 0, 0, 0, 4), uint32(dateToPG(d)))
			}
			ends = append(ends, len(dst))
		}
	case encTimestamp:
		for i, us := range v.I64[:n] {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				dst = be.AppendUint64(append(dst, 0, 0, 0, 8), uint64(timestampToPG(us)))
			}
			ends = append(ends, len(dst))
		}
	case encInterval:
		for i, iv := range v.Iv[:n] {
			if v.IsNull(i) {
				dst = append(dst, nullValue...)
			} else {
				dst = be.AppendUint64(append(dst, 0, 0, 0, 16), uint64(iv.Micros))
				dst = be.AppendUint32(dst, uint32(iv.Days))
				dst = be.AppendUint32(dst, uint32(iv.Months))
			}
			ends = append(ends, len(dst))
		}
	case encArray, encRecord:
		dst, ends = encodeNested(dst, ends, v, n, enc, loc)
	case encTime, encTimeTZ:
		dst, ends = encodeTimes(dst, ends, v, n, enc)
	}
	return dst, ends
}

// dateToPG converts days since 1970 to PostgreSQL's days since 2000,
// saturating to its ±infinity.
func dateToPG(days int64) int32 {
	switch days {
	case types.DateInfinity:
		return math.MaxInt32
	case types.DateNegInfinity:
		return math.MinInt32
	}
	d := days - pgEpochDays
	switch {
	case d >= math.MaxInt32:
		return math.MaxInt32
	case d <= math.MinInt32:
		return math.MinInt32
	}
	return int32(d)
}

// timestampToPG converts microseconds since 1970 to PostgreSQL's
// microseconds since 2000, mapping lakepg's ±infinity onto PostgreSQL's.
func timestampToPG(us int64) int64 {
	switch {
	case us == types.InfinityMicros:
		return math.MaxInt64
	case us <= types.NegInfinityMicros || us < math.MinInt64+pgEpochMicros:
		return math.MinInt64
	}
	return us - pgEpochMicros
}
