package planner

import (
	"context"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/types"
)

// The change feed: lakepg.table_changes('schema.table', start, end) returns
// the rows inserted, deleted and updated by the snapshots start..end
// (inclusive), as DuckDB's ducklake_table_changes does: snapshot_id, rowid,
// change_type, then the table's columns as of end. A row deleted and
// inserted with the same row id by one snapshot is an update, reported as
// update_preimage and update_postimage.
//
// A row's insertion is its snapshot id (embedded in merged and flushed
// files, else its file's begin snapshot). Its deletion is the first
// snapshot that hides it: a delete file's snapshot column or begin
// snapshot, an inlined file delete, or the end of its data file (so a
// rewrite shows its rows as updated, as in DuckDB). Inlined rows carry both
// in the catalog.

// tableChanges plans lakepg.table_changes(table, start, end) and DuckDB's
// ducklake_table_changes(catalog, schema, table, start, end).
func (s *Session) tableChanges(ctx context.Context, b *Binder, fc *pg.FuncCall, alias string, describeOnly bool) (*Source, error) {
	args := fc.Args
	var schemaName, tableName string
	a := &CallArgs{B: b, Loc: fc.Location}
	switch len(args) {
	case 3:
		v, ok, err := a.Text(args[0])
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "table name must not be NULL"), fc.Location)
		}
		schemaName, tableName = SplitQualified(v)
		args = args[1:]
	case 5:
		sv, ok1, err := a.Text(args[1])
		if err != nil {
			return nil, err
		}
		tv, ok2, err := a.Text(args[2])
		if err != nil {
			return nil, err
		}
		if !ok1 || !ok2 {
			return nil, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "schema and table names must not be NULL"), fc.Location)
		}
		schemaName, tableName = sv, tv
		args = args[3:]
	default:
		return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "table_changes(table, start_snapshot, end_snapshot) takes three arguments"), fc.Location)
	}
	start, err := s.changeBound(ctx, a, args[0], true)
	if err != nil {
		return nil, err
	}
	end, err := s.changeBound(ctx, a, args[1], false)
	if err != nil {
		return nil, err
	}
	endSnap, err := s.DB.SnapshotByID(ctx, end)
	if err != nil {
		return nil, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "snapshot %d does not exist", end), fc.Location)
	}
	meta, err := s.Host.LakeMetadata(ctx, endSnap)
	if err != nil {
		return nil, err
	}
	sch, t, err := s.ResolveTable(meta, schemaName, tableName, fc.Location)
	if err != nil {
		return nil, err
	}
	if err := s.Host.CheckRelation(ctx, sch, t.ID, RelationWord(t, nil), t.Name, "r"); err != nil { // sql/privileges/privileges.go
		return nil, err
	}
	cols, err := ScanColumns(t)
	if err != nil {
		return nil, err
	}
	if alias == "" {
		alias = "table_changes"
	}
	ts := append([]types.T{types.Int64T, types.Int64T, types.TextT}, TypesOf(cols)...)
	sc := &Scope{}
	for i, n := range []string{"snapshot_id", "rowid", "change_type"} {
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: n, T: ts[i]})
	}
	for _, c := range cols {
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: c.Name, T: c.T})
	}
	op := &changesOp{s: s, sch: sch, t: t, cols: cols, ts: ts, start: start, end: endSnap, describeOnly: describeOnly}
	return &Source{op: op, Sc: sc, rows: 1000}, nil
}

// changeBound evaluates a snapshot bound: a snapshot id, or a timestamp
// (the start becomes the first snapshot at or after it, the end the last
// at or before it).
func (s *Session) changeBound(ctx context.Context, a *CallArgs, n *pg.Node, lower bool) (int64, error) {
	e, err := a.B.Bind(n, &Scope{})
	if err != nil {
		return 0, err
	}
	isTime := false
	switch e.Type().ID {
	case types.Timestamptz, types.Timestamp, types.Date:
		isTime = true
	case types.Unknown, types.Text:
		// a quoted literal: a snapshot id if it reads as one, else a time
		if v, err := a.Value(n, types.TextT); err == nil && v != nil {
			_, perr := types.ParseInt(strings.TrimSpace(v.S[0]), 64)
			isTime = perr != nil
		}
	}
	if isTime {
		tm, err := a.Timestamp(n)
		if err != nil {
			return 0, err
		}
		if tm == nil {
			return 0, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "snapshot bound must not be NULL"), a.Loc)
		}
		if !lower {
			snap, err := s.DB.SnapshotAsOf(ctx, *tm)
			if err != nil {
				return 0, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "no snapshot exists at or before %s", tm.Format(time.RFC3339Nano)), a.Loc)
			}
			return snap.ID, nil
		}
		snaps, err := s.DB.Snapshots(ctx)
		if err != nil {
			return 0, err
		}
		for _, sn := range snaps {
			if !sn.Time.Before(*tm) {
				return sn.ID, nil
			}
		}
		return 1 << 62, nil
	}
	v, err := a.Value(n, types.Int64T)
	if err != nil {
		return 0, err
	}
	if v == nil {
		return 0, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "snapshot bound must not be NULL"), a.Loc)
	}
	return v.I64[0], nil
}

// changeKey identifies one change: a snapshot and a row id.
type changeKey struct{ snap, rowID int64 }

// changesOp computes the feed in three passes over the table's history:
// the deletion keys in range (row ids and snapshots only), then the
// inserted rows, marking which deletions they pair with, then the deleted
// rows. Memory holds the deletion keys, not the rows.
type changesOp struct {
	s            *Session
	sch          *catalog.Schema
	t            *catalog.Table
	cols         []exec.ScanCol
	ts           []types.T
	start        int64
	end          catalog.Snapshot
	describeOnly bool

	ready   bool
	files   []snapshot.FileHistory
	dels    []map[int64]int64 // per file: position -> deleting snapshot
	inlined []inlinedHistory
	delKeys map[changeKey]bool
	paired  map[changeKey]bool

	phase    int // 1: insertions, 2: deletions, 3: done
	scan     *histScan
	scanDone bool // the phase's files are done; its inlined rows follow
	inlT     int  // inlined table and row being emitted
	inlR     int
	out      *vec.Batch
}

// inlinedHistory is one inlined-data table's rows laid out as the feed's
// columns.
type inlinedHistory struct {
	rows []snapshot.InlinedRow
	src  []int // value column of each feed column, -1 when absent
}

func (o *changesOp) Types() []types.T { return o.ts }

func (o *changesOp) Close() error {
	if o.scan != nil {
		o.scan.Close()
		o.scan = nil
	}
	return nil
}

func (o *changesOp) inRange(x int64) bool { return x >= o.start && x <= o.end.ID }

func (o *changesOp) prepare(ctx context.Context) error {
	s, db := o.s, o.s.DB
	hist, err := snapshot.TableFileHistory(ctx, db, o.t.ID, o.end.ID)
	if err != nil {
		return err
	}
	inl, err := snapshot.InlinedFileDeletes(ctx, db, o.t.ID, o.end.ID)
	if err != nil {
		return err
	}
	dir := db.TableDir(o.sch, o.t)
	o.files = hist
	o.dels = make([]map[int64]int64, len(hist))
	for i, f := range hist {
		m := map[int64]int64{}
		note := func(pos, snap int64) {
			if old, ok := m[pos]; !ok || snap < old {
				m[pos] = snap
			}
		}
		for _, d := range f.Deletes {
			path := d.RelPath
			if d.PathIsRel {
				path = dir + d.RelPath
			}
			ps, err := s.Host.ReadDeletesAt(ctx, path, d.Begin, d.Key)
			if err != nil {
				return err
			}
			for _, p := range ps {
				note(p.Pos, p.Snapshot)
			}
		}
		for _, p := range inl[f.ID] {
			note(p.Pos, p.Snapshot)
		}
		o.dels[i] = m
	}
	regs, err := db.InlinedTables(ctx, o.t.ID)
	if err != nil {
		return err
	}
	for _, reg := range regs {
		names, rows, err := snapshot.ReadInlinedRows(ctx, db, reg.Name, o.end.ID)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			continue
		}
		layout, err := s.Host.LayoutAt(ctx, o.t, reg.SchemaVersion)
		if err != nil {
			return err
		}
		ih := inlinedHistory{rows: rows, src: make([]int, len(o.cols))}
		for i, c := range o.cols {
			ih.src[i] = -1
			col, ok := layout.ColumnByID(int64(c.FieldID))
			if !ok {
				continue
			}
			for j, n := range names {
				if n == col.Name {
					ih.src[i] = j
				}
			}
		}
		o.inlined = append(o.inlined, ih)
	}
	// Pass 1: the keys of deletions in range.
	o.delKeys, o.paired = map[changeKey]bool{}, map[changeKey]bool{}
	if err := o.eachRow(ctx, false, true, func(b *vec.Batch, r int, f int, pos, rowID, ins int64) {
		if d, ok := o.deletedAt(f, pos); ok && o.inRange(d) {
			o.delKeys[changeKey{d, rowID}] = true
		}
	}); err != nil {
		return err
	}
	for _, ih := range o.inlined {
		for _, r := range ih.rows {
			if r.End != nil && o.inRange(*r.End) {
				o.delKeys[changeKey{*r.End, r.RowID}] = true
			}
		}
	}
	o.phase = 1
	return nil
}

// deletedAt is when row pos of file f was first hidden.
func (o *changesOp) deletedAt(f int, pos int64) (int64, bool) {
	d, ok := o.dels[f][pos]
	if e := o.files[f].End; e != nil && (!ok || *e < d) {
		return *e, true
	}
	return d, ok
}

func (o *changesOp) insertFile(f snapshot.FileHistory) bool {
	return f.Begin >= o.start || (f.PartialMax != nil && *f.PartialMax >= o.start)
}

func (o *changesOp) deleteFile(i int) bool {
	if e := o.files[i].End; e != nil && o.inRange(*e) {
		return true
	}
	for _, d := range o.dels[i] {
		if o.inRange(d) {
			return true
		}
	}
	return false
}

// openScan starts a histScan over the files of the insertion (or
// deletion) side; ids reads only row ids and snapshot ids.
func (o *changesOp) openScan(deletions, ids bool) (*histScan, []int) {
	dir := o.s.DB.TableDir(o.sch, o.t)
	var files []exec.ScanFile
	var begins []int64
	var which []int
	for i, f := range o.files {
		if (deletions && !o.deleteFile(i)) || (!deletions && !o.insertFile(f)) {
			continue
		}
		path := f.RelPath
		if f.PathIsRel {
			path = dir + f.RelPath
		}
		files = append(files, exec.ScanFile{Path: path, Size: f.Size, RowIDStart: f.RowIDStart, Key: f.Key})
		if f.NameMap != nil {
			files[len(files)-1].NameMap = scanNameMap(path, f.NameMap) // addfiles_read.go
		}
		begins = append(begins, f.Begin)
		which = append(which, i)
	}
	h := NewHistScan(o.s.Store, o.end, o.cols, files, begins)
	if ids {
		h.scan.Needed = make([]bool, len(o.cols)+1)
		h.scan.Needed[len(o.cols)] = true
	}
	return h, which
}

// eachRow runs fn over every row of the files of one side, whole (one
// pass, used for the deletion keys).
func (o *changesOp) eachRow(ctx context.Context, insertions, ids bool, fn func(b *vec.Batch, r, f int, pos, rowID, ins int64)) error {
	h, which := o.openScan(!insertions, ids)
	defer h.Close()
	if len(which) == 0 {
		return nil
	}
	n := len(o.cols)
	for {
		b, err := h.Next(ctx)
		if err != nil || b == nil {
			return err
		}
		for r := 0; r < b.N; r++ {
			fn(b, r, which[h.ord.I64[r]], h.pos.I64[r], b.Vecs[n].I64[r], b.Vecs[n+1].I64[r])
		}
	}
}

func (o *changesOp) Next(ctx context.Context) (*vec.Batch, error) {
	if o.describeOnly {
		return nil, nil
	}
	if !o.ready {
		o.ready = true
		if err := o.prepare(ctx); err != nil {
			return nil, err
		}
	}
	for o.phase < 3 {
		if !o.scanDone {
			if o.scan == nil {
				h, which := o.openScan(o.phase == 2, false)
				h.which = which
				o.scan = h
			}
			b, err := o.scan.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				o.scan.Close()
				o.scan, o.scanDone = nil, true
				o.inlT, o.inlR = 0, 0
				continue
			}
			if out := o.fileChanges(b); out.N > 0 {
				return out, nil
			}
			continue
		}
		out, err := o.inlinedChanges()
		if err != nil {
			return nil, err
		}
		if out != nil {
			return out, nil
		}
		o.phase++
		o.scanDone = false
	}
	return nil, nil
}

func (o *changesOp) batch() *vec.Batch {
	if o.out == nil {
		o.out = vec.NewBatch(o.ts, vec.BatchSize)
	}
	o.out.Reset()
	return o.out
}

// emit appends one change; values come from src column i of row r, or
// from get for inlined rows.
func (o *changesOp) emit(out *vec.Batch, snap, rowID int64, kind string) {
	out.Vecs[0].AppendInt(snap)
	out.Vecs[1].AppendInt(rowID)
	out.Vecs[2].AppendString(kind)
}

func (o *changesOp) fileChanges(b *vec.Batch) *vec.Batch {
	out := o.batch()
	n := len(o.cols)
	h := o.scan
	for r := 0; r < b.N; r++ {
		f := h.which[h.ord.I64[r]]
		rowID, ins := b.Vecs[n].I64[r], b.Vecs[n+1].I64[r]
		var snap int64
		var kind string
		if o.phase == 1 {
			if !o.inRange(ins) {
				continue
			}
			snap, kind = ins, "insert"
			if k := (changeKey{ins, rowID}); o.delKeys[k] {
				kind = "update_postimage"
				o.paired[k] = true
			}
		} else {
			d, ok := o.deletedAt(f, h.pos.I64[r])
			if !ok || !o.inRange(d) {
				continue
			}
			snap, kind = d, "delete"
			if o.paired[changeKey{d, rowID}] {
				kind = "update_preimage"
			}
		}
		o.emit(out, snap, rowID, kind)
		for i := 0; i < n; i++ {
			out.Vecs[3+i].AppendFrom(b.Vecs[i], r)
		}
		out.N++
	}
	return out
}

// inlinedChanges emits the next batch of inlined rows of the current
// phase, nil when there are no more.
func (o *changesOp) inlinedChanges() (*vec.Batch, error) {
	out := o.batch()
	for ; o.inlT < len(o.inlined); o.inlT, o.inlR = o.inlT+1, 0 {
		ih := o.inlined[o.inlT]
		for ; o.inlR < len(ih.rows); o.inlR++ {
			if out.N == vec.BatchSize {
				return out, nil
			}
			r := ih.rows[o.inlR]
			var snap int64
			var kind string
			if o.phase == 1 {
				if !o.inRange(r.Begin) {
					continue
				}
				snap, kind = r.Begin, "insert"
				if k := (changeKey{r.Begin, r.RowID}); o.delKeys[k] {
					kind = "update_postimage"
					o.paired[k] = true
				}
			} else {
				if r.End == nil || !o.inRange(*r.End) {
					continue
				}
				snap, kind = *r.End, "delete"
				if o.paired[changeKey{*r.End, r.RowID}] {
					kind = "update_preimage"
				}
			}
			o.emit(out, snap, r.RowID, kind)
			for i, c := range o.cols {
				v := out.Vecs[3+i]
				switch j := ih.src[i]; {
				case j >= 0:
					if err := AppendCatalogValue(v, r.Values[j]); err != nil {
						return nil, pgerr.Wrap(pgerr.DataCorrupted, err, "inlined row %d of table %s, column %s", r.RowID, o.t.Name, c.Name)
					}
				case c.Default != nil:
					v.AppendFrom(c.Default, 0)
				default:
					v.AppendNull()
				}
			}
			out.N++
		}
	}
	if out.N == 0 {
		return nil, nil
	}
	return out, nil
}

func TypesOf(cols []exec.ScanCol) []types.T {
	ts := make([]types.T, len(cols))
	for i, c := range cols {
		ts[i] = c.T
	}
	return ts
}
