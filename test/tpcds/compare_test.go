package tpcds

import (
	"strings"
	"testing"
)

func TestSameNumber(t *testing.T) {
	for _, c := range []struct {
		a, b float64
		same bool
	}{
		{1, 1, true},
		{1.234567, 1.2345671, true}, // 8e-8 relative
		{123456.4, 123456.6, false}, // 6 significant digits: 123456 and 123457
		{0.61, 0.62, false},
		{0, 1e-17, true}, // floating-point residue of a zero sum
		{0, 1e-6, false},
		{-5, 5, false},
	} {
		if got := SameNumber(c.a, c.b); got != c.same {
			t.Errorf("SameNumber(%v, %v) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

func strs(vals ...any) []*string {
	out := make([]*string, len(vals))
	for i, v := range vals {
		if s, ok := v.(string); ok {
			out[i] = &s
		}
	}
	return out
}

func TestCompare(t *testing.T) {
	want := Answer{
		Columns: []string{"name", "total", "ratio"},
		Types:   []string{"VARCHAR", "DECIMAL(17,2)", "DOUBLE"},
		Rows: [][]*string{
			strs("b", "10.50", "0.3333333333333333"),
			strs("a", "10.50", nil),
			strs("", "2.00", "1.0"),
		},
	}
	for _, c := range []struct {
		what string
		got  Result
		diff string // "" for equal, else a part of the expected description
	}{
		{"same rows in another order, numbers spelled otherwise", Result{
			Columns: []string{"name", "sum", "ratio"},
			Rows:    [][]*string{strs("", "2", "1"), strs("a", "10.5", nil), strs("b", "10.500", "0.333333333")},
		}, ""},
		{"NULL is not the empty string", Result{
			Columns: []string{"name", "total", "ratio"},
			Rows:    [][]*string{strs(nil, "2.00", "1"), strs("a", "10.50", nil), strs("b", "10.50", "0.3333333333333333")},
		}, "column name: got (NULL|2.00|1), want (|2.00|1.0)"},
		{"a number off in its third digit", Result{
			Columns: []string{"name", "total", "ratio"},
			Rows:    [][]*string{strs("", "2.00", "1"), strs("a", "10.50", nil), strs("b", "10.60", "0.3333333333333333")},
		}, "sorted row 3, column total"},
		{"strings compare exactly", Result{
			Columns: []string{"name", "total", "ratio"},
			Rows:    [][]*string{strs("", "2.00", "1"), strs("a ", "10.50", nil), strs("b", "10.50", "0.3333333333333333")},
		}, "column name: got (a |10.50|NULL)"},
		{"a missing row", Result{
			Columns: []string{"name", "total", "ratio"},
			Rows:    [][]*string{strs("", "2.00", "1"), strs("b", "10.50", "0.3333333333333333")},
		}, "2 rows, want 3; sorted row 2"},
		{"an extra row", Result{
			Columns: []string{"name", "total", "ratio"},
			Rows:    [][]*string{strs("", "2.00", "1"), strs("a", "10.50", nil), strs("b", "10.50", "0.3333333333333333"), strs("c", "1", "1")},
		}, "4 rows, want 3; first extra row (c|1|1)"},
		{"a missing column", Result{
			Columns: []string{"name", "total"},
			Rows:    [][]*string{strs("", "2.00"), strs("a", "10.50"), strs("b", "10.50")},
		}, "2 columns"},
	} {
		d := Compare(&c.got, want)
		switch {
		case c.diff == "" && d != "":
			t.Errorf("%s: Compare = %q, want equal", c.what, d)
		case c.diff != "" && !strings.Contains(d, c.diff):
			t.Errorf("%s: Compare = %q, want it to contain %q", c.what, d, c.diff)
		}
	}
}

// Nearly equal numbers sort as equal, so that a later column orders the rows on both sides
// alike even when the engines' floating-point sums differ in the last bits.
func TestCompareNearTies(t *testing.T) {
	want := Answer{
		Columns: []string{"avg", "k"},
		Types:   []string{"DOUBLE", "INTEGER"},
		Rows:    [][]*string{strs("12.5", "1"), strs("12.5", "2")},
	}
	got := Result{Columns: want.Columns, Rows: [][]*string{strs("12.500000000000002", "1"), strs("12.499999999999998", "2")}}
	if d := Compare(&got, want); d != "" {
		t.Errorf("Compare = %q, want equal", d)
	}
}
