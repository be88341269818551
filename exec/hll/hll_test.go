package hll

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// within checks an estimate against the true count: the standard error at
// precision 12 is 1.04/64 ≈ 1.6 %; allow four of them (the hashes are
// fixed, so a pass is reproducible, not lucky).
func within(t *testing.T, what string, got float64, want int) {
	t.Helper()
	tol := 4 * 1.04 / math.Sqrt(M) * float64(want)
	if want < 100 {
		tol = 1 // small counts are nearly exact: few registers collide
	}
	if math.Abs(got-float64(want)) > tol {
		t.Errorf("%s: estimate %.1f for %d distinct values (tolerance %.1f)", what, got, want, tol)
	}
}

func TestEstimateKnownCardinalities(t *testing.T) {
	for _, n := range []int{0, 1, 100, 10_000, 1_000_000} {
		ints, strs := New(), New()
		for i := 0; i < n; i++ {
			// each value twice: duplicates must not count
			ints.AddInts([]int64{int64(i), int64(i)}, nil)
			s := "value-" + strconv.Itoa(i)
			strs.AddStrings([]string{s, s}, nil)
		}
		if n == 0 {
			if ints.Estimate() != 0 || !ints.Empty() {
				t.Errorf("empty sketch estimates %v", ints.Estimate())
			}
			continue
		}
		within(t, "ints "+strconv.Itoa(n), ints.Estimate(), n)
		within(t, "strings "+strconv.Itoa(n), strs.Estimate(), n)
	}
}

func TestSkipLeavesOutValues(t *testing.T) {
	s := New()
	xs := make([]int64, 1000)
	skip := make([]bool, 1000)
	for i := range xs {
		xs[i] = int64(i)
		skip[i] = i%2 == 1
	}
	s.AddInts(xs, skip)
	within(t, "half skipped", s.Estimate(), 500)
}

func TestMergeIsUnion(t *testing.T) {
	a, b, all := New(), New(), New()
	for i := 0; i < 60_000; i++ {
		x := []int64{int64(i)}
		if i < 40_000 {
			a.AddInts(x, nil)
		}
		if i >= 20_000 {
			b.AddInts(x, nil)
		}
		all.AddInts(x, nil)
	}
	a.Merge(b)
	for i := range a.Regs {
		if a.Regs[i] != all.Regs[i] {
			t.Fatalf("register %d: merged %d, sketch of the union %d", i, a.Regs[i], all.Regs[i])
		}
	}
	within(t, "union", a.Estimate(), 60_000)
}

func TestIntWidthAndFloatCanonical(t *testing.T) {
	if Float(0) != Float(math.Copysign(0, -1)) {
		t.Error("0 and -0 hash differently")
	}
	if Float(math.NaN()) != Float(math.Float64frombits(0x7ff8000000000001)) {
		t.Error("two NaNs hash differently")
	}
	if Int(1) == Int(2) {
		t.Error("1 and 2 hash the same")
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 50, 900, 5000, 200_000} {
		s := New()
		for i := 0; i < n; i++ {
			s.Add(Bytes(strconv.Itoa(i)))
		}
		b := s.Marshal()
		if n <= 900 && len(b) >= denseBytes {
			t.Errorf("%d values: %d bytes, want the sparse form", n, len(b))
		}
		if len(b) > headerBytes+denseBytes {
			t.Errorf("%d values: %d bytes, more than the dense form", n, len(b))
		}
		got, err := Unmarshal(b)
		if err != nil {
			t.Fatalf("%d values: %v", n, err)
		}
		for i := range s.Regs {
			if s.Regs[i] != got.Regs[i] {
				t.Fatalf("%d values: register %d is %d after a round trip, was %d", n, i, got.Regs[i], s.Regs[i])
			}
		}
	}
}

func TestUnmarshalRejectsGarbage(t *testing.T) {
	dense := New()
	for i := 0; i < 100_000; i++ {
		dense.Add(Int(int64(i)))
	}
	good := dense.Marshal()
	bad := [][]byte{
		nil,
		{1},
		{2, P, 0},
		{version, P + 1, 0},
		{version, P, 7},
		good[:len(good)-1],
		{version, P, kindSparse, 1},             // one entry missing
		{version, P, kindSparse, 1, 0xff, 0x7f}, // index past M
		{version, P, kindSparse, 0, 0},          // trailing byte
		{version, P, kindSparse, 1, 63},         // register above q+1
	}
	for _, b := range bad {
		if _, err := Unmarshal(b); err == nil {
			t.Errorf("Unmarshal(%v) accepted garbage", b)
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	s := New()
	s.Add(Int(7))
	f.Add(s.Marshal())
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := Unmarshal(b); err == nil {
			_ = s.Estimate()
			_ = s.Marshal()
		}
	})
}

func BenchmarkAddInts(b *testing.B) {
	s := New()
	xs := make([]int64, 2048)
	for i := range xs {
		xs[i] = int64(i * 7919)
	}
	b.SetBytes(8 * 2048)
	b.ReportAllocs()
	for b.Loop() {
		s.AddInts(xs, nil)
	}
}

func BenchmarkAddStrings(b *testing.B) {
	s := New()
	xs := make([]string, 2048)
	for i := range xs {
		xs[i] = "a comment of some twenty-seven bytes " + strconv.Itoa(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.AddStrings(xs, nil)
	}
}

// TestSeenCacheKeepsCounts: values skipped because they were seen lately
// were added before, so the registers are those of adding every value.
func TestSeenCacheKeepsCounts(t *testing.T) {
	a, b := New(), New()
	for round := 0; round < 3; round++ {
		xs := make([]int64, 5000)
		for i := range xs {
			xs[i] = int64((i*37 + round*11) % 3000)
			if i%3 == 0 {
				xs[i] = int64(i + 1) // the slot's initial entry
			}
		}
		a.AddInts(xs, nil)
		for _, x := range xs {
			b.Add(Int(x))
		}
	}
	for i := range a.Regs {
		if a.Regs[i] != b.Regs[i] {
			t.Fatalf("register %d: %d with the cache, %d without", i, a.Regs[i], b.Regs[i])
		}
	}
}

// TestSharedBytesAddedOnce: strings sharing their bytes (as a Parquet
// dictionary's values do) and strings with equal bytes elsewhere give the
// registers of adding each value.
func TestSharedBytesAddedOnce(t *testing.T) {
	dict := []string{"", "a", "bb", "ccc", "a longer value than sixteen bytes"}
	var xs []string
	for i := 0; i < 5000; i++ {
		if i%3 == 0 {
			xs = append(xs, strings.Clone(dict[i%len(dict)]))
		} else {
			xs = append(xs, dict[i%len(dict)])
		}
		xs = append(xs, "v"+strconv.Itoa(i%700))
	}
	a, b := New(), New()
	a.AddStrings(xs, nil)
	for _, x := range xs {
		b.Add(Bytes(x))
	}
	for i := range a.Regs {
		if a.Regs[i] != b.Regs[i] {
			t.Fatalf("register %d: %d, want %d", i, a.Regs[i], b.Regs[i])
		}
	}
	within(t, "shared", a.Estimate(), 705)
}

// TestLongStrings: strings longer than 16 bytes that differ in one byte
// anywhere, or only in length, count apart.
func TestLongStrings(t *testing.T) {
	s := New()
	base := []byte("furiously even deposits sleep quickly across the pending, regular packages")
	distinct := map[string]bool{}
	add := func(b []byte) {
		s.Add(Bytes(string(b)))
		distinct[string(b)] = true
	}
	for i := range base {
		for c := byte('a'); c <= 'z'; c++ {
			b := append([]byte(nil), base...)
			b[i] = c
			add(b)
		}
	}
	for l := 17; l <= len(base); l++ {
		add(base[:l])
	}
	within(t, "one-byte changes", s.Estimate(), len(distinct))
	u := New()
	for i := 0; i < 200_000; i++ {
		u.AddStrings([]string{"a comment much longer than sixteen bytes #" + strconv.Itoa(i)}, nil)
	}
	within(t, "long numbered", u.Estimate(), 200_000)
}
