package sql

import (
	"context"
	"encoding/binary"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/datafile"
	"github.com/lakepg/lakepg/sql/partitioning"
	"github.com/lakepg/lakepg/storage"
)

// Writing a partitioned table: rows are split by their partition values
// into one Parquet file per value set, each in DuckDB's hive directory
// under the table's (year=2024/month=3/ducklake-<uuid>.parquet), in the
// order the value sets first appear. The catalog gets the file's
// partition_id and one ducklake_file_partition_value row per key.

// Open files buffer up to a row group each; these bound how many stay open
// and how many rows they buffer together. A partition whose file is closed
// early continues in a new file.
const (
	maxOpenPartitionFiles  = 32
	maxBufferedPartitioned = 1 << 20 // rows
)

// tableWrite is what a statement wrote into one table's directory.
type tableWrite struct {
	files  []writtenPart
	specID *int64 // the partition spec the files were split by (nil: none)
	rows   int64
}

type writtenPart struct {
	*exec.WrittenFile
	values []*string // partition values by key (nil when unpartitioned)
	// src are the 0-based ordinals, in the writer's input, of the file's
	// rows in file order; only when the writer was asked to track them.
	src []int64
}

// dataFiles describes the written files for the commit.
func (tw *tableWrite) dataFiles(cols []exec.ScanCol, rowIDs bool) []snapshot.NewDataFile {
	out := make([]snapshot.NewDataFile, 0, len(tw.files))
	for _, f := range tw.files {
		df := datafile.NewDataFile(f.WrittenFile, cols, rowIDs)
		if tw.specID != nil {
			df.Partition = &snapshot.FilePartition{SpecID: *tw.specID, Values: f.values}
		}
		out = append(out, df)
	}
	return out
}

// remove deletes the written files (the statement failed).
func (tw *tableWrite) remove(ctx context.Context, store storage.Backend) {
	for _, f := range tw.files {
		if f.Path != "" {
			if store.Delete(context.WithoutCancel(ctx), f.Path) == nil {
				inflight.Release(f.Path) // inflight.go
			}
		}
	}
}

// sameSpec reports whether table t (as the commit sees it) is still split
// by the spec the files were written under.
func (tw *tableWrite) sameSpec(t *catalog.Table) bool {
	if !t.Partition.Partitioned() {
		return tw.specID == nil
	}
	return tw.specID != nil && *tw.specID == t.Partition.ID
}

// writeTableFiles streams op into table t's directory: one file, or one per
// partition when t is partitioned. pcols are the file's columns; the
// table's columns come first, in order (UPDATE appends the row id).
func (s *Session) writeTableFiles(ctx context.Context, sch *catalog.Schema, t *catalog.Table, pcols []parquetio.Column, op exec.Operator, check func(*vec.Batch) error) (*tableWrite, error) {
	dir := s.eng.DB.TableDir(sch, t)
	opt, err := s.tl.WriterOptions(ctx, sch.ID, t.ID)
	if err != nil {
		return nil, err
	}
	op, sorted, err := s.tl.SortedInput(ctx, t, pcols, op) // sql/tablelayout
	if err != nil {
		return nil, err
	}
	defer sorted()
	if !t.Partition.Partitioned() {
		w, err := exec.WriteParquet(ctx, s.writeStore(), dir, pcols, op, check, opt)
		if err != nil {
			return nil, err
		}
		tw := &tableWrite{rows: w.Info.Rows}
		if w.Info.Rows > 0 {
			tw.files = []writtenPart{{WrittenFile: w}}
		}
		return tw, nil
	}
	keys, err := partitioning.Keys(t, t.Partition)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if err := k.CheckWritable(t.Columns[k.Col].Name); err != nil {
			return nil, err
		}
	}
	return s.writePartitioned(ctx, dir, t.Partition.ID, keys, pcols, op, check, false, opt)
}

// writePartitioned streams op into dir split by keys (their col fields
// index op's columns), one file per partition under its hive directory.
// With track, each file records which input rows it holds.
func (s *Session) writePartitioned(ctx context.Context, dir string, specID int64, keys []partitioning.Key, pcols []parquetio.Column, op exec.Operator, check func(*vec.Batch) error, track bool, opt parquetio.WriterOptions) (*tableWrite, error) {
	keys = append([]partitioning.Key(nil), keys...)
	for k := range keys {
		keys[k].Loc = s.Loc
	}
	pw := &partWriter{ctx: ctx, store: s.writeStore(), dir: dir, cols: pcols, opt: opt, keys: keys, open: map[string]*partFile{}, track: track}
	err := exec.Drain(ctx, op, func(b *vec.Batch) error {
		if check != nil {
			if err := check(b); err != nil {
				return err
			}
		}
		return pw.write(b)
	})
	if err == nil {
		err = pw.finish()
	}
	if err != nil {
		pw.abort()
		return nil, err
	}
	tw := &tableWrite{specID: &specID}
	for _, f := range pw.files {
		tw.files = append(tw.files, writtenPart{WrittenFile: &exec.WrittenFile{Path: f.path, Name: f.rel, Info: f.info}, values: f.values, src: f.src})
		tw.rows += f.info.Rows
	}
	return tw, nil
}

// partWriter routes rows to one open file per partition.
type partWriter struct {
	ctx   context.Context
	store storage.Backend
	dir   string
	cols  []parquetio.Column
	opt   parquetio.WriterOptions
	keys  []partitioning.Key
	open  map[string]*partFile // by routing key
	files []*partFile          // every file, in order of creation
	key   []byte
	val   []byte
	hit   []*partFile // files with rows in the current batch
	track bool        // record each file's input row ordinals (src)
	seen  int64       // input rows before the current batch
}

type partFile struct {
	key      string
	values   []*string
	rel      string // hive directory + file name, relative to the table
	path     string
	w        storage.Writer
	pw       *parquetio.Writer
	info     parquetio.FileInfo
	rows     int64
	sel      []int // rows of the current batch
	src      []int64
	finished bool
}

// routeKey appends row i's partition values, length-prefixed, NULL marked.
func (p *partWriter) routeKey(b *vec.Batch, i int) []byte {
	p.key = p.key[:0]
	for k := range p.keys {
		var null bool
		p.val, null = p.keys[k].Value(p.val[:0], b.Vecs[p.keys[k].Col], i)
		if null {
			p.key = append(p.key, 0)
			continue
		}
		p.key = append(p.key, 1)
		p.key = binary.AppendUvarint(p.key, uint64(len(p.val)))
		p.key = append(p.key, p.val...)
	}
	return p.key
}

func (p *partWriter) write(b *vec.Batch) error {
	p.hit = p.hit[:0]
	for i := 0; i < b.N; i++ {
		f := p.open[string(p.routeKey(b, i))]
		if f == nil {
			var err error
			if f, err = p.create(b, i); err != nil {
				return err
			}
		}
		if len(f.sel) == 0 {
			p.hit = append(p.hit, f)
		}
		f.sel = append(f.sel, i)
		if p.track {
			f.src = append(f.src, p.seen+int64(i))
		}
	}
	p.seen += int64(b.N)
	for _, f := range p.hit {
		sub := &vec.Batch{Vecs: make([]*vec.Vector, len(b.Vecs)), N: len(f.sel)}
		for c, v := range b.Vecs {
			nv := vec.New(v.Type, len(f.sel))
			nv.Gather(v, f.sel)
			sub.Vecs[c] = nv
		}
		f.sel = f.sel[:0]
		if err := f.pw.Write(sub); err != nil {
			return err
		}
		f.rows += int64(sub.N)
	}
	return p.limit()
}

// create opens the file for row i's partition.
func (p *partWriter) create(b *vec.Batch, i int) (*partFile, error) {
	f := &partFile{key: string(p.key)}
	for k := range p.keys {
		v, null := p.keys[k].Value(nil, b.Vecs[p.keys[k].Col], i)
		if null {
			f.values = append(f.values, nil)
			continue
		}
		s := string(v)
		f.values = append(f.values, &s)
	}
	f.rel = partitioning.HivePath(p.keys, f.values) + exec.NewFileName("")
	f.path = p.dir + f.rel
	w, err := p.store.Create(p.ctx, f.path)
	if err != nil {
		return nil, pgerr.Wrap(pgerr.IOError, err, "could not create file \"%s\"", f.path)
	}
	pw, err := parquetio.NewWriter(w, p.cols, p.opt)
	if err != nil {
		w.Abort()
		return nil, err
	}
	f.w, f.pw = w, pw
	p.open[f.key] = f
	p.files = append(p.files, f)
	return f, nil
}

// limit closes files while too many are open or buffer too many rows: the
// one buffering most goes first (its partition continues in a new file).
func (p *partWriter) limit() error {
	for {
		var buffered int64
		var big *partFile
		for _, f := range p.open {
			n := f.rows % parquetio.DefaultRowGroupRows
			buffered += n
			if big == nil || n > big.rows%parquetio.DefaultRowGroupRows {
				big = f
			}
		}
		if big == nil || (len(p.open) <= maxOpenPartitionFiles && buffered <= maxBufferedPartitioned) {
			return nil
		}
		if err := p.close(big); err != nil {
			return err
		}
	}
}

func (p *partWriter) close(f *partFile) error {
	delete(p.open, f.key)
	info, err := f.pw.Close()
	if err != nil {
		return err
	}
	f.info = info
	if err := f.w.Commit(); err != nil {
		return pgerr.Wrap(pgerr.IOError, err, "could not write file \"%s\"", f.path)
	}
	f.finished = true
	return nil
}

func (p *partWriter) finish() error {
	for _, f := range p.files {
		if !f.finished {
			if err := p.close(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// abort drops unfinished files and deletes finished ones.
func (p *partWriter) abort() {
	for _, f := range p.files {
		if f.finished {
			p.store.Delete(context.WithoutCancel(p.ctx), f.path)
		} else {
			f.w.Abort()
		}
	}
}
