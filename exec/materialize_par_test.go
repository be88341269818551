package exec

import (
	"math/rand"
	"testing"

	"github.com/lakepg/lakepg/exec/memory"
)

// TestParallelOverMaterializedRows: workers taking a WITH query's rows a
// batch at a time through a filter see every row once, while another
// reader of the same rows reads them all; the rows go when both close.
func TestParallelOverMaterializedRows(t *testing.T) {
	rng := rand.New(rand.NewSource(41))
	rows := randRows(rng, 10000, 300, 0.1)
	src := newRowsOp(kst, rows, 700)
	m := &Materialized{Input: src, Mem: memory.NewMemory(memory.NewMemoryPool(0), 0)}
	other := m.Reader()
	pred := func() Expr {
		return &Cmp{Op: LT, L: &ColRef{Idx: 0, T: kst[0]}, R: i64Const(150)}
	}
	p := &Parallel{Rows: m.Reader(), Workers: 3, Build: func(w int, in Operator) Operator {
		return &Filter{Env: &Env{}, Input: in, Pred: pred()}
	}}
	got := collect(t, p)
	want := collect(t, &Filter{Env: &Env{}, Input: newRowsOp(kst, rows, 700), Pred: pred()})
	sameRows(t, "parallel over materialized rows", got, want)
	if all := collect(t, other); len(all) != len(rows) {
		t.Fatalf("the other reader read %d rows, want %d", len(all), len(rows))
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if m.rows == nil || src.Closed {
		t.Fatal("the rows went while a reader was open")
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if m.rows != nil || !src.Closed {
		t.Fatal("the rows were kept after the last reader closed")
	}
}
