package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
)

// ColumnStats is a ducklake_file_column_stats row (one per file and leaf
// column). ValueCount is the number of non-NULL values, as DuckDB writes it.
// Min and Max use DuckLake's text encoding of statistics.
type ColumnStats struct {
	ColumnID        int64
	ValueCount      *int64
	NullCount       *int64
	ColumnSizeBytes *int64
	Min, Max        *string
	ContainsNaN     *bool
	// MinInt and MaxInt are Min and Max read as integers when both are
	// (IntOK): planning over a table of 100,000 files compares them without
	// parsing the text each time.
	MinInt, MaxInt int64
	IntOK          bool
	// Sketch is the column's serialized distinct-value sketch in the file,
	// when the writer made one: a commit writes it to
	// lakepg_file_column_sketch (sketches.go); file lists read from the
	// catalog leave it nil (DB.Sketches reads them apart).
	Sketch []byte
}

// DeleteFile is a ducklake_delete_file row.
type DeleteFile struct {
	ID            int64
	Path          string // resolved full path
	RelPath       string // as stored
	DeleteCount   int64
	FileSize      int64
	FooterSize    *int64
	PartialMax    *int64
	BeginSnapshot int64
	// EncryptionKey is the file's key as stored (base64), "" when the file
	// is not encrypted. A secret: never log or print it.
	EncryptionKey string
	// Format is 'parquet', or 'puffin' for a deletion vector.
	Format string
}

// DataFile is a ducklake_data_file row with what a reader needs next to it.
type DataFile struct {
	ID, TableID int64
	Path        string // resolved full path
	RelPath     string // as stored
	RecordCount int64
	FileSize    int64
	FooterSize  *int64
	RowIDStart  int64
	PartialMax  *int64
	MappingID   *int64
	// EncryptionKey is the file's key as stored (base64), "" when the file
	// is not encrypted (DuckDB's ENCRYPTED lakes). A secret: never log or
	// print it.
	EncryptionKey string
	// BeginSnapshot is when the file became visible (for merged files: the
	// earliest source's snapshot).
	BeginSnapshot int64
	// Delete is the delete file visible at the snapshot the file list was read
	// at, if any.
	Delete *DeleteFile
	// Stats are the file's column statistics, in column_id order.
	Stats FileStats
	// PartitionID is the partition spec the file was written under (nil:
	// written unpartitioned); Partition are its values, by key index.
	PartitionID *int64
	Partition   []PartitionValue
	// NameMap is the file's name mapping when MappingID is set (namemap.go).
	NameMap []NameMapEntry
}

// readFiles reads the data files of a table visible at snap from the
// catalog (Files, filecache.go, keeps them).
func (db *DB) readFiles(ctx context.Context, s *Schema, t *Table, snap Snapshot) ([]DataFile, error) {
	dir := db.TableDir(s, t)
	sid := snap.ID

	// The list itself is one statement, outside a transaction: a table
	// without files (a small table's rows are inlined) then costs one round
	// trip, not three. What is read after it in the transaction below (name
	// maps, partition values, statistics) belongs to the listed files, whose
	// rows no commit changes while they are visible at sid.
	rows, err := db.q().QueryContext(ctx, `SELECT df.data_file_id, df.path, df.path_is_relative, df.record_count, df.file_size_bytes,
	df.footer_size, df.row_id_start, df.partial_max, df.mapping_id, df.begin_snapshot, df.partition_id,
	del.delete_file_id, del.path, del.path_is_relative, del.delete_count, del.file_size_bytes,
	del.footer_size, del.partial_max, del.begin_snapshot, df.encryption_key, del.encryption_key, del.format
FROM ducklake_data_file df
LEFT JOIN ducklake_delete_file del ON del.data_file_id = df.data_file_id AND del.table_id = df.table_id AND `+visibleAt("del.")+`
WHERE df.table_id = ? AND `+visibleAt("df.")+`
ORDER BY df.data_file_id, del.begin_snapshot, del.delete_file_id`, sid, sid, t.ID, sid, sid)
	if err != nil {
		return nil, fmt.Errorf("catalog: list files of table %d: %w", t.ID, err)
	}
	// The scan targets live outside the loop (each escapes to the heap,
	// once rather than per row), the nullable sizes share blocks, and the
	// files gather in chunks copied once into the list: a million files
	// grown by append were copied about twice over, with the garbage for the
	// GC to scan.
	var (
		chunks                             [][]DataFile
		cur                                []DataFile
		count                              int
		ptrs                               int64Block
		id, recs, size, rowID, begin       scanInt
		footer, pmax, mapping, partID      scanInt
		delID, delCount, delSize, delBegin scanInt
		delFooter, delPmax                 scanInt
		path                               string
		isRel, delRel                      NullBool
		delPath                            sql.NullString
		key, delKey, delFormat             sql.NullString
	)
	dest := []any{&id, &path, &isRel, &recs, &size, &footer, &rowID, &pmax, &mapping, &begin, &partID,
		&delID, &delPath, &delRel, &delCount, &delSize, &delFooter, &delPmax, &delBegin, &key, &delKey, &delFormat}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return nil, fmt.Errorf("catalog: list files of table %d: %w", t.ID, err)
		}
		var del *DeleteFile
		if delID.Valid {
			del = &DeleteFile{
				ID:            delID.V,
				RelPath:       delPath.String,
				Path:          resolve(dir, delPath.String, delRel),
				DeleteCount:   delCount.V,
				FileSize:      delSize.V,
				FooterSize:    ptrs.ptr(delFooter),
				PartialMax:    ptrs.ptr(delPmax),
				BeginSnapshot: delBegin.V,
				EncryptionKey: delKey.String,
				Format:        delFormat.String,
			}
		}
		// A well-formed catalog has at most one delete file per data file
		// at any snapshot; if a broken one has more, the newest wins (rows
		// are ordered by begin_snapshot).
		if n := len(cur); n > 0 && cur[n-1].ID == id.V { // rows are in data_file_id order
			cur[n-1].Delete = del
			continue
		}
		if len(cur) == cap(cur) {
			if cur != nil {
				chunks = append(chunks, cur)
			}
			cur = make([]DataFile, 0, min(max(2*cap(cur), 16), 8192))
		}
		cur = append(cur, DataFile{
			ID:            id.V,
			TableID:       t.ID,
			RelPath:       path,
			Path:          resolve(dir, path, isRel),
			RecordCount:   recs.V,
			FileSize:      size.V,
			RowIDStart:    rowID.V,
			FooterSize:    ptrs.ptr(footer),
			PartialMax:    ptrs.ptr(pmax),
			MappingID:     ptrs.ptr(mapping),
			PartitionID:   ptrs.ptr(partID),
			EncryptionKey: key.String,
			BeginSnapshot: begin.V,
			Delete:        del,
		})
		count++
	}
	var files []DataFile
	if len(chunks) == 0 {
		files = cur
	} else {
		files = make([]DataFile, 0, count)
		for _, c := range append(chunks, cur) {
			files = append(files, c...)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalog: list files of table %d: %w", t.ID, err)
	}
	if len(files) == 0 {
		return files, nil
	}
	rt, err := db.beginRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog: list files: %w", err)
	}
	defer rt.done()
	index := newFileIndex(files)
	for _, f := range files {
		if f.PartitionID != nil {
			if err := filePartitionValues(ctx, rt, t.ID, sid, files, index); err != nil {
				return nil, err
			}
			break
		}
	}

	if err := fileNameMaps(ctx, rt, files); err != nil {
		return nil, err
	}

	rows, err = rt.QueryContext(ctx, `SELECT st.data_file_id, st.column_id, st.column_size_bytes, st.value_count, st.null_count,
	st.min_value, st.max_value, st.contains_nan
FROM ducklake_file_column_stats st
JOIN ducklake_data_file df ON df.data_file_id = st.data_file_id
WHERE st.table_id = ? AND df.table_id = ? AND `+visibleAt("df.")+``, t.ID, t.ID, sid, sid)
	// in no particular order: each row goes to its file by id, and sorting
	// the statistics of a table of a million files (two million rows)
	// took the catalog longer than reading them
	if err != nil {
		return nil, fmt.Errorf("catalog: read file stats of table %d: %w", t.ID, err)
	}
	defer rows.Close()
	// each file's statistics in one array for the table, a leaf column's
	// room per file: appending them file by file allocated twice per file
	// (a million-file list's reading was mostly allocation and GC)
	if nc := leafColumns(t.Columns); nc > 0 {
		backing := make([]ColumnStats, len(files)*nc)
		for i := range files {
			files[i].Stats = backing[i*nc : i*nc : (i+1)*nc]
		}
	}
	var (
		vals0                statValues
		fileID, colID        scanInt
		colSize, vals, nulls scanInt
		minV, maxV           sql.NullString
		nan                  NullBool
	)
	dest = []any{&fileID, &colID, &colSize, &vals, &nulls, &minV, &maxV, &nan}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("catalog: read file stats of table %d: %w", t.ID, err)
		}
		cs := ColumnStats{ColumnID: colID.V}
		v := vals0.next()
		cs.ColumnSizeBytes, cs.ValueCount, cs.NullCount = v.ints(colSize, vals, nulls)
		cs.Min, cs.Max, cs.ContainsNaN = v.strs(minV, maxV, nan)
		if minV.Valid && maxV.Valid {
			lo, err1 := strconv.ParseInt(minV.String, 10, 64)
			hi, err2 := strconv.ParseInt(maxV.String, 10, 64)
			cs.MinInt, cs.MaxInt, cs.IntOK = lo, hi, err1 == nil && err2 == nil
		}
		i, ok := index.of(fileID.V)
		if !ok {
			continue
		}
		files[i].Stats = append(files[i].Stats, cs)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalog: read file stats of table %d: %w", t.ID, err)
	}
	for i := range files {
		files[i].Stats.sort()
	}
	return files, nil
}

// resolve joins a stored file path to its table directory unless the path is
// absolute (path_is_relative false).
func resolve(dir, path string, isRel NullBool) string {
	if isRel.Valid && !isRel.Bool {
		return path
	}
	return dir + path
}

// TableStats is a ducklake_table_stats row. The row is not versioned: it
// describes the head, not any older snapshot.
type TableStats struct {
	RecordCount int64 // rows ever inserted (gross; deletes do not lower it)
	NextRowID   int64
	// FileSizeBytes is the sum of the sizes of the data files added.
	FileSizeBytes int64
}

// TableStats reads a table's statistics row; ok is false if the table never
// had data.
func (db *DB) TableStats(ctx context.Context, tableID int64) (TableStats, bool, error) {
	return tableStats(ctx, db.q(), tableID)
}

// TableStats reads a table's statistics row inside the transaction.
func (t *Tx) TableStats(ctx context.Context, tableID int64) (TableStats, bool, error) {
	if r := t.prefetchedTable(tableID); r != nil {
		return r.stats, r.statsExist, nil
	}
	return tableStats(ctx, t, tableID)
}

const tableStatsQuery = `SELECT record_count, next_row_id, file_size_bytes FROM ducklake_table_stats WHERE table_id = ?`

func tableStats(ctx context.Context, q queryer, tableID int64) (TableStats, bool, error) {
	rows, err := q.QueryContext(ctx, tableStatsQuery, tableID)
	if err != nil {
		return TableStats{}, false, fmt.Errorf("catalog: read table stats: %w", err)
	}
	defer rows.Close()
	return scanTableStats(rows)
}

func scanTableStats(rows rowScanner) (TableStats, bool, error) {
	if !rows.Next() {
		return TableStats{}, false, rows.Err()
	}
	var rc, next, size sql.NullInt64
	if err := rows.Scan(&rc, &next, &size); err != nil {
		return TableStats{}, false, fmt.Errorf("catalog: read table stats: %w", err)
	}
	return TableStats{RecordCount: rc.Int64, NextRowID: next.Int64, FileSizeBytes: size.Int64}, true, nil
}

// TableColumnStats is a ducklake_table_column_stats row: the running union of
// every file's stats for one column. Min and Max are exact or nil.
type TableColumnStats struct {
	ColumnID     int64
	ContainsNull *bool
	ContainsNaN  *bool
	Min, Max     *string
	ExtraStats   *string
}

// TableColumnStats reads a table's per-column statistics by column_id.
func (db *DB) TableColumnStats(ctx context.Context, tableID int64) (map[int64]TableColumnStats, error) {
	return tableColumnStats(ctx, db.q(), tableID)
}

// TableColumnStats reads a table's per-column statistics inside the
// transaction.
func (t *Tx) TableColumnStats(ctx context.Context, tableID int64) (map[int64]TableColumnStats, error) {
	if r := t.prefetchedTable(tableID); r != nil {
		out := make(map[int64]TableColumnStats, len(r.colStats))
		for id, s := range r.colStats {
			out[id] = s
		}
		return out, nil
	}
	return tableColumnStats(ctx, t, tableID)
}

const tableColumnStatsQuery = `SELECT column_id, contains_null, contains_nan, min_value, max_value, extra_stats
FROM ducklake_table_column_stats WHERE table_id = ?`

func tableColumnStats(ctx context.Context, q queryer, tableID int64) (map[int64]TableColumnStats, error) {
	rows, err := q.QueryContext(ctx, tableColumnStatsQuery, tableID)
	if err != nil {
		return nil, fmt.Errorf("catalog: read table column stats: %w", err)
	}
	defer rows.Close()
	return scanTableColumnStats(rows)
}

func scanTableColumnStats(rows rowScanner) (map[int64]TableColumnStats, error) {
	out := map[int64]TableColumnStats{}
	for rows.Next() {
		var (
			s                 TableColumnStats
			cn, nan           NullBool
			minV, maxV, extra sql.NullString
		)
		if err := rows.Scan(&s.ColumnID, &cn, &nan, &minV, &maxV, &extra); err != nil {
			return nil, fmt.Errorf("catalog: read table column stats: %w", err)
		}
		s.ContainsNull, s.ContainsNaN = cn.Ptr(), nan.Ptr()
		s.Min, s.Max, s.ExtraStats = nullStr(minV), nullStr(maxV), nullStr(extra)
		out[s.ColumnID] = s
	}
	return out, rows.Err()
}

// LiveDeleteFile is the delete file of a data file that is live at the head
// (end_snapshot IS NULL), if any, and whether the data file itself is live.
func (t *Tx) LiveDeleteFile(ctx context.Context, dataFileID int64) (deleteFileID *int64, dataFileLive bool, err error) {
	var end sql.NullInt64
	var found bool
	rows, err := t.QueryContext(ctx, `SELECT end_snapshot FROM ducklake_data_file WHERE data_file_id = ?`, dataFileID)
	if err != nil {
		return nil, false, fmt.Errorf("catalog: read data file %d: %w", dataFileID, err)
	}
	if rows.Next() {
		found = true
		if err := rows.Scan(&end); err != nil {
			rows.Close()
			return nil, false, err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	dataFileLive = found && !end.Valid
	rows, err = t.QueryContext(ctx, `SELECT delete_file_id FROM ducklake_delete_file WHERE data_file_id = ? AND end_snapshot IS NULL ORDER BY begin_snapshot DESC, delete_file_id DESC`, dataFileID)
	if err != nil {
		return nil, false, fmt.Errorf("catalog: read delete files of %d: %w", dataFileID, err)
	}
	defer rows.Close()
	if rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, false, err
		}
		deleteFileID = &id
	}
	return deleteFileID, dataFileLive, rows.Err()
}

// FileStats are a file's column statistics in column_id order. A slice, not
// a map: a table of a million files kept a map per file in its cached list
// (most of the list's 840 MiB).
type FileStats []ColumnStats

// Get returns the statistics of column id.
func (s FileStats) Get(id int64) (ColumnStats, bool) {
	if len(s) <= 8 {
		for i := range s {
			if s[i].ColumnID == id {
				return s[i], true
			}
		}
		return ColumnStats{}, false
	}
	i := sort.Search(len(s), func(i int) bool { return s[i].ColumnID >= id })
	if i < len(s) && s[i].ColumnID == id {
		return s[i], true
	}
	return ColumnStats{}, false
}

// Of returns the statistics of column id, zero when it has none.
func (s FileStats) Of(id int64) ColumnStats {
	cs, _ := s.Get(id)
	return cs
}

// Has tells whether column id has statistics.
func (s FileStats) Has(id int64) bool {
	_, ok := s.Get(id)
	return ok
}

// sort orders s by column_id; a later duplicate replaces an earlier one.
func (s *FileStats) sort() {
	st := *s
	if sort.SliceIsSorted(st, func(i, j int) bool { return st[i].ColumnID < st[j].ColumnID }) {
		return
	}
	sort.SliceStable(st, func(i, j int) bool { return st[i].ColumnID < st[j].ColumnID })
	out := st[:0]
	for i := range st {
		if len(out) > 0 && out[len(out)-1].ColumnID == st[i].ColumnID {
			out[len(out)-1] = st[i]
			continue
		}
		out = append(out, st[i])
	}
	*s = out
}

// statValues hands out the values a ColumnStats points to from blocks,
// one allocation for many rows instead of up to six per row.
type statValues struct {
	block []statValue
}

type statValue struct {
	size, vals, nulls int64
	min, max          string
	nan               bool
}

func (a *statValues) next() *statValue {
	if len(a.block) == 0 {
		a.block = make([]statValue, 256)
	}
	v := &a.block[0]
	a.block = a.block[1:]
	return v
}

func (v *statValue) ints(size, vals, nulls scanInt) (*int64, *int64, *int64) {
	var a, b, c *int64
	if size.Valid {
		v.size, a = size.V, &v.size
	}
	if vals.Valid {
		v.vals, b = vals.V, &v.vals
	}
	if nulls.Valid {
		v.nulls, c = nulls.V, &v.nulls
	}
	return a, b, c
}

func (v *statValue) strs(lo, hi sql.NullString, nan NullBool) (*string, *string, *bool) {
	var a, b *string
	var c *bool
	if lo.Valid {
		v.min, a = lo.String, &v.min
	}
	if hi.Valid {
		v.max, b = hi.String, &v.max
	}
	if nan.Valid {
		v.nan, c = nan.Bool, &v.nan
	}
	return a, b, c
}

// fileIndex finds a file of a list in data_file_id order by its id: by
// position when the ids are dense (they usually are: a lake's file ids
// count up), else by a map. A map of a million ids, looked up once per
// statistics row, was a tenth of reading a million-file list.
type fileIndex struct {
	first int64
	dense []int32 // id-first -> position, -1 for none
	m     map[int64]int
}

func newFileIndex(files []DataFile) *fileIndex {
	ix := &fileIndex{first: files[0].ID}
	span := files[len(files)-1].ID - files[0].ID + 1
	if span > 0 && span <= 4*int64(len(files))+1024 && span < 1<<31 {
		ix.dense = make([]int32, span)
		for i := range ix.dense {
			ix.dense[i] = -1
		}
		for i := range files {
			ix.dense[files[i].ID-ix.first] = int32(i)
		}
		return ix
	}
	ix.m = make(map[int64]int, len(files))
	for i := range files {
		ix.m[files[i].ID] = i
	}
	return ix
}

func (ix *fileIndex) of(id int64) (int, bool) {
	if ix.dense != nil {
		k := id - ix.first
		if k < 0 || k >= int64(len(ix.dense)) || ix.dense[k] < 0 {
			return 0, false
		}
		return int(ix.dense[k]), true
	}
	i, ok := ix.m[id]
	return i, ok
}

// leafColumns counts the columns that have statistics: the leaves.
func leafColumns(cols []Column) int {
	n := 0
	for i := range cols {
		if len(cols[i].Children) == 0 {
			n++
		} else {
			n += leafColumns(cols[i].Children)
		}
	}
	return n
}
