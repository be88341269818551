package exec

import (
	"context"
	"sort"

	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/storage"
	"github.com/lakepg/lakepg/types"
)

// RowIDFieldID is the field id of DuckLake's embedded row-id column.
const RowIDFieldID = 2147483540

// ScanCol is one table column as the scan reads it.
type ScanCol struct {
	FieldID int32
	Name    string
	T       types.T
	Default *vec.Vector // DuckLake initial_default for files without the column
}

// ScanFile is one data file of a table with its deletes.
type ScanFile struct {
	Path       string
	Size       int64
	RowIDStart int64
	DeletePath string
	DeleteSize int64
}

// TableScan reads a table's data files at a snapshot: only needed columns,
// row groups pruned by Keep, positional deletes applied. With WithPos it
// appends three BIGINT columns: file ordinal, row position and row id.
type TableScan struct {
	Store       storage.Backend
	Snapshot    int64
	Label       string
	Files       []ScanFile
	FilesPruned int
	Cols        []ScanCol
	Needed      []bool
	WithPos     bool
	Keep        func(rg int, ranges []parquetio.Range) bool

	RowGroupsScanned, RowGroupsPruned int

	fi      int
	file    storage.File
	pf      *parquetio.File
	sc      *parquetio.Scanner
	proj    []parquetio.Projection
	projCol []int // scan column of each projection entry (-1 = row id)
	dels    []int64
	buf     *vec.Batch
	out     *vec.Batch
	nulls   map[types.T]*vec.Vector
	sel     []int
}

// Types are the output column types.
func (t *TableScan) Types() []types.T {
	ts := make([]types.T, 0, len(t.Cols)+3)
	for _, c := range t.Cols {
		ts = append(ts, c.T)
	}
	if t.WithPos {
		ts = append(ts, types.Int64T, types.Int64T, types.Int64T)
	}
	return ts
}

func (t *TableScan) needed(i int) bool { return t.Needed == nil || t.Needed[i] }

func (t *TableScan) closeFile() {
	if t.sc != nil {
		t.RowGroupsScanned += t.sc.RowGroupsScanned()
		t.RowGroupsPruned += t.sc.RowGroupsPruned()
	}
	if t.file != nil {
		t.file.Close()
	}
	t.file, t.pf, t.sc = nil, nil, nil
}

// Close releases the open file.
func (t *TableScan) Close() error {
	t.closeFile()
	return nil
}

func storageErr(err error, path string) error {
	if _, ok := pgerr.As(err); ok {
		return err
	}
	return pgerr.Wrap(pgerr.IOError, err, "could not read file \"%s\"", path)
}

func (t *TableScan) openNext(ctx context.Context) (bool, error) {
	t.closeFile()
	if t.fi >= len(t.Files) {
		return false, nil
	}
	f := t.Files[t.fi]
	file, err := t.Store.Open(ctx, f.Path)
	if err != nil {
		return false, storageErr(err, f.Path)
	}
	pf, err := parquetio.Open(file, file.Size())
	if err != nil {
		file.Close()
		return false, storageErr(err, f.Path)
	}
	t.file, t.pf = file, pf
	t.dels = t.dels[:0]
	if f.DeletePath != "" {
		df, err := t.Store.Open(ctx, f.DeletePath)
		if err != nil {
			return false, storageErr(err, f.DeletePath)
		}
		pos, err := parquetio.ReadDeletePositions(df, df.Size(), t.Snapshot)
		df.Close()
		if err != nil {
			return false, storageErr(err, f.DeletePath)
		}
		t.dels = append(t.dels, pos...)
		sort.Slice(t.dels, func(a, b int) bool { return t.dels[a] < t.dels[b] })
	}
	t.proj = t.proj[:0]
	t.projCol = t.projCol[:0]
	for i, c := range t.Cols {
		if !t.needed(i) {
			continue
		}
		t.proj = append(t.proj, parquetio.Projection{FieldID: c.FieldID, Name: c.Name, Pos: i, Type: c.T, Default: c.Default})
		t.projCol = append(t.projCol, i)
	}
	if t.WithPos && pf.HasField(RowIDFieldID) {
		t.proj = append(t.proj, parquetio.Projection{FieldID: RowIDFieldID, Name: "_ducklake_internal_row_id", Type: types.Int64T})
		t.projCol = append(t.projCol, -1)
	}
	ts := make([]types.T, len(t.proj))
	for i, p := range t.proj {
		ts[i] = p.Type
	}
	t.buf = vec.NewBatch(ts, vec.BatchSize)
	var keep func(int, []parquetio.Range) bool
	if t.Keep != nil {
		keep = t.Keep
	}
	t.sc = pf.Scan(t.proj, parquetio.ScanOptions{Keep: keep})
	t.fi++
	return true, nil
}

func (t *TableScan) nullVec(ty types.T, n int) *vec.Vector {
	if t.nulls == nil {
		t.nulls = map[types.T]*vec.Vector{}
	}
	v := t.nulls[ty]
	if v == nil || v.Len() < n {
		v = vec.New(ty, vec.BatchSize)
		for i := 0; i < max(n, vec.BatchSize); i++ {
			v.AppendNull()
		}
		t.nulls[ty] = v
	}
	return v.Slice(0, n)
}

// Next returns the next batch of visible rows.
func (t *TableScan) Next(ctx context.Context) (*vec.Batch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
		}
		if t.sc == nil {
			ok, err := t.openNext(ctx)
			if err != nil || !ok {
				return nil, err
			}
		}
		rowStart, ok, err := t.sc.Next(t.buf)
		if err != nil {
			return nil, storageErr(err, t.Files[t.fi-1].Path)
		}
		if !ok {
			t.closeFile()
			continue
		}
		n := t.buf.N
		if n == 0 {
			continue
		}
		// positions surviving deletes
		t.sel = t.sel[:0]
		if len(t.dels) > 0 {
			k := sort.Search(len(t.dels), func(i int) bool { return t.dels[i] >= rowStart })
			for i := 0; i < n; i++ {
				pos := rowStart + int64(i)
				for k < len(t.dels) && t.dels[k] < pos {
					k++
				}
				if k < len(t.dels) && t.dels[k] == pos {
					continue
				}
				t.sel = append(t.sel, i)
			}
			if len(t.sel) == 0 {
				continue
			}
		}
		all := len(t.dels) == 0 || len(t.sel) == n
		outN := n
		if !all {
			outN = len(t.sel)
		}
		out := &vec.Batch{N: outN, Vecs: make([]*vec.Vector, len(t.Cols), len(t.Cols)+3)}
		var rowIDs *vec.Vector
		for p, c := range t.projCol {
			src := t.buf.Vecs[p]
			if !all {
				g := vec.New(src.Type, outN)
				g.Gather(src, t.sel)
				src = g
			}
			if c < 0 {
				rowIDs = src
				continue
			}
			out.Vecs[c] = src
		}
		for i, c := range t.Cols {
			if out.Vecs[i] == nil {
				out.Vecs[i] = t.nullVec(c.T, outN)
			}
		}
		if t.WithPos {
			f := t.Files[t.fi-1]
			fileV, posV := vec.New(types.Int64T, outN), vec.New(types.Int64T, outN)
			ridV := rowIDs
			if ridV == nil {
				ridV = vec.New(types.Int64T, outN)
			}
			for k := 0; k < outN; k++ {
				i := k
				if !all {
					i = t.sel[k]
				}
				pos := rowStart + int64(i)
				fileV.I64 = append(fileV.I64, int64(t.fi-1))
				posV.I64 = append(posV.I64, pos)
				if rowIDs == nil {
					ridV.I64 = append(ridV.I64, f.RowIDStart+pos)
				}
			}
			out.Vecs = append(out.Vecs, fileV, posV, ridV)
		}
		return out, nil
	}
}
