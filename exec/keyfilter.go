package exec

import "math/bits"

// keyFilter is a blocked Bloom filter over the int64 keys of a large join
// build side. Probing such a table misses the cache on nearly every row,
// and most probe rows usually find nothing (lineitem against the orders of
// one year in TPC-H Q5, 85 % of them); at 8 bits a key the filter stays in
// the L2 cache and turns those misses away, so only the rest reach the
// table. Each key sets two bits of one 64-bit word: about 5 % false hits.
type keyFilter struct {
	words []uint64
	shift uint
}

// minFilteredSlots: tables smaller than this (512 KiB of slots) are cache
// resident enough that a filter only adds work. It was 2 MiB; TPC-H Q12's
// 27,000 lineitem keys (1 MiB of slots), probed by 1.5 M orders of which 2 %
// match, and Q5's and Q21's build sides of that size spent less CPU behind
// a filter (Q12 about 5 %).
const minFilteredSlots = 1 << 15

// minFilteredHashSlots is minFilteredSlots for tables of several keys or
// a non-integer key: a probe there hashes every key column and compares
// the keys of a tag's match, so the filter pays off sooner (TPC-DS q25:
// 2.9 M store_sales rows against 26 k returns, 64 k slots).
const minFilteredHashSlots = 1 << 15

const filterMul = 0xff51afd7ed558ccd

func newKeyFilter(n int) *keyFilter {
	words := 1
	for words*64 < 8*n {
		words <<= 1
	}
	return &keyFilter{words: make([]uint64, words), shift: uint(64 - bits.TrailingZeros(uint(words)))}
}

// word and mask place k: the top bits of the product pick the word, two
// six-bit fields from its middle the bits.
func (f *keyFilter) place(k int64) (int, uint64) {
	h := uint64(k) * filterMul
	w := 0
	if f.shift < 64 {
		w = int(h >> f.shift)
	}
	return w, 1<<((h>>20)&63) | 1<<((h>>26)&63)
}

func (f *keyFilter) add(k int64) {
	w, m := f.place(k)
	f.words[w] |= m
}

func (f *keyFilter) mayHave(k int64) bool {
	w, m := f.place(k)
	return f.words[w]&m == m
}

func (f *keyFilter) bytes() int64 { return int64(len(f.words)) * 8 }

// addAll adds the keys not marked in nulls. (Split among goroutines by
// word, each passing over every key to pick its own, it cost twice the
// CPU for the half of the time, a millisecond of TPC-H Q5's build.)
func addAll[K int64 | uint64](f *keyFilter, keys []K, nulls []bool) {
	for r, x := range keys {
		if nulls == nil || !nulls[r] {
			f.add(int64(x))
		}
	}
}
