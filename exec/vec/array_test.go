package vec

import (
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/types"
)

// elem is one array element of the reference model: nil is NULL.
type refArray []*int64

// refCompare is PostgreSQL's array_cmp on one-dimensional arrays: element
// by element, NULL after every value, then the shorter first.
func refCompare(a, b refArray) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		switch {
		case a[i] == nil && b[i] == nil:
			continue
		case a[i] == nil:
			return 1
		case b[i] == nil:
			return -1
		case *a[i] < *b[i]:
			return -1
		case *a[i] > *b[i]:
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

func encodeRef(t types.T, a refArray) string {
	v := New(t, len(a))
	for _, e := range a {
		if e == nil {
			v.AppendNull()
		} else {
			v.AppendInt(*e)
		}
	}
	return EncodeArray(v, 0, v.Len())
}

func TestArrayEncodingOrderMatchesArrayCmp(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	at := types.ArrayOf(types.Int64T)
	vals := []int64{math.MinInt64, -2, -1, 0, 1, 2, math.MaxInt64}
	gen := func() refArray {
		a := make(refArray, rng.Intn(4))
		for i := range a {
			if rng.Intn(4) > 0 {
				x := vals[rng.Intn(len(vals))]
				a[i] = &x
			}
		}
		return a
	}
	for range 5000 {
		a, b := gen(), gen()
		want := refCompare(a, b)
		got := strings.Compare(encodeRef(types.Int64T, a), encodeRef(types.Int64T, b))
		if got != want {
			t.Fatalf("compare %v %v: encoding says %d, array_cmp %d", a, b, got, want)
		}
		// and the value decodes back
		ev := New(types.Int64T, 4)
		if err := DecodeArray(ev, encodeRef(types.Int64T, a)); err != nil {
			t.Fatal(err)
		}
		if ev.Len() != len(a) {
			t.Fatalf("decoded %d elements, want %d", ev.Len(), len(a))
		}
		for i := range a {
			if (a[i] == nil) != ev.IsNull(i) || a[i] != nil && ev.I64[i] != *a[i] {
				t.Fatalf("element %d of %v decoded wrong", i, a)
			}
		}
	}
	_ = at
}

func TestArrayEncodingOrderStringsFloatsNumerics(t *testing.T) {
	strs := []string{"", "\x00", "\x00\x00", "\x00a", "a", "a\x00", "a\x01", "ab", "b", "\xff"}
	floats := []float64{math.Inf(-1), -1.5, -0.0, 0, 1e-300, 2, math.Inf(1), math.NaN()}
	nums := []string{"-Infinity", "-100", "-2.5", "-2.25", "-0.01", "0", "0.00", "0.001", "0.5", "1", "1.5", "10", "99.9", "100", "Infinity", "NaN"}
	check := func(name string, t0 types.T, n int, put func(v *Vector, i int), cmp func(i, j int) int) {
		t.Helper()
		enc := make([]string, n)
		for i := range enc {
			v := New(t0, 1)
			put(v, i)
			enc[i] = string(AppendElem(nil, v, 0))
			back := New(t0, 1)
			if end, err := DecodeElem(back, enc[i], 0); err != nil || end != len(enc[i]) {
				t.Fatalf("%s %d: decode: end %d of %d, %v", name, i, end, len(enc[i]), err)
			}
		}
		for i := range enc {
			for j := range enc {
				want := cmp(i, j)
				if got := strings.Compare(enc[i], enc[j]); (got > 0) != (want > 0) || (got < 0) != (want < 0) {
					t.Fatalf("%s: %d vs %d: encoding %d, want %d", name, i, j, got, want)
				}
			}
		}
	}
	check("text", types.ByteaT, len(strs), func(v *Vector, i int) { v.AppendString(strs[i]) },
		func(i, j int) int { return strings.Compare(strs[i], strs[j]) })
	check("float", types.Float64T, len(floats), func(v *Vector, i int) { v.AppendFloat(floats[i]) },
		func(i, j int) int {
			a, b := floats[i], floats[j]
			switch {
			case math.IsNaN(a) && math.IsNaN(b), a == b:
				return 0
			case math.IsNaN(a), a > b:
				return 1
			}
			return -1
		})
	// numerics: the list is ascending; 0 and 0.00 are equal in value but
	// keep their display scale, so only strict order is checked
	check("numeric", types.NumericAnyT, len(nums), func(v *Vector, i int) { v.AppendString(nums[i]) },
		func(i, j int) int {
			if nums[i] == "0" && nums[j] == "0.00" {
				return -1
			}
			if nums[i] == "0.00" && nums[j] == "0" {
				return 1
			}
			return i - j
		})
}

func TestArrayTextOutput(t *testing.T) {
	v := New(types.TextT, 8)
	for _, s := range []string{"a", "", "b c", "x\"y", `back\slash`, "NULL", "null", "{}", "a,b"} {
		v.AppendString(s)
	}
	v.AppendNull()
	arr := New(types.ArrayOf(types.TextT), 1)
	arr.AppendString(EncodeArray(v, 0, v.Len()))
	got := string(arr.AppendText(nil, 0, nil))
	want := `{a,"","b c","x\"y","back\\slash","NULL","null","{}","a,b",NULL}`
	if got != want {
		t.Fatalf("text form %s, want %s", got, want)
	}
}

func TestArrayDecodeRejectsCorruptValues(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, et := range []types.T{types.Int64T, types.Float64T, types.BoolT, types.TextT, types.IntervalT, types.NumericAnyT} {
		for range 3000 {
			b := make([]byte, rng.Intn(24))
			for i := range b {
				b[i] = byte(rng.Intn(4)) // tags and escapes are small bytes
				if rng.Intn(3) == 0 {
					b[i] = byte(rng.Intn(256))
				}
			}
			ev := New(et, 4)
			_ = DecodeArray(ev, string(b)) // an error or values, never a panic
			_, _ = ArrayLen(et, string(b))
			a := New(types.ArrayOf(et), 1)
			a.AppendString(string(b))
			_ = a.AppendText(nil, 0, nil)
		}
	}
	if err := DecodeArray(New(types.Int64T, 1), "\x01\x00"); err == nil {
		t.Fatal("a truncated element decoded")
	}
}

func TestStructText(t *testing.T) {
	st := types.StructOf([]types.Field{{Name: "a", Type: types.Int32T}, {Name: "b", Type: types.TextT}, {Name: "c", Type: types.TextT}})
	var buf []byte
	i := New(types.Int32T, 1)
	i.AppendInt(1)
	s := New(types.TextT, 2)
	s.AppendString("x y")
	s.AppendNull()
	buf = AppendElem(buf, i, 0)
	buf = AppendElem(buf, s, 0)
	buf = AppendElem(buf, s, 1)
	v := New(st, 1)
	v.AppendString(string(buf))
	if got := string(v.AppendText(nil, 0, nil)); got != `(1,"x y",)` {
		t.Fatalf("record text %s", got)
	}
	if !slices.Equal([]string{"a", "b", "c"}, []string{st.Fields()[0].Name, st.Fields()[1].Name, st.Fields()[2].Name}) {
		t.Fatal("fields lost")
	}
}
