package exec

import (
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

func TestSplitArrayText(t *testing.T) {
	str := func(s string) *string { return &s }
	cases := []struct {
		in   string
		want []*string
		code string
	}{
		{in: "{}", want: []*string{}},
		{in: " { a , \"b c\" ,NULL, \"NULL\", \\N\\ULL , \"x\\\"y\"} ", want: []*string{str("a"), str("b c"), nil, str("NULL"), str("NULL"), str(`x"y`)}},
		{in: "[1:2]={1,2}", want: []*string{str("1"), str("2")}},
		{in: "{a\\ }", want: []*string{str("a ")}},
		{in: "{1,2", code: pgerr.InvalidTextRepr},
		{in: "1,2", code: pgerr.InvalidTextRepr},
		{in: "{1,,2}", code: pgerr.InvalidTextRepr},
		{in: "{1} x", code: pgerr.InvalidTextRepr},
		{in: "{\"a}", code: pgerr.InvalidTextRepr},
		{in: "{{1},{2}}", code: pgerr.FeatureNotSupported},
		{in: "[0:1]={1,2}", code: pgerr.FeatureNotSupported},
	}
	for _, c := range cases {
		got, err := SplitArrayText(c.in)
		if c.code != "" {
			pe, ok := pgerr.As(err)
			if !ok || pe.Code != c.code {
				t.Errorf("%q: error %v, want SQLSTATE %s", c.in, err, c.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: %d elements, want %d", c.in, len(got), len(c.want))
			continue
		}
		for i := range got {
			if (got[i] == nil) != (c.want[i] == nil) || got[i] != nil && *got[i] != *c.want[i] {
				t.Errorf("%q: element %d differs", c.in, i)
			}
		}
	}
}

func TestArrayCastAndSubscript(t *testing.T) {
	env := &Env{Loc: time.UTC}
	at := types.ArrayOf(types.TextT)
	v := vec.New(at, 2)
	if err := ParseInto(v, "{1,NULL,3}", time.UTC, false); err != nil {
		t.Fatal(err)
	}
	v.AppendNull()
	ints, err := CastVector(env, v, 2, types.ArrayOf(types.Int32T), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(ints.AppendText(nil, 0, time.UTC)); got != "{1,NULL,3}" || !ints.IsNull(1) {
		t.Fatalf("cast gave %s", got)
	}
	if _, err := CastVector(env, v, 1, types.ArrayOf(types.BoolT), false); err == nil {
		t.Fatal("casting {1,NULL,3} to boolean[] succeeded")
	}
	b := &vec.Batch{Vecs: []*vec.Vector{ints}, N: 2}
	idx := func(k int64) Expr {
		c := vec.New(types.Int64T, 1)
		c.AppendInt(k)
		return NewConst(c)
	}
	for k, want := range map[int64]string{1: "1", 3: "3", 0: "NULL", 4: "NULL", 2: "NULL"} {
		out, err := (&Subscript{Arr: &ColRef{Idx: 0, T: ints.Type}, Hi: idx(k)}).Eval(env, b)
		if err != nil {
			t.Fatal(err)
		}
		got := "NULL"
		if !out.IsNull(0) {
			got = string(out.AppendText(nil, 0, time.UTC))
		}
		if got != want || !out.IsNull(1) {
			t.Errorf("[%d] = %s, want %s", k, got, want)
		}
	}
	out, err := (&Subscript{Arr: &ColRef{Idx: 0, T: ints.Type}, Lo: idx(2), Slice: true}).Eval(env, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out.AppendText(nil, 0, time.UTC)); got != "{NULL,3}" {
		t.Errorf("[2:] = %s", got)
	}
}
