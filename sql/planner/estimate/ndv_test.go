package estimate

import (
	"math"
	"testing"
)

func TestExtrapolate(t *testing.T) {
	for _, c := range []struct {
		d, n, total, want, tol float64
	}{
		{50, 1000, 5000, 50, 0.5},         // every value seen often: no new ones
		{1000, 1000, 5000, 5000, 0},       // unique: stays unique
		{500, 1000, 1000, 500, 0},         // nothing unsketched
		{632, 1000, 100000, 1000, 5},      // 1000 values drawn 1000 times see 632 of them
		{9500, 10000, 20000, 18000, 2000}, // mostly unique: most new values are new
	} {
		if got := extrapolate(c.d, c.n, c.total); math.Abs(got-c.want) > c.tol || got > c.total || got < c.d {
			t.Errorf("extrapolate(%v, %v, %v) = %v, want %v ± %v", c.d, c.n, c.total, got, c.want, c.tol)
		}
	}
}
