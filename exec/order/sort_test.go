package order

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

var sortTypes = []types.T{types.Int64T, types.Float64T, types.TextT, types.BoolT, types.NumericAnyT, types.NumericT(12, 2), types.Int64T}

// sortRows makes rows over sortTypes with NULLs, duplicates and awkward
// values (NaN, ±0, ±Inf, text with NUL bytes and shared prefixes, decimals
// of different scales); the last column numbers the rows.
func sortRows(rng *rand.Rand, n int) [][]any {
	floats := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1.5, -2.25, 1e300, -1e-300}
	strs := []string{"", "a", "ab", "a\x00", "a\x00b", "b", "\x00", "\xff", "abc", "ab\xff"}
	decs := []string{"0", "-0.0", "1", "1.0", "1.50", "-1.5", "10", "9.99", "0.001", "-0.001", "123456789012345678901234.5", "-1e3", "2.5e-2"}
	rows := make([][]any, n)
	for i := range rows {
		r := []any{int64(rng.Intn(7) - 3), floats[rng.Intn(len(floats))], strs[rng.Intn(len(strs))], rng.Intn(2) == 0,
			decs[rng.Intn(len(decs))], int64(rng.Intn(2000) - 1000), int64(i)}
		for c := 0; c < 6; c++ {
			if rng.Intn(8) == 0 {
				r[c] = nil
			}
		}
		rows[i] = r
	}
	return rows
}

// refSort sorts rows with CompareKeys, stably.
func refSort(t *testing.T, rows [][]any, keys []SortKey, limit int) []string {
	all := newRowsOp(sortTypes, rows, len(rows)+1)
	b, err := all.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if b == nil {
		return nil
	}
	idx := make([]int, b.N)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return CompareKeys(b, keys, i, j) })
	if limit > 0 && limit < len(idx) {
		idx = idx[:limit]
	}
	var out []string
	for _, i := range idx {
		out = append(out, rowText(b, i))
	}
	return out
}

func TestSortMatchesCompareKeys(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for _, n := range []int{0, 1, 17, 3*vec.BatchSize + 5} {
		rows := sortRows(rng, n)
		for trial := 0; trial < 12; trial++ {
			var keys []SortKey
			for _, c := range rng.Perm(6)[:1+rng.Intn(3)] {
				keys = append(keys, SortKey{Col: c, Desc: rng.Intn(2) == 0, NullsFirst: rng.Intn(2) == 0})
			}
			for _, limit := range []int64{0, 1, 10, int64(n) + 3} {
				s := &Sort{Input: newRowsOp(sortTypes, rows, 500), Keys: keys, Limit: limit}
				got := collect(t, s)
				want := refSort(t, rows, keys, int(limit))
				if !slices.Equal(got, want) {
					for i := range got {
						if i >= len(want) || got[i] != want[i] {
							t.Fatalf("n=%d keys=%+v limit=%d: row %d = %q, want %q", n, keys, limit, i, got[i], want[min(i, len(want)-1)])
						}
					}
					t.Fatalf("n=%d keys=%+v limit=%d: %d rows, want %d", n, keys, limit, len(got), len(want))
				}
				s.Close()
			}
		}
	}
}

func TestDecimalKeyOrder(t *testing.T) {
	vals := []string{"-1e3", "-10", "-9.99", "-1.5", "-1", "-0.001", "0", "0.001", "0.01", "0.1", "1", "1.5", "9.99", "10", "10.01", "123456789012345678901234.5"}
	for i := 1; i < len(vals); i++ {
		a, b := appendDecimalKey(nil, vals[i-1]), appendDecimalKey(nil, vals[i])
		if string(a) >= string(b) {
			t.Errorf("key(%s) >= key(%s)", vals[i-1], vals[i])
		}
	}
	for _, eq := range [][2]string{{"1", "1.000"}, {"-0.0", "0"}, {"0.50", ".5"}, {"1e2", "100"}, {"0010.0100", "10.01"}, {"-00.0100", "-.01"}, {"+7", "7.0"}} {
		if string(appendDecimalKey(nil, eq[0])) != string(appendDecimalKey(nil, eq[1])) {
			t.Errorf("key(%s) != key(%s)", eq[0], eq[1])
		}
	}
}

func TestSortMemoryLimit(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	mem := memory.NewMemory(nil, 64<<10)
	s := &Sort{Input: newRowsOp(sortTypes, sortRows(rng, 20000), 0), Keys: []SortKey{{Col: 0}}, Mem: mem}
	if _, err := s.Next(context.Background()); err == nil || fmt.Sprint(err) != "out of memory" {
		t.Fatalf("want out of memory, got %v", err)
	}
	s.Close()
	if mem.Used() != 0 {
		t.Errorf("memory not returned: %d", mem.Used())
	}
}

func BenchmarkSortInt64(b *testing.B) {
	const n = 1 << 20
	rng := rand.New(rand.NewSource(1))
	keys := vecOfInts(n, func(int) int64 { return rng.Int63() })
	for _, limit := range []int64{0, 100} {
		b.Run(fmt.Sprintf("limit=%d", limit), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := &Sort{Input: &pairSource{A: keys, B: keys, N: n}, Keys: []SortKey{{Col: 0}}, Limit: limit}
				for {
					out, err := s.Next(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					if out == nil {
						break
					}
				}
				s.Close()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}

// TestKeyOrderMultikey checks the 8-bytes-at-a-time ordering against a
// stable byte-wise sort, on keys built to tie: long shared prefixes, keys
// that are prefixes of others, zero bytes at the ends, and duplicates; both
// the comparison sort (few rows) and the radix sort (many).
func TestKeyOrderMultikey(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, n := range []int{0, 1, 50, 3000, 20000} {
		var e KeyEncoder
		e.off = make([]int, n+1)
		for i := 0; i < n; i++ {
			var k []byte
			switch rng.Intn(4) {
			case 0: // a shared 9-byte head, then a little more
				k = append(k, 1, 2, 3, 4, 5, 6, 7, 8, 9)
			case 1:
				k = append(k, 1, 2, 3, 4, 5, 6, 7, 8)
			case 2:
				k = append(k, byte(rng.Intn(3)))
			}
			for j := rng.Intn(20); j > 0; j-- {
				k = append(k, byte(rng.Intn(3))) // zero bytes are common
			}
			e.Arena = append(e.Arena, k...)
			e.off[i+1] = len(e.Arena)
		}
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(x, y int32) int { return bytes.Compare(e.key(int(x)), e.key(int(y))) })
		if got := e.Order(n); !slices.Equal(got, want) {
			t.Fatalf("n=%d: order differs from the stable byte-wise sort", n)
		}
	}
}

// TestCompareKeysNulls: NULL sorts last ascending and first where asked.
func TestCompareKeysNulls(t *testing.T) {
	v := ints(types.Int64T, 3, 0, 1)
	v.Nulls = []bool{false, true, false}
	b := batch(v)
	asc := []int{0, 1, 2}
	less := func(keys []SortKey) []int {
		out := append([]int{}, asc...)
		for i := range out {
			for j := i + 1; j < len(out); j++ {
				if CompareKeys(b, keys, out[j], out[i]) < 0 {
					out[i], out[j] = out[j], out[i]
				}
			}
		}
		return out
	}
	if got := less([]SortKey{{Col: 0}}); got[0] != 2 || got[2] != 1 {
		t.Errorf("ASC puts NULL last: %v", got)
	}
	if got := less([]SortKey{{Col: 0, Desc: true, NullsFirst: true}}); got[0] != 1 || got[1] != 0 {
		t.Errorf("DESC puts NULL first: %v", got)
	}
}
