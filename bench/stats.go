package bench

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"
)

// bound is a measured figure that may be a bound only: a query stopped by the timeout
// took more than v (lower), so lakepg's time over it is less than the ratio (upper).
type bound struct {
	v     float64
	lower bool // the true value is above v
	upper bool // the true value is below v
	ok    bool
}

func (b bound) String() string {
	switch {
	case !b.ok:
		return "n/a"
	case b.lower:
		return "> " + secs(b.v)
	case b.upper:
		return "< " + secs(b.v)
	}
	return secs(b.v)
}

// ratioString formats a ratio as "1.23×".
func (b bound) ratioString() string {
	if !b.ok {
		return "n/a"
	}
	s := fmt.Sprintf("%.2f×", b.v)
	switch {
	case b.v >= 100:
		s = fmt.Sprintf("%.0f×", b.v)
	case b.v < 0.1:
		s = strconv.FormatFloat(b.v, 'g', 2, 64) + "×"
	}
	switch {
	case b.lower:
		return "> " + s
	case b.upper:
		return "< " + s
	}
	return s
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// percentile is the nearest-rank p-th percentile of xs.
func percentile(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func minMax(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return
}

// ratio is a/b with the bounds carried.
func ratio(a, b bound) bound {
	if !a.ok || !b.ok || b.v == 0 {
		return bound{}
	}
	r := bound{v: a.v / b.v, ok: true, lower: a.lower || b.upper, upper: a.upper || b.lower}
	if r.lower && r.upper {
		return bound{}
	}
	return r
}

// geomean of bounds: missing ones are skipped, and one bound makes the mean a bound of
// the same direction (both directions: unknown).
func geomean(bs []bound) (bound, int) {
	sum, n, lower, upper := 0.0, 0, false, false
	for _, b := range bs {
		if !b.ok || b.v <= 0 {
			continue
		}
		sum += math.Log(b.v)
		n++
		lower, upper = lower || b.lower, upper || b.upper
	}
	if n == 0 || (lower && upper) {
		return bound{}, n
	}
	return bound{v: math.Exp(sum / float64(n)), ok: true, lower: lower, upper: upper}, n
}

// secs formats seconds for tables: 3 significant digits, ms below 0.1 s kept readable.
func secs(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

func fmtDur(d time.Duration) string { return secs(d.Seconds()) + " s" }

// rate formats a count per second.
func rate(n float64, d time.Duration) string {
	if d <= 0 {
		return "n/a"
	}
	r := n / d.Seconds()
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.2f M", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.1f k", r/1e3)
	default:
		return fmt.Sprintf("%.1f", r)
	}
}

func nan() float64 { return math.NaN() }

// timeoutLabel is the timeout as cells show it: "> 60 s".
func timeoutLabel(d time.Duration) string {
	return "> " + strconv.FormatFloat(d.Seconds(), 'g', -1, 64) + " s"
}

// bytesHuman formats a byte count with a binary unit.
func bytesHuman(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}
