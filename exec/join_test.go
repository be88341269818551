package exec

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

var allJoinTypes = []JoinType{JoinInner, JoinLeft, JoinRight, JoinFull, JoinSemi, JoinAnti, JoinAntiNullAware, JoinRightSemi, JoinRightAnti}

// tri is SQL three-valued truth: 1 true, 0 false, -1 unknown.
type tri int

// refJoin is the definition of each join type, pair by pair. match says
// whether a pair joins; for NOT IN, rejects says whether a right row rules
// the left row out.
func refJoin(L, R [][]any, typ JoinType, match func(l, r []any) bool, rejects func(l, r []any) bool) []string {
	var out []string
	matchedR := make([]bool, len(R))
	nullsR := make([]any, len(kst))
	nullsL := make([]any, len(kst))
	for _, l := range L {
		matched := false
		for ri, r := range R {
			if typ == JoinAntiNullAware {
				if rejects(l, r) {
					matched = true
				}
				continue
			}
			if !match(l, r) {
				continue
			}
			matched = true
			matchedR[ri] = true
			if !typ.leftOnly() && !typ.rightOnly() {
				out = append(out, fmtRow(append(append([]any{}, l...), r...)...))
			}
		}
		switch {
		case typ == JoinSemi && matched,
			(typ == JoinAnti || typ == JoinAntiNullAware) && !matched:
			out = append(out, fmtRow(l...))
		case (typ == JoinLeft || typ == JoinFull) && !matched:
			out = append(out, fmtRow(append(append([]any{}, l...), nullsR...)...))
		}
	}
	if typ == JoinRight || typ == JoinFull {
		for ri, r := range R {
			if !matchedR[ri] {
				out = append(out, fmtRow(append(append([]any{}, nullsL...), r...)...))
			}
		}
	}
	if typ.rightOnly() {
		for ri, r := range R {
			if matchedR[ri] == (typ == JoinRightSemi) {
				out = append(out, fmtRow(r...))
			}
		}
	}
	return out
}

func eqAny(a, b any) bool { return a != nil && b != nil && a == b }

func keyMatch(keys []int) func(l, r []any) bool {
	return func(l, r []any) bool {
		for _, k := range keys {
			if !eqAny(l[k], r[k]) {
				return false
			}
		}
		return true
	}
}

// notProvablyDifferent is the NOT IN comparison being true or unknown.
func notProvablyDifferent(keys []int) func(l, r []any) bool {
	return func(l, r []any) bool {
		for _, k := range keys {
			if l[k] != nil && r[k] != nil && l[k] != r[k] {
				return false
			}
		}
		return true
	}
}

func col(i int, t types.T) *ColRef { return &ColRef{Idx: i, T: t} }

func TestHashJoinAllTypes(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	sizes := []struct{ nl, nr int }{{0, 0}, {5, 0}, {0, 5}, {7, 9}, {2100, 300}, {300, 2100}, {5000, 40}}
	keySets := [][]int{{0}, {1}, {0, 1}}
	for si, sz := range sizes {
		L := randRows(rng, sz.nl, 50, 0.1)
		R := randRows(rng, sz.nr, 50, 0.1)
		if si%2 == 1 {
			// spread the integer keys so the join cannot index them directly
			for _, rows := range [][][]any{L, R} {
				for _, r := range rows {
					if r[0] != nil {
						r[0] = r[0].(int64) * 1000000007 * 1000003
					}
				}
			}
		}
		for _, keys := range keySets {
			for _, typ := range allJoinTypes {
				for _, withExtra := range []bool{false, true} {
					name := fmt.Sprintf("%dx%d/keys%v/%s/extra=%v", sz.nl, sz.nr, keys, typ, withExtra)
					var lk, rk []Expr
					for _, k := range keys {
						lk = append(lk, col(k, kst[k]))
						rk = append(rk, col(k, kst[k]))
					}
					var extra Expr
					match := keyMatch(keys)
					rejects := notProvablyDifferent(keys)
					if withExtra {
						// l.payload % 3 <> r.payload % 3, evaluated over left ++ right
						extra = &Cmp{Op: NE,
							L: &Arith{Op: '%', L: col(2, types.Int64T), R: NewConst(ints(types.Int64T, 3)), T: types.Int64T},
							R: &Arith{Op: '%', L: col(5, types.Int64T), R: NewConst(ints(types.Int64T, 3)), T: types.Int64T}}
						m, rj := match, rejects
						ok := func(l, r []any) bool { return l[2].(int64)%3 != r[2].(int64)%3 }
						match = func(l, r []any) bool { return m(l, r) && ok(l, r) }
						rejects = func(l, r []any) bool { return rj(l, r) && ok(l, r) }
					}
					j := &HashJoin{Env: env, Left: newRowsOp(kst, L, 1000), Right: newRowsOp(kst, R, 777),
						LeftKeys: lk, RightKeys: rk, Type: typ, Extra: extra}
					got := collect(t, j)
					want := refJoin(L, R, typ, match, rejects)
					sameRows(t, name, got, want)
					if err := j.Close(); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
}

// TestHashJoinScatteredSmallBuild: a few hundred build keys scattered
// over a span of thousands (an item dimension filtered to one manager) are
// indexed directly, and every join type answers as over a hash table.
func TestHashJoinScatteredSmallBuild(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	L := randRows(rng, 5000, 200, 0.05)
	R := randRows(rng, 180, 200, 0.05)
	for _, rows := range [][][]any{L, R} {
		for _, r := range rows {
			if r[0] != nil {
				r[0] = r[0].(int64) * 97 // keys 0..19303, 180 of them on the build side
			}
		}
	}
	for _, typ := range allJoinTypes {
		j := &HashJoin{Env: env, Left: newRowsOp(kst, L, 1000), Right: newRowsOp(kst, R, 64),
			LeftKeys: []Expr{col(0, kst[0])}, RightKeys: []Expr{col(0, kst[0])}, Type: typ}
		got := collect(t, j)
		if j.joinBuild == nil || j.direct == nil {
			t.Errorf("%s: build side not indexed directly", typ)
		}
		sameRows(t, typ.String(), got, refJoin(L, R, typ, keyMatch([]int{0}), notProvablyDifferent([]int{0})))
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSharedRightSemi: several probes share one build side; the build rows
// a right semi (anti) join keeps are emitted once, by the last probe, from
// the matches of all of them; so are the unmatched build rows of a right or
// full join, whose pairs every probe emits (TPC-DS q97's full join probed
// by the workers that take an aggregation's groups).
func TestSharedRightSemi(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	L := randRows(rng, 3000, 80, 0.1)
	R := randRows(rng, 200, 80, 0.1)
	for _, typ := range []JoinType{JoinRightSemi, JoinRightAnti, JoinRight, JoinFull} {
		sb := &SharedBuild{Env: env, Right: newRowsOp(kst, R, 64), RightKeys: []Expr{col(0, kst[0])}, KeyTypes: []types.T{kst[0]}, Probes: 3}
		var got []string
		for w := 0; w < 3; w++ {
			part := L[w*1000 : (w+1)*1000]
			j := &HashJoin{Env: env, Left: newRowsOp(kst, part, 100), LeftKeys: []Expr{col(0, kst[0])}, Type: typ, Shared: sb}
			rows := collect(t, j)
			if typ.rightOnly() && w < 2 && len(rows) != 0 {
				t.Errorf("%s: probe %d of 3 emitted %d rows; only the last may", typ, w, len(rows))
			}
			got = append(got, rows...)
			j.Close()
		}
		sameRows(t, typ.String(), got, refJoin(L, R, typ, keyMatch([]int{0}), nil))
	}
}

func TestNotInNullSemantics(t *testing.T) {
	ts := []types.T{types.Int64T}
	one := func(xs ...any) [][]any {
		var rows [][]any
		for _, x := range xs {
			rows = append(rows, []any{x})
		}
		return rows
	}
	cases := []struct {
		l, r [][]any
		want []string
	}{
		{one(1, 2, nil), one(), []string{"1", "2", "NULL"}}, // empty subquery: everything qualifies
		{one(1, 2, nil), one(2), []string{"1"}},             // NULL probe key never qualifies against a non-empty side
		{one(1, 2, nil), one(2, nil), nil},                  // a NULL in the subquery: nothing qualifies
		{one(1, 2, 3), one(nil), nil},                       //
		{one(int64(5)), one(1, 2, 3, 4), []string{"5"}},     //
		{one(), one(nil), nil},                              //
		{one(1, 1, 2), one(3), []string{"1", "1", "2"}},     // duplicates kept
	}
	for i, c := range cases {
		j := &HashJoin{Env: env, Left: newRowsOp(ts, c.l, 2), Right: newRowsOp(ts, c.r, 2),
			LeftKeys: []Expr{col(0, types.Int64T)}, RightKeys: []Expr{col(0, types.Int64T)}, Type: JoinAntiNullAware}
		sameRows(t, fmt.Sprintf("hash case %d", i), collect(t, j), c.want)
		nl := &NestedLoopJoin{Env: env, Left: newRowsOp(ts, c.l, 2), Right: newRowsOp(ts, c.r, 2),
			On: &Cmp{Op: EQ, L: col(0, types.Int64T), R: col(1, types.Int64T)}, Type: JoinAntiNullAware}
		sameRows(t, fmt.Sprintf("nested loop case %d", i), collect(t, nl), c.want)
	}
}

func TestNestedLoopJoinAllTypes(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, sz := range []struct{ nl, nr int }{{0, 3}, {3, 0}, {40, 70}, {300, 90}} {
		L := randRows(rng, sz.nl, 20, 0.15)
		R := randRows(rng, sz.nr, 20, 0.15)
		for _, typ := range allJoinTypes {
			// l.k < r.k: a non-equi condition that is NULL when a key is NULL
			on := &Cmp{Op: LT, L: col(0, types.Int64T), R: col(3, types.Int64T)}
			lt := func(l, r []any) tri {
				if l[0] == nil || r[0] == nil {
					return -1
				}
				if l[0].(int64) < r[0].(int64) {
					return 1
				}
				return 0
			}
			match := func(l, r []any) bool { return lt(l, r) == 1 }
			rejects := func(l, r []any) bool { return lt(l, r) != 0 }
			j := &NestedLoopJoin{Env: env, Left: newRowsOp(kst, L, 64), Right: newRowsOp(kst, R, 50), On: on, Type: typ}
			sameRows(t, fmt.Sprintf("%dx%d/%s", sz.nl, sz.nr, typ), collect(t, j), refJoin(L, R, typ, match, rejects))
		}
		// cross join, and the LeftOuter spelling
		j := &NestedLoopJoin{Env: env, Left: newRowsOp(kst, L, 64), Right: newRowsOp(kst, R, 50)}
		if got := collect(t, j); len(got) != sz.nl*sz.nr {
			t.Errorf("cross join: %d rows, want %d", len(got), sz.nl*sz.nr)
		}
		j = &NestedLoopJoin{Env: env, Left: newRowsOp(kst, L, 64), Right: newRowsOp(kst, R, 50), LeftOuter: true,
			On: &Cmp{Op: EQ, L: col(0, types.Int64T), R: col(3, types.Int64T)}}
		sameRows(t, "LeftOuter", collect(t, j), refJoin(L, R, JoinLeft, keyMatch([]int{0}), nil))
	}
}

func TestHashJoinFloatAndNumericKeys(t *testing.T) {
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	ft := []types.T{types.Float64T}
	L := [][]any{{0.0}, {negZero}, {nan}, {1.5}, {nil}}
	R := [][]any{{negZero}, {nan}, {2.5}, {nil}}
	j := &HashJoin{Env: env, Left: newRowsOp(ft, L, 2), Right: newRowsOp(ft, R, 3),
		LeftKeys: []Expr{col(0, types.Float64T)}, RightKeys: []Expr{col(0, types.Float64T)}, Type: JoinInner}
	sameRows(t, "float keys: -0 = 0 and NaN = NaN", collect(t, j), []string{"0|-0", "-0|-0", "NaN|NaN"})

	nt := []types.T{types.NumericAnyT}
	j = &HashJoin{Env: env, Left: newRowsOp(nt, [][]any{{"1.50"}, {"2"}, {"-0.0"}}, 2), Right: newRowsOp(nt, [][]any{{"1.5"}, {"2.000"}, {"0"}}, 2),
		LeftKeys: []Expr{col(0, types.NumericAnyT)}, RightKeys: []Expr{col(0, types.NumericAnyT)}, Type: JoinInner}
	sameRows(t, "numeric keys compare by value", collect(t, j), []string{"1.50|1.5", "2|2.000", "-0.0|0"})
}

// TestHashJoinKeyCast joins int4 with int8 and numeric scales that differ.
func TestHashJoinKeyCast(t *testing.T) {
	L := [][]any{{int64(1)}, {int64(2)}}
	R := [][]any{{int64(100)}, {int64(250)}}
	j := &HashJoin{Env: env, Left: newRowsOp([]types.T{types.NumericT(10, 0)}, L, 2), Right: newRowsOp([]types.T{types.NumericT(10, 2)}, R, 2),
		LeftKeys: []Expr{col(0, types.NumericT(10, 0))}, RightKeys: []Expr{col(0, types.NumericT(10, 2))}, Type: JoinInner}
	sameRows(t, "numeric(10,0) = numeric(10,2)", collect(t, j), []string{"1|1.00"})
}

func TestJoinMemoryLimit(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	R := randRows(rng, 20000, 1000, 0)
	mem := memory.NewMemory(nil, 100<<10)
	j := &HashJoin{Env: env, Left: newRowsOp(kst, R[:10], 0), Right: newRowsOp(kst, R, 0),
		LeftKeys: []Expr{col(0, types.Int64T)}, RightKeys: []Expr{col(0, types.Int64T)}, Mem: mem}
	_, err := j.Next(context.Background())
	if code := pgerr.Code(err); code != memory.OutOfMemory {
		t.Fatalf("want 53200, got %v", err)
	}
	j.Close()
	if mem.Used() != 0 {
		t.Errorf("memory not returned: %d", mem.Used())
	}
}

func BenchmarkHashJoin(b *testing.B) {
	const buildN, probeN = 1 << 20, 1 << 21
	ts := []types.T{types.Int64T}
	// dense: keys 0..n-1 in order on both sides, like TPC-H's; sparse:
	// random 62-bit keys, probed in random order
	rng := rand.New(rand.NewSource(1))
	sparse := vecOfInts(buildN, func(int) int64 { return rng.Int63() })
	for _, kind := range []string{"dense", "sparse"} {
		build := vecOfInts(buildN, func(i int) int64 { return int64(i) })
		probe := vecOfInts(probeN, func(i int) int64 { return int64(i / 2) })
		if kind == "sparse" {
			build = sparse
			probe = vecOfInts(probeN, func(int) int64 { return sparse.I64[rng.Intn(buildN)] })
		}
		b.Run(kind+"/build", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				j := &HashJoin{Env: env, Left: &vecSource{ts: ts, v: probe, n: 0}, Right: &vecSource{ts: ts, v: build, n: buildN},
					LeftKeys: []Expr{col(0, types.Int64T)}, RightKeys: []Expr{col(0, types.Int64T)}}
				if _, err := j.Next(context.Background()); err != nil {
					b.Fatal(err)
				}
				j.Close()
			}
			b.ReportMetric(float64(buildN)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
		b.Run(kind+"/probe", func(b *testing.B) {
			b.ReportAllocs()
			j := &HashJoin{Env: env, Left: &vecSource{ts: ts, v: probe, n: probeN}, Right: &vecSource{ts: ts, v: build, n: buildN},
				LeftKeys: []Expr{col(0, types.Int64T)}, RightKeys: []Expr{col(0, types.Int64T)}, Type: JoinInner}
			if err := j.build(context.Background()); err != nil {
				b.Fatal(err)
			}
			j.started = true
			j.core.cand = j
			b.ResetTimer()
			for b.Loop() {
				j.Left.(*vecSource).pos = 0
				j.core.phase = 0
				for {
					out, err := j.Next(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					if out == nil {
						break
					}
				}
			}
			b.ReportMetric(float64(probeN)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}

// vecSource streams the first n rows of one vector in batches, without
// copying.
type vecSource struct {
	ts  []types.T
	v   *vec.Vector
	n   int
	pos int
	b   vec.Batch
}

func (s *vecSource) Types() []types.T { return s.ts }
func (s *vecSource) Close() error     { return nil }
func (s *vecSource) Next(context.Context) (*vec.Batch, error) {
	if s.pos >= s.n {
		return nil, nil
	}
	end := min(s.pos+vec.BatchSize, s.n)
	if s.b.Vecs == nil {
		s.b.Vecs = []*vec.Vector{{Type: s.v.Type}}
	}
	s.b.Vecs[0].I64 = s.v.I64[s.pos:end]
	s.b.N = end - s.pos
	s.pos = end
	return &s.b, nil
}

// TestKeyFilterOfSharedBuild: a key filter (InJoinBuild) naming a join
// that workers run as copies probing a shared build side (BuiltBy) keeps
// the rows whose key that build has, once a copy built it; before, every
// row.
func TestKeyFilterOfSharedBuild(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	L := randRows(rng, 2000, 300, 0.1)
	R := randRows(rng, 100, 300, 0.1)
	sb := &SharedBuild{Env: env, Right: newRowsOp(kst, R, 64), RightKeys: []Expr{col(0, kst[0])}, KeyTypes: []types.T{kst[0]}, Probes: 2}
	tmpl := &HashJoin{Env: env, LeftKeys: []Expr{col(0, kst[0])}, Type: JoinRight, BuiltBy: sb}
	filtered := func() []string {
		return collect(t, &Filter{Env: env, Input: newRowsOp(kst, L, 100), Pred: &InJoinBuild{Join: tmpl, Keys: []Expr{col(0, kst[0])}}})
	}
	var all []string
	for _, r := range L {
		all = append(all, fmtRow(r...))
	}
	sameRows(t, "before the build", filtered(), all)

	in := map[any]bool{}
	for _, r := range R {
		if r[0] != nil {
			in[r[0]] = true
		}
	}
	var want []string
	for _, r := range L {
		if r[0] != nil && in[r[0]] {
			want = append(want, fmtRow(r...))
		}
	}
	for w := 0; w < 2; w++ {
		j := &HashJoin{Env: env, Left: newRowsOp(kst, L[w*1000:(w+1)*1000], 100), LeftKeys: []Expr{col(0, kst[0])}, Type: JoinRight, Shared: sb}
		collect(t, j)
		sameRows(t, "after a copy built", filtered(), want)
		j.Close()
	}
}
