package wire

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// binArray builds array_send's format of int4 elements (nil: NULL).
func binArray(elemOID uint32, elems []*int32) []byte {
	be := binary.BigEndian
	var b []byte
	hasNull := uint32(0)
	for _, e := range elems {
		if e == nil {
			hasNull = 1
		}
	}
	if len(elems) == 0 {
		return be.AppendUint32(be.AppendUint32(be.AppendUint32(b, 0), 0), elemOID)
	}
	b = be.AppendUint32(b, 1)
	b = be.AppendUint32(b, hasNull)
	b = be.AppendUint32(b, elemOID)
	b = be.AppendUint32(b, uint32(len(elems)))
	b = be.AppendUint32(b, 1)
	for _, e := range elems {
		if e == nil {
			b = be.AppendUint32(b, 0xffffffff)
			continue
		}
		b = be.AppendUint32(b, 4)
		b = be.AppendUint32(b, uint32(*e))
	}
	return b
}

func TestArrayBinaryParamAndSend(t *testing.T) {
	one, two := int32(1), int32(-2)
	s, err := DecodeBinaryParam(1007, binArray(types.OIDInt4, []*int32{&one, nil, &two}))
	if err != nil || s != "{1,NULL,-2}" {
		t.Fatalf("int4[] param: %q %v", s, err)
	}
	if s, err = DecodeBinaryParam(1007, binArray(types.OIDInt4, nil)); err != nil || s != "{}" {
		t.Fatalf("empty int4[] param: %q %v", s, err)
	}
	if _, err = DecodeBinaryParam(1007, binArray(types.OIDInt8, []*int32{&one})); err == nil {
		t.Fatal("int8 elements accepted for int4[]")
	}
	for cut := 0; cut < 30; cut++ {
		b := binArray(types.OIDInt4, []*int32{&one, nil, &two})
		if cut >= len(b) {
			break
		}
		if _, err := DecodeBinaryParam(1007, b[:cut]); err == nil {
			t.Fatalf("truncated array (%d bytes) accepted", cut)
		} else if pe, ok := pgerr.As(err); !ok || pe.Code != codeInvalidBinary {
			t.Fatalf("truncated array: %v", err)
		}
	}
	// and back: what array_send writes for the same value
	at := types.ArrayOf(types.Int32T)
	v := vec.New(at, 1)
	if err := exec.ParseInto(v, s0(s), time.UTC, false); err != nil {
		t.Fatal(err)
	}
	enc, err := chooseEncoding(at, binaryFormat)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := encodeColumn(nil, nil, v, 1, enc, time.UTC)
	want := binArray(types.OIDInt4, nil)
	if string(got[4:]) != string(want) {
		t.Fatalf("array_send of {}: % x, want % x", got[4:], want)
	}
	v.Reset()
	if err := exec.ParseInto(v, "{1,NULL,-2}", time.UTC, false); err != nil {
		t.Fatal(err)
	}
	got, _ = encodeColumn(nil, nil, v, 1, enc, time.UTC)
	if want := binArray(types.OIDInt4, []*int32{&one, nil, &two}); string(got[4:]) != string(want) {
		t.Fatalf("array_send: % x, want % x", got[4:], want)
	}
}

func s0(s string) string { return s }
