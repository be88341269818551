// Package exectest holds the sources and result checks the tests of the
// executor's packages (exec, exec/aggregate) share: operators that emit
// rows of Go values or whole vectors, and rows collected as text. It
// imports no executor package above exec/memory, so exec's own tests can
// use it.
package exectest

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Rows is a test source: rows of Go values (int64, float64, string, bool,
// nil for NULL) emitted in batches of batchSize, reusing one batch the way
// real operators do, so callers that keep a batch too long are caught.
type Rows struct {
	ts        []types.T
	rows      [][]any
	batchSize int
	pos       int
	b         *memory.ColBuf
	Closed    bool // Close was called
}

func NewRows(ts []types.T, rows [][]any, batchSize int) *Rows {
	if batchSize <= 0 {
		batchSize = vec.BatchSize
	}
	return &Rows{ts: ts, rows: rows, batchSize: batchSize}
}

func (r *Rows) Types() []types.T { return r.ts }
func (r *Rows) Close() error     { r.Closed = true; return nil }
func (r *Rows) Next(ctx context.Context) (*vec.Batch, error) {
	if r.pos >= len(r.rows) {
		return nil, nil
	}
	if r.b == nil {
		r.b = memory.NewColBuf(r.ts, r.batchSize)
	}
	// scribble over the previous batch so stale references show up
	for _, v := range r.b.Vecs {
		for i := range v.I64 {
			v.I64[i] = -999
		}
		for i := range v.S {
			v.S[i] = "stale"
		}
	}
	r.b.Clear()
	end := min(r.pos+r.batchSize, len(r.rows))
	for _, row := range r.rows[r.pos:end] {
		for c, x := range row {
			v := r.b.Vecs[c]
			if x == nil {
				r.b.AppendNulls(c, 1)
				continue
			}
			switch y := x.(type) {
			case int:
				v.I64 = append(v.I64, int64(y))
			case int64:
				v.I64 = append(v.I64, y)
			case float64:
				v.F64 = append(v.F64, y)
			case string:
				v.S = append(v.S, y)
			case bool:
				v.B = append(v.B, y)
			case types.IntervalValue:
				v.Iv = append(v.Iv, y)
			default:
				panic(fmt.Sprintf("exectest.Rows: %T", x))
			}
			if v.Nulls != nil {
				v.Nulls = append(v.Nulls, false)
			}
		}
	}
	r.b.N = end - r.pos
	r.pos = end
	return &r.b.Batch, nil
}

// Source is what Collect reads: any operator.
type Source interface {
	Next(ctx context.Context) (*vec.Batch, error)
}

// Collect drains op into text rows ("a|b|NULL"), checking that every
// vector and NULL mask covers its batch.
func Collect(t testing.TB, op Source) []string {
	t.Helper()
	var out []string
	for {
		b, err := op.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return out
		}
		for _, v := range b.Vecs {
			if v.Len() < b.N {
				t.Fatalf("vector of %d rows in a batch of %d", v.Len(), b.N)
			}
			if v.Nulls != nil && len(v.Nulls) < b.N {
				t.Fatalf("NULL mask of %d rows in a batch of %d", len(v.Nulls), b.N)
			}
		}
		for i := 0; i < b.N; i++ {
			out = append(out, RowText(b, i))
		}
	}
}

// RowText is row i of b as text ("a|b|NULL").
func RowText(b *vec.Batch, i int) string {
	var sb strings.Builder
	for c, v := range b.Vecs {
		if c > 0 {
			sb.WriteByte('|')
		}
		if v.IsNull(i) {
			sb.WriteString("NULL")
		} else {
			sb.Write(v.AppendText(nil, i, time.UTC))
		}
	}
	return sb.String()
}

// Sorted is a sorted copy of xs.
func Sorted(xs []string) []string {
	ys := append([]string{}, xs...)
	sort.Strings(ys)
	return ys
}

// SameRows fails t unless got and want hold the same rows in any order.
func SameRows(t testing.TB, what string, got, want []string) {
	t.Helper()
	g, w := Sorted(got), Sorted(want)
	if len(g) != len(w) {
		t.Fatalf("%s: %d rows, want %d\ngot  %v\nwant %v", what, len(g), len(w), head(g), head(w))
	}
	for i := range g {
		if g[i] != w[i] {
			t.Fatalf("%s: row %d = %q, want %q\ngot  %v\nwant %v", what, i, g[i], w[i], head(g), head(w))
		}
	}
}

func head(xs []string) []string {
	if len(xs) > 20 {
		return xs[:20]
	}
	return xs
}

// FmtVal is x as the text Collect gives a value (nil: NULL).
func FmtVal(x any) string {
	if x == nil {
		return "NULL"
	}
	switch y := x.(type) {
	case bool:
		if y {
			return "t"
		}
		return "f"
	case float64:
		return string(types.AppendFloat(nil, y, 64))
	}
	return fmt.Sprint(x)
}

// FmtRow is vals as the text Collect gives a row.
func FmtRow(vals ...any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = FmtVal(v)
	}
	return strings.Join(parts, "|")
}

// RandRows makes n rows of (int key with NULLs and duplicates, text key,
// payload).
func RandRows(rng *rand.Rand, n, keyRange int, nullFrac float64) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		var k, s any = int64(rng.Intn(keyRange)), fmt.Sprintf("s%d", rng.Intn(keyRange))
		if rng.Float64() < nullFrac {
			k = nil
		}
		if rng.Float64() < nullFrac {
			s = nil
		}
		rows[i] = []any{k, s, int64(i)}
	}
	return rows
}

// KST is the types of RandRows' rows.
var KST = []types.T{types.Int64T, types.TextT, types.Int64T}

// VecOfInts is a BIGINT vector of f(0) … f(n-1).
func VecOfInts(n int, f func(i int) int64) *vec.Vector {
	v := vec.New(types.Int64T, n)
	for i := 0; i < n; i++ {
		v.AppendInt(f(i))
	}
	return v
}

// PairSource streams two BIGINT vectors as a two-column batch without
// copying (benchmarks).
type PairSource struct {
	A, B *vec.Vector
	N    int
	pos  int
	out  vec.Batch
}

func (s *PairSource) Types() []types.T { return []types.T{types.Int64T, types.Int64T} }
func (s *PairSource) Close() error     { return nil }
func (s *PairSource) Next(context.Context) (*vec.Batch, error) {
	if s.pos >= s.N {
		return nil, nil
	}
	end := min(s.pos+vec.BatchSize, s.N)
	if s.out.Vecs == nil {
		s.out.Vecs = []*vec.Vector{{Type: types.Int64T}, {Type: types.Int64T}}
	}
	s.out.Vecs[0].I64 = s.A.I64[s.pos:end]
	s.out.Vecs[1].I64 = s.B.I64[s.pos:end]
	s.out.N = end - s.pos
	s.pos = end
	return &s.out, nil
}

// MultiSource streams whole vectors as batches without copying.
type MultiSource struct {
	T   []types.T
	V   []*vec.Vector
	N   int
	pos int
	out vec.Batch
}

func (s *MultiSource) Types() []types.T { return s.T }
func (s *MultiSource) Close() error     { return nil }
func (s *MultiSource) Next(context.Context) (*vec.Batch, error) {
	if s.pos >= s.N {
		return nil, nil
	}
	end := min(s.pos+vec.BatchSize, s.N)
	if s.out.Vecs == nil {
		for _, v := range s.V {
			s.out.Vecs = append(s.out.Vecs, &vec.Vector{Type: v.Type})
		}
	}
	for i, v := range s.V {
		*s.out.Vecs[i] = *v.Slice(s.pos, end)
	}
	s.out.N = end - s.pos
	s.pos = end
	return &s.out, nil
}

// Ints is a vector of type t (integer-stored) holding xs.
func Ints(t types.T, xs ...int64) *vec.Vector {
	v := vec.New(t, len(xs))
	for _, x := range xs {
		v.AppendInt(x)
	}
	return v
}

// Texts is a text vector holding xs.
func Texts(xs ...string) *vec.Vector {
	v := vec.New(types.TextT, len(xs))
	for _, x := range xs {
		v.AppendString(x)
	}
	return v
}

// UseSpill points memory.GlobalSpill at a fresh directory for one test
// and returns the space; the old one comes back when the test ends.
func UseSpill(t testing.TB, maxBytes int64) *memory.SpillSpace {
	t.Helper()
	old := memory.GlobalSpill
	sp := &memory.SpillSpace{Base: t.TempDir()}
	if err := sp.Configure("", maxBytes); err != nil {
		t.Fatal(err)
	}
	memory.GlobalSpill = sp
	t.Cleanup(func() { memory.GlobalSpill = old })
	return sp
}

// SpillFilesLeft counts the files in the space's directory.
func SpillFilesLeft(t testing.TB, sp *memory.SpillSpace) int {
	t.Helper()
	dir, err := sp.Dir()
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// CollectCtx drains op under ctx into text rows ("a|b|NULL").
func CollectCtx(t testing.TB, ctx context.Context, op Source) []string {
	t.Helper()
	var out []string
	for {
		b, err := op.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return out
		}
		for i := 0; i < b.N; i++ {
			out = append(out, RowText(b, i))
		}
	}
}

// Operator is an executor operator as package exec defines it (this
// package sits below exec).
type Operator interface {
	Types() []types.T
	Next(ctx context.Context) (*vec.Batch, error)
	Close() error
}

// CancelAfter cancels its context once N batches have passed through.
type CancelAfter struct {
	Operator
	N      int
	Cancel func()
}

func (c *CancelAfter) Next(ctx context.Context) (*vec.Batch, error) {
	if c.N--; c.N == 0 {
		c.Cancel()
	}
	return c.Operator.Next(ctx)
}
