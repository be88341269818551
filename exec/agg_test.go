package exec

import (
	"math"
	"testing"
)

func TestAppendScaled(t *testing.T) {
	for _, c := range []struct {
		v     int64
		scale int
		want  string
	}{{0, 0, "0"}, {5, 2, "0.05"}, {-5, 2, "-0.05"}, {123, 2, "1.23"}, {-123456, 3, "-123.456"}, {100, 2, "1.00"}, {0, 3, "0.000"}, {math.MinInt64, 4, "-922337203685477.5808"}} {
		if got := string(AppendScaled([]byte("x"), c.v, c.scale)); got != "x"+c.want {
			t.Errorf("appendScaled(%d, %d) = %q, want %q", c.v, c.scale, got, "x"+c.want)
		}
	}
}
