package exec

import (
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/types"
)

func TestKeyFilterHasNoFalseNegatives(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	keys := make([]int64, 300_000)
	f := newKeyFilter(len(keys))
	for i := range keys {
		keys[i] = rng.Int63() - rng.Int63()
		f.add(keys[i])
	}
	for _, k := range keys {
		if !f.mayHave(k) {
			t.Fatalf("key %d added but not found", k)
		}
	}
	hits := 0
	for i := 0; i < 100_000; i++ {
		if f.mayHave(rng.Int63()) {
			hits++
		}
	}
	if hits > 10_000 {
		t.Errorf("%d false hits in 100000 absent keys", hits)
	}
}

// TestHashJoinLargeBuildFilter: a build side large enough for the key
// filter (sparse keys, duplicates, NULLs on both sides) joins exactly as
// the definition says, for every join type, the filtered probe included.
func TestHashJoinLargeBuildFilter(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	ts := []types.T{types.Int64T, types.Int64T}
	key := func(i int) int64 { return int64(i) * 7919 * 1000003 }
	var R, L [][]any
	for i := 0; i < 150_000; i++ {
		var k any = key(i % 140_000) // 10,000 keys twice
		if i%1000 == 999 {
			k = nil
		}
		R = append(R, []any{k, int64(i)})
	}
	for i := 0; i < 30_000; i++ {
		var k any = key(rng.Intn(400_000)) // about a third present
		if i%777 == 0 {
			k = nil
		}
		L = append(L, []any{k, int64(i)})
	}
	// one integer key (the int64 table), and the same key twice (the
	// general table of several keys, filtered by the keys' hash)
	for _, keys := range []int{1, 2} {
		var lk, rk []Expr
		for range keys {
			lk, rk = append(lk, col(0, ts[0])), append(rk, col(0, ts[0]))
		}
		for _, typ := range allJoinTypes {
			j := &HashJoin{Env: env, Left: newRowsOp(ts, L, 2048), Right: newRowsOp(ts, R, 2048),
				LeftKeys: lk, RightKeys: rk, Type: typ}
			got := collect(t, j)
			if typ == JoinInner && j.filter == nil {
				t.Fatalf("%d keys: the build side got no key filter", keys)
			}
			want := refJoinByKey(L, R, typ)
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%d keys, %s: %d rows, want %d", keys, typ, len(got), len(want))
			}
			j.Close()
		}
	}
}

// refJoinByKey is refJoin for equality on column 0, by a map (refJoin pairs
// every row with every row, too slow for these sizes).
func refJoinByKey(L, R [][]any, typ JoinType) []string {
	byKey := map[int64][]int{}
	rNull := false
	for i, r := range R {
		if r[0] == nil {
			rNull = true
			continue
		}
		byKey[r[0].(int64)] = append(byKey[r[0].(int64)], i)
	}
	var pairs [][2]int // -1: no partner
	matchedR := make([]bool, len(R))
	for li, l := range L {
		var ms []int
		if l[0] != nil {
			ms = byKey[l[0].(int64)]
		}
		for _, ri := range ms {
			matchedR[ri] = true
		}
		switch typ {
		case JoinInner, JoinRight, JoinFull, JoinLeft:
			for _, ri := range ms {
				pairs = append(pairs, [2]int{li, ri})
			}
			if len(ms) == 0 && (typ == JoinLeft || typ == JoinFull) {
				pairs = append(pairs, [2]int{li, -1})
			}
		case JoinSemi:
			if len(ms) > 0 {
				pairs = append(pairs, [2]int{li, -1})
			}
		case JoinAnti:
			if len(ms) == 0 {
				pairs = append(pairs, [2]int{li, -1})
			}
		case JoinAntiNullAware:
			// NOT IN: no row when the right side has a NULL or l is NULL
			if len(ms) == 0 && !rNull && l[0] != nil {
				pairs = append(pairs, [2]int{li, -1})
			}
		}
	}
	for ri := range R {
		switch {
		case (typ == JoinRight || typ == JoinFull) && !matchedR[ri]:
			pairs = append(pairs, [2]int{-1, ri})
		case typ == JoinRightSemi && matchedR[ri]:
			pairs = append(pairs, [2]int{-2, ri})
		case typ == JoinRightAnti && !matchedR[ri]:
			pairs = append(pairs, [2]int{-2, ri})
		}
	}
	out := make([]string, 0, len(pairs))
	for _, p := range pairs {
		var row []any
		switch {
		case p[0] == -2: // right semi/anti: the right row alone
			row = R[p[1]]
		case typ == JoinSemi || typ == JoinAnti || typ == JoinAntiNullAware:
			row = L[p[0]]
		default:
			l, r := []any{nil, nil}, []any{nil, nil}
			if p[0] >= 0 {
				l = L[p[0]]
			}
			if p[1] >= 0 {
				r = R[p[1]]
			}
			row = append(append([]any{}, l...), r...)
		}
		out = append(out, fmtRow(row...))
	}
	return out
}
