package memory

import "testing"

// TouchPages leaves a made slice as make gave it, all zero, whatever its
// element size and length, and a slice under two pages untouched.
func TestTouchPages(t *testing.T) {
	for _, n := range []int{0, 1, 511, 1024, 1025, 5000, 1 << 16} {
		u := make([]uint64, n)
		TouchPages(u)
		for i, x := range u {
			if x != 0 {
				t.Fatalf("%d uint64: element %d is %d", n, i, x)
			}
		}
		type wide struct{ a, b, c int64 }
		w := make([]wide, n)
		TouchPages(w)
		for i, x := range w {
			if x != (wide{}) {
				t.Fatalf("%d wide: element %d is %v", n, i, x)
			}
		}
	}
	short := []uint64{1, 2, 3}
	TouchPages(short)
	if short[0] != 1 || short[1] != 2 || short[2] != 3 {
		t.Fatalf("a short slice was written: %v", short)
	}
}
