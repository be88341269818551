package aggregate

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/types"
)

// variance128 prints exactly what the big.Int arithmetic prints, for
// samples of small and large values at several scales, sample and
// population, variance and stddev, and says when it cannot (then the big
// path runs); samples of one value and constant samples give 0.
func TestVariance128MatchesBig(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	var v varScratch
	taken := 0
	for iter := 0; iter < 40000; iter++ {
		n := int64(1 + rng.Intn(40))
		if rng.Intn(10) == 0 {
			n = int64(1 + rng.Intn(100000))
		}
		span := []int64{1, 10, 1000, 1 << 20, 1 << 31}[rng.Intn(5)]
		var sx, sx2 int64
		c := rng.Int63n(span) - span/2
		for i := int64(0); i < min(n, 200); i++ {
			x := c
			if rng.Intn(4) != 0 {
				x = rng.Int63n(span) - span/2
			}
			sx += x
			sx2 += x * x
		}
		scale := rng.Intn(5)
		sample, stddev := rng.Intn(2) == 0, rng.Intn(2) == 0
		if sample && n <= 1 {
			continue
		}
		hi, lo, qs, ok := exec.Variance128(n, sx, sx2, scale, sample, stddev)
		if !ok {
			continue
		}
		taken++
		d, ds := v.variance(n, big.NewInt(sx), big.NewInt(sx2), scale, sample, stddev)
		want := types.FormatBig(d, ds)
		if got := exec.FormatScaled128(false, hi, lo, qs); got != want {
			t.Fatalf("n=%d sx=%d sx2=%d scale=%d sample=%v stddev=%v: got %s, want %s", n, sx, sx2, scale, sample, stddev, got, want)
		}
	}
	if taken < 30000 {
		t.Fatalf("only %d of 40000 cases in 128 bits", taken)
	}
	if _, _, _, ok := exec.Variance128(3, 1, -1, 0, true, false); ok {
		t.Errorf("a negative sum of squares was taken")
	}
}
