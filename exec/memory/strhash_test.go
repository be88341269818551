package memory

import (
	"math/rand"
	"testing"
)

// TestStrHashSpreads: every one-byte change of a string of any length up
// to 70 (each length a branch of strHash), and every length of a run of
// one byte, gives a hash of its own, as do 200,000 random strings; the
// bytes around a substring do not leak into its hash.
func TestStrHashSpreads(t *testing.T) {
	seen := map[uint64]string{}
	add := func(s string) {
		h := strHash(s)
		if o, ok := seen[h]; ok && o != s {
			t.Fatalf("strHash(%q) = strHash(%q)", s, o)
		}
		seen[h] = s
	}
	rng := rand.New(rand.NewSource(5))
	for n := 0; n <= 70; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + rng.Intn(26))
		}
		add(string(b))
		for i := range b {
			for _, d := range []byte{1, 2, 0x80} {
				c := append([]byte(nil), b...)
				c[i] ^= d
				add(string(c))
			}
		}
		add(string(make([]byte, n)))
	}
	for range 200000 {
		b := make([]byte, rng.Intn(40))
		rng.Read(b)
		add(string(b))
	}
	whole := "xxCustomer#000000042yy"
	if strHash(whole[2:20]) != strHash("Customer#000000042") {
		t.Fatal("a substring's hash depends on the bytes around it")
	}
}
