package types

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

func TestAppendFloatHalfwayTie(t *testing.T) {
	for _, c := range []struct {
		f    float64
		bits int
		want string
	}{
		// 2 × float32(1e16): Go's shortest "2.000000054512845e+16" is the exact
		// midpoint to the next double; PostgreSQL prints one digit more.
		{float64(float32(1e16)) * 2, 64, "2.0000000545128448e+16"},
		{1e16, 64, "1e+16"},
		{0.1, 64, "0.1"},
		{123456.79, 32, "123456.79"},
		{-1.5e300, 64, "-1.5e+300"},
		{1234567, 64, "1234567"},
		{0.000123, 64, "0.000123"},
		{1.25e-5, 64, "1.25e-05"},
		{100, 64, "100"},
	} {
		if got := string(AppendFloat(nil, c.f, c.bits)); got != c.want {
			t.Errorf("AppendFloat(%v, %d) = %s, want %s", c.f, c.bits, got, c.want)
		}
	}
}

// Every output must read back as the same value and never be a halfway point.
func TestAppendFloatRoundTrips(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 200000; i++ {
		var f float64
		bits := 64
		if i%2 == 0 {
			f = math.Float64frombits(r.Uint64())
		} else {
			f = float64(math.Float32frombits(r.Uint32()))
			bits = 32
		}
		if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 {
			continue
		}
		s := string(AppendFloat(nil, f, bits))
		back, err := strconv.ParseFloat(s, bits)
		if err != nil || back != f {
			t.Fatalf("%v (bits %d) printed %s, reads back %v (%v)", f, bits, s, back, err)
		}
	}
}
