package exec

import (
	"context"
	"math/rand"
	"strconv"
	"testing"

	"github.com/lakepg/lakepg/exec/memory"
)

// TestChunkWriterSpills: rows past the budget become chunks on disk, read
// back by ChunkScan (ordinals too) as the rows went in; the file goes with
// the last chunk dropped, or with Abort.
func TestChunkWriterSpills(t *testing.T) {
	sp := testSpill(t, 0)
	rng := rand.New(rand.NewSource(41))
	rows := joinSpillRows(rng, 100000, 1000)
	want := collect(t, newRowsOp(jst, rows, 1000))
	mem := memory.NewMemory(memory.NewMemoryPool(1<<20), 0)
	w, err := NewChunkWriter(jst, mem, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Drain(context.Background(), newRowsOp(jst, rows, 1000)); err != nil {
		t.Fatal(err)
	}
	cs, err := w.Chunks()
	if err != nil {
		t.Fatal(err)
	}
	disk, bytes := 0, int64(0)
	for _, c := range cs {
		if c.OnDisk() {
			disk++
		}
		bytes += c.Bytes
	}
	if disk == 0 || disk == len(cs) || spillFilesLeft(t, sp) != 1 {
		t.Fatalf("%d of %d chunks on disk, %d files; want some of each in one file", disk, len(cs), spillFilesLeft(t, sp))
	}
	if bytes != mem.Used() || bytes > 1<<20 {
		t.Fatalf("chunks in memory hold %d bytes, the account %d", bytes, mem.Used())
	}
	got := collect(t, &ChunkScan{T: jst, Chunks: cs})
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d: %q, want %q", i, got[i], want[i])
		}
	}
	ords := collect(t, &ChunkScan{T: jst, Chunks: cs, Ord: true})
	for i, r := range ords {
		if want := want[i] + "|" + strconv.Itoa(i); r != want {
			t.Fatalf("row %d with its ordinal: %q, want %q", i, r, want)
		}
	}
	// a small last chunk on disk seeds the next writer, which reads it
	last := cs[len(cs)-1]
	w2, err := NewChunkWriter(jst, mem, last)
	if err != nil {
		t.Fatal(err)
	}
	cs2, err := w2.Chunks()
	if err != nil {
		t.Fatal(err)
	}
	if n := (&ChunkScan{Chunks: cs2}).Rows(); n != int64(last.N) {
		t.Fatalf("seeded from a chunk of %d rows: %d", last.N, n)
	}
	for _, c := range append(cs, cs2...) {
		mem.Shrink(c.Bytes)
		c.Drop()
	}
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 || mem.Used() != 0 {
		t.Fatalf("after dropping every chunk: %d files, %d bytes of temp space, %d of memory", n, sp.Used(), mem.Used())
	}
	w3, err := NewChunkWriter(jst, mem, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w3.Drain(context.Background(), newRowsOp(jst, rows, 1000)); err != nil {
		t.Fatal(err)
	}
	w3.Abort()
	if n := spillFilesLeft(t, sp); n != 0 || sp.Used() != 0 || mem.Used() != 0 {
		t.Fatalf("after Abort: %d files, %d bytes of temp space, %d of memory", n, sp.Used(), mem.Used())
	}
}
