package hashtab

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// textIntNumeric are the key types of the tests below; textIntNumericCols
// makes their columns from rows of text values ("NULL" for NULL).
var textIntNumeric = []types.T{types.TextT, types.Int64T, types.NumericAnyT}

func textIntNumericCols(rows [][]string) []*vec.Vector {
	cols := make([]*vec.Vector, len(textIntNumeric))
	for c, typ := range textIntNumeric {
		cols[c] = vec.New(typ, len(rows))
		for _, r := range rows {
			switch x := r[c]; {
			case x == "NULL":
				cols[c].AppendNull()
			case c == 1:
				var n int64
				fmt.Sscan(x, &n)
				cols[c].AppendInt(n)
			default:
				cols[c].AppendString(x)
			}
		}
	}
	return cols
}

// Groups whose hashes collide still get a group of
// their own: the guess taken from the tag is checked column by column, and
// a wrong guess probes on. NULLs and equal numerics of other scales group
// as SQL says.
func TestHashTableGroupIDsCollisions(t *testing.T) {
	ts := textIntNumeric
	mk := textIntNumericCols
	rows := [][]string{
		{"a", "1", "1.5"}, {"b", "1", "1.5"}, {"a", "2", "1.5"}, {"a", "1", "1.50"},
		{"NULL", "1", "1.5"}, {"a", "NULL", "1.5"}, {"a", "1", "NULL"}, {"NULL", "1", "1.5"},
		{"b", "1", "1.5"}, {"a", "2", "2"}, {"a", "NULL", "1.5"},
	}
	// rows with the same number share a group, and only they (a row whose
	// guess was wrong may get its id after later rows': ids are not in
	// first-seen order then)
	want := []int32{0, 1, 2, 0, 3, 4, 5, 3, 1, 6, 4}
	for _, hash := range []string{"equal", "real"} {
		tab, keys := NewHashTable(4), NewKeyCols(ts)
		gotOf, wantOf := map[int32]int32{}, map[int32]int32{}
		hs := make([]uint64, len(rows))
		for i := range hs {
			if hash == "equal" {
				hs[i] = 42
			}
		}
		// two batches: the second meets the groups of the first
		for _, part := range [][2]int{{0, 6}, {6, len(rows)}} {
			b := mk(rows[part[0]:part[1]])
			h := hs[part[0]:part[1]]
			if hash == "real" {
				for c, v := range b {
					memory.HashColumn(h, v, len(h), c == 0)
				}
			}
			gids := make([]int32, len(h))
			tab.GroupIDs(keys, b, h, gids)
			for i, g := range gids {
				w := want[part[0]+i]
				if _, ok := gotOf[w]; !ok {
					gotOf[w] = g
				}
				if _, ok := wantOf[g]; !ok {
					wantOf[g] = w
				}
				if gotOf[w] != g || wantOf[g] != w {
					t.Errorf("%s hashes: row %d %v in group %d, beside the rows of group %d", hash, part[0]+i, rows[part[0]+i], g, w)
				}
			}
		}
		if tab.N != 7 {
			t.Errorf("%s hashes: %d groups, want 7", hash, tab.N)
		}
	}
}

// Find gives the group GroupIDs gave an equal key, and -1 for a key the
// table lacks, also where every hash collides (each guess from the tag is
// checked, a wrong one probes on) and for NULLs and numerics of other
// scales.
func TestHashTableFind(t *testing.T) {
	ts := textIntNumeric
	rows := [][]string{
		{"a", "1", "1.5"}, {"b", "1", "1.5"}, {"a", "2", "1.5"}, {"NULL", "1", "1.5"}, {"a", "NULL", "1.5"},
		// looked up only: absent, then equal to rows 3, 1, 0 and 4
		{"a", "1", "NULL"}, {"a", "2", "2"}, {"c", "1", "1.5"},
		{"NULL", "1", "1.5"}, {"b", "1", "1.5"}, {"a", "1", "1.50"}, {"a", "NULL", "1.5"},
	}
	want := []int{0, 1, 2, 3, 4, -1, -1, -1, 3, 1, 0, 4}
	cols := textIntNumericCols(rows)
	for _, hash := range []string{"equal", "real"} {
		hs := make([]uint64, len(rows))
		for i := range hs {
			hs[i] = 42
		}
		if hash == "real" {
			for c, v := range cols {
				memory.HashColumn(hs, v, len(hs), c == 0)
			}
		}
		tab, keys := NewHashTable(4), NewKeyCols(ts)
		first := make([]*vec.Vector, len(cols))
		for c, v := range cols {
			first[c] = v.Slice(0, 5)
		}
		gids := make([]int32, 5)
		tab.GroupIDs(keys, first, hs[:5], gids)
		ids := make([]int32, len(rows))
		var sc FindScratch
		found := tab.Find(keys, cols, hs, ids, &sc)
		n := 0
		for i, w := range want {
			exp := int32(-1)
			if w >= 0 {
				exp = gids[w]
				n++
			}
			if ids[i] != exp {
				t.Errorf("%s hashes: row %d %v found %d, want %d", hash, i, rows[i], ids[i], exp)
			}
		}
		if found != n {
			t.Errorf("%s hashes: %d found, want %d", hash, found, n)
		}
	}
}

// BenchmarkHashTableGroupIDsText groups rows by six keys, four of them
// text, into 65 k groups (TPC-DS q47's shape).
func BenchmarkHashTableGroupIDsText(b *testing.B) {
	ts := []types.T{types.TextT, types.TextT, types.TextT, types.TextT, types.Int64T, types.Int64T}
	const rows, groups = 1 << 16, 65000
	cols := make([]*vec.Vector, len(ts))
	for c, t := range ts {
		cols[c] = vec.New(t, rows)
	}
	for i := 0; i < rows; i++ {
		g := (i * 7919) % groups
		cols[0].AppendString(fmt.Sprintf("Category%d", g%10))
		cols[1].AppendString(fmt.Sprintf("brand #%d", g%700))
		cols[2].AppendString(fmt.Sprintf("store %d", g%6))
		cols[3].AppendString("company")
		cols[4].AppendInt(int64(1999 + g%3))
		cols[5].AppendInt(int64(g / 2100))
	}
	benchGroupIDs(b, ts, cols, rows)
}

// benchGroupIDs groups the rows of cols, ten times over, into one table
// per iteration, a batch at a time.
func benchGroupIDs(b *testing.B, ts []types.T, cols []*vec.Vector, rows int) {
	hs := make([]uint64, vec.BatchSize)
	gids := make([]int32, vec.BatchSize)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		tab, keys := NewHashTable(16), NewKeyCols(ts)
		for r := 0; r < 10; r++ {
			for lo := 0; lo < rows; lo += vec.BatchSize {
				batch := make([]*vec.Vector, len(cols))
				for c, v := range cols {
					batch[c] = v.Slice(lo, lo+vec.BatchSize)
				}
				for c, v := range batch {
					memory.HashColumn(hs, v, vec.BatchSize, c == 0)
				}
				tab.GroupIDs(keys, batch, hs, gids)
			}
		}
	}
}

// A key packer whose rows nearly all miss its cache (as many groups as
// rows) stops, and the general table then gives each key the group the
// cache gave it; one whose rows find their groups goes on.
func TestKeyPackerStopsWhenRowsMiss(t *testing.T) {
	ts := []types.T{types.Int64T, types.Int64T}
	batch := func(lo, groups int) []*vec.Vector {
		a, b := vec.New(ts[0], vec.BatchSize), vec.New(ts[1], vec.BatchSize)
		for i := lo; i < lo+vec.BatchSize; i++ {
			a.AppendInt(int64(i % groups))
			b.AppendInt(int64(i%groups) * 7)
		}
		return []*vec.Vector{a, b}
	}
	hs, gids := make([]uint64, vec.BatchSize), make([]int32, vec.BatchSize)
	for _, tc := range []struct {
		groups int
		stops  bool
	}{{1 << 30, true}, {100, false}} {
		p, tab, keys := NewKeyPacker(ts), NewHashTable(16), NewKeyCols(ts)
		seen := map[int64]int32{}
		rows := 0
		for ; rows < 2*judgeRows; rows += vec.BatchSize {
			kv := batch(rows, tc.groups)
			handled, _ := p.GroupIDs(tab, keys, kv, vec.BatchSize, hs, false, gids)
			if !handled {
				for c, v := range kv {
					memory.HashColumn(hs, v, vec.BatchSize, c == 0)
				}
				tab.GroupIDs(keys, kv, hs, gids)
			}
			for i, g := range gids {
				k := kv[0].I64[i]
				if want, ok := seen[k]; ok && want != g {
					t.Fatalf("%d groups: key %d in group %d after %d rows, was %d", tc.groups, k, g, rows, want)
				}
				seen[k] = g
			}
		}
		if p.off != tc.stops {
			t.Errorf("%d groups: packer off = %v after %d rows", tc.groups, p.off, rows)
		}
		// rows seen before: the same groups either way
		if tc.stops {
			kv := batch(0, tc.groups)
			for c, v := range kv {
				memory.HashColumn(hs, v, vec.BatchSize, c == 0)
			}
			tab.GroupIDs(keys, kv, hs, gids)
			for i, g := range gids {
				if want := seen[kv[0].I64[i]]; want != g {
					t.Fatalf("key %d in group %d, was %d", kv[0].I64[i], g, want)
				}
			}
		}
	}
}

// A text key too long for a reference's length field (16 MiB or more)
// reads back whole: its chunk's length is its own.
func TestTextKeysHugeKey(t *testing.T) {
	tk := newTextKeys()
	huge := strings.Repeat("x", refLenMax+5)
	for _, s := range []string{"a", huge, "", "bc"} {
		tk.refs = append(tk.refs, tk.copyIn(s))
	}
	for j, want := range []string{"a", huge, "", "bc"} {
		if got := tk.at(j); got != want {
			t.Fatalf("key %d: %d bytes, want %d", j, len(got), len(want))
		}
	}
}

// BenchmarkHashTableGroupIDsInt groups rows by two integer keys into 90 k
// groups that recur in the same order (TPC-DS inventory by item and
// warehouse): the table outgrows the caches, so the probes' loads decide.
func BenchmarkHashTableGroupIDsInt(b *testing.B) {
	ts := []types.T{types.Int64T, types.Int64T}
	const groups = 90000
	rows := groups / vec.BatchSize * vec.BatchSize
	item, wh := vec.New(ts[0], rows), vec.New(ts[1], rows)
	for i := 0; i < rows; i++ {
		item.AppendInt(int64(1 + i/5))
		wh.AppendInt(int64(1 + i%5))
	}
	benchGroupIDs(b, ts, []*vec.Vector{item, wh}, rows)
}

// BenchmarkI64TableGroupIDs groups 6 M rows by one integer key: in runs of
// four (lineitem by l_orderkey: 1.5 M groups, the table far past the
// caches) and scattered over 65,536 groups.
func BenchmarkI64TableGroupIDs(b *testing.B) {
	const rows = 6 << 20
	for _, c := range []struct {
		name string
		key  func(i int) int64
	}{{"runs", func(i int) int64 { return int64(i / 4) }}, {"scattered", func(i int) int64 { return int64(i*7919) % 65536 }}} {
		keys := make([]int64, rows)
		for i := range keys {
			keys[i] = c.key(i)
		}
		gids := make([]int32, vec.BatchSize)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				t := NewI64Table(16)
				for lo := 0; lo < rows; lo += vec.BatchSize {
					t.GroupIDs(keys[lo:lo+vec.BatchSize], nil, gids)
				}
			}
		})
	}
}

// Long text keys pack by their number in the column's dictionary: rows
// whose names repeat find their group through the cache, and once the
// dictionary is full (more distinct names than its bits number) the other
// rows take the general table; either way one key is one group.
func TestKeyPackerTextDictionary(t *testing.T) {
	ts := []types.T{types.TextT, types.Int64T, types.Int64T, types.Int64T}
	for _, names := range []int{5, 1000} {
		p, tab, keys := NewKeyPacker(ts), NewHashTable(16), NewKeyCols(ts)
		hs, gids := make([]uint64, vec.BatchSize), make([]int32, vec.BatchSize)
		groupOf, keyOf := map[string]int32{}, map[int32]string{}
		rng := rand.New(rand.NewPCG(1, uint64(names)))
		for b := 0; b < 40; b++ {
			kv := make([]*vec.Vector, len(ts))
			for c := range kv {
				kv[c] = vec.New(ts[c], vec.BatchSize)
			}
			for i := 0; i < vec.BatchSize; i++ {
				// four rows in five name one of the first few
				n := rng.IntN(min(names, 100))
				if rng.IntN(5) == 0 {
					n = rng.IntN(names + 1)
				}
				if n == names {
					kv[0].AppendNull()
				} else {
					kv[0].AppendString(fmt.Sprintf("warehouse number %d", n))
				}
				kv[1].AppendInt(int64(rng.IntN(2)))
				kv[2].AppendInt(int64(rng.IntN(3)))
				kv[3].AppendInt(int64(1 + rng.IntN(12)))
			}
			if handled, _ := p.GroupIDs(tab, keys, kv, vec.BatchSize, hs, false, gids); !handled {
				t.Fatalf("%d names: the packer stopped at batch %d", names, b)
			}
			for i, g := range gids {
				k := fmt.Sprintf("%v %q %d %d %d", kv[0].Nulls != nil && kv[0].Nulls[i], kv[0].S[i], kv[1].I64[i], kv[2].I64[i], kv[3].I64[i])
				if want, ok := groupOf[k]; ok && want != g {
					t.Fatalf("%d names: key %s in group %d, was %d", names, k, g, want)
				}
				if other, ok := keyOf[g]; ok && other != k {
					t.Fatalf("%d names: keys %s and %s both in group %d", names, k, other, g)
				}
				groupOf[k], keyOf[g] = g, k
			}
		}
		if got, want := len(p.dicts[0].codes), min(names, 256); got != want {
			t.Errorf("%d names: %d numbered, want %d", names, got, want)
		}
		if tab.N != len(groupOf) {
			t.Errorf("%d names: %d groups in the table, %d keys", names, tab.N, len(groupOf))
		}
	}
}

// A packer of more than four columns packs each in the bits its first
// batch needs: rows whose values outgrow those bits later (more names, a
// larger number) take the general table, and one key is one group
// whichever way its rows went.
func TestKeyPackerWide(t *testing.T) {
	ts := []types.T{types.TextT, types.TextT, types.Int64T, types.TextT, types.Int64T, types.Int64T}
	p, tab, keys := NewKeyPacker(ts), NewHashTable(16), NewKeyCols(ts)
	hs, gids := make([]uint64, vec.BatchSize), make([]int32, vec.BatchSize)
	groupOf, keyOf := map[string]int32{}, map[int32]string{}
	rng := rand.New(rand.NewPCG(7, 9))
	for b := 0; b < 40; b++ {
		// from batch 20 on, more brands and larger years than the first
		// batch's widths hold; until then rows meet their groups again
		// often enough for the packer to go on (judgeEarly)
		brands, years := 10, 3
		if b >= 20 {
			brands, years = 150, 9000
		}
		kv := make([]*vec.Vector, len(ts))
		for c := range kv {
			kv[c] = vec.New(ts[c], vec.BatchSize)
		}
		for i := 0; i < vec.BatchSize; i++ {
			kv[0].AppendString(fmt.Sprintf("category %d", rng.IntN(4)))
			if rng.IntN(50) == 0 {
				kv[1].AppendNull()
			} else {
				kv[1].AppendString(fmt.Sprintf("brand number %d", rng.IntN(brands)))
			}
			kv[2].AppendInt(int64(rng.IntN(5)))
			kv[3].AppendString(fmt.Sprintf("store %d", rng.IntN(3)))
			kv[4].AppendInt(int64(1998 + rng.IntN(years)))
			if rng.IntN(40) == 0 {
				kv[5].AppendNull()
			} else {
				kv[5].AppendInt(int64(1 + rng.IntN(12)))
			}
		}
		if handled, _ := p.GroupIDs(tab, keys, kv, vec.BatchSize, hs, false, gids); !handled && b < 20 {
			t.Fatalf("the packer stopped at batch %d", b)
		} else if !handled {
			for c, v := range kv {
				memory.HashColumn(hs, v, vec.BatchSize, c == 0)
			}
			tab.GroupIDs(keys, kv, hs, gids)
		}
		for i, g := range gids {
			k := fmt.Sprintf("%q %v %q %d %q %d %v %d", kv[0].S[i], kv[1].IsNull(i), kv[1].S[i], kv[2].I64[i], kv[3].S[i], kv[4].I64[i], kv[5].IsNull(i), kv[5].I64[i])
			if want, ok := groupOf[k]; ok && want != g {
				t.Fatalf("batch %d: key %s in group %d, was %d", b, k, g, want)
			}
			if other, ok := keyOf[g]; ok && other != k {
				t.Fatalf("batch %d: keys %s and %s both in group %d", b, k, other, g)
			}
			groupOf[k], keyOf[g] = g, k
		}
	}
	if p.widths == nil {
		t.Fatal("the wide packer chose no widths")
	}
	if tab.N != len(groupOf) {
		t.Errorf("%d groups in the table, %d keys", tab.N, len(groupOf))
	}
}

// A tight table fills its slots to 3/4 before it doubles them and grows its
// columns by quarters (or, by half at most, to the groups its slots take),
// and groups exactly as a table that doubles does.
// GrowthAhead says, before each batch, whether the batch makes the arrays
// grow and by how much.
func TestHashTableTightGrowth(t *testing.T) {
	ts := []types.T{types.TextT, types.Int64T}
	const batch, batches = 1000, 120
	var tabs [2]*HashTable
	var keys [2]*KeyCols
	gids := [2][]int32{make([]int32, batch), make([]int32, batch)}
	for i := range tabs {
		tabs[i], keys[i] = NewHashTable(16), NewKeyCols(ts)
		tabs[i].Tight, keys[i].Tight = i == 1, i == 1
	}
	rng := rand.New(rand.NewPCG(1, 2))
	hs := make([]uint64, batch)
	for bi := 0; bi < batches; bi++ {
		cols := []*vec.Vector{vec.New(ts[0], batch), vec.New(ts[1], batch)}
		for range batch {
			// a third of the rows are of groups seen before
			g := rng.IntN(bi*batch + batch)
			if rng.IntN(3) == 0 {
				cols[0].AppendNull()
			} else {
				cols[0].AppendString(fmt.Sprintf("key-%d", g%50000))
			}
			cols[1].AppendInt(int64(g / 50000))
		}
		for c, v := range cols {
			memory.HashColumn(hs, v, batch, c == 0)
		}
		for i, tab := range tabs {
			k := keys[i]
			slots, refcap, intcap := len(tab.Slots), cap(k.Txt[0].refs), cap(k.Cols[1].I64)
			flagged := [2]bool{k.Cols[0].Nulls != nil, k.Cols[1].Nulls != nil}
			ncap := cap(k.Cols[0].Nulls) + cap(k.Cols[1].Nulls)
			ahead := tab.GrowthAhead(k, batch)
			tab.GroupIDs(k, cols, hs, gids[i])
			grew := int64(8*(len(tab.Slots)-slots) + 8*(cap(k.Txt[0].refs)-refcap) + 8*(cap(k.Cols[1].I64)-intcap) +
				cap(k.Cols[0].Nulls) + cap(k.Cols[1].Nulls) - ncap)
			// a column's first NULL gives it flags: no growth, not foreseen
			for c, was := range flagged {
				if !was {
					grew -= int64(cap(k.Cols[c].Nulls))
				}
			}
			// GrowthAhead takes every row for a new group: an upper bound
			if grew > ahead {
				t.Fatalf("tight=%v batch %d: the table grew by %d bytes, GrowthAhead said %d", tab.Tight, bi, grew, ahead)
			}
			if len(tab.Slots) > slots {
				if tab.Tight && 4*tab.N < 3*slots {
					t.Fatalf("tight table doubled its %d slots at %d groups, below 3/4", slots, tab.N)
				}
			}
			if max := len(tab.Slots) / 2; tab.Tight {
				max = 3 * len(tab.Slots) / 4
				if tab.N > max {
					t.Fatalf("tight table holds %d groups in %d slots", tab.N, len(tab.Slots))
				}
			} else if tab.N > max {
				t.Fatalf("table holds %d groups in %d slots", tab.N, len(tab.Slots))
			}
			// by a quarter, or to what the slots take at 3/4 full, by half at most
			if c := cap(k.Cols[1].I64); tab.Tight && c > intcap && intcap >= 1024 && c > intcap+intcap/4+batch &&
				(c > intcap+intcap/2 || c > 3*len(tab.Slots)/4) {
				t.Fatalf("tight table grew its keys from %d to %d in %d slots", intcap, c, len(tab.Slots))
			}
		}
		// the same groups: dense ids are given in the same order
		for i := range gids[0] {
			if gids[0][i] != gids[1][i] {
				t.Fatalf("batch %d row %d: group %d in the doubling table, %d in the tight one", bi, i, gids[0][i], gids[1][i])
			}
		}
	}
	if tabs[0].N != tabs[1].N || tabs[1].N < 40000 {
		t.Fatalf("%d and %d groups", tabs[0].N, tabs[1].N)
	}
}

// A key column stores NULL flags only from its first NULL on: the groups
// before it read as not NULL, the NULL groups as NULL, and later rows find
// them all, whether the keys come by batch (addRows), one at a time (add,
// when every hash is equal) or from another table (AppendRows).
func TestKeyColsNullFlagsFromFirstNull(t *testing.T) {
	ts := []types.T{types.TextT, types.Int64T, types.Float64T}
	type key struct {
		s    string
		i    int64
		f    float64
		null [3]bool
	}
	mk := func(ks []key, withNulls bool) []*vec.Vector {
		cols := []*vec.Vector{vec.New(ts[0], len(ks)), vec.New(ts[1], len(ks)), vec.New(ts[2], len(ks))}
		for c := range cols {
			if withNulls {
				cols[c].Nulls = []bool{}
			}
		}
		for _, k := range ks {
			for c, v := range cols {
				switch {
				case k.null[c]:
					v.AppendNull()
					continue
				case c == 0:
					v.AppendString(k.s)
				case c == 1:
					v.AppendInt(k.i)
				default:
					v.AppendFloat(k.f)
				}
			}
		}
		return cols
	}
	var first, second []key
	for i := range 300 {
		first = append(first, key{s: fmt.Sprint("k", i), i: int64(i), f: float64(i) / 2})
	}
	// the second batch: NULLs in every column, and the first batch's keys again
	for i := range 300 {
		k := key{s: fmt.Sprint("n", i%50), i: int64(i % 50), f: 1, null: [3]bool{i%3 == 0, i%5 == 0, i%7 == 0}}
		second = append(second, k, first[i])
	}
	keyOf := func(k key) string {
		for c := range k.null {
			if k.null[c] {
				switch c {
				case 0:
					k.s = ""
				case 1:
					k.i = 0
				default:
					k.f = 0
				}
			}
		}
		return fmt.Sprint(k)
	}
	for _, equalHashes := range []bool{false, true} {
		tab, keys := NewHashTable(4), NewKeyCols(ts)
		byKey := map[string]int32{}
		for bi, ks := range [][]key{first, second} {
			cols := mk(ks, bi == 0) // the first batch's vectors have flags but no NULL
			hs := make([]uint64, len(ks))
			for c, v := range cols {
				if !equalHashes {
					memory.HashColumn(hs, v, len(ks), c == 0)
				}
			}
			gids := make([]int32, len(ks))
			tab.GroupIDs(keys, cols, hs, gids)
			for i, k := range ks {
				if g, ok := byKey[keyOf(k)]; ok && g != gids[i] {
					t.Fatalf("hashes equal %v: batch %d row %d: %v in group %d and %d", equalHashes, bi, i, k, g, gids[i])
				}
				byKey[keyOf(k)] = gids[i]
			}
			if bi == 0 {
				for c, v := range keys.Cols {
					if v.Nulls != nil {
						t.Fatalf("column %d stores NULL flags without a NULL", c)
					}
				}
			}
		}
		if len(byKey) != tab.N {
			t.Fatalf("%d keys, %d groups", len(byKey), tab.N)
		}
		// every group's key as stored, and again through AppendRows into
		// a table that had none of the NULLs
		other := NewKeyCols(ts)
		ids := make([]int32, 0, tab.N)
		for g := tab.N - 1; g >= 0; g-- {
			ids = append(ids, int32(g))
		}
		other.AppendRows(keys, ids[:1])
		other.AppendRows(keys, ids)
		for _, k := range append(first, second...) {
			g := byKey[keyOf(k)]
			for _, at := range []struct {
				kc *KeyCols
				j  int
			}{{keys, int(g)}, {other, 1 + tab.N - 1 - int(g)}} {
				for c := range ts {
					v := at.kc.ColView(c, at.j, at.j+1)
					got := v.IsNull(0)
					if got != k.null[c] {
						t.Fatalf("key %v column %d: NULL %v", k, c, got)
					}
					if got {
						continue
					}
					switch c {
					case 0:
						if v.S[0] != k.s {
							t.Fatalf("key %v: text %q", k, v.S[0])
						}
					case 1:
						if v.I64[0] != k.i {
							t.Fatalf("key %v: int %d", k, v.I64[0])
						}
					default:
						if v.F64[0] != k.f {
							t.Fatalf("key %v: float %v", k, v.F64[0])
						}
					}
				}
			}
		}
	}
}

// Reserve gives every key column exactly the room asked for, keeping the keys, and counts the capacity added; a column
// without NULLs gets no flags.
func TestKeyColsReserve(t *testing.T) {
	ts := []types.T{types.TextT, types.Int64T}
	tab, keys := NewHashTable(4), NewKeyCols(ts)
	cols := []*vec.Vector{vec.New(ts[0], 100), vec.New(ts[1], 100)}
	for i := range 100 {
		cols[0].AppendString(fmt.Sprint("k", i))
		if i == 7 {
			cols[1].AppendNull()
		} else {
			cols[1].AppendInt(int64(i))
		}
	}
	hs := make([]uint64, 100)
	memory.HashColumn(hs, cols[0], 100, true)
	memory.HashColumn(hs, cols[1], 100, false)
	tab.GroupIDs(keys, cols, hs, make([]int32, 100))
	before := cap(keys.Txt[0].refs)*8 + cap(keys.Cols[1].I64)*8 + cap(keys.Cols[1].Nulls)
	added := keys.Reserve(1000)
	if keys.Cols[0].Nulls != nil {
		t.Fatal("a column without NULLs was given flags")
	}
	if cap(keys.Txt[0].refs) != 1000 || cap(keys.Cols[1].I64) != 1000 || cap(keys.Cols[1].Nulls) != 1000 || keys.Cap() != 1000 {
		t.Fatalf("capacities %d %d %d %d, want 1000", cap(keys.Txt[0].refs), cap(keys.Cols[1].I64), cap(keys.Cols[1].Nulls), keys.Cap())
	}
	if want := int64(1000*8+1000*8+1000) - int64(before); added != want {
		t.Fatalf("Reserve counted %d bytes, want %d", added, want)
	}
	if tab.N != 100 {
		t.Fatalf("%d ids, want 100", tab.N)
	}
	for j := range 100 {
		s, v := keys.ColView(0, j, j+1), keys.ColView(1, j, j+1)
		if s.S[0] != fmt.Sprint("k", j) || v.IsNull(0) != (j == 7) || (j != 7 && v.I64[0] != int64(j)) {
			t.Fatalf("group %d: %q %v", j, s.S[0], v.I64[0])
		}
	}
	if keys.Reserve(500) != 0 {
		t.Fatal("Reserve below the capacity grew")
	}
}

// A table places keys by their tags alone (Home), and keys of one spill
// partition share their hash's top bits: the tag's other bits still spread
// them, so a probe starts near its key as the table grows, and every key is
// found again after each doubling.
func TestHomeSpreadsOnePartition(t *testing.T) {
	ts := []types.T{types.Int64T, types.Int64T}
	tab, keys := NewHashTable(0), NewKeyCols(ts)
	const n, batch = 200000, 1000
	hash := func(k int) uint64 {
		// the top 8 bits: partition 0xab one level down
		return 0xab<<56 | (uint64(k)*0x9E3779B97F4A7C15)>>8
	}
	hs := make([]uint64, batch)
	gids := make([]int32, batch)
	groupOf := make([]int32, n)
	seen := make([]bool, n)
	for pass := range 2 {
		for lo := 0; lo < n; lo += batch {
			cols := []*vec.Vector{vec.New(ts[0], batch), vec.New(ts[1], batch)}
			for i := range batch {
				cols[0].AppendInt(int64(lo + i))
				cols[1].AppendInt(0)
				hs[i] = hash(lo + i)
			}
			tab.GroupIDs(keys, cols, hs, gids)
			for i, g := range gids {
				switch {
				case pass == 0 && seen[g]:
					t.Fatalf("key %d: group %d, another key's", lo+i, g)
				case pass == 0:
					seen[g], groupOf[lo+i] = true, g
				case g != groupOf[lo+i]:
					t.Fatalf("key %d found as group %d, made as %d", lo+i, g, groupOf[lo+i])
				}
			}
		}
	}
	if tab.N != n {
		t.Fatalf("%d groups, want %d", tab.N, n)
	}
	mask := uint64(len(tab.Slots) - 1)
	var dist uint64
	for s, sl := range tab.Slots {
		if sl != 0 {
			dist += (uint64(s) - tab.Home(sl)) & mask
		}
	}
	if avg := float64(dist) / n; avg > 2 {
		t.Fatalf("keys sit %.1f slots past their home on average", avg)
	}
}
