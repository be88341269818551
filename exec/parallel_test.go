package exec

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/storage"
	"github.com/lakepg/lakepg/types"
)

// scanFixture writes files of rows (id BIGINT, g BIGINT = id % 7, s TEXT)
// with small row groups, deleting every 10th row of the second file.
func scanFixture(t testing.TB, files, rowsPerFile, rowGroup int) (storage.Backend, []ScanFile, int) {
	t.Helper()
	ctx := context.Background()
	store := storage.NewLocal()
	dir := t.TempDir()
	cols := []parquetio.Column{{FieldID: 1, Name: "id", Type: types.Int64T}, {FieldID: 2, Name: "g", Type: types.Int64T}, {FieldID: 3, Name: "s", Type: types.TextT}}
	var out []ScanFile
	live := 0
	id := int64(0)
	for f := 0; f < files; f++ {
		path := filepath.Join(dir, fmt.Sprintf("f%d.parquet", f))
		w, err := store.Create(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		pw, err := parquetio.NewWriter(w, cols, parquetio.WriterOptions{RowGroupRows: rowGroup})
		if err != nil {
			t.Fatal(err)
		}
		b := vec.NewBatch([]types.T{types.Int64T, types.Int64T, types.TextT}, vec.BatchSize)
		for r := 0; r < rowsPerFile; r++ {
			b.Vecs[0].AppendInt(id)
			b.Vecs[1].AppendInt(id % 7)
			if id%5 == 0 {
				b.Vecs[2].AppendNull()
			} else {
				b.Vecs[2].AppendString(fmt.Sprintf("s%d", id%13))
			}
			b.N++
			id++
			if b.N == vec.BatchSize || r == rowsPerFile-1 {
				if err := pw.Write(b); err != nil {
					t.Fatal(err)
				}
				b.Reset()
			}
		}
		if _, err := pw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		sf := ScanFile{Path: path}
		live += rowsPerFile
		if f == 1 {
			var dels []int64
			for p := int64(0); p < int64(rowsPerFile); p += 10 {
				dels = append(dels, p)
			}
			wf, err := WriteDeletes(ctx, store, dir+"/", path, dels, false)
			if err != nil {
				t.Fatal(err)
			}
			sf.DeletePath = wf.Path
			live -= len(dels)
		}
		out = append(out, sf)
	}
	return store, out, live
}

func newFixtureScan(store storage.Backend, files []ScanFile) *TableScan {
	return &TableScan{Store: store, Snapshot: 1, Files: files, Cols: []ScanCol{
		{FieldID: 1, Name: "id", T: types.Int64T}, {FieldID: 2, Name: "g", T: types.Int64T}, {FieldID: 3, Name: "s", T: types.TextT}}}
}

func TestParallelScanMatchesSerial(t *testing.T) {
	store, files, live := scanFixture(t, 3, 5000, 700)
	serial := collect(t, newFixtureScan(store, files))
	if len(serial) != live {
		t.Fatalf("serial scan: %d rows, want %d", len(serial), live)
	}
	for _, workers := range []int{1, 2, 4} {
		scan := newFixtureScan(store, files)
		p := &Parallel{Scan: scan, Workers: workers}
		sameRows(t, fmt.Sprintf("parallel scan, %d workers", workers), collect(t, p), serial)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if scan.RowGroupsScanned != 3*8 {
			t.Errorf("%d row groups scanned, want 24", scan.RowGroupsScanned)
		}
	}
	// a pipeline per worker: filter then project
	p := &Parallel{Scan: newFixtureScan(store, files), Workers: 3, Build: func(w int, src Operator) Operator {
		f := &Filter{Env: env, Input: src, Pred: &Cmp{Op: EQ, L: col(1, types.Int64T), R: NewConst(ints(types.Int64T, 3))}}
		return &Project{Env: env, Input: f, Exprs: []Expr{col(0, types.Int64T), col(2, types.TextT)}}
	}}
	var want []string
	for _, r := range serial {
		var id, g int64
		var s string
		fmt.Sscanf(r, "%d|%d|%s", &id, &g, &s)
		if g == 3 {
			want = append(want, fmt.Sprintf("%d|%s", id, s))
		}
	}
	sameRows(t, "parallel filter+project", collect(t, p), want)
	p.Close()
}

func TestParallelProbeWithSharedBuild(t *testing.T) {
	store, files, _ := scanFixture(t, 3, 5000, 700)
	// build: g -> name for g in 0..5 (6 has no match), twice for g = 2
	bt := []types.T{types.Int64T, types.TextT}
	brows := [][]any{{0, "zero"}, {1, "one"}, {2, "two"}, {2, "deux"}, {3, "three"}, {4, "four"}, {5, "five"}, {nil, "null"}}
	for _, typ := range []JoinType{JoinInner, JoinLeft, JoinSemi, JoinAnti, JoinRight, JoinFull, JoinRightSemi, JoinRightAnti} {
		serial := &HashJoin{Env: env, Left: newFixtureScan(store, files), Right: newRowsOp(bt, brows, 3),
			LeftKeys: []Expr{col(1, types.Int64T)}, RightKeys: []Expr{col(0, types.Int64T)}, Type: typ}
		want := collect(t, serial)
		serial.Close()
		right := newRowsOp(bt, brows, 3)
		shared := &SharedBuild{Env: env, Right: right, RightKeys: []Expr{col(0, types.Int64T)}, KeyTypes: []types.T{types.Int64T}}
		p := &Parallel{Scan: newFixtureScan(store, files), Workers: 3, Build: func(w int, src Operator) Operator {
			shared.Probes++ // as the planner counts them
			return &HashJoin{Env: env, Left: src, Shared: shared, LeftKeys: []Expr{col(1, types.Int64T)}, Type: typ}
		}}
		sameRows(t, "shared build "+typ.String(), collect(t, p), want)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if !right.Closed {
			t.Error("shared build side not closed")
		}
	}
}

func TestParallelEarlyClose(t *testing.T) {
	store, files, _ := scanFixture(t, 3, 5000, 700)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p := &Parallel{Scan: newFixtureScan(store, files), Workers: 3}
		l := &Limit{Input: p, Count: 10}
		if got := collect(t, l); len(got) != 10 {
			t.Errorf("limit over parallel: %d rows", len(got))
		}
		l.Close()
		// cancelled context: workers stop
		ctx, cancel := context.WithCancel(context.Background())
		p = &Parallel{Scan: newFixtureScan(store, files), Workers: 2}
		if _, err := p.Next(ctx); err != nil {
			t.Error(err)
		}
		cancel()
		for {
			b, err := p.Next(ctx)
			if err != nil {
				if pgerr.Code(err) != pgerr.QueryCanceled {
					t.Errorf("after cancel: %v", err)
				}
				break
			}
			if b == nil {
				break
			}
		}
		p.Close()
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("parallel scan did not stop")
	}
}

// TestScanCountsReaderBuffers: a scan's Parquet readers' buffers (chunks,
// pages, dictionaries) are counted in the statement's account while a file
// is open, and given back when the scan ends.
func TestScanCountsReaderBuffers(t *testing.T) {
	store, files, live := scanFixture(t, 2, 5000, 700)
	for _, workers := range []int{0, 2} {
		pool := memory.NewMemoryPool(1 << 30)
		mem := memory.NewMemory(pool, 0)
		ctx := memory.WithQueryMemory(context.Background(), mem)
		var op Operator = newFixtureScan(store, files)
		if workers > 0 {
			op = &Parallel{Scan: newFixtureScan(store, files), Workers: workers}
		}
		rows, peak := 0, int64(0)
		for {
			b, err := op.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				break
			}
			rows += b.N
			peak = max(peak, mem.Used())
		}
		if rows != live {
			t.Fatalf("workers %d: %d rows, want %d", workers, rows, live)
		}
		// a 700-row group of three columns is a few kilobytes of chunks and
		// pages, the text column's values alone 700 × 8 bytes or more
		if peak < 5000 {
			t.Errorf("workers %d: the account held at most %d bytes while scanning", workers, peak)
		}
		op.Close()
		if mem.Used() != 0 || pool.Used() != 0 {
			t.Errorf("workers %d: after Close the account holds %d, the pool %d", workers, mem.Used(), pool.Used())
		}
	}
	// a pool too small for the buffers: the scan runs, counting nothing
	// (a scan cannot spill; it leaves the pool to operators that can)
	pool := memory.NewMemoryPool(4 << 10)
	mem := memory.NewMemory(pool, 0)
	ctx := memory.WithQueryMemory(context.Background(), mem)
	op := newFixtureScan(store, files)
	rows := 0
	for {
		b, err := op.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		rows += b.N
	}
	op.Close()
	if rows != live || mem.Peak() != 0 {
		t.Errorf("4 KiB pool: %d rows (want %d), %d bytes counted (want none)", rows, live, mem.Peak())
	}
}
