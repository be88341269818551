package exec

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec/memory"
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
	// Geometry: DuckLake type geometry (a bytea of WKB), for writers
	// (parquetio.Column.Geometry)
	Geometry bool
	// Variant: DuckLake type variant (read as json), for writers
	Variant bool
	T       types.T
	// ElemFieldID is an array column's element column id, for writers.
	ElemFieldID int32
	// ChildIDs are a nested column's descendant column ids, depth-first
	// (parquetio.Column.ChildIDs), for writers.
	ChildIDs []int32
	Default  *vec.Vector // DuckLake initial_default for files without the column
}

// ScanFile is one data file of a table with its deletes.
type ScanFile struct {
	Path       string
	Size       int64
	RowIDStart int64
	DeletePath string
	DeleteSize int64
	// DeleteFormat is the catalog's format of the delete file ('puffin':
	// a deletion vector)
	DeleteFormat string
	// DeleteStaged: the delete file is one a transaction block staged, its
	// snapshot column stamped with the snapshot the block will commit as,
	// so every position applies (the scan's snapshot is the block's base).
	DeleteStaged bool
	// Deleted are further deleted positions (DuckDB's inlined file deletes).
	Deleted []int64
	// RecordCount and DeleteCount are the catalog's row counts of the data
	// file and its delete file, exact when CountKnown (count(*) needs no
	// read then).
	RecordCount, DeleteCount int64
	CountKnown               bool
	// MaxSnapshot, when non-zero, keeps only rows whose embedded
	// _ducklake_internal_snapshot_id is at most it: a file merged or flushed
	// from several snapshots read as of one before its partial_max.
	MaxSnapshot int64
	// NameMap, for a file registered with a DuckLake name mapping
	// (ducklake_add_data_files of a file without field ids), says where each
	// column's values are, by field id; a column it lacks reads as its
	// default.
	NameMap map[int32]MappedColumn
	// Key and DeleteKey are the files' encryption_key (base64; "" for plain
	// files), for DuckDB's ENCRYPTED lakes. Secrets: never printed (EXPLAIN
	// and errors show paths only).
	Key, DeleteKey string
}

// MappedColumn is where a name-mapped file keeps a column: its top-level
// column Source, or, when Hive, the value Value of the hive path's key.
type MappedColumn struct {
	Source string
	Hive   bool
	Value  string
}

// mappedProjection is column i's projection over a name-mapped file.
func mappedProjection(c ScanCol, i int, m MappedColumn, ok bool) (parquetio.Projection, error) {
	p := parquetio.Projection{FieldID: c.FieldID, Name: m.Source, ByName: true, Pos: i, Type: c.T, Default: c.Default}
	if !ok || m.Hive {
		// no file column can match: the value is the default or the path's
		p.Name = ""
	}
	if ok && m.Hive {
		d := vec.New(c.T, 1)
		if m.Value == "__HIVE_DEFAULT_PARTITION__" {
			// the directory of a NULL partition value
			d.AppendNull()
			p.Default = d
			return p, nil
		}
		if err := ParseInto(d, m.Value, nil, false); err != nil {
			return p, pgerr.New(pgerr.InvalidTextRepr, "hive partition value %q of column %q: %v", m.Value, c.Name, err)
		}
		p.Default = d
	}
	return p, nil
}

// cryptDetail names the file in a decryption error (which parquetio raises
// without the path), so the user knows which file or key is wrong; the key is
// never part of it.
func cryptDetail(err error, path string) error {
	if pe, ok := pgerr.As(err); ok && pe.Code == pgerr.DataCorrupted && pe.Detail == "" {
		c := *pe
		c.Detail = fmt.Sprintf("file \"%s\"", path)
		return &c
	}
	return err
}

// fileKey parses a ScanFile key; "" is no key.
func fileKey(s string) (parquetio.Key, error) { return parquetio.ParseKeyText(s) }

// TableScan reads a table's data files at a snapshot: only needed columns,
// row groups pruned by Keep, positional deletes applied. With WithPos it
// appends three BIGINT columns: file ordinal, row position and row id.
//
// Run directly, it reads the files in order, each whole. Under a Parallel
// the same scan is split into morsels — one row group each — that the
// workers pull from a shared queue.
type TableScan struct {
	Store       storage.Backend
	Snapshot    int64
	Label       string
	Files       []ScanFile
	FilesPruned int
	Cols        []ScanCol
	Needed      []bool
	WithPos     bool
	// Keep prunes row groups from their statistics. Parallel workers call
	// it concurrently, so it must not modify shared state.
	Keep func(rg int, ranges []parquetio.Range) bool
	// Dynamic are bounds from hash joins above, known only at run time
	// (keyrange.go)
	Dynamic []DynamicBound
	// Keys are build sides of hash joins above, known only at run time:
	// rows whose key they lack are dropped before the other columns are
	// decoded (keyrange.go)
	Keys []DynamicKeys
	// Inlined are rows kept in the catalog (DuckDB's data inlining), laid
	// out as the table's columns followed by the three WithPos columns
	// (file ordinal -1-k for the k-th inlined table, row id, row id). They
	// are read after the files.
	Inlined []*vec.Batch

	RowGroupsScanned, RowGroupsPruned int
	// PagesRead and PagesSkipped count the data pages decoded and those
	// passed over undecoded because the page index ruled out their rows;
	// RowsSkipped is the rows of the row groups read that it ruled out.
	PagesRead, PagesSkipped int
	RowsSkipped             int64
	// KeyRowsIn and KeyRowsKept count the rows the key sets (Keys) were
	// asked about and those they kept
	KeyRowsIn, KeyRowsKept int64
	bytesRead              *atomic.Int64 // data and delete files, by every worker
	// FilesPrunedByPartition is how many of FilesPruned were ruled out by
	// their partition values (EXPLAIN shows it).
	FilesPrunedByPartition int
	// FilesFromStats counts the files whose rows min()/max() took from the
	// catalog's column statistics instead of reading them (sql/minmax.go).
	FilesFromStats int

	q *morselQueue
	r *morselScan
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

// Close releases open files.
func (t *TableScan) Close() error {
	if t.r != nil {
		t.r.close()
	}
	if t.q != nil {
		t.q.close()
	}
	return nil
}

// Next returns the next batch of visible rows.
func (t *TableScan) Next(ctx context.Context) (*vec.Batch, error) {
	if t.r == nil {
		t.q = &morselQueue{t: t}
		t.r = newMorselScan(t, t.q)
	}
	return t.r.Next(ctx)
}

// scanFile is an opened data file shared by the morsels cut from it.
type scanFile struct {
	idx     int
	file    storage.File
	pf      *parquetio.File
	dels    []int64 // sorted deleted positions
	proj    []parquetio.Projection
	projCol []int // scan column of each projection entry (-1 = row id, -2 = snapshot id)
	snapCol int   // projection entry of the snapshot id, -1 if not filtered
	refs    int   // morsels handed out and not finished, +1 while current
}

// morsel is a unit of scan work: some row groups of one file (nil: all).
type morsel struct {
	f      *scanFile
	groups []int
	inl    *vec.Batch // a batch of inlined rows instead of a file
}

// morselQueue hands out morsels: whole files in order for a serial scan,
// single row groups for parallel workers. Files are opened (footer and
// deletes read) by whichever worker first needs them and closed when their
// last morsel is done.
type morselQueue struct {
	t          *TableScan
	byRowGroup bool
	mu         sync.Mutex
	fi         int
	cur        *scanFile
	rg         int
	inl        int // inlined batches handed out
	closed     bool
	started    bool
	stats      *QueryStats // the statement's counters, if it keeps any
}

func (q *morselQueue) next(ctx context.Context) (morsel, bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.started {
		q.started = true
		if q.stats = QueryStatsOf(ctx); q.stats != nil {
			q.stats.filesPruned.Add(int64(q.t.FilesPruned))
		}
	}
	for {
		if q.closed {
			return morsel{}, false, nil
		}
		if f := q.cur; f != nil {
			if q.byRowGroup && q.rg < f.pf.NumRowGroups() {
				m := morsel{f: f, groups: []int{q.rg}}
				q.rg++
				f.refs++
				return m, true, nil
			}
			q.cur = nil
			q.unref(f)
		}
		if q.fi >= len(q.t.Files) {
			if q.inl < len(q.t.Inlined) {
				q.inl++
				return morsel{inl: q.t.Inlined[q.inl-1]}, true, nil
			}
			return morsel{}, false, nil
		}
		f, err := q.t.open(ctx, q.fi)
		if err != nil {
			return morsel{}, false, err
		}
		q.fi++
		if !q.byRowGroup {
			f.refs = 1
			return morsel{f: f}, true, nil
		}
		f.refs = 1
		q.cur, q.rg = f, 0
	}
}

// done finishes a morsel, adding its scanner's row-group and page counts.
func (q *morselQueue) done(m morsel, sc *parquetio.Scanner) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if sc != nil {
		read, skipped, rows := sc.PageStats()
		q.t.RowGroupsScanned += sc.RowGroupsScanned()
		q.t.RowGroupsPruned += sc.RowGroupsPruned()
		q.t.PagesRead += read
		q.t.PagesSkipped += skipped
		q.t.RowsSkipped += rows
		if q.stats != nil {
			q.stats.rowGroupsPruned.Add(int64(sc.RowGroupsPruned()))
			q.stats.pagesSkipped.Add(int64(skipped))
		}
	}
	if m.f != nil {
		q.unref(m.f)
	}
}

func (q *morselQueue) unref(f *scanFile) {
	f.refs--
	if f.refs == 0 && f.file != nil {
		f.file.Close()
		f.file = nil
	}
}

func (q *morselQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	if q.cur != nil {
		q.unref(q.cur)
		q.cur = nil
	}
}

// BytesRead is what the scan has read from data and delete files.
func (t *TableScan) BytesRead() int64 {
	if t.bytesRead == nil {
		return 0
	}
	return t.bytesRead.Load()
}

// open reads file i's footer and deletes and plans its projection. The
// queue's lock is held.
func (t *TableScan) open(ctx context.Context, i int) (*scanFile, error) {
	if t.bytesRead == nil {
		t.bytesRead = new(atomic.Int64)
	}
	f := t.Files[i]
	file, err := storage.OpenSized(ctx, t.Store, f.Path, f.Size)
	if err != nil {
		return nil, ReadError(err, f.Path)
	}
	qs := QueryStatsOf(ctx)
	file = countFile(file, qs, t.bytesRead)
	key, err := fileKey(f.Key)
	if err != nil {
		file.Close()
		return nil, ReadError(err, f.Path)
	}
	pf, err := parquetio.OpenKey(file, file.Size(), key)
	if err != nil {
		file.Close()
		return nil, ReadError(cryptDetail(err, f.Path), f.Path)
	}
	sf := &scanFile{idx: i, file: file, pf: pf, snapCol: -1}
	if f.DeletePath != "" {
		df, err := storage.OpenSized(ctx, t.Store, f.DeletePath, f.DeleteSize)
		if err != nil {
			file.Close()
			return nil, ReadError(err, f.DeletePath)
		}
		df = countFile(df, qs, t.bytesRead)
		dkey, err := fileKey(f.DeleteKey)
		if err != nil {
			df.Close()
			file.Close()
			return nil, ReadError(err, f.DeletePath)
		}
		upTo := t.Snapshot
		if f.DeleteStaged {
			upTo = math.MaxInt64
		}
		pos, err := parquetio.ReadDeletePositionsFormat(df, df.Size(), upTo, dkey, f.DeleteFormat)
		df.Close()
		if err != nil {
			file.Close()
			return nil, ReadError(cryptDetail(err, f.DeletePath), f.DeletePath)
		}
		sf.dels = append(sf.dels, pos...)
	}
	if len(f.Deleted) > 0 {
		sf.dels = append(sf.dels, f.Deleted...)
	}
	if len(sf.dels) > 0 {
		sort.Slice(sf.dels, func(a, b int) bool { return sf.dels[a] < sf.dels[b] })
	}
	for i, c := range t.Cols {
		if !t.needed(i) {
			continue
		}
		p := parquetio.Projection{FieldID: c.FieldID, Name: c.Name, Pos: i, Type: c.T, Default: c.Default}
		if f.NameMap != nil {
			m, ok := f.NameMap[c.FieldID]
			if p, err = mappedProjection(c, i, m, ok); err != nil {
				file.Close()
				return nil, err
			}
		}
		sf.proj = append(sf.proj, p)
		sf.projCol = append(sf.projCol, i)
	}
	if t.WithPos && pf.HasField(RowIDFieldID) {
		sf.proj = append(sf.proj, parquetio.Projection{FieldID: RowIDFieldID, Name: "_ducklake_internal_row_id", Type: types.Int64T})
		sf.projCol = append(sf.projCol, -1)
	}
	if f.MaxSnapshot > 0 && pf.HasField(parquetio.FieldSnapshotID) {
		sf.snapCol = len(sf.proj)
		sf.proj = append(sf.proj, parquetio.Projection{FieldID: parquetio.FieldSnapshotID, Name: "_ducklake_internal_snapshot_id", Type: types.Int64T})
		sf.projCol = append(sf.projCol, -2)
	}
	return sf, nil
}

// morselScan is one worker's reader: it pulls morsels from the queue and
// streams their rows with deletes applied. Its buffers are reused from
// batch to batch.
type morselScan struct {
	t      *TableScan
	q      *morselQueue
	m      morsel
	sc     *parquetio.Scanner
	buf    vec.Batch
	out    vec.Batch
	gath   *memory.ColBuf // rows surviving deletes, when some are deleted
	pos    *memory.ColBuf // WithPos columns
	nulls  map[types.T]*vec.Vector
	sel    []int32
	ncols  int
	closed bool
	// held is what the open Parquet scanner's buffers hold, counted in the
	// statement's account (mem): the column chunks and pages of every
	// projected column, tens of megabytes for a wide table, were memory the
	// pool did not see, and eight scans at once took the server's RSS
	// 40% past its limit
	mem    *memory.Memory
	memSet bool
	held   int64

	// a selective read (Keys): each key set's projection in the file, the
	// columns of the batch read so far, and per key set the rows asked
	// about and kept, to stop asking a set that keeps most rows
	keyProj          []int
	read             []bool
	keysIn, keysKept []int
	order            []int
	keyIn, keyOut    int64 // rows before and after the key sets, for KeyRowsIn/Kept
	key              [1]*vec.Vector
	heads            []int32
	keep             []int32
	hs               []uint64
	all              []int32
}

func newMorselScan(t *TableScan, q *morselQueue) *morselScan {
	return &morselScan{t: t, q: q, ncols: len(t.Cols)}
}

func (s *morselScan) Types() []types.T { return s.t.Types() }

func (s *morselScan) Close() error {
	s.close()
	return nil
}

func (s *morselScan) close() {
	if s.sc != nil {
		s.q.done(s.m, s.sc)
		s.release()
	}
	s.uncount()
	s.closed = true
}

// release gives the scanner back. Its column readers go to a pool, and the
// next file's scanner takes them with their buffers: what is counted stays
// counted until the scan ends (uncount).
func (s *morselScan) release() {
	s.sc.Release()
	s.sc = nil
	if s.keyIn > 0 {
		s.q.mu.Lock()
		s.t.KeyRowsIn += s.keyIn
		s.t.KeyRowsKept += s.keyOut
		s.q.mu.Unlock()
		s.keyIn, s.keyOut = 0, 0
	}
}

// uncount gives back what count reserved.
func (s *morselScan) uncount() {
	s.mem.Shrink(s.held)
	s.held = 0
}

// count brings the account up to the most the scan's readers have held,
// so that other operators see the pool the fuller for it and spill or wait
// sooner. It counts only while the pool is under half its spilling share
// and nobody waits (tryCount): a scan cannot spill, and eight scans whose
// buffers filled a small budget (16 MiB) left the sorts above them nothing,
// each statement waiting on the others until they failed with 53200. Past
// that share the buffers go uncounted, as they all did before; a scan
// counts early, as its first file opens, before the operators above it
// fill the pool.
func (s *morselScan) count(ctx context.Context) {
	if !s.memSet {
		s.mem, s.memSet = memory.MemFor(ctx, nil), true
	}
	if h := s.sc.HeldBytes(); h > s.held && s.mem.TryCount(h-s.held) {
		s.held = h
	}
}

func (s *morselScan) nullVec(ty types.T, n int) *vec.Vector {
	if s.nulls == nil {
		s.nulls = map[types.T]*vec.Vector{}
	}
	v := s.nulls[ty]
	if v == nil || v.Len() < n {
		v = vec.New(ty, max(n, vec.BatchSize))
		for i := 0; i < max(n, vec.BatchSize); i++ {
			v.AppendNull()
		}
		s.nulls[ty] = v
	}
	return v.Slice(0, n)
}

func (s *morselScan) Next(ctx context.Context) (*vec.Batch, error) {
	t := s.t
	for {
		if err := memory.ErrCanceled(ctx); err != nil {
			return nil, err
		}
		if s.closed {
			return nil, nil
		}
		if s.sc == nil {
			m, ok, err := s.q.next(ctx)
			if err != nil || !ok {
				s.uncount()
				return nil, err
			}
			var keep func(int, []parquetio.Range) bool
			if t.Keep != nil {
				keep = t.Keep
			}
			keep = t.withDynamicBounds(keep)
			if m.inl != nil {
				s.q.done(m, nil)
				return s.inlined(m.inl), nil
			}
			s.m = m
			s.sc = m.f.pf.Scan(m.f.proj, parquetio.ScanOptions{Keep: keep, RowGroups: m.groups})
			s.keyColumns(m.f)
		}
		f := s.m.f
		if len(s.keyProj) > 0 {
			b, err := s.nextSelective(ctx, f)
			if b != nil || err != nil {
				return b, err
			}
			continue
		}
		rowStart, ok, err := s.sc.Next(&s.buf)
		if err != nil {
			return nil, ReadError(err, t.Files[f.idx].Path)
		}
		if !ok {
			s.q.done(s.m, s.sc)
			s.release()
			continue
		}
		s.count(ctx)
		n := s.buf.N
		if n == 0 {
			continue
		}
		all := s.alive(f, rowStart, n)
		if !all && len(s.sel) == 0 {
			continue
		}
		return s.emit(f, rowStart, n, all), nil
	}
}

// alive sets sel to the rows of the batch that survive deletes and, in a
// partial file, that are not of later snapshots; all reports that every
// row does (sel is then not set).
func (s *morselScan) alive(f *scanFile, rowStart int64, n int) (all bool) {
	if len(f.dels) == 0 && f.snapCol < 0 {
		return true
	}
	s.sel = s.sel[:0]
	k := sort.Search(len(f.dels), func(i int) bool { return f.dels[i] >= rowStart })
	var snaps []int64
	if f.snapCol >= 0 {
		snaps = s.buf.Vecs[f.snapCol].I64
	}
	maxSnap := s.t.Files[f.idx].MaxSnapshot
	for i := 0; i < n; i++ {
		pos := rowStart + int64(i)
		for k < len(f.dels) && f.dels[k] < pos {
			k++
		}
		if k < len(f.dels) && f.dels[k] == pos {
			continue
		}
		if snaps != nil && snaps[i] > maxSnap {
			continue
		}
		s.sel = append(s.sel, int32(i))
	}
	return len(s.sel) == n
}

// keyColumns decides whether the scan of file f reads selectively: the
// scan has key sets whose column f has, no position columns, and only
// flat columns. keyProj is then each key set's projection (-1: none).
func (s *morselScan) keyColumns(f *scanFile) {
	s.keyProj = s.keyProj[:0]
	t := s.t
	if len(t.Keys) == 0 || t.WithPos || !s.sc.Selective() {
		return
	}
	if s.keysIn == nil {
		s.keysIn, s.keysKept = make([]int, len(t.Keys)), make([]int, len(t.Keys))
	}
	found := false
	for _, k := range t.Keys {
		p := slices.Index(f.projCol, k.Col)
		s.keyProj = append(s.keyProj, p)
		found = found || p >= 0
	}
	if !found {
		s.keyProj = s.keyProj[:0]
	}
}

// nextSelective reads a batch selectively. The rows are those that survive
// deletes and whose key every ready key set has; each key column is read
// at the rows the sets before it kept, and the other columns at the rows
// all kept. It returns nil when the batch kept no row (and at the end of
// the file, when it moves to the next).
func (s *morselScan) nextSelective(ctx context.Context, f *scanFile) (*vec.Batch, error) {
	b := &s.buf
	rowStart, n, ok, err := s.sc.Begin(b)
	if err != nil {
		return nil, ReadError(err, s.t.Files[f.idx].Path)
	}
	if !ok {
		s.q.done(s.m, s.sc)
		s.release()
		return nil, nil
	}
	s.count(ctx)
	s.read = resizeBools(s.read, len(b.Vecs))
	readErr := func(err error) error { return ReadError(err, s.t.Files[f.idx].Path) }
	if f.snapCol >= 0 {
		if err := s.sc.Column(b, f.snapCol); err != nil {
			return nil, readErr(err)
		}
		s.read[f.snapCol] = true
	}
	// sel: the batch's rows still wanted; every column read so far holds
	// exactly those rows
	whole := s.alive(f, rowStart, n)
	if whole {
		s.sel = append(s.sel[:0], s.allRows(n)...)
	} else if f.snapCol >= 0 {
		b.Vecs[f.snapCol].Keep(s.sel)
	}
	before := len(s.sel)
	for _, d := range s.keyOrder() {
		p := s.keyProj[d]
		jb := s.t.Keys[d].Set.jb.Load()
		if p < 0 || jb == nil || len(s.sel) == 0 ||
			(s.keysIn[d] >= keySetTrialRows && float64(s.keysKept[d]) > keySetMaxKept*float64(s.keysIn[d])) {
			continue
		}
		if !s.read[p] {
			if err := s.readAt(b, p, n); err != nil {
				return nil, readErr(err)
			}
		}
		m := len(s.sel)
		s.heads = Resize32(s.heads, m)
		s.key[0] = b.Vecs[p]
		s.hs = jb.lookup(s.key[:], m, s.heads, s.hs, func(int) {})
		s.keep = s.keep[:0]
		for t, h := range s.heads {
			if h >= 0 {
				s.keep = append(s.keep, int32(t))
			}
		}
		s.keysIn[d] += m
		s.keysKept[d] += len(s.keep)
		if len(s.keep) < m {
			for c, r := range s.read {
				if r {
					b.Vecs[c].Keep(s.keep)
				}
			}
			for t, k := range s.keep {
				s.sel[t] = s.sel[k]
			}
			s.sel = s.sel[:len(s.keep)]
		}
	}
	s.keyIn += int64(before)
	s.keyOut += int64(len(s.sel))
	for c, r := range s.read {
		if !r {
			if err := s.readAt(b, c, n); err != nil {
				return nil, readErr(err)
			}
		}
	}
	if len(s.sel) == 0 {
		return nil, nil
	}
	return s.emit(f, rowStart, len(s.sel), true), nil
}

// keyOrder is the order to ask the key sets in: the one keeping the
// fewest rows so far first, so the later key columns are read at fewer
// rows. Before any figures, the deepest join first (dynamic filters list
// the joins from the top down, and the join order puts the most selective
// join lowest).
func (s *morselScan) keyOrder() []int {
	o := s.order
	if len(o) != len(s.t.Keys) {
		o = o[:0]
		for d := len(s.t.Keys) - 1; d >= 0; d-- {
			o = append(o, d)
		}
	}
	share := func(d int) float64 {
		if s.keysIn[d] == 0 {
			return 1
		}
		return float64(s.keysKept[d]) / float64(s.keysIn[d])
	}
	for i := 1; i < len(o); i++ {
		for j := i; j > 0 && share(o[j]) < share(o[j-1]); j-- {
			o[j], o[j-1] = o[j-1], o[j]
		}
	}
	s.order = o
	return o
}

// readAt reads column c of the batch at the rows sel, all n of them whole.
func (s *morselScan) readAt(b *vec.Batch, c, n int) error {
	s.read[c] = true
	if len(s.sel) == n {
		return s.sc.Column(b, c)
	}
	if 3*len(s.sel) > 2*n {
		// most rows: decoding them all and dropping a few is cheaper
		if err := s.sc.Column(b, c); err != nil {
			return err
		}
		b.Vecs[c].Keep(s.sel)
		return nil
	}
	return s.sc.ColumnAt(b, c, s.sel)
}

// allRows is 0…n-1.
func (s *morselScan) allRows(n int) []int32 {
	if len(s.all) < n {
		s.all = make([]int32, vec.BatchSize)
		for i := range s.all {
			s.all[i] = int32(i)
		}
	}
	return s.all[:n]
}

func resizeBools(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// emit lays the scanned vectors out as the table's columns.
func (s *morselScan) emit(f *scanFile, rowStart int64, n int, all bool) *vec.Batch {
	t := s.t
	outN := n
	src := s.buf.Vecs
	if !all {
		outN = len(s.sel)
		if s.gath == nil || len(s.gath.Vecs) != len(src) || !sameTypes(s.gath, src) {
			ts := make([]types.T, len(src))
			for i, v := range src {
				ts[i] = v.Type
			}
			s.gath = memory.NewColBuf(ts, vec.BatchSize)
		}
		s.gath.Clear()
		for i, v := range src {
			s.gath.Gather(i, v, s.sel)
		}
		src = s.gath.Vecs
	}
	out := &s.out
	out.Vecs = out.Vecs[:0]
	for range s.ncols {
		out.Vecs = append(out.Vecs, nil)
	}
	var rowIDs *vec.Vector
	for p, c := range f.projCol {
		if c == -1 {
			rowIDs = src[p]
			continue
		}
		if c < 0 {
			continue
		}
		out.Vecs[c] = src[p]
	}
	for i, c := range t.Cols {
		if out.Vecs[i] == nil {
			out.Vecs[i] = s.nullVec(c.T, outN)
		}
	}
	if t.WithPos {
		if s.pos == nil {
			s.pos = memory.NewColBuf([]types.T{types.Int64T, types.Int64T, types.Int64T}, vec.BatchSize)
		}
		s.pos.Clear()
		fileV, posV, ridV := s.pos.Vecs[0], s.pos.Vecs[1], s.pos.Vecs[2]
		start := t.Files[f.idx].RowIDStart
		for k := 0; k < outN; k++ {
			i := k
			if !all {
				i = int(s.sel[k])
			}
			pos := rowStart + int64(i)
			fileV.I64 = append(fileV.I64, int64(f.idx))
			posV.I64 = append(posV.I64, pos)
			if rowIDs == nil {
				ridV.I64 = append(ridV.I64, start+pos)
			}
		}
		if rowIDs != nil {
			ridV = rowIDs
		}
		out.Vecs = append(out.Vecs, fileV, posV, ridV)
	}
	out.N = outN
	return out
}

func sameTypes(c *memory.ColBuf, vs []*vec.Vector) bool {
	for i, v := range vs {
		if c.Vecs[i].Type != v.Type {
			return false
		}
	}
	return true
}

// inlined emits a batch of inlined rows: the table's columns, plus the
// position columns under WithPos.
func (s *morselScan) inlined(b *vec.Batch) *vec.Batch {
	out := &s.out
	n := s.ncols
	if s.t.WithPos {
		n += 3
	}
	out.Vecs = append(out.Vecs[:0], b.Vecs[:n]...)
	out.N = b.N
	return out
}

// ExactRows is the number of rows the scan would produce without reading
// a file, and whether it is known exactly.
func (t *TableScan) ExactRows() (int64, bool) {
	if t.Keep != nil || t.WithPos {
		return 0, false
	}
	var n int64
	for _, f := range t.Files {
		if !f.CountKnown || f.MaxSnapshot > 0 {
			return 0, false
		}
		n += f.RecordCount - f.DeleteCount - int64(len(f.Deleted))
	}
	for _, b := range t.Inlined {
		n += int64(b.N)
	}
	return n, true
}

// ExactRowsOf looks through the operators that keep every row of a scan.
func ExactRowsOf(op Operator) (int64, bool) {
	switch o := op.(type) {
	case *TableScan:
		return o.ExactRows()
	case *Project:
		return ExactRowsOf(o.Input)
	case *Parallel:
		if o.Build != nil || o.Scan == nil {
			return 0, false // the workers' pipelines may filter, or read a union
		}
		return o.Scan.ExactRows()
	}
	return 0, false
}
