package planner

import (
	"container/list"
	"context"
	"encoding/binary"
	"math"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner/bind"
	"github.com/lakepg/lakepg/types"
)

// applyOp runs a correlated subquery that no join rewrite of
// plan_subquery.go can plan (LIMIT, GROUP BY, DISTINCT, set operations,
// nested correlation, …) as PostgreSQL runs a SubPlan: once per outer row,
// with the outer values the subquery reads as constants. Rows with the same
// values share one run: results are cached per key, least recently used
// first out, within applyCacheBytes; a key whose rows exceed
// applyEntryBytes is streamed and run again when it comes back.
type applyOp struct {
	env   *exec.Env
	input exec.Operator
	mode  applyMode
	// cols are the columns added after the input's
	cols []types.T
	// any/all: test is the left operand (over the input), cmp compares
	// column 0 (test) with column 1 (a value of the subquery)
	test exec.Expr
	cmp  exec.Expr
	// arrayT is the array type of an ARRAY(subquery)
	arrayT types.T
	// plan plans the subquery for one outer row and knows which of the
	// input's columns it reads: the cache key
	plan *applyPlan

	cache ApplyCache
	ts    []types.T
	in    *vec.Batch
	tv    *vec.Vector // test values of in
	row   int
	// row modes: the inner rows of the current outer row
	started, matched bool
	replay           []*vec.Batch // cached rows being replayed
	live             exec.Operator
	fill             *ApplyEntry // rows of live being collected for the cache
	ib               *vec.Batch
	ip               int
	key              string
	eof              bool
}

type applyMode int

const (
	applyJoin     applyMode = iota // LATERAL: the outer row with each row of the subquery
	applyLeftJoin                  // LEFT JOIN LATERAL: … or with NULLs when there is none
	applyScalar                    // (subquery): its only value, NULL without rows, 21000 with more
	applyExists                    // EXISTS (subquery)
	applyArray                     // ARRAY(subquery)
	applyAny                       // test op ANY (subquery)
	applyAll                       // test op ALL (subquery)
)

func (m applyMode) String() string {
	return [...]string{"lateral", "left lateral", "scalar", "exists", "array", "any", "all"}[m]
}

const (
	ApplyCacheBytes = 32 << 20
	applyEntryBytes = 4 << 20
)

func (a *applyOp) Types() []types.T {
	if a.ts == nil {
		a.ts = append(append([]types.T{}, a.input.Types()...), a.cols...)
	}
	return a.ts
}

// ExtendedInput lets optree.PruneColumns drop a value subquery whose value
// nothing reads; the LATERAL modes change the rows and stay.
func (a *applyOp) ExtendedInput() (exec.Operator, bool) {
	return a.input, a.mode != applyJoin && a.mode != applyLeftJoin
}

func (a *applyOp) Close() error {
	a.closeLive()
	a.cache.reset()
	if a.plan != nil {
		a.plan.close()
	}
	return a.input.Close()
}

func (a *applyOp) closeLive() {
	if a.live != nil {
		a.live.Close()
		a.live = nil
	}
}

func (a *applyOp) Next(ctx context.Context) (*vec.Batch, error) {
	if a.eof {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
	}
	out := vec.NewBatch(a.Types(), vec.BatchSize)
	nIn := len(a.input.Types())
	for out.N < vec.BatchSize {
		if a.in == nil || a.row >= a.in.N {
			b, err := a.input.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				a.eof = true
				break
			}
			a.in, a.row, a.started = b, 0, false
			if a.test != nil {
				if a.tv, err = a.test.Eval(a.env, b); err != nil {
					return nil, err
				}
			}
			continue
		}
		if a.mode >= applyScalar {
			v, err := a.Value(ctx)
			if err != nil {
				return nil, err
			}
			for c := 0; c < nIn; c++ {
				out.Vecs[c].AppendFrom(a.in.Vecs[c], a.row)
			}
			out.Vecs[nIn].AppendFrom(v, 0)
			out.N++
			a.row++
			continue
		}
		if err := a.joinRows(ctx, out, nIn); err != nil {
			return nil, err
		}
	}
	if out.N == 0 {
		return nil, nil
	}
	return out, nil
}

// joinRows appends the current outer row joined with the subquery's rows
// for it, as many as fit in out, and moves to the next outer row when they
// are all out.
func (a *applyOp) joinRows(ctx context.Context, out *vec.Batch, nIn int) error {
	if !a.started {
		if err := a.start(ctx); err != nil {
			return err
		}
	}
	for {
		if out.N == vec.BatchSize {
			return nil // the rest of this outer row's rows go in the next batch
		}
		if a.ib == nil || a.ip >= a.ib.N {
			b, err := a.nextInner(ctx)
			if err != nil {
				return err
			}
			if b == nil {
				break
			}
			a.ib, a.ip = b, 0
			continue
		}
		k := min(a.ib.N-a.ip, vec.BatchSize-out.N)
		for c := 0; c < nIn; c++ {
			for j := 0; j < k; j++ {
				out.Vecs[c].AppendFrom(a.in.Vecs[c], a.row)
			}
		}
		for c, v := range a.ib.Vecs {
			for j := 0; j < k; j++ {
				out.Vecs[nIn+c].AppendFrom(v, a.ip+j)
			}
		}
		a.ip += k
		out.N += k
		a.matched = true
	}
	// the subquery has no more rows for this outer row
	if !a.matched && a.mode == applyLeftJoin {
		for c := 0; c < nIn; c++ {
			out.Vecs[c].AppendFrom(a.in.Vecs[c], a.row)
		}
		for c := range a.cols {
			out.Vecs[nIn+c].AppendNull()
		}
		out.N++
	}
	a.row++
	a.started = false
	return nil
}

// start begins the subquery's rows for the current outer row: replayed
// from the cache, or from a new run.
func (a *applyOp) start(ctx context.Context) error {
	a.started, a.matched = true, false
	a.ib, a.ip, a.replay, a.fill = nil, 0, nil, nil
	a.key = a.keyOf(a.row)
	if e, ok := a.cache.Get(a.key); ok {
		a.replay = e.rows
		if a.replay == nil {
			a.replay = []*vec.Batch{}
		}
		return nil
	}
	op, err := a.run(ctx)
	if err != nil {
		return err
	}
	a.live = op
	if !a.cache.off {
		a.fill = &ApplyEntry{}
	}
	return nil
}

// nextInner is the next batch of the current outer row's subquery rows;
// nil when there are no more.
func (a *applyOp) nextInner(ctx context.Context) (*vec.Batch, error) {
	if a.replay != nil {
		if len(a.replay) == 0 {
			return nil, nil
		}
		b := a.replay[0]
		a.replay = a.replay[1:]
		return b, nil
	}
	if a.live == nil {
		return nil, nil
	}
	b, err := a.live.Next(ctx)
	if err != nil {
		return nil, err
	}
	if b == nil {
		a.closeLive()
		if a.fill != nil {
			a.cache.Put(a.key, a.fill)
			a.fill = nil
		}
		return nil, nil
	}
	if a.fill != nil {
		c := CopyBatch(b)
		a.fill.rows = append(a.fill.rows, c)
		a.fill.Bytes += batchSize(c)
		if a.fill.Bytes > applyEntryBytes {
			a.fill = nil // too large to keep: run again when the key comes back
		}
		return c, nil
	}
	return b, nil
}

// Value is the subquery's value for the current outer row (a vector of
// one row).
func (a *applyOp) Value(ctx context.Context) (*vec.Vector, error) {
	key := a.keyOf(a.row)
	if e, ok := a.cache.Get(key); ok {
		return e.Val, nil
	}
	op, err := a.run(ctx)
	if err != nil {
		return nil, err
	}
	a.live = op
	v, err := a.compute(ctx, op)
	a.closeLive()
	if err != nil {
		return nil, err
	}
	a.cache.Put(key, &ApplyEntry{Val: v, Bytes: vecBytes(v) + 64})
	return v, nil
}

func (a *applyOp) compute(ctx context.Context, op exec.Operator) (*vec.Vector, error) {
	out := vec.New(a.cols[0], 1)
	switch a.mode {
	case applyScalar:
		n := 0
		for {
			b, err := op.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				break
			}
			if n+b.N > 1 {
				return nil, pgerr.New(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
			}
			if b.N == 1 {
				out.AppendFrom(b.Vecs[0], 0)
			}
			n += b.N
		}
		if n == 0 {
			out.AppendNull()
		}
	case applyExists:
		found := false
		for !found {
			b, err := op.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				break
			}
			found = b.N > 0
		}
		out.AppendBool(found)
	case applyArray:
		all := vec.NewBatch(op.Types()[:1], 8)
		for {
			b, err := op.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				break
			}
			for i := 0; i < b.N; i++ {
				all.Vecs[0].AppendFrom(b.Vecs[0], i)
			}
			all.N += b.N
			if vecBytes(all.Vecs[0]) > applyEntryBytes*16 {
				return nil, pgerr.New(pgerr.ProgramLimitExceeded, "array value of a subquery is too large")
			}
		}
		out.AppendString(bind.ArrayOfRows(all, a.arrayT))
	case applyAny, applyAll:
		// ANY: true when a comparison is, else NULL when one is NULL, else
		// false; ALL the other way round
		decided, sawNull := false, false
		for !decided {
			b, err := op.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				break
			}
			pair := &vec.Batch{Vecs: []*vec.Vector{vec.Constant(a.tv, a.row, b.N), b.Vecs[0]}, N: b.N}
			r, err := a.cmp.Eval(a.env, pair)
			if err != nil {
				return nil, err
			}
			for i := 0; i < b.N && !decided; i++ {
				switch {
				case r.IsNull(i):
					sawNull = true
				case r.B[i] == (a.mode == applyAny):
					decided = true
				}
			}
		}
		switch {
		case decided:
			out.AppendBool(a.mode == applyAny)
		case sawNull:
			out.AppendNull()
		default:
			out.AppendBool(a.mode == applyAll)
		}
	}
	return out, nil
}

// run plans the subquery for the current outer row.
func (a *applyOp) run(ctx context.Context) (exec.Operator, error) {
	op, grew, err := a.plan.open(ctx, a.in, a.row)
	if err != nil {
		return nil, err
	}
	if grew {
		// the subquery read a column the earlier keys did not include
		a.cache.reset()
	}
	return op, nil
}

// keyOf encodes the outer values the subquery reads (and the tested value
// of ANY/ALL) of input row i. Equal keys must give equal results, so
// values are compared as stored, not as SQL compares them (-0 and 0, or
// 1.0 and 1.00, may print differently).
func (a *applyOp) keyOf(i int) string {
	var k []byte
	for _, c := range a.plan.keyCols() {
		k = AppendKey(k, a.in.Vecs[c], i)
	}
	if a.tv != nil {
		k = AppendKey(k, a.tv, i)
	}
	return string(k)
}

func AppendKey(k []byte, v *vec.Vector, i int) []byte {
	if v.IsNull(i) {
		return append(k, 0)
	}
	k = append(k, 1)
	switch v.Type.Storage() {
	case types.StoreInt:
		k = binary.LittleEndian.AppendUint64(k, uint64(v.I64[i]))
	case types.StoreFloat:
		k = binary.LittleEndian.AppendUint64(k, math.Float64bits(v.F64[i]))
	case types.StoreBool:
		if v.B[i] {
			k = append(k, 1)
		} else {
			k = append(k, 0)
		}
	case types.StoreInterval:
		iv := v.Iv[i]
		k = binary.LittleEndian.AppendUint64(k, uint64(iv.Months))
		k = binary.LittleEndian.AppendUint64(k, uint64(iv.Days))
		k = binary.LittleEndian.AppendUint64(k, uint64(iv.Micros))
	default:
		k = binary.AppendUvarint(k, uint64(len(v.S[i])))
		k = append(k, v.S[i]...)
	}
	return k
}

func batchSize(b *vec.Batch) int64 {
	var n int64
	for _, v := range b.Vecs {
		n += vecBytes(v)
	}
	return n
}

func vecBytes(v *vec.Vector) int64 {
	n := int64(len(v.I64)*8 + len(v.F64)*8 + len(v.B) + len(v.Iv)*24 + len(v.Nulls))
	for _, s := range v.S {
		n += int64(len(s)) + 16
	}
	return n
}

// ApplyEntry is what one key gave: rows (row modes) or a value.
type ApplyEntry struct {
	rows  []*vec.Batch
	Val   *vec.Vector
	Bytes int64
}

// ApplyCache holds results by key, least recently used evicted first.
type ApplyCache struct {
	m     map[string]*list.Element
	lru   list.List
	Bytes int64
	off   bool // a volatile subquery: keep nothing
}

type applyItem struct {
	key string
	e   *ApplyEntry
}

func (c *ApplyCache) Get(key string) (*ApplyEntry, bool) {
	el, ok := c.m[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*applyItem).e, true
}

func (c *ApplyCache) Put(key string, e *ApplyEntry) {
	if c.off {
		return
	}
	if c.m == nil {
		c.m = map[string]*list.Element{}
	}
	size := e.Bytes + int64(len(key)) + 64
	if size > ApplyCacheBytes {
		return
	}
	if el, ok := c.m[key]; ok {
		c.Bytes -= el.Value.(*applyItem).e.Bytes + int64(len(key)) + 64
		c.lru.Remove(el)
	}
	for c.Bytes+size > ApplyCacheBytes && c.lru.Len() > 0 {
		old := c.lru.Back()
		it := old.Value.(*applyItem)
		c.Bytes -= it.e.Bytes + int64(len(it.key)) + 64
		delete(c.m, it.key)
		c.lru.Remove(old)
	}
	c.m[key] = c.lru.PushFront(&applyItem{key: key, e: e})
	c.Bytes += size
}

func (c *ApplyCache) reset() {
	c.m = nil
	c.lru.Init()
	c.Bytes = 0
}

func CopyBatch(b *vec.Batch) *vec.Batch {
	ts := make([]types.T, len(b.Vecs))
	for i, v := range b.Vecs {
		ts[i] = v.Type
	}
	out := vec.NewBatch(ts, b.N)
	AppendBatch(out, b)
	return out
}

func AppendBatch(dst, src *vec.Batch) {
	for i, v := range src.Vecs {
		for r := 0; r < src.N; r++ {
			dst.Vecs[i].AppendFrom(v, r)
		}
	}
	dst.N += src.N
}

// Over puts the subquery above in (logical.Subquery): an Apply node's
// operator is this one over the Apply's input, with its test.
func (a *applyOp) Over(in exec.Operator, test exec.Expr) exec.Operator {
	a.input, a.test = in, test
	return a
}
