package exec

import (
	"context"
	"math/rand"
	"testing"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
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

// TestMaterializedRowsSpill: rows that outgrow the memory go to a spill
// file, the rest of the input after them; two readers and a Parallel's
// workers each read every row from it, and the file goes with the last
// reader, also when a reader stops early.
func TestMaterializedRowsSpill(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(43))
	rows := randRows(rng, 20000, 300, 0.1)
	src := newRowsOp(kst, rows, 700)
	m := &Materialized{Input: src, Mem: memory.NewMemory(memory.NewMemoryPool(256<<10), 0)}
	a, b := m.Reader(), m.Reader()
	p := &Parallel{Rows: m.Reader(), Workers: 3, Build: func(w int, in Operator) Operator { return in }}
	want := collect(t, newRowsOp(kst, rows, 700))
	sameRows(t, "first reader", collect(t, a), want)
	if m.spill == nil || m.rows != nil {
		t.Fatal("20,000 rows under 256 KiB did not spill")
	}
	sameRows(t, "parallel reader", collect(t, p), want)
	sameRows(t, "second reader", collect(t, b), want)
	for _, r := range []Operator{a, b, p} {
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := spillFilesLeft(t, sp); n != 0 || !src.Closed {
		t.Fatalf("%d spill files left, input closed %v", n, src.Closed)
	}

	// a reader that stops after one batch, another that never reads
	m = &Materialized{Input: newRowsOp(kst, rows, 700), Mem: memory.NewMemory(memory.NewMemoryPool(256<<10), 0)}
	a, b = m.Reader(), m.Reader()
	if bt, err := a.Next(context.Background()); err != nil || bt == nil {
		t.Fatal(bt, err)
	}
	if m.spill == nil {
		t.Fatal("no spill file")
	}
	a.Close()
	b.Close()
	if n := spillFilesLeft(t, sp); n != 0 {
		t.Fatalf("%d spill files left after the readers closed early", n)
	}
}

// TestRowBufferSpill: a RowBuffer (RETURNING, MERGE and upsert rows) that
// outgrows its memory keeps the rest in a spill file; every scan reads all
// the rows in order, and Release or the Reader's Close removes the file.
func TestRowBufferSpill(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(44))
	rows := randRows(rng, 20000, 300, 0.1)
	want := collect(t, newRowsOp(kst, rows, 700))
	fill := func() *RowBuffer {
		buf := NewRowBuffer(kst, memory.NewMemory(memory.NewMemoryPool(256<<10), 0))
		if err := Drain(context.Background(), newRowsOp(kst, rows, 700), func(b *vec.Batch) error {
			return buf.Append(context.Background(), b)
		}); err != nil {
			t.Fatal(err)
		}
		if buf.Len() != len(rows) {
			t.Fatalf("Len %d, want %d", buf.Len(), len(rows))
		}
		if buf.store.spill == nil || buf.store.rows != nil {
			t.Fatal("20,000 rows under 256 KiB did not spill")
		}
		return buf
	}
	buf := fill()
	sameRows(t, "first scan", collect(t, buf.Scan()), want)
	sameRows(t, "second scan", collect(t, buf.Scan()), want)
	buf.Release()
	if n := spillFilesLeft(t, sp); n != 0 {
		t.Fatalf("%d spill files left after Release", n)
	}
	buf = fill()
	rd := buf.Reader()
	sameRows(t, "reader", collect(t, rd), want)
	if err := rd.Close(); err != nil {
		t.Fatal(err)
	}
	if n := spillFilesLeft(t, sp); n != 0 {
		t.Fatalf("%d spill files left after the reader closed", n)
	}
}
