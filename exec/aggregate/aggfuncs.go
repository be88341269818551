package aggregate

import (
	"cmp"
	"math"
	"math/big"
	"math/bits"
	"strings"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/fn"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Aggregate states are column-major: one typed slice per state field,
// indexed by dense group id, so an update is one loop over the batch that
// scatters into those slices (PERFORMANCE.md rules 7 and 10). The same
// states serve HashAgg (many groups), the merge of per-worker partial
// aggregates, and window frames (one group, reset or inverted as the frame
// moves).

// aggIn is one batch's worth of input for an aggregate.
type aggIn struct {
	v, v2 *vec.Vector   // argument columns (nil when the aggregate has none)
	rows  []int32       // the rows to fold (FILTER may drop some)
	all   bool          // rows is 0..n-1: kernels may use the unindexed loop
	gids  []int32       // group of each row, indexed by row
	keys  []*vec.Vector // ORDER BY columns of an order-sensitive aggregate
	// perm, when not nil, is rows (all of the batch) in group order, group
	// g's at perm[starts[g]:starts[g+1]] (aggRun.byGroup); kernels may
	// ignore it
	perm, starts []int32
}

// aggFn is the state of one aggregate over all groups.
type aggFn interface {
	// grow makes room for groups [0, n); new groups are empty.
	grow(n int)
	update(in *aggIn) error
	// merge folds groups of src (the same kind of state) into groups of
	// s: src group from[i] into group to[i], or, when from is nil, every
	// src group k into to[k]. Groups whose to is negative are left out.
	merge(src aggFn, from, to []int32) error
	// final appends the results of groups [lo, hi) to out.
	final(out *vec.Vector, lo, hi int) error
	// reset empties group g (window frames that restart).
	reset(g int)
	// bytes is the memory the state holds, for accounting.
	bytes() int64
}

// invertible states can also remove rows (window frames whose start moves)
// with an exact result.
type invertible interface {
	remove(in *aggIn) error
}

// mergeLen is how many src groups a merge visits: from's, or all n.
func mergeLen(from []int32, n int) int {
	if from == nil {
		return n
	}
	return len(from)
}

// mergeAt is the i-th src group of a merge and the group it goes to.
func mergeAt(from, to []int32, i int) (int, int32) {
	if from == nil {
		return i, to[i]
	}
	return int(from[i]), to[i]
}

// growTo extends s to n zero elements. State slices never shrink, so the
// capacity beyond len has never been written and is still zero.
func growTo[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		return s[:n]
	}
	// one allocation and one copy (append of a made slice did two of each)
	grown := make([]T, n, max(2*cap(s), n+n/2))
	copy(grown, s)
	return grown
}

func errFloatOverflow() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
}

// newAggFn builds the state for a, whose result type is out.
func newAggFn(a Agg, out types.T) (aggFn, error) {
	if a.Distinct || a.Kind.orderedSet() || a.orderSensitive() {
		c := &collectAgg{a: a, out: out}
		if a.Distinct || a.orderSensitive() {
			inner := a
			inner.Distinct, inner.Order = false, nil
			fn, err := newAggFn(inner, out)
			if err != nil {
				return nil, err
			}
			c.inner = fn
		}
		return c, nil
	}
	in := a.In
	switch a.Kind {
	case AggCountStar:
		return &countAgg{star: true}, nil
	case AggCount:
		return &countAgg{}, nil
	case AggSum, AggAvg:
		switch {
		case in.DynNumeric():
			return &sumBigAgg{avg: a.Kind == AggAvg, out: out}, nil
		case in.Storage() == types.StoreInt && (in.IsInteger() || in.ID == types.Numeric):
			scale := 0
			if in.ID == types.Numeric {
				scale = in.Scale
			}
			return &sumIntAgg{avg: a.Kind == AggAvg, scale: scale, out: out}, nil
		case in.IsFloat():
			if a.Kind == AggAvg {
				return &floatVarAgg{kind: AggAvg}, nil
			}
			return &sumFloatAgg{f32: in.ID == types.Float32}, nil
		case in.ID == types.Interval:
			return &sumIntervalAgg{avg: a.Kind == AggAvg}, nil
		}
	case AggMin, AggMax:
		m := minmax{max: a.Kind == AggMax}
		switch in.Storage() {
		case types.StoreInt:
			return &minmaxInt{minmax: m}, nil
		case types.StoreFloat:
			return &minmaxFloat{minmax: m}, nil
		case types.StoreBool:
			return &minmaxBool{minmax: m}, nil
		case types.StoreInterval:
			return &minmaxInterval{minmax: m}, nil
		default:
			return &minmaxStr{minmax: m, dyn: in.DynNumeric()}, nil
		}
	case AggStddevSamp, AggStddevPop, AggVarSamp, AggVarPop:
		switch {
		case in.IsFloat():
			return &floatVarAgg{kind: a.Kind}, nil
		case in.DynNumeric():
			return &numVarAgg{kind: a.Kind, dyn: true}, nil
		case in.IsInteger() || in.ID == types.Numeric:
			scale := 0
			if in.ID == types.Numeric {
				scale = in.Scale
			}
			return &numVarAgg{kind: a.Kind, scale: scale}, nil
		}
	case AggBoolAnd, AggBoolOr:
		if in.ID == types.Bool {
			// false < true: bool_and is min and bool_or is max
			return &minmaxBool{minmax: minmax{max: a.Kind == AggBoolOr}}, nil
		}
	case AggStringAgg:
		if in.Storage() == types.StoreBytes {
			return &stringAgg{}, nil
		}
	}
	return nil, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", a.Kind.Name(), in)
}

// count(*) and count(x)

type countAgg struct {
	star bool
	cnt  []int64
}

func (s *countAgg) grow(n int)   { s.cnt = growTo(s.cnt, n) }
func (s *countAgg) reset(g int)  { s.cnt[g] = 0 }
func (s *countAgg) bytes() int64 { return 8 * int64(len(s.cnt)) }

func (s *countAgg) update(in *aggIn) error { s.add(in, 1); return nil }
func (s *countAgg) remove(in *aggIn) error { s.add(in, -1); return nil }

func (s *countAgg) add(in *aggIn, d int64) {
	cnt, gids := s.cnt, in.gids
	var nulls []bool
	if !s.star {
		nulls = in.v.Nulls
	}
	switch {
	case nulls == nil && in.all && in.perm != nil:
		for g := range len(in.starts) - 1 {
			cnt[g] += d * int64(in.starts[g+1]-in.starts[g])
		}
	case nulls == nil && in.all:
		for _, g := range gids[:len(in.rows)] {
			cnt[g] += d
		}
	case nulls == nil:
		for _, i := range in.rows {
			cnt[gids[i]] += d
		}
	default:
		for _, i := range in.rows {
			if !nulls[i] {
				cnt[gids[i]] += d
			}
		}
	}
}

func (s *countAgg) merge(src aggFn, from, to []int32) error {
	o := src.(*countAgg)
	for i, end := 0, mergeLen(from, len(o.cnt)); i < end; i++ {
		if k, g := mergeAt(from, to, i); g >= 0 {
			s.cnt[g] += o.cnt[k]
		}
	}
	return nil
}

func (s *countAgg) final(out *vec.Vector, lo, hi int) error {
	for _, c := range s.cnt[lo:hi] {
		out.AppendInt(c)
	}
	return nil
}

// sum and avg of integers and scaled numerics: int64 partial sums that spill
// into an int128 on overflow, so results are exact (sum(bigint) is numeric
// in PostgreSQL and never overflows).

type sumIntAgg struct {
	avg    bool
	scale  int // numeric input scale (0 for integers)
	out    types.T
	sum    []int64
	cnt    []int64     // non-NULL inputs
	wide   []exec.I128 // overflowed part of the sum; nil until the first overflow
	txt    []byte      // finalText scratch
	ends   []int32
	chunks vec.TextChunks // the averages' text
}

func (s *sumIntAgg) grow(n int) {
	s.sum = growTo(s.sum, n)
	s.cnt = growTo(s.cnt, n)
	if s.wide != nil {
		s.wide = growTo(s.wide, n)
	}
}

func (s *sumIntAgg) reset(g int) {
	s.sum[g], s.cnt[g] = 0, 0
	if s.wide != nil {
		s.wide[g] = exec.I128{}
	}
}

func (s *sumIntAgg) bytes() int64 { return 16*int64(len(s.sum)) + 16*int64(len(s.wide)) }

// spill moves group g's int64 partial into the int128 part.
func (s *sumIntAgg) spill(g int32) error {
	if s.wide == nil {
		s.wide = make([]exec.I128, len(s.sum))
	}
	w, ov := s.wide[g].Add(exec.I128of(s.sum[g]))
	if ov {
		return pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
	}
	s.wide[g], s.sum[g] = w, 0
	return nil
}

func (s *sumIntAgg) update(in *aggIn) error {
	v := in.v
	xs, sum, cnt, gids := v.I64, s.sum, s.cnt, in.gids
	if v.Nulls == nil && in.all && in.perm != nil {
		// a group's sum in a register: no store-to-load wait per row
		for g := range len(in.starts) - 1 {
			rows := in.perm[in.starts[g]:in.starts[g+1]]
			if len(rows) == 0 {
				continue
			}
			a := sum[g]
			for _, i := range rows {
				x := xs[i]
				r := a + x
				if (r^a)&(r^x) < 0 {
					sum[g] = a
					if err := s.spill(int32(g)); err != nil {
						return err
					}
					r = x
				}
				a = r
			}
			sum[g] = a
			cnt[g] += int64(len(rows))
		}
		return nil
	}
	if v.Nulls == nil && in.all {
		n := len(in.rows)
		for i, x := range xs[:n] {
			g := gids[i]
			a := sum[g]
			r := a + x
			if (r^a)&(r^x) < 0 {
				if err := s.spill(g); err != nil {
					return err
				}
				r = x
			}
			sum[g] = r
			cnt[g]++
		}
		return nil
	}
	nulls := v.Nulls
	for _, i := range in.rows {
		if nulls != nil && nulls[i] {
			continue
		}
		g, x := gids[i], xs[i]
		a := sum[g]
		r := a + x
		if (r^a)&(r^x) < 0 {
			if err := s.spill(g); err != nil {
				return err
			}
			r = x
		}
		sum[g] = r
		cnt[g]++
	}
	return nil
}

func (s *sumIntAgg) remove(in *aggIn) error {
	v := in.v
	for _, i := range in.rows {
		if v.IsNull(int(i)) {
			continue
		}
		g := in.gids[i]
		if s.wide == nil {
			s.wide = make([]exec.I128, len(s.sum))
		}
		w, ov := s.wide[g].Add(exec.I128of(v.I64[i]).Neg())
		if ov {
			return pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
		}
		s.wide[g] = w
		s.cnt[g]--
	}
	return nil
}

func (s *sumIntAgg) total(g int) exec.I128 {
	t := exec.I128of(s.sum[g])
	if s.wide != nil {
		t, _ = t.Add(s.wide[g])
	}
	return t
}

func (s *sumIntAgg) merge(src aggFn, from, to []int32) error {
	o := src.(*sumIntAgg)
	for i, end := 0, mergeLen(from, len(o.sum)); i < end; i++ {
		k, g := mergeAt(from, to, i)
		if g < 0 {
			continue
		}
		s.cnt[g] += o.cnt[k]
		t, ov := s.total(int(g)).Add(o.total(k))
		if ov {
			return pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
		}
		if t.IsInt64() {
			s.sum[g] = int64(t.Lo)
			if s.wide != nil {
				s.wide[g] = exec.I128{}
			}
			continue
		}
		if s.wide == nil {
			s.wide = make([]exec.I128, len(s.sum))
		}
		s.sum[g], s.wide[g] = 0, t
	}
	return nil
}

func (s *sumIntAgg) final(out *vec.Vector, lo, hi int) error { return s.finalAs(out, lo, hi, s.avg) }

// finalAs appends the sums, or the averages when avg, of groups [lo, hi).
func (s *sumIntAgg) finalAs(out *vec.Vector, lo, hi int, avg bool) error {
	if !avg && out.Type.Storage() == types.StoreBytes {
		return s.finalText(out, lo, hi)
	}
	for g := lo; g < hi; g++ {
		if s.cnt[g] == 0 {
			out.AppendNull()
			continue
		}
		t := s.total(g)
		if avg {
			if t.IsInt64() && out.Type.Storage() == types.StoreBytes {
				if neg, hi, lo, qs, ok := exec.Divide128(int64(t.Lo), s.scale, s.cnt[g]); ok {
					s.txt = exec.AppendScaled128(s.txt[:0], neg, hi, lo, qs)
					out.AppendString(s.chunks.String(s.txt))
					continue
				}
			}
			q, qs, err := exec.DecimalArith('/', t.Big(), s.scale, big.NewInt(s.cnt[g]), 0)
			if err != nil {
				return err
			}
			appendDecimalOut(out, q, qs)
			continue
		}
		if out.Type.Storage() == types.StoreBytes {
			if t.IsInt64() {
				out.AppendString(types.FormatBig(big.NewInt(int64(t.Lo)), s.scale))
			} else {
				out.AppendString(types.FormatBig(t.Big(), s.scale))
			}
			continue
		}
		if !t.IsInt64() {
			if out.Type.ID == types.Numeric {
				return pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
			}
			return exec.Overflow(out.Type)
		}
		out.AppendInt(int64(t.Lo))
	}
	return nil
}

// finalText formats the sums of groups [lo, hi) into one buffer that
// becomes one string, which the values then slice: one allocation per
// output batch instead of one per group.
func (s *sumIntAgg) finalText(out *vec.Vector, lo, hi int) error {
	buf := s.txt[:0]
	ends := s.ends[:0]
	for g := lo; g < hi; g++ {
		if s.cnt[g] != 0 {
			if t := s.total(g); t.IsInt64() {
				buf = exec.AppendScaled(buf, int64(t.Lo), s.scale)
			} else {
				buf = append(buf, types.FormatBig(t.Big(), s.scale)...)
			}
		}
		ends = append(ends, int32(len(buf)))
	}
	s.txt, s.ends = buf, ends
	all := string(buf)
	start := int32(0)
	for k, g := 0, lo; g < hi; k, g = k+1, g+1 {
		if s.cnt[g] == 0 {
			out.AppendNull()
		} else {
			out.AppendString(all[start:ends[k]])
		}
		start = ends[k]
	}
	return nil
}

// appendDecimalOut appends an exact decimal to a numeric output vector of
// either representation.
func appendDecimalOut(out *vec.Vector, d *big.Int, scale int) {
	if out.Type.Storage() == types.StoreBytes {
		out.AppendString(types.FormatBig(d, scale))
		return
	}
	r := types.RescaleBig(d, scale, max(out.Type.Scale, 0))
	out.AppendInt(r.Int64())
}

// avgOfSum is avg(x) beside sum(x) of the same rows in one aggregation:
// the sum's state (its sums and counts) already holds the average, so the
// average folds nothing itself (TPC-H Q1 has avg(l_quantity) and
// sum(l_quantity), avg(l_extendedprice) and sum(l_extendedprice)).
type avgOfSum struct{ sum *sumIntAgg }

func (a avgOfSum) grow(int)                            {}
func (a avgOfSum) update(*aggIn) error                 { return nil }
func (a avgOfSum) merge(aggFn, []int32, []int32) error { return nil }
func (a avgOfSum) reset(int)                           {}
func (a avgOfSum) bytes() int64                        { return 0 }
func (a avgOfSum) final(out *vec.Vector, lo, hi int) error {
	return a.sum.finalAs(out, lo, hi, true)
}

// shareSums makes each avg of fns that has a sum over the same rows in fns
// read that sum's state (avgOfSum). Only a hash aggregation's states may
// share: a window frame's are reset and inverted one at a time.
func shareSums(aggs []Agg, fns []aggFn) {
	for j, fj := range fns {
		avg, ok := fj.(*sumIntAgg)
		if !ok || !avg.avg {
			continue
		}
		for i, fi := range fns {
			sum, ok := fi.(*sumIntAgg)
			if ok && !sum.avg && sum.scale == avg.scale && aggs[i].Arg == aggs[j].Arg && aggs[i].Filter == aggs[j].Filter {
				fns[j] = avgOfSum{sum}
				break
			}
		}
	}
}

// sum and avg of unconstrained numerics, exactly, with the largest input
// scale as PostgreSQL keeps it.

type sumBigAgg struct {
	avg   bool
	out   types.T
	sum   []*big.Int
	scale []int32
	cnt   []int64
	// special marks what was summed besides numbers: specialNaN,
	// specialInf, specialNegInf bits (numeric_avg_accum's counts)
	special []uint8
	// values of up to 18 digits at one scale (the common case: int times
	// numeric(7,2)) add into an int64 first, flushed into sum when a value
	// of another scale comes, it would overflow, or the sum is read
	small      []int64
	smallScale []int32
	hasSmall   []bool
}

func (s *sumBigAgg) grow(n int) {
	// a nil sum is zero: most groups never need a big.Int (see small)
	s.sum = growTo(s.sum, n)
	s.scale = growTo(s.scale, n)
	s.cnt = growTo(s.cnt, n)
	s.special = growTo(s.special, n)
	s.small = growTo(s.small, n)
	s.smallScale = growTo(s.smallScale, n)
	s.hasSmall = growTo(s.hasSmall, n)
}

func (s *sumBigAgg) reset(g int) {
	s.sum[g] = nil
	s.scale[g] = 0
	s.cnt[g] = 0
	s.special[g] = 0
	s.small[g], s.smallScale[g], s.hasSmall[g] = 0, 0, false
}

// flush moves group g's int64 partial sum into its exact sum.
func (s *sumBigAgg) flush(g int32) {
	if s.hasSmall[g] {
		s.add(g, big.NewInt(s.small[g]), int(s.smallScale[g]))
		s.small[g], s.hasSmall[g] = 0, false
	}
}

// addSmall adds m at scale sc, in the int64 partial sum when it can.
func (s *sumBigAgg) addSmall(g int32, m int64, sc int) {
	if s.hasSmall[g] && int(s.smallScale[g]) == sc {
		if z := s.small[g] + m; (z > s.small[g]) == (m > 0) || m == 0 {
			s.small[g] = z
			return
		}
	}
	s.flush(g)
	s.small[g], s.smallScale[g], s.hasSmall[g] = m, int32(sc), true
}
func (s *sumBigAgg) bytes() int64 { return 64 * int64(len(s.sum)) }

func (s *sumBigAgg) add(g int32, d *big.Int, sc int) {
	if s.sum[g] == nil {
		s.sum[g] = new(big.Int)
	}
	cur, cs := s.sum[g], int(s.scale[g])
	switch {
	case sc > cs:
		cur.Mul(cur, bigPow10(sc-cs))
		s.scale[g] = int32(sc)
	case sc < cs:
		d = new(big.Int).Mul(d, bigPow10(cs-sc))
	}
	cur.Add(cur, d)
}

func (s *sumBigAgg) update(in *aggIn) error {
	v := in.v
	for _, i := range in.rows {
		if v.IsNull(int(i)) {
			continue
		}
		g := in.gids[i]
		if k := types.NumericSpecial(v.S[i]); k != 0 {
			s.special[g] |= specialBit(k)
			s.cnt[g]++
			continue
		}
		if m, sc, ok := types.ParseDecimalSmall(v.S[i]); ok {
			s.addSmall(g, m, sc)
			s.cnt[g]++
			continue
		}
		d, sc, err := types.ParseDecimal(v.S[i])
		if err != nil {
			return err
		}
		s.add(g, d, sc)
		s.cnt[g]++
	}
	return nil
}

func (s *sumBigAgg) merge(src aggFn, from, to []int32) error {
	o := src.(*sumBigAgg)
	for i, end := 0, mergeLen(from, len(o.sum)); i < end; i++ {
		k, g := mergeAt(from, to, i)
		if o.cnt[k] == 0 || g < 0 {
			continue
		}
		switch {
		case o.sum[k] != nil:
			o.flush(int32(k))
			s.add(g, o.sum[k], int(o.scale[k]))
		case o.hasSmall[k]:
			// a group that only ever summed int64 partials merges as one
			// more partial: no big.Int made (a rolled-up set merges every
			// group of its source)
			s.addSmall(g, o.small[k], int(o.smallScale[k]))
		}
		s.cnt[g] += o.cnt[k]
		s.special[g] |= o.special[k]
	}
	return nil
}

func (s *sumBigAgg) final(out *vec.Vector, lo, hi int) error {
	for g := lo; g < hi; g++ {
		if s.cnt[g] == 0 {
			out.AppendNull()
			continue
		}
		if !s.avg && s.sum[g] == nil && s.hasSmall[g] && s.special[g] == 0 && out.Type.Storage() == types.StoreBytes {
			out.AppendString(types.FormatScaled(s.small[g], int(s.smallScale[g])))
			continue
		}
		s.flush(int32(g))
		if s.sum[g] == nil {
			s.sum[g] = new(big.Int) // only special values were summed
		}
		if k := specialSum(s.special[g]); k != 0 && out.Type.Storage() == types.StoreBytes {
			out.AppendString(types.NumericSpecialText(k)) // the average of infinities too
			continue
		}
		if s.avg {
			q, qs, err := exec.DecimalArith('/', s.sum[g], int(s.scale[g]), big.NewInt(s.cnt[g]), 0)
			if err != nil {
				return err
			}
			appendDecimalOut(out, q, qs)
			continue
		}
		appendDecimalOut(out, s.sum[g], int(s.scale[g]))
	}
	return nil
}

// specialBit is the bit of special value kind k (types.NumericSpecial).
func specialBit(k int) uint8 {
	switch k {
	case 1:
		return 2
	case -1:
		return 4
	}
	return 1
}

// specialSum is the kind of a sum of numbers and the special values in
// bits: NaN with a NaN or both infinities, else the infinity, else 0.
func specialSum(bits uint8) int {
	switch {
	case bits == 0:
		return 0
	case bits&1 != 0 || bits&6 == 6:
		return 2
	case bits&2 != 0:
		return 1
	}
	return -1
}

// bigPow10 returns 10^n; callers must not modify it.
func bigPow10(n int) *big.Int { return types.BigPow10(n) }

// sum of floats, in input order as PostgreSQL's float8pl/float4pl add (real
// sums round to real after every addition).

type sumFloatAgg struct {
	f32 bool
	sum []float64
	has []bool
}

func (s *sumFloatAgg) grow(n int)   { s.sum = growTo(s.sum, n); s.has = growTo(s.has, n) }
func (s *sumFloatAgg) reset(g int)  { s.sum[g], s.has[g] = 0, false }
func (s *sumFloatAgg) bytes() int64 { return 9 * int64(len(s.sum)) }

func (s *sumFloatAgg) update(in *aggIn) error {
	v := in.v
	xs, sum, has, gids := v.F64, s.sum, s.has, in.gids
	if v.Nulls == nil && in.all && !s.f32 {
		n := len(in.rows)
		for i, x := range xs[:n] {
			g := gids[i]
			a := sum[g]
			r := a + x
			if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(x, 0) {
				return errFloatOverflow()
			}
			sum[g] = r
			has[g] = true
		}
		return nil
	}
	nulls := v.Nulls
	for _, i := range in.rows {
		if nulls != nil && nulls[i] {
			continue
		}
		g, x := gids[i], xs[i]
		a := sum[g]
		r := a + x
		if s.f32 {
			r = float64(float32(r))
		}
		if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(x, 0) {
			return errFloatOverflow()
		}
		sum[g] = r
		has[g] = true
	}
	return nil
}

func (s *sumFloatAgg) merge(src aggFn, from, to []int32) error {
	o := src.(*sumFloatAgg)
	for i, end := 0, mergeLen(from, len(o.sum)); i < end; i++ {
		k, g := mergeAt(from, to, i)
		x := o.sum[k]
		if !o.has[k] || g < 0 {
			continue
		}
		a := s.sum[g]
		r := a + x
		if s.f32 {
			r = float64(float32(r))
		}
		if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(x, 0) {
			return errFloatOverflow()
		}
		s.sum[g], s.has[g] = r, true
	}
	return nil
}

func (s *sumFloatAgg) final(out *vec.Vector, lo, hi int) error {
	for g := lo; g < hi; g++ {
		if !s.has[g] {
			out.AppendNull()
			continue
		}
		out.AppendFloat(s.sum[g])
	}
	return nil
}

// avg, variance and stddev of floats: PostgreSQL's float8_accum state (N,
// Sx, Sxx with the Youngs–Cramer update), so results match it bit for bit.

type floatVarAgg struct {
	kind       AggKind
	n, sx, sxx []float64
}

func (s *floatVarAgg) grow(n int) {
	s.n, s.sx, s.sxx = growTo(s.n, n), growTo(s.sx, n), growTo(s.sxx, n)
}
func (s *floatVarAgg) reset(g int)  { s.n[g], s.sx[g], s.sxx[g] = 0, 0, 0 }
func (s *floatVarAgg) bytes() int64 { return 24 * int64(len(s.n)) }

func (s *floatVarAgg) update(in *aggIn) error {
	v := in.v
	xs, gids, nulls := v.F64, in.gids, v.Nulls
	for _, i := range in.rows {
		if nulls != nil && nulls[i] {
			continue
		}
		g, x := gids[i], xs[i]
		n0, sx0, sxx := s.n[g], s.sx[g], s.sxx[g]
		n := n0 + 1
		sx := sx0 + x
		if n0 > 0 {
			tmp := x*n - sx
			sxx += tmp * tmp / (n * n0)
			if math.IsInf(sx, 0) || math.IsInf(sxx, 0) {
				if !math.IsInf(sx0, 0) && !math.IsInf(x, 0) {
					return errFloatOverflow()
				}
				sxx = math.NaN()
			}
		} else if math.IsNaN(x) || math.IsInf(x, 0) {
			sxx = math.NaN()
		}
		s.n[g], s.sx[g], s.sxx[g] = n, sx, sxx
	}
	return nil
}

// merge is float8_combine.
func (s *floatVarAgg) merge(src aggFn, from, to []int32) error {
	o := src.(*floatVarAgg)
	for i, end := 0, mergeLen(from, len(o.n)); i < end; i++ {
		k, g := mergeAt(from, to, i)
		n2 := o.n[k]
		if n2 == 0 || g < 0 {
			continue
		}
		n1 := s.n[g]
		if n1 == 0 {
			s.n[g], s.sx[g], s.sxx[g] = n2, o.sx[k], o.sxx[k]
			continue
		}
		sx1, sx2, sxx1, sxx2 := s.sx[g], o.sx[k], s.sxx[g], o.sxx[k]
		n := n1 + n2
		sx := sx1 + sx2
		if math.IsInf(sx, 0) && !math.IsInf(sx1, 0) && !math.IsInf(sx2, 0) {
			return errFloatOverflow()
		}
		tmp := sx1/n1 - sx2/n2
		sxx := sxx1 + sxx2 + n1*n2*tmp*tmp/n
		if math.IsInf(sxx, 0) && !math.IsInf(sxx1, 0) && !math.IsInf(sxx2, 0) {
			return errFloatOverflow()
		}
		s.n[g], s.sx[g], s.sxx[g] = n, sx, sxx
	}
	return nil
}

func (s *floatVarAgg) final(out *vec.Vector, lo, hi int) error {
	for g := lo; g < hi; g++ {
		n, sx, sxx := s.n[g], s.sx[g], s.sxx[g]
		var r float64
		switch s.kind {
		case AggAvg:
			if n == 0 {
				out.AppendNull()
				continue
			}
			r = sx / n
		case AggVarPop, AggStddevPop:
			if n == 0 {
				out.AppendNull()
				continue
			}
			r = sxx / n
		default:
			if n <= 1 {
				out.AppendNull()
				continue
			}
			r = sxx / (n - 1)
		}
		if s.kind == AggStddevPop || s.kind == AggStddevSamp {
			r = math.Sqrt(r)
		}
		out.AppendFloat(r)
	}
	return nil
}

// variance and stddev of integers and numerics, exactly as PostgreSQL's
// numeric_stddev_internal computes them: N, Σx and Σx² kept exact, then
// (NΣx² − (Σx)²) / (N(N−1)) at select_div_scale, and the square root at
// the same scale.

type numVarAgg struct {
	kind  AggKind
	scale int  // input scale (fixed-scale input)
	dyn   bool // unconstrained numeric: values carry their own scale
	n     []int64
	sx    []exec.I128
	sx2   []exec.I128
	big   []*bigVar // groups that outgrew int128, or all groups when dyn
	v     varScratch
	// special: the group had NaN or an infinity (dyn only), so its
	// variance is NaN, as numeric_stddev_internal gives
	special []bool
	txt     []byte
	chunks  vec.TextChunks // the results' text
}

type bigVar struct {
	sx, sx2 *big.Int
	scale   int // scale of sx; sx2 has twice it
}

func (s *numVarAgg) grow(n int) {
	s.n, s.sx, s.sx2 = growTo(s.n, n), growTo(s.sx, n), growTo(s.sx2, n)
	if s.big != nil || s.dyn {
		s.big = growTo(s.big, n)
	}
	if s.dyn {
		s.special = growTo(s.special, n)
	}
}

func (s *numVarAgg) reset(g int) {
	s.n[g], s.sx[g], s.sx2[g] = 0, exec.I128{}, exec.I128{}
	if s.big != nil {
		s.big[g] = nil
	}
	if s.special != nil {
		s.special[g] = false
	}
}

func (s *numVarAgg) bytes() int64 { return 40*int64(len(s.n)) + 8*int64(len(s.big)) }

func (s *numVarAgg) toBig(g int32) *bigVar {
	if s.big == nil {
		s.big = make([]*bigVar, len(s.n))
	}
	b := s.big[g]
	if b == nil {
		b = &bigVar{sx: s.sx[g].Big(), sx2: s.sx2[g].Big(), scale: s.scale}
		s.big[g] = b
		s.sx[g], s.sx2[g] = exec.I128{}, exec.I128{}
	}
	return b
}

// add folds x at scale sc into b.
func (b *bigVar) add(x *big.Int, sc int) {
	if sc > b.scale {
		b.sx.Mul(b.sx, bigPow10(sc-b.scale))
		b.sx2.Mul(b.sx2, bigPow10(2*(sc-b.scale)))
		b.scale = sc
	} else if sc < b.scale {
		x = new(big.Int).Mul(x, bigPow10(b.scale-sc))
	}
	b.sx.Add(b.sx, x)
	b.sx2.Add(b.sx2, new(big.Int).Mul(x, x))
}

func (s *numVarAgg) update(in *aggIn) error {
	v := in.v
	for _, i := range in.rows {
		if v.IsNull(int(i)) {
			continue
		}
		g := in.gids[i]
		s.n[g]++
		if s.dyn && types.NumericSpecial(v.S[i]) != 0 {
			s.special[g] = true
			continue
		}
		if s.dyn {
			d, sc, err := types.ParseDecimal(v.S[i])
			if err != nil {
				return err
			}
			b := s.big[g]
			if b == nil {
				b = &bigVar{sx: new(big.Int), sx2: new(big.Int), scale: sc}
				s.big[g] = b
			}
			b.add(d, sc)
			continue
		}
		x := v.I64[i]
		if s.big != nil && s.big[g] != nil {
			s.big[g].add(big.NewInt(x), s.scale)
			continue
		}
		sx, ov1 := s.sx[g].Add(exec.I128of(x))
		sx2, ov2 := s.sx2[g].Add(exec.Mul64(x, x))
		if ov1 || ov2 {
			s.toBig(g).add(big.NewInt(x), s.scale)
			continue
		}
		s.sx[g], s.sx2[g] = sx, sx2
	}
	return nil
}

func (s *numVarAgg) sums(g int) (*big.Int, *big.Int, int) {
	if s.big != nil && s.big[g] != nil {
		b := s.big[g]
		return b.sx, b.sx2, b.scale
	}
	return s.sx[g].Big(), s.sx2[g].Big(), s.scale
}

func (s *numVarAgg) merge(src aggFn, from, to []int32) error {
	o := src.(*numVarAgg)
	for i, end := 0, mergeLen(from, len(o.n)); i < end; i++ {
		k, g := mergeAt(from, to, i)
		if o.n[k] == 0 || g < 0 {
			continue
		}
		s.n[g] += o.n[k]
		if s.dyn && o.special[k] {
			s.special[g] = true
		}
		if !s.dyn && (o.big == nil || o.big[k] == nil) && (s.big == nil || s.big[g] == nil) {
			sx, ov1 := s.sx[g].Add(o.sx[k])
			sx2, ov2 := s.sx2[g].Add(o.sx2[k])
			if !ov1 && !ov2 {
				s.sx[g], s.sx2[g] = sx, sx2
				continue
			}
		}
		var b *bigVar
		if s.dyn {
			b = s.big[g]
			if b == nil {
				b = &bigVar{sx: new(big.Int), sx2: new(big.Int)}
				s.big[g] = b
			}
		} else {
			b = s.toBig(g)
		}
		osx, osx2, osc := o.sums(k)
		if osc > b.scale {
			b.sx.Mul(b.sx, bigPow10(osc-b.scale))
			b.sx2.Mul(b.sx2, bigPow10(2*(osc-b.scale)))
			b.scale = osc
		} else if osc < b.scale {
			osx = new(big.Int).Mul(osx, bigPow10(b.scale-osc))
			osx2 = new(big.Int).Mul(osx2, bigPow10(2*(b.scale-osc)))
		}
		b.sx.Add(b.sx, osx)
		b.sx2.Add(b.sx2, osx2)
	}
	return nil
}

func (s *numVarAgg) final(out *vec.Vector, lo, hi int) error {
	sample := s.kind == AggVarSamp || s.kind == AggStddevSamp
	stddev := s.kind == AggStddevSamp || s.kind == AggStddevPop
	for g := lo; g < hi; g++ {
		n := s.n[g]
		if n == 0 || (sample && n <= 1) {
			out.AppendNull()
			continue
		}
		if s.special != nil && s.special[g] {
			out.AppendString(types.NumericNaN)
			continue
		}
		if (s.big == nil || s.big[g] == nil) && !s.dyn && out.Type.Storage() == types.StoreBytes && s.sx[g].IsInt64() && s.sx2[g].IsInt64() {
			if qh, ql, qs, ok := exec.Variance128(n, int64(s.sx[g].Lo), int64(s.sx2[g].Lo), s.scale, sample, stddev); ok {
				s.txt = exec.AppendScaled128(s.txt[:0], false, qh, ql, qs)
				out.AppendString(s.chunks.String(s.txt))
				continue
			}
		}
		var sx, sx2 *big.Int
		sc := s.scale
		if s.big != nil && s.big[g] != nil {
			b := s.big[g]
			sx, sx2, sc = b.sx, b.sx2, b.scale
		} else {
			sx, sx2 = s.sx[g].SetBig(&s.v.sx, &s.v.t), s.sx2[g].SetBig(&s.v.sx2, &s.v.t)
		}
		d, ds := s.v.variance(n, sx, sx2, sc, sample, stddev)
		appendDecimalOut(out, d, ds)
	}
	return nil
}

// varScratch holds the big integers of variance, reused group after
// group: allocating them was most of its time (TPC-DS q39's stddev_samp
// over a million groups).
type varScratch struct{ sx, sx2, num, t, den, q big.Int }

var bigFive, bigTen = big.NewInt(5), big.NewInt(10)

// variance is numeric_stddev_internal's arithmetic; the result is valid
// until the next call.
func (v *varScratch) variance(n int64, sx, sx2 *big.Int, scale int, sample, stddev bool) (*big.Int, int) {
	num, t, den, q := &v.num, &v.t, &v.den, &v.q
	num.Mul(t.SetInt64(n), sx2)
	num.Sub(num, t.Mul(sx, sx)) // scale 2*scale
	if num.Sign() <= 0 {
		return q.SetInt64(0), 0 // roundoff cannot happen here, but PostgreSQL prints 0
	}
	m := n
	if sample {
		m = n - 1
	}
	den.Mul(den.SetInt64(n), t.SetInt64(m))
	// num/den at PostgreSQL's division scale, rounded half up (num > 0):
	// one more digit, then (q + 5) / 10
	qs := exec.DivScale(num, 2*scale, den, 0)
	if e := qs + 1 - 2*scale; e >= 0 {
		q.Quo(q.Mul(num, bigPow10(e)), den)
	} else {
		q.Quo(num, t.Mul(den, bigPow10(-e)))
	}
	q.Add(q, bigFive).Quo(q, bigTen)
	if !stddev {
		return q, qs
	}
	// the truncated root with one more digit decides the rounding
	t.Mul(q, bigPow10(qs+2))
	if w := t.Bits(); len(w) <= 2 && bits.UintSize == 64 {
		var hi, lo uint64
		if len(w) > 0 {
			lo = uint64(w[0])
		}
		if len(w) > 1 {
			hi = uint64(w[1])
		}
		q.SetUint64(exec.Isqrt128(hi, lo))
	} else {
		q.Sqrt(t)
	}
	return q.Add(q, bigFive).Quo(q, bigTen), qs
}

// min and max

type minmax struct {
	max bool
	has []bool
}

type minmaxInt struct {
	minmax
	val []int64
}

func (s *minmaxInt) grow(n int)   { s.val, s.has = growTo(s.val, n), growTo(s.has, n) }
func (s *minmaxInt) reset(g int)  { s.has[g] = false }
func (s *minmaxInt) bytes() int64 { return 9 * int64(len(s.val)) }

func (s *minmaxInt) update(in *aggIn) error {
	v := in.v
	xs, val, has, gids, nulls := v.I64, s.val, s.has, in.gids, v.Nulls
	if s.max {
		for _, i := range in.rows {
			if nulls != nil && nulls[i] {
				continue
			}
			g, x := gids[i], xs[i]
			if !has[g] || x > val[g] {
				val[g], has[g] = x, true
			}
		}
		return nil
	}
	for _, i := range in.rows {
		if nulls != nil && nulls[i] {
			continue
		}
		g, x := gids[i], xs[i]
		if !has[g] || x < val[g] {
			val[g], has[g] = x, true
		}
	}
	return nil
}

func (s *minmaxInt) merge(src aggFn, from, to []int32) error {
	o := src.(*minmaxInt)
	for i, end := 0, mergeLen(from, len(o.val)); i < end; i++ {
		k, g := mergeAt(from, to, i)
		x := o.val[k]
		if !o.has[k] || g < 0 {
			continue
		}
		if !s.has[g] || (s.max && x > s.val[g]) || (!s.max && x < s.val[g]) {
			s.val[g], s.has[g] = x, true
		}
	}
	return nil
}

func (s *minmaxInt) final(out *vec.Vector, lo, hi int) error {
	for g := lo; g < hi; g++ {
		if !s.has[g] {
			out.AppendNull()
		} else {
			out.AppendInt(s.val[g])
		}
	}
	return nil
}

type minmaxFloat struct {
	minmax
	val []float64
}

func (s *minmaxFloat) grow(n int)   { s.val, s.has = growTo(s.val, n), growTo(s.has, n) }
func (s *minmaxFloat) reset(g int)  { s.has[g] = false }
func (s *minmaxFloat) bytes() int64 { return 9 * int64(len(s.val)) }

func (s *minmaxFloat) better(x, cur float64) bool {
	c := exec.CompareFloat(x, cur)
	return (s.max && c > 0) || (!s.max && c < 0)
}

func (s *minmaxFloat) update(in *aggIn) error {
	v := in.v
	for _, i := range in.rows {
		if v.Nulls != nil && v.Nulls[i] {
			continue
		}
		g, x := in.gids[i], v.F64[i]
		if !s.has[g] || s.better(x, s.val[g]) {
			s.val[g], s.has[g] = x, true
		}
	}
	return nil
}

func (s *minmaxFloat) merge(src aggFn, from, to []int32) error {
	o := src.(*minmaxFloat)
	for i, end := 0, mergeLen(from, len(o.val)); i < end; i++ {
		k, g := mergeAt(from, to, i)
		x := o.val[k]
		if !o.has[k] || g < 0 {
			continue
		}
		if !s.has[g] || s.better(x, s.val[g]) {
			s.val[g], s.has[g] = x, true
		}
	}
	return nil
}

func (s *minmaxFloat) final(out *vec.Vector, lo, hi int) error {
	for g := lo; g < hi; g++ {
		if !s.has[g] {
			out.AppendNull()
		} else {
			out.AppendFloat(s.val[g])
		}
	}
	return nil
}

type minmaxBool struct {
	minmax
	val []bool
}

func (s *minmaxBool) grow(n int)   { s.val, s.has = growTo(s.val, n), growTo(s.has, n) }
func (s *minmaxBool) reset(g int)  { s.has[g] = false }
func (s *minmaxBool) bytes() int64 { return 2 * int64(len(s.val)) }

func (s *minmaxBool) fold(g int32, x bool) {
	if !s.has[g] || (s.max && x && !s.val[g]) || (!s.max && !x && s.val[g]) {
		s.val[g], s.has[g] = x, true
	}
}

func (s *minmaxBool) update(in *aggIn) error {
	for _, i := range in.rows {
		if !in.v.IsNull(int(i)) {
			s.fold(in.gids[i], in.v.B[i])
		}
	}
	return nil
}

func (s *minmaxBool) merge(src aggFn, from, to []int32) error {
	o := src.(*minmaxBool)
	for i, end := 0, mergeLen(from, len(o.val)); i < end; i++ {
		k, g := mergeAt(from, to, i)
		x := o.val[k]
		if o.has[k] && g >= 0 {
			s.fold(g, x)
		}
	}
	return nil
}

func (s *minmaxBool) final(out *vec.Vector, lo, hi int) error {
	for g := lo; g < hi; g++ {
		if !s.has[g] {
			out.AppendNull()
		} else {
			out.AppendBool(s.val[g])
		}
	}
	return nil
}

// minmaxStr serves text, bytea and uuid (byte order, as the C collation)
// and unconstrained numerics (by value). A kept value is copied, so it does
// not pin the page it came from.
type minmaxStr struct {
	minmax
	dyn  bool
	val  []string
	size int64
}

func (s *minmaxStr) grow(n int)   { s.val, s.has = growTo(s.val, n), growTo(s.has, n) }
func (s *minmaxStr) reset(g int)  { s.has[g] = false }
func (s *minmaxStr) bytes() int64 { return 17*int64(len(s.val)) + s.size }

func (s *minmaxStr) better(x, cur string) bool {
	var c int
	if s.dyn {
		c = compareDecimalText(x, cur)
	} else {
		c = strings.Compare(x, cur)
	}
	return (s.max && c > 0) || (!s.max && c < 0)
}

func (s *minmaxStr) set(g int32, x string) {
	s.size += int64(len(x) - len(s.val[g]))
	s.val[g], s.has[g] = strings.Clone(x), true
}

func (s *minmaxStr) update(in *aggIn) error {
	v := in.v
	for _, i := range in.rows {
		if v.Nulls != nil && v.Nulls[i] {
			continue
		}
		g, x := in.gids[i], v.S[i]
		if !s.has[g] || s.better(x, s.val[g]) {
			s.set(g, x)
		}
	}
	return nil
}

func (s *minmaxStr) merge(src aggFn, from, to []int32) error {
	o := src.(*minmaxStr)
	for i, end := 0, mergeLen(from, len(o.val)); i < end; i++ {
		k, g := mergeAt(from, to, i)
		x := o.val[k]
		if !o.has[k] || g < 0 {
			continue
		}
		if !s.has[g] || s.better(x, s.val[g]) {
			s.set(g, x)
		}
	}
	return nil
}

func (s *minmaxStr) final(out *vec.Vector, lo, hi int) error {
	for g := lo; g < hi; g++ {
		if !s.has[g] {
			out.AppendNull()
		} else {
			out.AppendString(s.val[g])
		}
	}
	return nil
}

// compareDecimalText compares two decimal texts by value.
func compareDecimalText(a, b string) int {
	if ak, bk := types.NumericSpecial(a), types.NumericSpecial(b); ak != 0 || bk != 0 {
		return cmp.Compare(ak, bk)
	}
	// most values have at most 18 digits: compared as int64s at one scale
	// without a big.Int (TPC-DS q23's max over sums of sales parsed two
	// big.Ints per row)
	if x, sx, ok := types.ParseDecimalSmall(a); ok {
		if y, sy, ok := types.ParseDecimalSmall(b); ok {
			ok1, ok2 := true, true
			if sx < sy {
				ok1, x = exec.BitsMul(x, types.Pow10(sy-sx))
			} else {
				ok2, y = exec.BitsMul(y, types.Pow10(sx-sy))
			}
			if ok1 && ok2 {
				return cmp.Compare(x, y)
			}
		}
	}
	x, sx, err1 := types.ParseDecimal(a)
	y, sy, err2 := types.ParseDecimal(b)
	if err1 != nil || err2 != nil {
		return strings.Compare(a, b)
	}
	s := max(sx, sy)
	if sx < s {
		x.Mul(x, bigPow10(s-sx))
	}
	if sy < s {
		y.Mul(y, bigPow10(s-sy))
	}
	return x.Cmp(y)
}

// string_agg(value, delimiter): like PostgreSQL, every value is appended
// with the delimiter of its own row in front, and the first value's
// delimiter is cut off at the end — which also makes partial states
// concatenable.

type stringAgg struct {
	buf   [][]byte
	first []int32 // length of the leading delimiter; -1: no value yet
	size  int64
}

func (s *stringAgg) grow(n int) {
	for len(s.buf) < n {
		s.buf = append(s.buf, nil)
		s.first = append(s.first, -1)
	}
}

func (s *stringAgg) reset(g int) {
	s.size -= int64(cap(s.buf[g]))
	s.buf[g], s.first[g] = s.buf[g][:0], -1
	s.size += int64(cap(s.buf[g]))
}

func (s *stringAgg) bytes() int64 { return 28*int64(len(s.buf)) + s.size }

func (s *stringAgg) update(in *aggIn) error {
	v, d := in.v, in.v2
	for _, i := range in.rows {
		if v.IsNull(int(i)) {
			continue
		}
		g := in.gids[i]
		b := s.buf[g]
		c0 := cap(b)
		var delim string
		if d != nil && !d.IsNull(int(i)) {
			delim = d.S[i]
		}
		if s.first[g] < 0 {
			s.first[g] = int32(len(delim))
		}
		b = append(append(b, delim...), v.S[i]...)
		s.size += int64(cap(b) - c0)
		s.buf[g] = b
	}
	return nil
}

func (s *stringAgg) merge(src aggFn, from, to []int32) error {
	o := src.(*stringAgg)
	for i, end := 0, mergeLen(from, len(o.buf)); i < end; i++ {
		k, g := mergeAt(from, to, i)
		b := o.buf[k]
		if o.first[k] < 0 || g < 0 {
			continue
		}
		if s.first[g] < 0 {
			s.first[g] = o.first[k]
		}
		c0 := cap(s.buf[g])
		s.buf[g] = append(s.buf[g], b...)
		s.size += int64(cap(s.buf[g]) - c0)
	}
	return nil
}

func (s *stringAgg) final(out *vec.Vector, lo, hi int) error {
	for g := lo; g < hi; g++ {
		if s.first[g] < 0 {
			out.AppendNull()
		} else {
			out.AppendString(string(s.buf[g][s.first[g]:]))
		}
	}
	return nil
}

// sum and avg of intervals: field-wise sums with PostgreSQL's overflow
// check at every step (interval_pl), and avg as interval_div(sum, count),
// which the function library implements.

type sumIntervalAgg struct {
	avg bool
	sum []types.IntervalValue
	cnt []int64
	div *fn.Overload
}

func (s *sumIntervalAgg) grow(n int)   { s.sum, s.cnt = growTo(s.sum, n), growTo(s.cnt, n) }
func (s *sumIntervalAgg) reset(g int)  { s.sum[g], s.cnt[g] = types.IntervalValue{}, 0 }
func (s *sumIntervalAgg) bytes() int64 { return 24 * int64(len(s.sum)) }

func errIntervalRange() error { return pgerr.New("22008", "interval out of range") }

func addIntervals(x, y types.IntervalValue) (types.IntervalValue, error) {
	m := int64(x.Months) + int64(y.Months)
	d := int64(x.Days) + int64(y.Days)
	us := x.Micros + y.Micros
	if m != int64(int32(m)) || d != int64(int32(d)) || (y.Micros != 0 && (us > x.Micros) != (y.Micros > 0)) {
		return x, errIntervalRange()
	}
	return types.IntervalValue{Months: int32(m), Days: int32(d), Micros: us}, nil
}

func (s *sumIntervalAgg) update(in *aggIn) error {
	v := in.v
	for _, i := range in.rows {
		if v.IsNull(int(i)) {
			continue
		}
		g := in.gids[i]
		r, err := addIntervals(s.sum[g], v.Iv[i])
		if err != nil {
			return err
		}
		s.sum[g] = r
		s.cnt[g]++
	}
	return nil
}

func (s *sumIntervalAgg) merge(src aggFn, from, to []int32) error {
	o := src.(*sumIntervalAgg)
	for i, end := 0, mergeLen(from, len(o.sum)); i < end; i++ {
		k, g := mergeAt(from, to, i)
		x := o.sum[k]
		if o.cnt[k] == 0 || g < 0 {
			continue
		}
		r, err := addIntervals(s.sum[g], x)
		if err != nil {
			return err
		}
		s.sum[g] = r
		s.cnt[g] += o.cnt[k]
	}
	return nil
}

func (s *sumIntervalAgg) final(out *vec.Vector, lo, hi int) error {
	for g := lo; g < hi; g++ {
		if s.cnt[g] == 0 {
			out.AppendNull()
			continue
		}
		if !s.avg {
			out.AppendInterval(s.sum[g])
			continue
		}
		if s.div == nil {
			o, _, _, err := fn.ResolveOperator("/", types.IntervalT, types.Float64T)
			if err != nil {
				return err
			}
			s.div = o
		}
		x, n := vec.New(types.IntervalT, 1), vec.New(types.Float64T, 1)
		x.AppendInterval(s.sum[g])
		n.AppendFloat(float64(s.cnt[g]))
		r := vec.New(types.IntervalT, 1)
		if err := s.div.Eval(nil, r, []*vec.Vector{x, n}, 1); err != nil {
			return err
		}
		out.AppendFrom(r, 0)
	}
	return nil
}

type minmaxInterval struct {
	minmax
	val []types.IntervalValue
}

func (s *minmaxInterval) grow(n int)   { s.val, s.has = growTo(s.val, n), growTo(s.has, n) }
func (s *minmaxInterval) reset(g int)  { s.has[g] = false }
func (s *minmaxInterval) bytes() int64 { return 17 * int64(len(s.val)) }

func (s *minmaxInterval) fold(g int32, x types.IntervalValue) {
	if !s.has[g] {
		s.val[g], s.has[g] = x, true
		return
	}
	c := types.CompareInterval(x, s.val[g])
	if (s.max && c > 0) || (!s.max && c < 0) {
		s.val[g] = x
	}
}

func (s *minmaxInterval) update(in *aggIn) error {
	for _, i := range in.rows {
		if !in.v.IsNull(int(i)) {
			s.fold(in.gids[i], in.v.Iv[i])
		}
	}
	return nil
}

func (s *minmaxInterval) merge(src aggFn, from, to []int32) error {
	o := src.(*minmaxInterval)
	for i, end := 0, mergeLen(from, len(o.val)); i < end; i++ {
		k, g := mergeAt(from, to, i)
		x := o.val[k]
		if o.has[k] && g >= 0 {
			s.fold(g, x)
		}
	}
	return nil
}

func (s *minmaxInterval) final(out *vec.Vector, lo, hi int) error {
	for g := lo; g < hi; g++ {
		if !s.has[g] {
			out.AppendNull()
		} else {
			out.AppendInterval(s.val[g])
		}
	}
	return nil
}
