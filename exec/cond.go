package exec

import (
	"math"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Conditional evaluation. PostgreSQL computes a CASE result only for the
// rows whose WHEN chose it, a WHEN only for the rows no earlier WHEN took, a
// COALESCE argument only for the rows whose earlier arguments were all NULL,
// and the next argument of AND/OR only for the rows the earlier ones left
// undecided. So `CASE WHEN x > 0 THEN 10 / x END` must not raise 22012 for
// x = 0: an error may come only from a row that reaches the expression.
//
// A batch carries no selection vector, so a branch that may raise runs on a
// compact sub-batch of the rows reaching it (only the columns it reads are
// gathered) and its result is scattered back. A branch that cannot raise
// (column references, constants, comparisons, …) runs on the whole batch as
// before, which is cheaper than gathering unless few rows reach it
// (compactShare), and so does a branch that every row takes.

// condState is the per-expression scratch of Case, Coalesce and Logic,
// reused batch after batch (PERFORMANCE.md rule 2). Like every expression's
// output buffer it belongs to one goroutine: MapColumns copies start afresh.
type condState struct {
	raises []bool      // per child: may raise an error (MayRaise)
	subs   []subBatch  // per child: its compact input
	rest   []int32     // rows not decided yet
	sels   [][]int32   // Case: rows taking each branch
	out    *vec.Vector // the result, when it is not a child's own vector
	nulls  []bool      // the result's NULL mask
	take   []bool      // Case.blend: the rows whose condition is true
}

func newCondState(children []Expr) *condState {
	s := &condState{raises: make([]bool, len(children)), subs: make([]subBatch, len(children))}
	for i, c := range children {
		s.raises[i] = c != nil && MayRaise(c)
	}
	return s
}

// allRows sets s.rest to every row of an n-row batch.
func (s *condState) allRows(n int) []int32 {
	s.rest = Resize32(s.rest, n)
	for i := range s.rest {
		s.rest[i] = int32(i)
	}
	return s.rest
}

// compactShare: a child that cannot raise runs on a compact sub-batch too
// when at most 1/compactShare of the batch's rows reach it — gathering the
// columns it reads for those rows costs less than computing it for all
// (TPC-DS q41: an OR of eight ANDs of text comparisons, each AND's first
// term keeping a tenth of the rows).
const compactShare = 4

// eval computes child k for rows sel of b. Its result lines up with the
// batch, or with sel when compact is true.
func (s *condState) eval(env *Env, k int, e Expr, b *vec.Batch, sel []int32) (v *vec.Vector, compact bool, err error) {
	if len(sel) == b.N || !s.raises[k] && len(sel) > b.N/compactShare {
		v, err = e.Eval(env, b)
		return v, false, err
	}
	v, err = e.Eval(env, s.subs[k].gather(e, b, sel))
	return v, true, err
}

// output returns the result vector for n rows, values zeroed, and the NULL
// mask (all false) the result carries when setNulls finds a NULL.
func (s *condState) output(t types.T, n int) (*vec.Vector, []bool) {
	out := outVec(&s.out, t, n)
	switch t.Storage() {
	case types.StoreInt:
		out.I64 = out.I64[:n]
	case types.StoreFloat:
		out.F64 = out.F64[:n]
	case types.StoreBool:
		out.B = out.B[:n]
	case types.StoreInterval:
		out.Iv = out.Iv[:n]
		clear(out.Iv)
	default:
		out.S = out.S[:n]
	}
	if cap(s.nulls) < n {
		s.nulls = make([]bool, max(n, vec.BatchSize))
	}
	s.nulls = s.nulls[:n]
	clear(s.nulls)
	return out, s.nulls
}

// setNulls attaches the NULL mask to out when some row is NULL.
func setNulls(out *vec.Vector, nulls []bool) {
	for _, isNull := range nulls {
		if isNull {
			out.Nulls = nulls
			return
		}
	}
	out.Nulls = nil
}

// subBatch is the compact batch a child runs on: the rows reaching it, of
// the input columns it reads (the others stay nil).
type subBatch struct {
	cols  []int // the input columns the expression reads
	known bool
	vecs  []*vec.Vector // gathered copies, one per cols entry
	b     vec.Batch
}

func (s *subBatch) gather(e Expr, b *vec.Batch, sel []int32) *vec.Batch {
	if !s.known {
		s.cols = readColumns(e)
		s.vecs = make([]*vec.Vector, len(s.cols))
		s.known = true
	}
	s.b.Vecs = s.b.Vecs[:0]
	for range b.Vecs {
		s.b.Vecs = append(s.b.Vecs, nil)
	}
	for j, c := range s.cols {
		if c >= len(b.Vecs) {
			continue
		}
		src := b.Vecs[c]
		dst := s.vecs[j]
		if dst == nil || dst.Type.Storage() != src.Type.Storage() {
			dst = vec.New(src.Type, max(len(sel), vec.BatchSize))
			s.vecs[j] = dst
		}
		gatherInto(dst, src, sel)
		s.b.Vecs[c] = dst
	}
	s.b.N = len(sel)
	return &s.b
}

// readColumns lists the input columns e reads, once per expression.
func readColumns(e Expr) []int {
	seen := map[int]bool{}
	var cols []int
	MapColumns(e, func(i int) int {
		if !seen[i] {
			seen[i] = true
			cols = append(cols, i)
		}
		return i
	})
	return cols
}

// gatherInto makes dst hold the rows sel of src, keeping dst's buffers.
func gatherInto(dst, src *vec.Vector, sel []int32) {
	dst.Type = src.Type
	switch src.Type.Storage() {
	case types.StoreInt:
		dst.I64 = memory.GatherT(dst.I64[:0], src.I64, sel)
	case types.StoreFloat:
		dst.F64 = memory.GatherT(dst.F64[:0], src.F64, sel)
	case types.StoreBool:
		dst.B = memory.GatherT(dst.B[:0], src.B, sel)
	case types.StoreInterval:
		dst.Iv = memory.GatherT(dst.Iv[:0], src.Iv, sel)
	default:
		dst.S = memory.GatherT(dst.S[:0], src.S, sel)
	}
	if src.Nulls == nil {
		dst.Nulls = nil
		return
	}
	// the mask buffer survives a batch without NULLs in its capacity
	m := dst.Nulls[:0]
	if m == nil {
		m = make([]bool, 0, max(len(sel), vec.BatchSize))
	}
	dst.Nulls = memory.GatherT(m, src.Nulls, sel)
}

// scatter copies the values of r for the batch rows sel into dst and their
// NULL flags into nulls; r lines up with sel (compact) or with the batch.
func scatter(dst *vec.Vector, nulls []bool, r *vec.Vector, sel []int32, compact bool) {
	switch dst.Type.Storage() {
	case types.StoreInt:
		scatterT(dst.I64, r.I64, sel, compact)
	case types.StoreFloat:
		scatterT(dst.F64, r.F64, sel, compact)
	case types.StoreBool:
		scatterT(dst.B, r.B, sel, compact)
	case types.StoreInterval:
		scatterT(dst.Iv, r.Iv, sel, compact)
	default:
		scatterT(dst.S, r.S, sel, compact)
	}
	if r.Nulls != nil {
		scatterT(nulls, r.Nulls, sel, compact)
	}
}

func scatterT[T any](dst, src []T, sel []int32, compact bool) {
	if compact {
		src = src[:len(sel)]
		for j, i := range sel {
			dst[i] = src[j]
		}
		return
	}
	for _, i := range sel {
		dst[i] = src[i]
	}
}

// MayRaise reports whether evaluating e can fail on some input. It errs on
// the side of true: that costs only a gather and a scatter.
func MayRaise(e Expr) bool {
	switch x := e.(type) {
	case *ColRef, *Const:
		return false
	case *Cmp:
		return MayRaise(x.L) || MayRaise(x.R)
	case *Not:
		return MayRaise(x.E)
	case *IsNull:
		return MayRaise(x.E)
	case *InList:
		return MayRaise(x.E)
	case *Neg:
		// only -minint overflows
		return x.Type().IsInteger() || MayRaise(x.E)
	case *Cast:
		return !safeCast(x.E.Type(), x.To) || MayRaise(x.E)
	case *Logic:
		return anyMayRaise(x.Args)
	case *Coalesce:
		return anyMayRaise(x.Args)
	case *Case:
		return anyMayRaise(x.When) || anyMayRaise(x.Then) || x.Else != nil && MayRaise(x.Else)
	}
	return true
}

func anyMayRaise(es []Expr) bool {
	for _, e := range es {
		if MayRaise(e) {
			return true
		}
	}
	return false
}

// safeCast reports casts that succeed for every value: widening integers,
// integers to floating point, and numbers or booleans to unbounded text.
func safeCast(from, to types.T) bool {
	switch {
	case from == to:
		return true
	case from.IsInteger() && to.IsInteger():
		flo, fhi := intRange(from)
		tlo, thi := intRange(to)
		return tlo <= flo && fhi <= thi
	case from.IsInteger() && to.IsFloat(), from.IsInteger() && to.ID == types.Numeric && to.Scale < 0:
		return true
	case to.ID == types.Text && to.Width == 0 && !to.Bpchar:
		return from.IsInteger() || from.IsFloat() || from.ID == types.Bool || from.ID == types.Numeric || from.ID == types.Text
	}
	return false
}

// Case is CASE WHEN … THEN … [ELSE …] END (conditions already boolean; a
// simple CASE arrives as arg = value comparisons).
type Case struct {
	When, Then []Expr
	Else       Expr
	T          types.T
	st         *condState // children: When…, Then…, Else
}

func (e *Case) Type() types.T { return e.T }

func (e *Case) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	n := b.N
	nw := len(e.When)
	if n == 0 {
		return vec.New(e.T, 0), nil
	}
	if e.st == nil {
		e.st = newCondState(append(append(append([]Expr{}, e.When...), e.Then...), e.Else))
		e.st.sels = make([][]int32, nw)
	}
	s := e.st
	if nw == 1 && !s.raises[1] && (e.Else == nil || !s.raises[2]) {
		if out, ok, err := e.blend(env, b); ok || err != nil {
			return out, err
		}
	}
	rest := s.allRows(n)
	for k, w := range e.When {
		if len(rest) == 0 {
			break
		}
		c, compact, err := s.eval(env, k, w, b, rest)
		if err != nil {
			return nil, err
		}
		// split rest into the rows taking branch k and those going on,
		// without a branch per row (PERFORMANCE.md rule 6); the rows going
		// on are written over rest itself, never ahead of the reading
		taken := Resize32(s.sels[k], len(rest))
		nt, nr := 0, 0
		cb, cn := c.B, c.Nulls
		for j, i := range rest {
			at := int(i)
			if compact {
				at = j
			}
			t := cb[at] && (cn == nil || !cn[at])
			taken[nt] = i
			nt += b2i(t)
			rest[nr] = i
			nr += b2i(!t)
		}
		s.sels[k] = taken
		if nt == n {
			// every row takes this branch: its result is the answer
			return e.Then[k].Eval(env, b)
		}
		s.sels[k] = taken[:nt]
		rest = rest[:nr]
		for m := k + 1; m < nw; m++ {
			s.sels[m] = s.sels[m][:0]
		}
	}
	if len(rest) == n && e.Else != nil {
		return e.Else.Eval(env, b)
	}
	out, nulls := s.output(e.T, n)
	for k, sel := range s.sels {
		if len(sel) == 0 {
			continue
		}
		// scatter each result before the next is computed: two branches
		// may share a subexpression, whose output buffer the second
		// evaluation would overwrite
		r, compact, err := s.eval(env, nw+k, e.Then[k], b, sel)
		if err != nil {
			return nil, err
		}
		scatter(out, nulls, r, sel, compact)
	}
	if len(rest) > 0 {
		if e.Else == nil {
			for _, i := range rest {
				nulls[i] = true
			}
		} else {
			r, compact, err := s.eval(env, 2*nw, e.Else, b, rest)
			if err != nil {
				return nil, err
			}
			scatter(out, nulls, r, rest, compact)
		}
	}
	setNulls(out, nulls)
	return out, nil
}

// blend evaluates CASE WHEN c THEN x [ELSE y] END whose branches cannot
// raise as a select of their whole-batch results, one typed loop instead of
// splitting the rows and scattering each branch (TPC-DS q2 sums seven
// CASE WHEN d_day_name = … THEN price END per row, q99 five THEN 1 ELSE 0).
// The first WHEN runs on every row anyway. ok is false when a branch's
// values are stored unlike the result's; the general path takes those.
func (e *Case) blend(env *Env, b *vec.Batch) (*vec.Vector, bool, error) {
	n := b.N
	st := e.T.Storage()
	if e.Then[0].Type().Storage() != st || e.Else != nil && e.Else.Type().Storage() != st {
		return nil, false, nil
	}
	c, err := e.When[0].Eval(env, b)
	if err != nil {
		return nil, false, err
	}
	x, err := e.Then[0].Eval(env, b)
	if err != nil {
		return nil, false, err
	}
	var y *vec.Vector
	if e.Else != nil {
		if k, isConst := e.Else.(*Const); !isConst || !k.IsNull() {
			if y, err = e.Else.Eval(env, b); err != nil {
				return nil, false, err
			}
		}
	}
	out, nulls := e.st.output(e.T, n)
	take := c.B[:n]
	if c.Nulls != nil {
		// a NULL condition is not true: the row takes ELSE
		t := resizeBool(&e.st.take, n)
		for i, null := range c.Nulls[:n] {
			t[i] = take[i] && !null
		}
		take = t
	}
	switch st {
	case types.StoreInt:
		selectT(out.I64, x.I64, vals(y, func(v *vec.Vector) []int64 { return v.I64 }), take)
	case types.StoreFloat:
		selectT(out.F64, x.F64, vals(y, func(v *vec.Vector) []float64 { return v.F64 }), take)
	case types.StoreBool:
		selectT(out.B, x.B, vals(y, func(v *vec.Vector) []bool { return v.B }), take)
	case types.StoreInterval:
		selectT(out.Iv, x.Iv, vals(y, func(v *vec.Vector) []types.IntervalValue { return v.Iv }), take)
	default:
		selectT(out.S, x.S, vals(y, func(v *vec.Vector) []string { return v.S }), take)
	}
	// a row is NULL when its branch's value is, and without ELSE when it
	// takes none
	xn := x.Nulls
	switch {
	case y == nil:
		for i, t := range take {
			nulls[i] = !t || xn != nil && xn[i]
		}
	case xn != nil || y.Nulls != nil:
		yn := y.Nulls
		for i, t := range take {
			nulls[i] = t && xn != nil && xn[i] || !t && yn != nil && yn[i]
		}
	}
	setNulls(out, nulls)
	return out, true, nil
}

// vals is y's values of one storage, nil when there is no y.
func vals[T any](y *vec.Vector, get func(*vec.Vector) []T) []T {
	if y == nil {
		return nil
	}
	return get(y)
}

// selectT sets out[i] to x[i] where take[i], else to y[i] (the zero value
// when y is nil: the row is NULL).
func selectT[T any](out, x, y []T, take []bool) {
	out, x = out[:len(take)], x[:len(take)]
	if y == nil {
		var zero T
		for i, t := range take {
			if t {
				out[i] = x[i]
			} else {
				out[i] = zero
			}
		}
		return
	}
	y = y[:len(take)]
	for i, t := range take {
		if t {
			out[i] = x[i]
		} else {
			out[i] = y[i]
		}
	}
}

// resizeBool returns *p with length n, reallocated when too small.
func resizeBool(p *[]bool, n int) []bool {
	if cap(*p) < n {
		*p = make([]bool, n, max(n, vec.BatchSize))
	}
	*p = (*p)[:n]
	return *p
}

// Coalesce returns the first non-NULL argument.
type Coalesce struct {
	Args []Expr
	T    types.T
	st   *condState
}

func (e *Coalesce) Type() types.T { return e.T }

func (e *Coalesce) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	n := b.N
	first, err := e.Args[0].Eval(env, b)
	if err != nil {
		return nil, err
	}
	if len(e.Args) == 1 || !anyTrue(first.Nulls, n) {
		return first, nil
	}
	if e.st == nil {
		e.st = newCondState(e.Args)
	}
	s := e.st
	out, nulls := s.output(e.T, n)
	all := s.allRows(n)
	scatter(out, nulls, first, all, false)
	// the rows still NULL go on to the next argument
	rest := all[:0]
	for i, isNull := range nulls {
		if isNull {
			rest = append(rest, int32(i))
		}
	}
	for k := 1; k < len(e.Args) && len(rest) > 0; k++ {
		r, compact, err := s.eval(env, k, e.Args[k], b, rest)
		if err != nil {
			return nil, err
		}
		scatter(out, nulls, r, rest, compact)
		if r.Nulls == nil {
			rest = rest[:0]
			break
		}
		nr := 0
		for _, i := range rest {
			rest[nr] = i
			nr += b2i(nulls[i])
		}
		rest = rest[:nr]
	}
	if len(rest) > 0 {
		out.Nulls = nulls
	}
	return out, nil
}

func anyTrue(m []bool, n int) bool {
	if m == nil {
		return false
	}
	for _, x := range m[:n] {
		if x {
			return true
		}
	}
	return false
}

// Logic is AND / OR over booleans with SQL three-valued logic. Arguments
// are evaluated left to right, each only for the rows the earlier ones left
// undecided (not yet false for AND, not yet true for OR).
type Logic struct {
	And  bool
	Args []Expr
	st   *condState
	// rng is set when the AND is a range over one integer column
	rng      *constRange
	rngKnown bool
}

// constRange is "x >= lo AND x <= hi" (or > and <) of one integer, date or
// timestamp column against constants of its type — BETWEEN as bound —
// evaluated in one pass instead of two comparisons and a merge of their
// results (TPC-DS q9 filters store_sales by five ranges of ss_quantity).
type constRange struct {
	x      *ColRef
	lo, hi int64 // inclusive
}

func rangeOf(args []Expr) *constRange {
	if len(args) != 2 {
		return nil
	}
	r := &constRange{lo: math.MinInt64, hi: math.MaxInt64}
	for _, a := range args {
		c, ok := a.(*Cmp)
		if !ok {
			return nil
		}
		ref, ok1 := c.L.(*ColRef)
		k, ok2 := c.R.(*Const)
		if !ok1 || !ok2 || k.IsNull() || k.V.Type != ref.T || (r.x != nil && r.x.Idx != ref.Idx) {
			return nil
		}
		switch ref.T.ID {
		case types.Int16, types.Int32, types.Int64, types.Date, types.Timestamp, types.Timestamptz:
		default:
			return nil
		}
		r.x = ref
		v := k.V.I64[0]
		switch {
		case c.Op == GE:
			r.lo = max(r.lo, v)
		case c.Op == GT && v < math.MaxInt64:
			r.lo = max(r.lo, v+1)
		case c.Op == LE:
			r.hi = min(r.hi, v)
		case c.Op == LT && v > math.MinInt64:
			r.hi = min(r.hi, v-1)
		default:
			return nil
		}
	}
	return r
}

func (r *constRange) eval(env *Env, b *vec.Batch, s *condState) (*vec.Vector, error) {
	n := b.N
	v, err := r.x.Eval(env, b)
	if err != nil {
		return nil, err
	}
	out, nulls := s.output(types.BoolT, n)
	res, xs := out.B[:n], v.I64[:n]
	if r.hi < r.lo {
		clear(res)
	} else {
		// one unsigned compare: x - lo wraps above the span when x < lo
		lo, span := uint64(r.lo), uint64(r.hi)-uint64(r.lo)
		for i, x := range xs {
			res[i] = uint64(x)-lo <= span
		}
	}
	if v.Nulls != nil {
		copy(nulls, v.Nulls[:n])
		for i, null := range nulls {
			if null {
				res[i] = false
			}
		}
	}
	setNulls(out, nulls)
	return out, nil
}

func (e *Logic) Type() types.T { return types.BoolT }

func (e *Logic) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	n := b.N
	if e.st == nil {
		e.st = newCondState(e.Args)
	}
	s := e.st
	if !e.rngKnown {
		e.rngKnown = true
		if e.And {
			e.rng = rangeOf(e.Args)
		}
	}
	if e.rng != nil {
		return e.rng.eval(env, b, s)
	}
	out, nulls := s.output(types.BoolT, n)
	res := out.B
	for i := range res {
		res[i] = e.And
	}
	// a row is decided once an argument is false (AND) or true (OR)
	decisive := !e.And
	rest := s.allRows(n)
	for k, a := range e.Args {
		if len(rest) == 0 {
			break
		}
		v, compact, err := s.eval(env, k, a, b, rest)
		if err != nil {
			return nil, err
		}
		vb, vn := v.B, v.Nulls
		if !compact && len(rest) == n {
			// every row is undecided: combine whole slices
			vb = vb[:n]
			if vn == nil {
				nr := 0
				for i, x := range vb {
					d := x == decisive
					res[i] = res[i] != d
					nulls[i] = nulls[i] && !d
					rest[nr] = int32(i)
					nr += b2i(!d)
				}
				rest = rest[:nr]
				continue
			}
		}
		nr := 0
		for j, i := range rest {
			at := int(i)
			if compact {
				at = j
			}
			if vn != nil && vn[at] {
				nulls[i] = true
				rest[nr] = i
				nr++
				continue
			}
			d := vb[at] == decisive
			if d {
				res[i] = decisive
				nulls[i] = false
			}
			rest[nr] = i
			nr += b2i(!d)
		}
		rest = rest[:nr]
	}
	// a NULL stands only where no argument was decisive; its slot is false
	for _, i := range rest {
		if nulls[i] {
			res[i] = false
		}
	}
	setNulls(out, nulls)
	return out, nil
}
