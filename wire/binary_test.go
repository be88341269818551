package wire

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// pgNumeric builds PostgreSQL's binary numeric by hand, as numeric_send
// lays it out.
func pgNumeric(ndigits, weight int, sign uint16, dscale int, digits ...uint16) []byte {
	b := appendNumericHeader(nil, ndigits, weight, sign, dscale)
	for _, d := range digits {
		b = binary.BigEndian.AppendUint16(b, d)
	}
	return b
}

func TestNumericBinaryLayout(t *testing.T) {
	for _, c := range []struct {
		x     int64
		scale int
		want  []byte
	}{
		{123456, 2, pgNumeric(2, 0, numericPos, 2, 1234, 5600)},
		{1, 3, pgNumeric(1, -1, numericPos, 3, 10)},
		{10000, 0, pgNumeric(1, 1, numericPos, 0, 1)},
		{-5, 1, pgNumeric(1, -1, numericNeg, 1, 5000)},
		{0, 2, pgNumeric(0, 0, numericPos, 2)},
		{123456789, 1, pgNumeric(3, 1, numericPos, 1, 1234, 5678, 9000)},
		{1, 9, pgNumeric(1, -3, numericPos, 9, 1000)},
		{100000000, 0, pgNumeric(1, 2, numericPos, 0, 1)},
		{math.MinInt64, 0, pgNumeric(5, 4, numericNeg, 0, 922, 3372, 368, 5477, 5808)},
		{math.MaxInt64, 18, pgNumeric(6, 0, numericPos, 18, 9, 2233, 7203, 6854, 7758, 700)},
	} {
		if got := appendNumericScaled(nil, c.x, c.scale); !slices.Equal(got, c.want) {
			t.Errorf("%d scale %d: % x, want % x", c.x, c.scale, got, c.want)
		}
	}
	for _, c := range []struct {
		text string
		want []byte
	}{
		{"NaN", pgNumeric(0, 0, numericNaN, 0)},
		{"Infinity", pgNumeric(0, 0, numericPInf, 0)},
		{"-Infinity", pgNumeric(0, 0, numericNInf, 0)},
		{"1e3", pgNumeric(1, 0, numericPos, 0, 1000)},
		{"-0.000", pgNumeric(0, 0, numericPos, 3)},
		{".5", pgNumeric(1, -1, numericPos, 1, 5000)},
		{"00012.340", pgNumeric(2, 0, numericPos, 3, 12, 3400)},
	} {
		if got := appendNumericText(nil, c.text); !slices.Equal(got, c.want) {
			t.Errorf("%q: % x, want % x", c.text, got, c.want)
		}
	}
}

// TestNumericBinaryRoundTrip: encode scaled integers, decode the bytes with
// DecodeBinaryParam, and expect exactly the text form types prints.
func TestNumericBinaryRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		x := r.Int64() >> r.IntN(64)
		if r.IntN(2) == 0 {
			x = -x
		}
		scale := r.IntN(19)
		want := string(types.AppendNumeric(nil, x, scale))
		got, err := DecodeBinaryParam(types.OIDNumeric, appendNumericScaled(nil, x, scale))
		if err != nil || got != want {
			t.Fatalf("%d scale %d: %q %v, want %q", x, scale, got, err, want)
		}
		// The unconstrained path, from the same text.
		got, err = DecodeBinaryParam(types.OIDNumeric, appendNumericText(nil, want))
		if err != nil || got != want {
			t.Fatalf("text %q: %q %v", want, got, err)
		}
	}
	long := "-123456789012345678901234567890123456789.00000000000000000000000000000000000000000001"
	if got, err := DecodeBinaryParam(types.OIDNumeric, appendNumericText(nil, long)); err != nil || got != long {
		t.Errorf("long numeric: %q %v", got, err)
	}
}

func TestDecodeBinaryParam(t *testing.T) {
	be := binary.BigEndian
	u := func(n int, v uint64) []byte {
		b := make([]byte, 8)
		be.PutUint64(b, v)
		return b[8-n:]
	}
	uuid := []byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}
	for _, c := range []struct {
		oid  uint32
		in   []byte
		want string
	}{
		{types.OIDBool, []byte{1}, "t"},
		{types.OIDBool, []byte{0}, "f"},
		{types.OIDInt2, u(2, 0xffff), "-1"},
		{types.OIDInt4, u(4, 0x80000000), "-2147483648"},
		{types.OIDInt8, u(8, 1<<62), "4611686018427387904"},
		{types.OIDOid, u(4, 0xffffffff), "4294967295"},
		{types.OIDFloat4, u(4, uint64(math.Float32bits(0.1))), "0.1"},
		{types.OIDFloat8, u(8, math.Float64bits(math.Inf(-1))), "-Infinity"},
		{types.OIDFloat8, u(8, math.Float64bits(1e-300)), "1e-300"},
		{types.OIDText, []byte("héllo"), "héllo"},
		{types.OIDVarchar, []byte(""), ""},
		{0, []byte("untyped"), "untyped"},
		{oidJSONB, []byte("\x01{\"a\":1}"), `{"a":1}`},
		{types.OIDBytea, []byte{0, 0xab}, `\x00ab`},
		{types.OIDUUID, uuid, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{types.OIDDate, u(4, 0), "2000-01-01"},
		{types.OIDDate, u(4, uint64(uint32(0xffffffff))), "1999-12-31"},
		{types.OIDDate, u(4, math.MaxInt32), "infinity"},
		{types.OIDTimestamp, u(8, 1), "2000-01-01 00:00:00.000001"},
		{types.OIDTimestamp, u(8, 1<<63), "-infinity"},
		{types.OIDTimestamptz, u(8, uint64(3600*1000000)), "2000-01-01 01:00:00+00"},
		{types.OIDNumeric, pgNumeric(2, 0, numericNeg, 2, 1234, 5600), "-1234.56"},
		{types.OIDNumeric, pgNumeric(2, 0, numericPos, 1, 1, 5678), "1.5"}, // truncated to dscale
		{types.OIDNumeric, pgNumeric(1, -1, numericNeg, 2, 1), "0.00"},     // truncated to zero: no sign
		{types.OIDNumeric, pgNumeric(2, 1, numericPos, 0, 0, 5), "5"},      // leading zero digit
		{types.OIDNumeric, pgNumeric(1, 3, numericPos, 0, 7), "7000000000000"},
		{types.OIDNumeric, pgNumeric(0, 0, numericNaN, 0), "NaN"},
	} {
		got, err := DecodeBinaryParam(c.oid, c.in)
		if err != nil || got != c.want {
			t.Errorf("oid %d % x: %q %v, want %q", c.oid, c.in, got, err, c.want)
		}
	}
	for _, c := range []struct {
		oid  uint32
		in   []byte
		code string
	}{
		{types.OIDInt4, []byte{1, 2}, "22P03"},
		{types.OIDUUID, []byte{1}, "22P03"},
		{types.OIDNumeric, []byte{0, 1, 0, 0, 0, 0, 0, 0}, "22P03"},        // missing digit
		{types.OIDNumeric, pgNumeric(1, 0, numericPos, 0, 10000), "22P03"}, // digit out of range
		{types.OIDNumeric, pgNumeric(0, 0, 0x1234, 0), "22P03"},            // bad sign
		{types.OIDText, []byte{0xff, 0xfe}, "22021"},                       // not UTF-8
		{types.OIDTimestamp, u(8, uint64(math.MaxInt64-1)), "22P03"},       // out of range
		{600, []byte{1}, "42883"},                                          // point: unknown here
	} {
		_, err := DecodeBinaryParam(c.oid, c.in)
		if pgerr.Code(err) != c.code {
			t.Errorf("oid %d % x: %v, want %s", c.oid, c.in, err, c.code)
		}
	}
}

func TestBinaryDateTimeEdges(t *testing.T) {
	if got := timestampToPG(types.InfinityMicros); got != math.MaxInt64 {
		t.Errorf("infinity → %d", got)
	}
	if got := timestampToPG(types.NegInfinityMicros); got != math.MinInt64 {
		t.Errorf("-infinity → %d", got)
	}
	if got := timestampToPG(pgEpochMicros); got != 0 {
		t.Errorf("2000-01-01 → %d", got)
	}
	if got := dateToPG(types.DateInfinity); got != math.MaxInt32 {
		t.Errorf("date infinity → %d", got)
	}
	if got := dateToPG(types.DateNegInfinity); got != math.MinInt32 {
		t.Errorf("date -infinity → %d", got)
	}
	if got := dateToPG(pgEpochDays - 1); got != -1 {
		t.Errorf("1999-12-31 → %d", got)
	}
	if got := dateToPG(math.MaxInt64 / 2); got != math.MaxInt32 {
		t.Errorf("far future date → %d", got)
	}
	// Binary output decodes back to the text output.
	ts := time.Date(1969, 7, 20, 20, 17, 40, 123000, time.UTC).UnixMicro()
	b := binary.BigEndian.AppendUint64(nil, uint64(timestampToPG(ts)))
	if got, _ := DecodeBinaryParam(types.OIDTimestamp, b); got != string(types.AppendTimestamp(nil, ts)) {
		t.Errorf("timestamp round trip %q", got)
	}
}

// TestEncodeColumnNulls checks length prefixes, NULLs (-1) and row ends for
// every encoding, with NULLs in between values.
func TestEncodeColumnNulls(t *testing.T) {
	for i, tv := range typesRow {
		for _, f := range []int16{textFormat, binaryFormat} {
			enc, err := chooseEncoding(tv.t, f)
			if err != nil {
				t.Fatal(err)
			}
			full := typesBatch().Vecs[i]
			v := vec.New(tv.t, 3)
			v.AppendFrom(full, 1)
			v.AppendFrom(full, 0)
			v.AppendFrom(full, 1)
			buf, ends := encodeColumn(nil, nil, v, 3, enc, time.UTC)
			if len(ends) != 3 || ends[2] != len(buf) {
				t.Fatalf("%s/%d: ends %v len %d", tv.name, f, ends, len(buf))
			}
			if got := int32(binary.BigEndian.Uint32(buf)); got != -1 || ends[0] != 4 {
				t.Errorf("%s/%d: first NULL encoded as %d", tv.name, f, got)
			}
			n := int(binary.BigEndian.Uint32(buf[ends[0]:]))
			if ends[1]-ends[0] != 4+n {
				t.Errorf("%s/%d: value length %d, ends %v", tv.name, f, n, ends)
			}
			val := buf[ends[0]+4 : ends[1]]
			if f == textFormat && string(val) != tv.text {
				t.Errorf("%s: text %q, want %q", tv.name, val, tv.text)
			}
			if f == binaryFormat {
				// Binary values decode to the same text (timestamptz in UTC).
				got, err := DecodeBinaryParam(tv.t.OID(), val)
				if err != nil {
					t.Errorf("%s: %v", tv.name, err)
				} else if got != tv.text {
					t.Errorf("%s: binary decodes as %q, want %q", tv.name, got, tv.text)
				}
			}
		}
	}
}

// The text encodings of ints, scaled numerics, dates and text write what
// AppendText writes, value for value.
func TestTextEncodingsMatchAppendText(t *testing.T) {
	for _, ty := range []types.T{types.Int16T, types.Int32T, types.Int64T, types.NumericT(12, 2), types.NumericT(18, 0), types.DateT, types.TextT, types.VarcharT} {
		enc, err := chooseEncoding(ty, textFormat)
		if err != nil {
			t.Fatal(err)
		}
		if enc == encText {
			t.Fatalf("%s: no specialised text encoding", ty)
		}
		v := vec.New(ty, 0)
		for i := int64(-3000); i <= 3000; i++ {
			x := i * i * i * 7919
			switch {
			case ty.ID == types.Date:
				x = i * 113
			case ty.ID == types.Int16:
				x = i * 10
			}
			if ty.ID == types.Text {
				v.S = append(v.S, strconv.FormatInt(x, 36)+"\x00é")
			} else {
				v.I64 = append(v.I64, x)
			}
		}
		n := v.Len()
		buf, ends := encodeColumn(nil, nil, v, n, enc, time.UTC)
		for i := 0; i < n; i++ {
			start := 0
			if i > 0 {
				start = ends[i-1]
			}
			want := string(v.AppendText(nil, i, time.UTC))
			if got := string(buf[start+4 : ends[i]]); got != want || int(binary.BigEndian.Uint32(buf[start:])) != len(want) {
				t.Fatalf("%s row %d: %q, want %q", ty, i, got, want)
			}
		}
	}
}
