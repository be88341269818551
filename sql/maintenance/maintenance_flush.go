package maintenance

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/lakepg/lakepg/sql/planner"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/datafile"
	"github.com/lakepg/lakepg/sql/partitioning"
	"github.com/lakepg/lakepg/types"
)

// activeSQLTransaction is SQLSTATE 25001.
const activeSQLTransaction = "25001"

// TableWrite is what writing rows of a table produced (package sql's
// tableWrite, as Host.WritePartitioned hands it over).
type TableWrite struct {
	Files  []WrittenPart
	SpecID *int64 // the partition spec the files were split by (nil: none)
	Rows   int64
}

// WrittenPart is one file of a TableWrite.
type WrittenPart struct {
	*exec.WrittenFile
	Values []*string // partition values by key (nil when unpartitioned)
	// Src are the 0-based ordinals, in the writer's input, of the file's
	// rows in file order; only when the writer was asked to track them.
	Src []int64
}

func (s *Runner) callFlush(ctx context.Context, a *planner.CallArgs) (string, error) {
	if err := a.Check("flush_inlined_data", 1, "table_name", "schema", "schema_name", "dry_run"); err != nil {
		return "", err
	}
	s.LockWrites()
	defer s.WriteMu().Unlock()
	head, sels, dry, err := s.maintTargets(ctx, a)
	if err != nil {
		return "", err
	}
	if dry {
		return s.planFlush(ctx, head, sels)
	}
	// every table's files are written first and committed together: one
	// snapshot for the whole flush, as DuckDB makes
	var written []*exec.WrittenFile
	cleanup := func() {
		for _, w := range written {
			s.WriteStore().Delete(context.WithoutCancel(ctx), w.Path)
		}
	}
	var flushes []snapshot.TableFlush
	rows := 0
	for _, sel := range sels {
		tf, n, ws, err := s.flushTable(ctx, head, sel)
		written = append(written, ws...)
		if err != nil {
			cleanup()
			return "", err
		}
		if tf != nil {
			flushes = append(flushes, *tf)
			rows += n
		}
	}
	if len(flushes) > 0 {
		if _, err := snapshot.FlushInlined(context.WithoutCancel(ctx), s.DB, head, flushes); err != nil {
			cleanup()
			return "", err
		}
	}
	s.Settled(datafile.FilePaths(written...)...) // package sql's inflight.go
	return fmt.Sprintf("flush_inlined_data: flushed %d inlined rows of %d tables", rows, len(flushes)), nil
}

// flushTable writes the table's inlined rows (each inlined-data table into
// Parquet files with embedded row ids and snapshot ids, already deleted
// rows into a delete file with the snapshots that deleted them) and folds
// its inlined file deletes into delete files, for the flush's commit. It
// returns the table's part of the commit (nil when there is nothing to
// flush), the number of rows flushed and the files written.
func (s *Runner) flushTable(ctx context.Context, head catalog.Snapshot, sel tableSel) (*snapshot.TableFlush, int, []*exec.WrittenFile, error) {
	db := s.DB
	regs, err := db.InlinedTables(ctx, sel.t.ID)
	if err != nil {
		return nil, 0, nil, err
	}
	dir := db.TableDir(sel.sch, sel.t)
	var written []*exec.WrittenFile
	var flushed []snapshot.FlushedTable
	nrows := 0
	for _, reg := range regs {
		ft, ws, n, err := s.flushInlinedTable(ctx, head, sel, dir, reg)
		written = append(written, ws...)
		if err != nil {
			return nil, 0, written, err
		}
		if ft != nil {
			flushed = append(flushed, *ft)
			nrows += n
		}
	}
	folded, ws, err := s.foldInlinedDeletes(ctx, head, sel, dir)
	written = append(written, ws...)
	if err != nil {
		return nil, 0, written, err
	}
	if len(flushed) == 0 && len(folded) == 0 {
		return nil, 0, written, nil
	}
	return &snapshot.TableFlush{Table: *sel.t, Dir: dir, Tables: flushed, Folded: folded}, nrows, written, nil
}

// LayoutAt is table t's top-level columns as the inlined-data table of
// schema version sv lays them out (catalog.LayoutSnapshot), or its current
// layout when the catalog cannot tell. The snapshot found may have been
// expired: the catalog is loaded at its id directly, not through the cache
// of live snapshots.
func (s *Runner) LayoutAt(ctx context.Context, t *catalog.Table, sv int64) (*catalog.Table, error) {
	id, ok, err := s.DB.LayoutSnapshot(ctx, t.ID, sv)
	if err != nil || !ok {
		return t, err
	}
	m, err := s.DB.Load(ctx, catalog.Snapshot{ID: id})
	if err != nil {
		return nil, err
	}
	if old, ok := m.TableByID(t.ID); ok {
		return old, nil
	}
	return t, nil
}

func (s *Runner) flushInlinedTable(ctx context.Context, head catalog.Snapshot, sel tableSel, dir string, reg catalog.InlinedTable) (*snapshot.FlushedTable, []*exec.WrittenFile, int, error) {
	names, rows, err := snapshot.ReadInlinedRows(ctx, s.DB, reg.Name, head.ID)
	if err != nil || len(rows) == 0 {
		return nil, nil, 0, err
	}
	layout, err := s.LayoutAt(ctx, sel.t, reg.SchemaVersion)
	if err != nil {
		return nil, nil, 0, err
	}
	cols, err := planner.ScanColumns(layout)
	if err != nil {
		return nil, nil, 0, err
	}
	src := make([]int, len(cols)) // value column of each layout column, -1 when absent
	for i, c := range cols {
		src[i] = -1
		for j, n := range names {
			if n == c.Name {
				src[i] = j
			}
		}
	}
	out := withReserved(cols, true)
	ts := planner.TypesOf(out)
	var batches []*vec.Batch
	var b *vec.Batch
	ft := &snapshot.FlushedTable{InlinedTable: reg.Name}
	for pos, r := range rows {
		if b == nil || b.N == vec.BatchSize {
			b = vec.NewBatch(ts, min(len(rows)-pos, vec.BatchSize))
			batches = append(batches, b)
		}
		for i, c := range cols {
			v := b.Vecs[i]
			switch j := src[i]; {
			case j >= 0:
				if err := planner.AppendCatalogValue(v, r.Values[j]); err != nil {
					return nil, nil, 0, pgerr.Wrap(pgerr.DataCorrupted, err, "inlined data table %s, row_id %d, column %s", reg.Name, r.RowID, c.Name)
				}
			case c.Default != nil:
				v.AppendFrom(c.Default, 0)
			default:
				v.AppendNull()
			}
		}
		b.Vecs[len(cols)].AppendInt(r.RowID)
		b.Vecs[len(cols)+1].AppendInt(r.Begin)
		b.N++
		ft.RowIDs = append(ft.RowIDs, r.RowID)
	}
	// in the table's sort order, as every other write of it
	if batches, rows, err = s.sortFlushed(ctx, sel.t, out, ts, len(cols), batches, rows); err != nil {
		return nil, nil, 0, err
	}
	// one file, or one per partition as DuckDB's flush writes them
	tw, err := s.writeFlushed(ctx, sel.t, dir, cols, datafile.ParquetColumns(out), &batchesOp{bs: batches, ts: ts})
	if err != nil {
		return nil, nil, 0, err
	}
	var written []*exec.WrittenFile
	for _, f := range tw.Files {
		written = append(written, f.WrittenFile)
	}
	for _, f := range tw.Files {
		ff, dw, err := s.flushedFile(ctx, dir, out, rows, tw, f)
		if dw != nil {
			written = append(written, dw)
		}
		if err != nil {
			return nil, written, 0, err
		}
		ft.Files = append(ft.Files, ff)
	}
	return ft, written, len(rows), nil
}

// sortFlushed puts flushed rows (batches, and rows, whose row ids are
// column rowIDCol of the batches) in table t's sort order, if it has one.
// rows is reordered alike, as the files' positions index it (deletes,
// partitions).
func (s *Runner) sortFlushed(ctx context.Context, t *catalog.Table, out []exec.ScanCol, ts []types.T, rowIDCol int, batches []*vec.Batch, rows []snapshot.InlinedRow) ([]*vec.Batch, []snapshot.InlinedRow, error) {
	src := &batchesOp{bs: batches, ts: ts}
	in, done, err := s.SortedInput(ctx, t, datafile.ParquetColumns(out), src) // sql/tablelayout
	if err != nil {
		return nil, nil, err
	}
	defer done()
	if in == exec.Operator(src) {
		return batches, rows, nil
	}
	byID := make(map[int64]int, len(rows))
	for i, r := range rows {
		byID[r.RowID] = i
	}
	sorted := make([]snapshot.InlinedRow, 0, len(rows))
	var outB []*vec.Batch
	for {
		b, err := in.Next(ctx)
		if err != nil {
			return nil, nil, err
		}
		if b == nil {
			break
		}
		// the sort's batches are its own, reused: copy them
		nb := vec.NewBatch(ts, b.N)
		for c := range ts {
			for i := 0; i < b.N; i++ {
				nb.Vecs[c].AppendFrom(b.Vecs[c], i)
			}
		}
		nb.N = b.N
		outB = append(outB, nb)
		for i := 0; i < b.N; i++ {
			sorted = append(sorted, rows[byID[b.Vecs[rowIDCol].I64[i]]])
		}
	}
	if len(sorted) != len(rows) {
		return nil, nil, fmt.Errorf("sql: sorting %d flushed rows gave %d", len(rows), len(sorted))
	}
	return outB, sorted, nil
}

// flushedFile describes file f of flushed inlined rows for the commit: it
// begins at its rows' earliest snapshot, embeds their snapshots up to the
// latest (partial_max) and their row ids from the smallest; rows already
// deleted go into a delete file with the snapshots that deleted them.
func (s *Runner) flushedFile(ctx context.Context, dir string, out []exec.ScanCol, rows []snapshot.InlinedRow, tw *TableWrite, f WrittenPart) (snapshot.FlushedFile, *exec.WrittenFile, error) {
	src := f.Src
	if src == nil { // unpartitioned: every row, in order
		src = make([]int64, len(rows))
		for i := range src {
			src[i] = int64(i)
		}
	}
	first := rows[src[0]]
	minS, maxS, minRow := first.Begin, first.Begin, first.RowID
	var dels []snapshot.DeletedPos
	for pos, i := range src {
		r := rows[i]
		minS, maxS, minRow = min(minS, r.Begin), max(maxS, r.Begin), min(minRow, r.RowID)
		if r.End != nil {
			dels = append(dels, snapshot.DeletedPos{Pos: int64(pos), Snapshot: *r.End})
		}
	}
	w := f.WrittenFile
	nf := snapshot.NewDataFile{RelPath: w.Name, RecordCount: w.Info.Rows, FileSize: w.Info.Size, FooterSize: w.Info.FooterSize, RowGroupCount: w.Info.RowGroups, Stats: dataStats(out, w), EmbeddedRowIDs: true, EncryptionKey: w.KeyText()}
	if tw.SpecID != nil {
		nf.Partition = &snapshot.FilePartition{SpecID: *tw.SpecID, Values: f.Values}
	}
	ff := snapshot.FlushedFile{File: snapshot.NewFile{NewDataFile: nf, BeginSnapshot: minS, PartialMax: maxS, RowIDStart: &minRow}}
	if len(dels) == 0 {
		return ff, nil, nil
	}
	d, dw, err := s.WriteDeletesAt(ctx, dir, w.Path, dels)
	if err != nil {
		return ff, nil, err
	}
	ff.Deletes = &d
	return ff, dw, nil
}

// writeFlushed writes flushed rows (the layout's columns cols, then the
// reserved ones) of table t: split by t's partition keys when it has them
// and lakepg can compute them from these columns, else into one file. An
// unpartitioned file is valid under any spec; it is only not pruned by
// partition values.
func (s *Runner) writeFlushed(ctx context.Context, t *catalog.Table, dir string, cols []exec.ScanCol, pcols []parquetio.Column, op exec.Operator) (*TableWrite, error) {
	opt, err := s.WriterOptions(ctx, t.SchemaID, t.ID)
	if err != nil {
		return nil, err
	}
	if keys, ok := flushKeys(t, cols); ok {
		return s.WritePartitioned(ctx, dir, t.Partition.ID, keys, pcols, op, nil, true, opt)
	}
	w, err := exec.WriteParquet(ctx, s.WriteStore(), dir, pcols, op, nil, opt)
	if err != nil {
		return nil, err
	}
	tw := &TableWrite{Rows: w.Info.Rows}
	if w.Info.Rows > 0 {
		tw.Files = []WrittenPart{{WrittenFile: w}}
	}
	return tw, nil
}

// flushKeys resolves t's partition keys against the columns of an
// inlined-data table's layout (which may be older than t's), by column id.
func flushKeys(t *catalog.Table, cols []exec.ScanCol) ([]partitioning.Key, bool) {
	if !t.Partition.Partitioned() {
		return nil, false
	}
	keys, err := partitioning.Keys(t, t.Partition)
	if err != nil {
		return nil, false
	}
	for i := range keys {
		c := t.Columns[keys[i].Col]
		if keys[i].CheckWritable(c.Name) != nil {
			return nil, false
		}
		at := -1
		for j, sc := range cols {
			if int64(sc.FieldID) == c.ID {
				at = j
			}
		}
		if at < 0 || cols[at].T.ID != keys[i].T.ID {
			return nil, false
		}
		keys[i].Col = at
	}
	return keys, true
}

// batchesOp emits batches held in memory.
type batchesOp struct {
	bs []*vec.Batch
	ts []types.T
}

func (o *batchesOp) Types() []types.T { return o.ts }
func (o *batchesOp) Close() error     { return nil }
func (o *batchesOp) Next(context.Context) (*vec.Batch, error) {
	if len(o.bs) == 0 {
		return nil, nil
	}
	b := o.bs[0]
	o.bs = o.bs[1:]
	return b, nil
}

// foldInlinedDeletes writes, for each live data file with inlined file
// deletes, one delete file holding them and the positions of the file's
// current delete file, each with the snapshot that deleted it.
func (s *Runner) foldInlinedDeletes(ctx context.Context, head catalog.Snapshot, sel tableSel, dir string) ([]snapshot.FoldedDeletes, []*exec.WrittenFile, error) {
	inl, err := snapshot.InlinedFileDeletes(ctx, s.DB, sel.t.ID, head.ID)
	if err != nil || len(inl) == 0 {
		return nil, nil, err
	}
	files, err := s.DB.Files(ctx, sel.sch, sel.t, head)
	if err != nil {
		return nil, nil, err
	}
	var out []snapshot.FoldedDeletes
	var written []*exec.WrittenFile
	for _, f := range files {
		adds := inl[f.ID]
		if len(adds) == 0 {
			continue
		}
		all := append([]snapshot.DeletedPos(nil), adds...)
		if f.Delete != nil {
			old, err := s.ReadDeletesAt(ctx, f.Delete.Path, f.Delete.BeginSnapshot, f.Delete.EncryptionKey)
			if err != nil {
				return nil, written, err
			}
			all = append(all, old...)
		}
		d, w, err := s.WriteDeletesAt(ctx, dir, f.Path, all)
		if err != nil {
			return nil, written, err
		}
		if d.PartialMax == 0 {
			// DuckDB marks a folded delete file partial even when one
			// snapshot deleted all its rows
			d.PartialMax = d.BeginSnapshot
		}
		written = append(written, w)
		out = append(out, snapshot.FoldedDeletes{Old: f, Positions: int64(len(adds)), File: d})
	}
	return out, written, nil
}

// WriteDeletesAt writes a delete file of dataPath with the snapshot column:
// each position once, with the earliest snapshot that deleted it.
func (s *Runner) WriteDeletesAt(ctx context.Context, dir, dataPath string, dels []snapshot.DeletedPos) (snapshot.NewDeleteFileAt, *exec.WrittenFile, error) {
	sort.Slice(dels, func(i, j int) bool {
		if dels[i].Pos != dels[j].Pos {
			return dels[i].Pos < dels[j].Pos
		}
		return dels[i].Snapshot < dels[j].Snapshot
	})
	dels = slices.CompactFunc(dels, func(a, b snapshot.DeletedPos) bool { return a.Pos == b.Pos })
	cols := []parquetio.Column{
		{FieldID: parquetio.FieldFilePath, Name: "file_path", Type: types.VarcharT},
		{FieldID: parquetio.FieldPos, Name: "pos", Type: types.Int64T},
		{FieldID: parquetio.FieldSnapshotID, Name: "_ducklake_internal_snapshot_id", Type: types.Int64T},
	}
	ts := []types.T{types.VarcharT, types.Int64T, types.Int64T}
	var batches []*vec.Batch
	minS, maxS := dels[0].Snapshot, dels[0].Snapshot
	for lo := 0; lo < len(dels); lo += vec.BatchSize {
		hi := min(lo+vec.BatchSize, len(dels))
		b := vec.NewBatch(ts, hi-lo)
		for _, d := range dels[lo:hi] {
			b.Vecs[0].AppendString(dataPath)
			b.Vecs[1].AppendInt(d.Pos)
			b.Vecs[2].AppendInt(d.Snapshot)
			minS, maxS = min(minS, d.Snapshot), max(maxS, d.Snapshot)
		}
		b.N = hi - lo
		batches = append(batches, b)
	}
	name := exec.NewFileName("-delete")
	path := dir + name
	wr, err := s.WriteStore().Create(ctx, path)
	if err != nil {
		return snapshot.NewDeleteFileAt{}, nil, exec.WriteError(err, path)
	}
	pw, err := parquetio.NewWriter(wr, cols, parquetio.WriterOptions{Encrypt: s.DB.Encrypted()})
	if err != nil {
		wr.Abort()
		return snapshot.NewDeleteFileAt{}, nil, err
	}
	for _, b := range batches {
		if err := pw.Write(b); err != nil {
			wr.Abort()
			return snapshot.NewDeleteFileAt{}, nil, err
		}
	}
	info, err := pw.Close()
	if err != nil {
		wr.Abort()
		return snapshot.NewDeleteFileAt{}, nil, err
	}
	if err := wr.Commit(); err != nil {
		return snapshot.NewDeleteFileAt{}, nil, exec.WriteError(err, path)
	}
	d := snapshot.NewDeleteFileAt{
		NewDeleteFile: snapshot.NewDeleteFile{RelPath: name, DeleteCount: info.Rows, FileSize: info.Size, FooterSize: info.FooterSize, RowGroupCount: info.RowGroups, EncryptionKey: (&exec.WrittenFile{Info: info}).KeyText()},
		BeginSnapshot: minS,
	}
	if maxS > minS {
		d.PartialMax = maxS
	}
	return d, &exec.WrittenFile{Path: path, Name: name, Info: info}, nil
}

// ReadDeletesAt reads every position of a delete file with the snapshot
// that deleted it: its snapshot column, or the delete file's begin
// snapshot when it has none.
func (s *Runner) ReadDeletesAt(ctx context.Context, path string, begin int64, key string) ([]snapshot.DeletedPos, error) {
	f, err := s.Store.Open(ctx, path)
	if err != nil {
		return nil, exec.ReadError(err, path)
	}
	defer f.Close()
	if parquetio.IsDeletionVector(f, f.Size()) {
		dvs, err := parquetio.ReadDeletionVectors(f, f.Size())
		if err != nil {
			return nil, exec.ReadError(err, path)
		}
		pos, snaps := parquetio.DeletedAt(dvs, begin, math.MaxInt64)
		out := make([]snapshot.DeletedPos, len(pos))
		for i := range pos {
			out[i] = snapshot.DeletedPos{Pos: pos[i], Snapshot: snaps[i]}
		}
		return out, nil
	}
	k, err := parquetio.ParseKeyText(key)
	if err != nil {
		return nil, err
	}
	pf, err := parquetio.OpenKey(f, f.Size(), k)
	if err != nil {
		return nil, exec.ReadError(err, path)
	}
	fields := pf.Fields()
	if len(fields) < 2 {
		return nil, pgerr.New(pgerr.DataCorrupted, "delete file \"%s\" has %d columns, want file_path and pos", path, len(fields))
	}
	posProj := parquetio.Projection{FieldID: parquetio.FieldPos, Name: "pos", Pos: 1, Type: types.Int64T}
	snapProj := parquetio.Projection{FieldID: parquetio.FieldSnapshotID, Name: "_ducklake_internal_snapshot_id", Pos: 2, Type: types.Int64T}
	hasSnap := false
	switch {
	case !pf.HasFieldIDs():
		posProj.FieldID = 0
		if len(fields) >= 3 && fields[2].Name == "_ducklake_internal_snapshot_id" {
			hasSnap, snapProj.FieldID = true, 0
		}
	default:
		if !pf.HasField(parquetio.FieldPos) {
			posProj.FieldID = fields[1].FieldID
		}
		hasSnap = pf.HasField(parquetio.FieldSnapshotID)
	}
	proj := []parquetio.Projection{posProj}
	if hasSnap {
		proj = append(proj, snapProj)
	}
	var out []snapshot.DeletedPos
	sc := pf.Scan(proj, parquetio.ScanOptions{})
	var b vec.Batch
	for {
		_, ok, err := sc.Next(&b)
		if err != nil {
			return nil, exec.ReadError(err, path)
		}
		if !ok {
			break
		}
		for i := 0; i < b.N; i++ {
			if b.Vecs[0].IsNull(i) {
				continue
			}
			d := snapshot.DeletedPos{Pos: b.Vecs[0].I64[i], Snapshot: begin}
			if hasSnap && !b.Vecs[1].IsNull(i) {
				d.Snapshot = b.Vecs[1].I64[i]
			}
			out = append(out, d)
		}
	}
	return out, nil
}
