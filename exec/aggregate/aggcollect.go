package aggregate

import (
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// collectAgg serves the aggregates that need all of a group's values:
// DISTINCT aggregates and the ordered-set aggregates (percentile_cont,
// percentile_disc, mode). It keeps (group, value) pairs in flat typed
// columns, and when the input ends sorts them by group and value — as
// PostgreSQL sorts a DISTINCT aggregate's input, so string_agg(DISTINCT …)
// comes out in value order — then either feeds each group's distinct values
// to the ordinary aggregate (inner) or picks the ordered-set result.
type collectAgg struct {
	a     Agg
	out   types.T
	inner aggFn // DISTINCT: the aggregate fed with the distinct values

	ngroups int
	gids    []int32
	vals    *vec.Vector    // non-NULL first arguments (float8 for percentile_cont)
	vals2   *vec.Vector    // string_agg's delimiters
	keys    []*vec.Vector  // ORDER BY keys of an order-sensitive aggregate
	frac    []float64      // percentile fraction per group
	fracSet []uint8        // 0 unset, 1 value, 2 NULL
	results *memory.ColBuf // ordered-set results by group
	done    bool
	size    int64
	sp      *collectSpill // rows written to disk (aggcollectspill.go)
}

func (s *collectAgg) grow(n int) {
	s.ngroups = max(s.ngroups, n)
	if s.inner != nil {
		s.inner.grow(n)
	}
	if s.a.Kind == AggPercentileCont || s.a.Kind == AggPercentileDisc {
		s.frac, s.fracSet = growTo(s.frac, n), growTo(s.fracSet, n)
	}
}

func (s *collectAgg) reset(int) {}

func (s *collectAgg) bytes() int64 {
	b := s.size + 9*int64(len(s.frac))
	if s.inner != nil {
		b += s.inner.bytes()
	}
	return b
}

func (s *collectAgg) valType() types.T {
	if s.a.Kind == AggPercentileCont {
		return types.Float64T
	}
	return s.a.In
}

func (s *collectAgg) init() {
	if s.vals == nil {
		s.vals = vec.New(s.valType(), vec.BatchSize)
		if s.a.Kind == AggStringAgg {
			s.vals2 = vec.New(types.TextT, vec.BatchSize)
			s.vals2.Nulls = []bool{}
		}
		if s.a.orderSensitive() && !s.a.Distinct {
			s.keys = make([]*vec.Vector, len(s.a.Order))
		}
	}
}

func (s *collectAgg) update(in *aggIn) error {
	s.init()
	if s.frac != nil && in.v2 != nil {
		for _, i := range in.rows {
			g := in.gids[i]
			if s.fracSet[g] != 0 {
				continue
			}
			if in.v2.IsNull(int(i)) {
				s.fracSet[g] = 2
			} else {
				s.frac[g], s.fracSet[g] = fractionOf(in.v2, int(i)), 1
			}
		}
	}
	v := in.v
	for _, i := range in.rows {
		if v.IsNull(int(i)) {
			continue
		}
		s.gids = append(s.gids, in.gids[i])
		switch {
		case s.a.Kind == AggPercentileCont:
			s.vals.AppendFloat(floatOf(v, int(i)))
		default:
			s.vals.AppendFrom(v, int(i))
			if s.vals.Type.Storage() == types.StoreBytes {
				s.size += int64(len(v.S[i]))
			}
		}
		if s.vals2 != nil {
			if in.v2 == nil {
				s.vals2.AppendNull()
			} else {
				s.vals2.AppendFrom(in.v2, int(i))
			}
		}
		for k, kv := range in.keys {
			if s.keys[k] == nil {
				s.keys[k] = vec.New(kv.Type, vec.BatchSize)
				s.keys[k].Nulls = []bool{}
			}
			s.keys[k].AppendFrom(kv, int(i))
			if kv.Type.Storage() == types.StoreBytes {
				s.size += int64(len(kv.S[i]))
			}
		}
		s.size += 12
	}
	return nil
}

// fractionOf reads a percentile fraction of any numeric type.
func fractionOf(v *vec.Vector, i int) float64 { return floatOf(v, i) }

// floatOf converts row i of a numeric vector to float8, as the implicit
// cast to double precision would.
func floatOf(v *vec.Vector, i int) float64 {
	t := v.Type
	switch {
	case t.Storage() == types.StoreFloat:
		return v.F64[i]
	case t.IsInteger():
		return float64(v.I64[i])
	case t.ID == types.Numeric && t.Scale >= 0:
		f, _ := types.ParseFloat(string(types.AppendNumeric(nil, v.I64[i], t.Scale)), 64)
		return f
	case t.DynNumeric():
		f, _ := types.ParseFloat(v.S[i], 64)
		return f
	}
	return math.NaN()
}

func (s *collectAgg) merge(src aggFn, from, to []int32) error {
	o := src.(*collectAgg)
	if o.vals == nil && o.sp == nil {
		return nil
	}
	s.init()
	// the rows name their src group: a map from every src group is needed
	gmap := to
	if from != nil {
		gmap = make([]int32, o.ngroups)
		for k := range gmap {
			gmap[k] = -1
		}
		for i, k := range from {
			gmap[k] = to[i]
		}
	}
	if o.sp != nil {
		if err := s.mergeSpilled(o, gmap); err != nil {
			return err
		}
	}
	if o.vals == nil {
		return nil
	}
	kept := 0
	for k, g := range o.gids {
		if gmap[g] < 0 {
			continue // another partition's group (aggmerge.go)
		}
		kept++
		s.gids = append(s.gids, gmap[g])
		s.vals.AppendFrom(o.vals, k)
		if s.vals2 != nil {
			s.vals2.AppendFrom(o.vals2, k)
		}
		for j, kv := range o.keys {
			if s.keys[j] == nil {
				s.keys[j] = vec.New(kv.Type, vec.BatchSize)
				s.keys[j].Nulls = []bool{}
			}
			s.keys[j].AppendFrom(kv, k)
		}
	}
	for k := range o.fracSet {
		if g := gmap[k]; g >= 0 && o.fracSet[k] != 0 && s.fracSet[g] == 0 {
			s.frac[g], s.fracSet[g] = o.frac[k], o.fracSet[k]
		}
	}
	if len(o.gids) > 0 {
		s.size += o.size * int64(kept) / int64(len(o.gids))
	}
	return nil
}

// order returns the collected rows sorted by group, then value (then
// delimiter), stable.
func (s *collectAgg) order() []int32 {
	n := len(s.gids)
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	gids := s.gids
	desc := s.a.Desc && s.a.Kind.orderedSet()
	var cmpVal func(a, b int32) int
	v := s.vals
	switch v.Type.Storage() {
	case types.StoreInt:
		xs := v.I64 // one scale for all values: compare the scaled integers
		cmpVal = func(a, b int32) int { return cmp3(xs[a], xs[b]) }
	case types.StoreFloat:
		xs := v.F64
		cmpVal = func(a, b int32) int { return exec.CompareFloat(xs[a], xs[b]) }
	case types.StoreBool:
		xs := v.B
		cmpVal = func(a, b int32) int { return exec.CompareBool(xs[a], xs[b]) }
	case types.StoreInterval:
		xs := v.Iv
		cmpVal = func(a, b int32) int { return types.CompareInterval(xs[a], xs[b]) }
	default:
		xs := v.S
		if v.Type.DynNumeric() {
			cmpVal = func(a, b int32) int { return compareDecimalText(xs[a], xs[b]) }
		} else {
			cmpVal = func(a, b int32) int { return strings.Compare(xs[a], xs[b]) }
		}
	}
	v2 := s.vals2
	if s.keys != nil {
		slices.SortFunc(idx, func(a, b int32) int {
			if c := cmp3(gids[a], gids[b]); c != 0 {
				return c
			}
			if c := s.compareKeys(a, b); c != 0 {
				return c
			}
			return cmp3(a, b)
		})
		return idx
	}
	desc = desc || s.a.Desc && s.a.Distinct
	if v.Type.Storage() == types.StoreInt && v2 == nil {
		// integers (count(DISTINCT key), say): sort the (group, value)
		// pairs themselves, one comparison and no indirection per step
		type groupVal struct {
			g, i int32
			v    int64
		}
		if radixOrder(idx, gids, v.I64, desc) {
			return idx
		}
		ps := make([]groupVal, n)
		for i := range ps {
			ps[i] = groupVal{gids[i], int32(i), v.I64[i]}
		}
		slices.SortFunc(ps, func(a, b groupVal) int {
			switch {
			case a.g != b.g:
				return cmp3(a.g, b.g)
			case a.v != b.v:
				if (a.v < b.v) != desc {
					return -1
				}
				return 1
			}
			return cmp3(a.i, b.i)
		})
		for k, p := range ps {
			idx[k] = p.i
		}
		return idx
	}
	slices.SortFunc(idx, func(a, b int32) int {
		if c := cmp3(gids[a], gids[b]); c != 0 {
			return c
		}
		c := cmpVal(a, b)
		if desc {
			c = -c
		}
		if c == 0 && v2 != nil {
			an, bn := v2.IsNull(int(a)), v2.IsNull(int(b))
			switch {
			case an && bn:
			case an:
				c = 1
			case bn:
				c = -1
			default:
				c = strings.Compare(v2.S[a], v2.S[b])
			}
		}
		if c == 0 {
			c = cmp3(a, b)
		}
		return c
	})
	return idx
}

// radixOrder sets idx to the rows ordered by (group, value, row) when
// the group, the value's distance from the smallest value and the row
// number fit one uint64 together, and reports whether they did. It sorts
// the key's digits, least significant first: each pass is stable and the
// rows start in row order, so ties keep it. A comparison sort of the pairs
// was most of Q16's (count(DISTINCT ps_suppkey) over 18,000 groups) time
// after the scans, and ran on one core, after the workers' states were
// merged.
func radixOrder(idx, gids []int32, xs []int64, desc bool) bool {
	n := len(idx)
	if n < 256 {
		return false
	}
	lo, hi := xs[0], xs[0]
	var gmax int32
	for i, x := range xs[:n] {
		lo, hi = min(lo, x), max(hi, x)
		gmax = max(gmax, gids[i])
		if gids[i] < 0 {
			return false
		}
	}
	span := uint64(hi) - uint64(lo)
	vbits := bits.Len64(span)
	rbits := bits.Len64(uint64(n - 1))
	width := rbits + vbits + bits.Len32(uint32(gmax))
	if width > 64 {
		return false
	}
	// the row number in the low bits: the passes skip them
	a, b := make([]uint64, n), make([]uint64, n)
	for i, x := range xs[:n] {
		d := uint64(x) - uint64(lo)
		if desc {
			d = span - d
		}
		a[i] = (uint64(gids[i])<<vbits|d)<<rbits | uint64(i)
	}
	const digit = 11
	var count [1 << digit]int
	for shift := rbits; shift < width; shift += digit {
		count = [1 << digit]int{}
		for _, k := range a {
			count[k>>shift&(1<<digit-1)]++
		}
		if count[a[0]>>shift&(1<<digit-1)] == n {
			continue // every key has this digit
		}
		pos := 0
		for d, c := range count {
			count[d] = pos
			pos += c
		}
		for _, k := range a {
			d := k >> shift & (1<<digit - 1)
			b[count[d]] = k
			count[d]++
		}
		a, b = b, a
	}
	for k, r := range a {
		idx[k] = int32(r & (1<<rbits - 1))
	}
	return true
}

func cmp3[T int32 | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// finish computes the results once all input is in.
func (s *collectAgg) finish() error {
	if s.done {
		return nil
	}
	s.done = true
	s.init()
	if s.sp != nil {
		return s.finishSpilled()
	}
	idx := s.order()
	if s.inner != nil {
		return s.feed(idx, s.keys == nil)
	}
	s.results = memory.NewColBuf([]types.T{s.out}, max(s.ngroups, 1))
	out := s.results.Vecs[0]
	k := 0
	for g := 0; g < s.ngroups; g++ {
		lo := k
		for k < len(idx) && s.gids[idx[k]] == int32(g) {
			k++
		}
		if err := s.orderedResult(out, g, idx[lo:k]); err != nil {
			return err
		}
	}
	return nil
}

// feed runs the inner aggregate over each group's values in idx order,
// skipping repeated values when distinct.
func (s *collectAgg) feed(idx []int32, distinct bool) error {
	vt := []types.T{s.vals.Type}
	if s.vals2 != nil {
		vt = append(vt, s.vals2.Type)
	}
	chunk := memory.NewColBuf(vt, vec.BatchSize)
	gids := make([]int32, 0, vec.BatchSize)
	rows := make([]int32, 0, vec.BatchSize)
	keep := make([]int32, 0, vec.BatchSize)
	flush := func() error {
		if len(keep) == 0 {
			return nil
		}
		chunk.Clear()
		chunk.Gather(0, s.vals, keep)
		in := &aggIn{v: chunk.Vecs[0], gids: gids, all: true}
		if s.vals2 != nil {
			chunk.Gather(1, s.vals2, keep)
			in.v2 = chunk.Vecs[1]
		}
		rows = rows[:0]
		for i := range keep {
			rows = append(rows, int32(i))
		}
		in.rows = rows
		err := s.inner.update(in)
		keep, gids = keep[:0], gids[:0]
		return err
	}
	for k, r := range idx {
		if distinct && k > 0 {
			p := idx[k-1]
			if s.gids[p] == s.gids[r] && memory.RowsEqual(s.vals, int(p), s.vals, int(r)) &&
				(s.vals2 == nil || memory.NullableEqual(s.vals2, int(p), s.vals2, int(r))) {
				continue
			}
		}
		keep = append(keep, r)
		gids = append(gids, s.gids[r])
		if len(keep) == vec.BatchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

func (s *collectAgg) fraction(g int) (float64, bool, error) {
	if s.fracSet[g] != 1 {
		return 0, false, nil
	}
	f := s.frac[g]
	if f < 0 || f > 1 || math.IsNaN(f) {
		return 0, false, pgerr.New(pgerr.NumericValueOutOfRange, "percentile value %s is not between 0 and 1", types.AppendFloat(nil, f, 64))
	}
	return f, true, nil
}

// orderedResult appends group g's percentile or mode; rows are the group's
// values in WITHIN GROUP order.
func (s *collectAgg) orderedResult(out *vec.Vector, g int, rows []int32) error {
	n := len(rows)
	switch s.a.Kind {
	case AggPercentileCont:
		f, ok, err := s.fraction(g)
		if err != nil {
			return err
		}
		if !ok || n == 0 {
			out.AppendNull()
			return nil
		}
		pos := f * float64(n-1)
		first, second := math.Floor(pos), math.Ceil(pos)
		lo := s.vals.F64[rows[int(first)]]
		if first == second {
			out.AppendFloat(lo)
			return nil
		}
		hi := s.vals.F64[rows[int(second)]]
		out.AppendFloat(lo + (hi-lo)*(pos-first))
	case AggPercentileDisc:
		f, ok, err := s.fraction(g)
		if err != nil {
			return err
		}
		if !ok || n == 0 {
			out.AppendNull()
			return nil
		}
		k := int64(math.Ceil(f * float64(n)))
		if k < 1 {
			k = 1
		}
		out.AppendFrom(s.vals, int(rows[k-1]))
	case AggMode:
		if n == 0 {
			out.AppendNull()
			return nil
		}
		best, bestN := rows[0], 0
		for k := 0; k < n; {
			j := k + 1
			for j < n && memory.RowsEqual(s.vals, int(rows[k]), s.vals, int(rows[j])) {
				j++
			}
			if j-k > bestN {
				best, bestN = rows[k], j-k
			}
			k = j
		}
		out.AppendFrom(s.vals, int(best))
	}
	return nil
}

func (s *collectAgg) final(out *vec.Vector, lo, hi int) error {
	if err := s.finish(); err != nil {
		return err
	}
	if s.inner != nil {
		return s.inner.final(out, lo, hi)
	}
	r := s.results.Vecs[0]
	for g := lo; g < hi; g++ {
		out.AppendFrom(r, g)
	}
	return nil
}

// compareKeys compares collected rows a and b by the aggregate's ORDER BY.
// NullsFirst is already resolved to PostgreSQL's default (NULLs last
// ascending, first descending) by the planner.
func (s *collectAgg) compareKeys(a, b int32) int {
	for k, o := range s.a.Order {
		v := s.keys[k]
		if v == nil {
			continue
		}
		an, bn := v.IsNull(int(a)), v.IsNull(int(b))
		switch {
		case an && bn:
			continue
		case an || bn:
			c := -1 // b is NULL: a first
			if an {
				c = 1
			}
			if o.NullsFirst {
				c = -c
			}
			return c
		}
		c := exec.CompareRows(v, int(a), v, int(b))
		if o.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
