package tpch

import (
	"math/big"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

func TestSameValue(t *testing.T) {
	for _, c := range []struct {
		got, want string
		same      bool
	}{
		{"abc", "abc", true},
		{"abc", "abd", false},
		{"", "", true},
		{"", "0", false},
		{"5054096266.6828", "5054096266.6828", true},
		{"25.537587116854997", "25.53758711685499700", true},
		{"25.5375871168549", "25.537587116854997", true}, // 4e-15 relative
		{"25.53758711", "25.537587116854997", true},      // 2.7e-10 relative
		{"25.53758", "25.537587116854997", false},
		{"1000000000.5", "1000000000.4", true}, // 1e-10 relative
		{"1000000010.5", "1000000000.4", false},
		{"0.05014459706340077", "0.0501445970634008", true},
		{"0", "0.0", true},
		{"1995-01-01", "1995-01-01", true},
		{"1995-01-01", "1995-01-02", false},
		{"13", "13.0", true},
		{"NaN", "NaN", true},
		{"NaN", "1", false},
	} {
		if got := SameValue(c.got, c.want); got != c.same {
			t.Errorf("SameValue(%q, %q) = %v, want %v", c.got, c.want, got, c.same)
		}
	}
}

func TestNumericText(t *testing.T) {
	for _, c := range []struct {
		i    int64
		exp  int32
		want string
	}{
		{12345, -2, "123.45"},
		{-5, -3, "-0.005"},
		{7, 2, "700"},
		{0, -2, "0.00"},
		{-12345, -2, "-123.45"},
	} {
		n := pgtype.Numeric{Int: big.NewInt(c.i), Exp: c.exp, Valid: true}
		if got := numericText(n); got != c.want {
			t.Errorf("numericText(%d e%d) = %q, want %q", c.i, c.exp, got, c.want)
		}
	}
	for _, c := range []struct {
		n     int64
		scale int
		want  string
	}{{12345, 2, "123.45"}, {-5, 3, "-0.005"}, {0, 2, "0.00"}, {42, 0, "42"}, {-100, 2, "-1.00"}} {
		if got := scaled(c.n, c.scale); got != c.want {
			t.Errorf("scaled(%d, %d) = %q, want %q", c.n, c.scale, got, c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	want := &Table{Columns: []string{"k", "v"}, Rows: [][]string{{"a", "1.5"}, {"b", "2.25"}}}
	for _, c := range []struct {
		got  *Table
		diff string // "" or a substring of the difference
	}{
		{&Table{Columns: []string{"k", "v"}, Rows: [][]string{{"a", "1.50"}, {"b", "2.2500000000001"}}}, ""},
		{&Table{Columns: []string{"k", "value"}, Rows: want.Rows}, "columns"},
		{&Table{Columns: []string{"k", "v"}, Rows: [][]string{{"b", "2.25"}, {"a", "1.5"}}}, "row 1, column k"},
		{&Table{Columns: []string{"k", "v"}, Rows: [][]string{{"a", "1.5"}}}, "1 rows, want 2"},
		{&Table{Columns: []string{"k", "v"}, Rows: [][]string{{"a", "1.5"}, {"b", "2.26"}}}, "row 2, column v"},
		{&Table{Columns: []string{"k", "v"}, Rows: [][]string{{"a", "1.5"}, {"b", ""}}}, "row 2, column v"},
	} {
		d := Compare(c.got, want)
		if c.diff == "" && d != "" || c.diff != "" && !strings.Contains(d, c.diff) {
			t.Errorf("Compare(%v) = %q, want a difference containing %q", c.got.Rows, d, c.diff)
		}
	}
}
