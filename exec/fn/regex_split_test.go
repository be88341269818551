package fn

import (
	"strings"
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

// Expected pieces are PostgreSQL 15's regexp_split_to_array answers.
func TestRegexpSplitLikePostgres(t *testing.T) {
	for _, c := range []struct{ s, re, flags, want string }{
		{"hello world", `\s*`, "", "h,e,l,l,o,w,o,r,l,d"},
		{"ab", "a*", "", ",b"},
		{"aaa", "^a", "", ",aa"},
		{",a,,b,", ",", "", ",a,,b,"},
		{"abc", "", "", "a,b,c"},
		{"", ",", "", ""},
		{"a b  c", " *", "", "a,b,c"},
		{"xaxbx", "x*", "", ",a,b,"},
		{"AbaB", "b", "i", "A,a,"},
		{"a1b2", `(\d)`, "", "a,b,"},
		{"the quick  brown", `\s+`, "", "the,quick,brown"},
	} {
		got, err := RegexpSplit(c.s, c.re, c.flags)
		if err != nil {
			t.Fatalf("%q ~ %q: %v", c.s, c.re, err)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("regexp_split(%q, %q, %q) = %q, want %q", c.s, c.re, c.flags, got, c.want)
		}
	}
	if _, err := RegexpSplit("abc", "b", "g"); pgerr.Code(err) != pgerr.InvalidParameterValue {
		t.Errorf("flag g: %v", err)
	}
	if _, err := RegexpSplit("abc", "(", ""); pgerr.Code(err) != "2201B" {
		t.Errorf("bad pattern: %v", err)
	}
}
