package fn

import (
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// abs of an unconstrained numeric prints what parsing, taking the absolute
// value and printing gives, whether the text is taken as it is (plain
// output text) or goes through the big.Int (leading zeros, a bare point).
func TestAbsNumericText(t *testing.T) {
	in := vec.New(types.NumericAnyT, 0)
	cases := []struct{ in, want string }{
		{"-1.50", "1.50"}, {"1.50", "1.50"}, {"-0.00", "0.00"}, {"0", "0"}, {"-123456789012345678901234.5", "123456789012345678901234.5"},
		{"-0.05", "0.05"}, {"007.5", "7.5"}, {"-.5", "0.5"}, {"5.", "5"}, {"-00", "0"},
	}
	for _, c := range cases {
		in.AppendString(c.in)
	}
	out := vec.New(types.NumericAnyT, 0)
	if err := kAbsNumeric(&Ctx{}, out, []*vec.Vector{in}, in.Len()); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if out.IsNull(i) || out.S[i] != c.want {
			t.Errorf("abs(%s) = %q, want %q", c.in, out.S[i], c.want)
		}
	}
}

func TestPlainDecimal(t *testing.T) {
	for s, want := range map[string]bool{"1": true, "-1.5": true, "0.05": true, "0": true, "-0": true, "10.00": true,
		"": false, "-": false, ".5": false, "5.": false, "05": false, "1e5": false, "NaN": false, "1.2.3": false, "+1": false} {
		if got := plainDecimal(s); got != want {
			t.Errorf("plainDecimal(%q) = %v, want %v", s, got, want)
		}
	}
}
