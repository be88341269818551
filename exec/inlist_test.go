package exec

import (
	"fmt"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// TestInListThreeValued checks x [NOT] IN (list) against SQL's rules for
// every storage path (short and long lists of text and integers, and the
// general comparison), with NULLs in x and in the list, over two batches
// so that the reused result vector is exercised.
func TestInListThreeValued(t *testing.T) {
	str := func(v any) string {
		if v == nil {
			return "NULL"
		}
		return fmt.Sprint(v)
	}
	// reference: SQL semantics of x IN (list)
	in := func(x any, list []any) any {
		if x == nil {
			return nil
		}
		sawNull := false
		for _, c := range list {
			if c == nil {
				sawNull = true
			} else if c == x {
				return true
			}
		}
		if sawNull {
			return nil
		}
		return false
	}
	not := func(v any) any {
		if v == nil {
			return nil
		}
		return !v.(bool)
	}
	// short constants are compared packed into integers: a value longer
	// than 7 bytes, or sharing their prefix, must still not match
	texts := []any{"MAIL", "SHIP", "AIR", "", nil, "RAIL", "TRUCK", "MAIL\x00", "SHIPPING", "MAI", "MAIL AND MORE"}
	ints := []any{int64(1), int64(2), int64(3), nil, int64(-7), int64(1 << 40)}
	long := func(base []any, extra func(i int) any) []any {
		out := append([]any{}, base...)
		for i := 0; i < 12; i++ {
			out = append(out, extra(i))
		}
		return out
	}
	cases := []struct {
		name string
		t    types.T
		xs   []any
		list []any
	}{
		{"text short", types.TextT, texts, []any{"MAIL", "SHIP"}},
		{"text short with NULL", types.TextT, texts, []any{"MAIL", nil}},
		{"text short with empty", types.TextT, texts, []any{"", "RAIL", "SHIPPIN"}},
		{"text mixed lengths", types.TextT, texts, []any{"SHIPPING", "AIR"}},
		{"text long", types.TextT, texts, long([]any{"AIR"}, func(i int) any { return fmt.Sprint("x", i) })},
		{"text long with NULL", types.TextT, texts, long([]any{"AIR", nil}, func(i int) any { return fmt.Sprint("x", i) })},
		{"int short", types.Int64T, ints, []any{int64(1), int64(1 << 40)}},
		{"int short with NULL", types.Int64T, ints, []any{int64(2), nil}},
		{"int long", types.Int64T, ints, long([]any{int64(3)}, func(i int) any { return int64(100 + i) })},
		{"int long with NULL", types.Int64T, ints, long([]any{nil}, func(i int) any { return int64(100 + i) })},
		{"float", types.Float64T, []any{1.5, 2.0, nil, -0.0}, []any{2.0, 0.0}},
	}
	for _, c := range cases {
		for _, negate := range []bool{false, true} {
			list := vec.New(c.t, len(c.list))
			for _, v := range c.list {
				appendAny(list, v)
			}
			e := &InList{E: col(0, c.t), List: list, Not: negate}
			for batch := 0; batch < 2; batch++ {
				x := vec.New(c.t, len(c.xs))
				for _, v := range c.xs {
					appendAny(x, v)
				}
				b := &vec.Batch{Vecs: []*vec.Vector{x}, N: len(c.xs)}
				got, err := e.Eval(env, b)
				if err != nil {
					t.Fatal(err)
				}
				for i, xv := range c.xs {
					want := in(xv, c.list)
					if negate {
						want = not(want)
					}
					var g any
					if !got.IsNull(i) {
						g = got.B[i]
					}
					if str(g) != str(want) {
						t.Errorf("%s, NOT=%v, batch %d: %s IN %v = %s, want %s", c.name, negate, batch, str(xv), c.list, str(g), str(want))
					}
				}
			}
		}
	}
}

func appendAny(v *vec.Vector, x any) {
	switch x := x.(type) {
	case nil:
		v.AppendNull()
	case string:
		v.AppendString(x)
	case int64:
		v.AppendInt(x)
	case float64:
		v.F64 = append(v.F64, x)
		if v.Nulls != nil {
			v.Nulls = append(v.Nulls, false)
		}
	}
}
