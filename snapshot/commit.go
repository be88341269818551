package snapshot

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/lakepg/lakepg/catalog"
)

// ColumnDef describes a new column.
type ColumnDef struct {
	Name         string
	Type         string // DuckLake type name: int32, varchar, decimal(18,3), ...
	NullsAllowed bool
	// InitialDefault is the value older files read for the column, as
	// literal text; nil for NULL.
	InitialDefault *string
	// DefaultValue is the DEFAULT as text; nil means no default, written as
	// the text 'NULL' as DuckDB does.
	DefaultValue *string
	// DefaultIsExpression records DefaultValue with default_value_type
	// 'expression' (a SQL expression such as nextval('t_id_seq'::regclass),
	// evaluated per row), not 'literal'.
	DefaultIsExpression bool
	// PGType is the declared PostgreSQL type DuckLake cannot hold
	// ("varchar(40)", "bpchar(10)"), kept in a lakepg.type.<id> table tag
	// (pgtype.go); "" for none.
	PGType string
	// Order is the column_order of a column added to an existing table
	// that takes the place of one dropped in the same commit (a type
	// change that rewrites the data); 0: after the table's last column
	// (column_order = column id, as DuckDB numbers them).
	Order int64
	// Children are a nested column's child columns (a list's element),
	// written as rows with parent_column set. Ids are handed out depth-first,
	// as DuckDB does: a column's children take the ids right after its own.
	Children []ColumnDef
}

// idWidth is how many column ids def takes: its own and its descendants'.
func idWidth(def ColumnDef) int64 {
	n := int64(1)
	for _, c := range def.Children {
		n += idWidth(c)
	}
	return n
}

// NewDataFile is a Parquet file already written under the table directory.
type NewDataFile struct {
	RelPath string // relative to the table dir, e.g. ducklake-<uuidv7>.parquet
	// Path is where the writer put the file in storage. It is not written
	// to the catalog: it names the file to delete when the commit does not
	// keep it (Discarded).
	Path        string
	RecordCount int64
	FileSize    int64 // exact: DuckDB uses it instead of asking the store
	FooterSize  int64 // Thrift footer length; 0 means unknown (written as NULL)
	// RowGroupCount is the file's row groups, written to a DuckLake 1.1
	// catalog's row_group_count; 0 means unknown (NULL).
	RowGroupCount int64
	// EncryptionKey is the file's key (base64) in an encrypted lake, "" for
	// a plain file (written as NULL). A secret: never logged.
	EncryptionKey string
	// Stats has one entry per leaf column.
	Stats []catalog.ColumnStats
	// EmbeddedRowIDs: the file carries _ducklake_internal_row_id (UPDATE).
	// The catalog rows are the same either way (row_id_start and next_row_id
	// still advance), so this is informational.
	EmbeddedRowIDs bool
	// Partition is set when the file holds one partition of a partitioned
	// table (partition.go); nil writes partition_id NULL.
	Partition *FilePartition
	// Registered: an existing file added in place (add_data_files): RelPath
	// is its full path (path_is_relative false) and Path is empty, so no
	// failed commit deletes it. NameMap, when set, is written as a
	// map_by_name mapping the file's mapping_id names (registered.go).
	Registered bool
	NameMap    []catalog.NameMapEntry
	// NullColumns are columns the registered file lacks and reads as NULL
	// (no stats row, but known: the table's statistics stay exact).
	NullColumns []int64
	// Mapping is an existing mapping of the table identical to NameMap,
	// which the file names instead of a new one, as DuckDB reuses them.
	Mapping *int64
}

// NewDeleteFile is a positional delete file already written under the
// table directory. It holds ALL deleted positions of its data file.
type NewDeleteFile struct {
	RelPath     string
	Path        string // where the writer put it, as NewDataFile.Path
	DeleteCount int64
	FileSize    int64
	FooterSize  int64
	// RowGroupCount as NewDataFile's.
	RowGroupCount int64
	// EncryptionKey as NewDataFile's.
	EncryptionKey string
	// Stamp is the snapshot id the file's _ducklake_internal_snapshot_id
	// column gives the positions this commit deletes; 0 when the file has
	// no such column (every position is deleted at the commit). A file that
	// replaces a committed delete file must have it: its row replaces the old
	// one, and readers of the change feed (DuckDB's ducklake_table_changes)
	// take the history from the column.
	Stamp int64
	// BeginSnapshot is the smallest snapshot id in that column (the old
	// file's first delete), the new row's begin_snapshot; 0: the commit.
	BeginSnapshot int64
}

type newSchema struct {
	provID  int64
	name    string
	loc     Location
	dropped bool // created and dropped in the same commit: write nothing
}

type newTable struct {
	provID   int64
	schemaID int64 // may be a provisional id
	schema   string
	name     string // renames within the commit change it, never loc
	loc      Location
	cols     []ColumnDef
	colDrop  []bool // parallel to cols: dropped within the same commit
	dropped  bool
}

type droppedSchema struct{ s catalog.Schema }

type droppedTable struct {
	s catalog.Schema
	t catalog.Table
}

type renamedTable struct {
	s       catalog.Schema
	t       catalog.Table // as the statement saw it (t.Name is the old name)
	newName string
}

type addedColumn struct {
	tableID int64
	base    int64 // the table's largest column id when the first column was added
	provID  int64
	def     ColumnDef
}

// columnChange accumulates every ALTER of one existing column in this
// commit, so that the commit end-dates its live row once and inserts one
// replacement.
type columnChange struct {
	tableID, columnID int64
	drop              bool
	rename            *string
	typ               *string
	setDefault        bool
	def               *string
	defExpr           bool
	pgType            *string // new lakepg.type tag ("" removes it), pgtype.go
	notNull           bool    // made NOT NULL (a primary key's column), constraints.go
	nullable          bool    // made nullable (DROP NOT NULL), nullable.go
}

type addedFile struct {
	tableID int64
	f       NewDataFile
}

type replacedDelete struct {
	tableID int64
	df      catalog.DataFile
	f       NewDeleteFile
}

type endedFile struct {
	tableID int64
	df      catalog.DataFile
}

// Commit collects the changes of one statement (or transaction) and writes
// them as one snapshot. It is not safe for concurrent use.
type Commit struct {
	db   *catalog.DB
	base catalog.Snapshot
	meta *catalog.Metadata

	author, message *string

	// catalogIDs is how many catalog ids (schemas, tables) were handed out;
	// provisional ids are base.NextCatalogID .. base.NextCatalogID+catalogIDs-1.
	catalogIDs int64

	newSchemas     []*newSchema
	droppedSchemas []droppedSchema
	newTables      []*newTable
	droppedTables  []droppedTable
	renamed        []*renamedTable
	addedCols      []*addedColumn
	addedColsAll   []*addedColumn // including ones dropped again: their ids stay used
	colChanges     []*columnChange
	addedFiles     []addedFile
	replaced       []replacedDelete
	ended          []endedFile
	inlinedDeletes []inlinedDelete
	inl            inlineWrites // data inlining on write (maintenance_inline.go)
	partitions     []*partitionChange
	newViews       []*newView // views.go
	droppedViews   []droppedView
	renamedViews   []*renamedView
	comments       []*commentChange  // comments.go
	cons           constraintChanges // constraints.go

	// extras are writes of lakepg's own tables (sequences) that commit or
	// fail with the snapshot, in its catalog transaction (extra.go).
	extras []Extra

	// sorts are sort-order changes (sort.go)
	sorts []*sortChange

	// finalCatalogBase is the head's next_catalog_id the successful attempt
	// allocated from; set by Commit.
	finalCatalogBase int64
	committed        bool

	// beforeCommit, when set (tests), runs after all rows are written and
	// before the catalog transaction commits; an error aborts the attempt
	// as if the backend had returned it.
	beforeCommit func(attempt int) error
}

// Begin starts a commit on top of base, the snapshot the statement read;
// meta is the catalog as base sees it (used to name schemas in change
// records; may be nil).
func Begin(db *catalog.DB, base catalog.Snapshot, meta *catalog.Metadata) *Commit {
	return &Commit{db: db, base: base, meta: meta}
}

// Base is the snapshot the commit builds on.
func (c *Commit) Base() catalog.Snapshot { return c.base }

// SetCommitInfo records an author and a commit message in
// ducklake_snapshot_changes (nil leaves them NULL).
func (c *Commit) SetCommitInfo(author, message *string) {
	c.author, c.message = author, message
}

// Empty reports whether the commit would change nothing.
func (c *Commit) Empty() bool {
	return len(c.newSchemas) == 0 && len(c.droppedSchemas) == 0 && len(c.newTables) == 0 &&
		len(c.droppedTables) == 0 && len(c.renamed) == 0 && len(c.addedCols) == 0 &&
		len(c.colChanges) == 0 && len(c.addedFiles) == 0 && len(c.replaced) == 0 && len(c.ended) == 0 &&
		len(c.inlinedDeletes) == 0 && c.inl.empty() && len(c.partitions) == 0 && !c.viewsChanged() && len(c.extras) == 0 &&
		len(c.comments) == 0 && c.cons.empty() && len(c.sorts) == 0
}

func (c *Commit) allocCatalogID() int64 {
	id := c.base.NextCatalogID + c.catalogIDs
	c.catalogIDs++
	return id
}

// isProvisional reports whether id was handed out by this commit.
func (c *Commit) isProvisional(id int64) bool {
	return id >= c.base.NextCatalogID && id < c.base.NextCatalogID+c.catalogIDs
}

// remap turns a provisional catalog id into the id allocated from a head
// whose next_catalog_id is next; other ids pass through.
func (c *Commit) remap(id, next int64) int64 {
	if c.isProvisional(id) {
		return id - c.base.NextCatalogID + next
	}
	return id
}

// FinalID maps an id returned by CreateSchema or CreateTable to the id the
// successful Commit wrote. Before Commit, or for other ids, it returns id.
func (c *Commit) FinalID(id int64) int64 {
	if !c.committed {
		return id
	}
	return c.remap(id, c.finalCatalogBase)
}

func (c *Commit) findNewTable(id int64) *newTable {
	for _, t := range c.newTables {
		if t.provID == id {
			return t
		}
	}
	return nil
}

func (c *Commit) findNewSchema(id int64) *newSchema {
	for _, s := range c.newSchemas {
		if s.provID == id {
			return s
		}
	}
	return nil
}

// Location is the uuid and directory of a schema or table being created.
// DuckLake fixes the directory when the object is created: a later rename,
// even one in the same transaction, changes the name and never the path, so
// files written before and after a rename live in one directory.
type Location struct {
	UUID string
	Path string // relative to the parent's directory, ending in "/"
}

// NewLocation gives a new schema or table named name its uuid and the
// directory DuckDB would give it: the name when it is made of
// [A-Za-z0-9_-] only, else the uuid.
func NewLocation(name string) Location {
	id := uuid.Must(uuid.NewV7()).String()
	return Location{UUID: id, Path: pathFor(name, id)}
}

// CreateSchema creates a schema; it returns the schema's provisional id.
func (c *Commit) CreateSchema(name string) int64 {
	id := c.allocCatalogID()
	c.newSchemas = append(c.newSchemas, &newSchema{provID: id, name: name, loc: NewLocation(name)})
	return id
}

// DropSchema drops a schema. The caller ensures it is empty, or drops its
// tables in the same commit.
func (c *Commit) DropSchema(s catalog.Schema) {
	if ns := c.findNewSchema(s.ID); ns != nil {
		ns.dropped = true
		return
	}
	c.droppedSchemas = append(c.droppedSchemas, droppedSchema{s: s})
}

// CreateTable creates a table in schema s (which may have been created in
// this commit); column ids start at 1 and are handed out depth-first (see
// ColumnDef.Children). It returns the table's provisional id.
func (c *Commit) CreateTable(s catalog.Schema, name string, cols []ColumnDef) int64 {
	return c.CreateTableAt(s, name, NewLocation(name), cols)
}

// CreateTableAt creates a table whose location the caller chose with
// NewLocation, because it wrote the table's first files before the commit
// (CREATE TABLE AS).
func (c *Commit) CreateTableAt(s catalog.Schema, name string, loc Location, cols []ColumnDef) int64 {
	id := c.allocCatalogID()
	schemaName := s.Name
	if ns := c.findNewSchema(s.ID); ns != nil && schemaName == "" {
		schemaName = ns.name
	}
	c.newTables = append(c.newTables, &newTable{
		provID:   id,
		schemaID: s.ID,
		schema:   schemaName,
		name:     name,
		loc:      loc,
		cols:     append([]ColumnDef(nil), cols...),
		colDrop:  make([]bool, len(cols)),
	})
	return id
}

// dropsTable reports whether the commit drops table id, one it creates
// included.
func (c *Commit) dropsTable(id int64) bool {
	if nt := c.findNewTable(id); nt != nil {
		return nt.dropped
	}
	return slices.ContainsFunc(c.droppedTables, func(d droppedTable) bool { return d.t.ID == id })
}

// DropTable drops a table with everything that belongs to it.
func (c *Commit) DropTable(s catalog.Schema, t catalog.Table) {
	if nt := c.findNewTable(t.ID); nt != nil {
		nt.dropped = true
		return
	}
	c.droppedTables = append(c.droppedTables, droppedTable{s: s, t: t})
}

// RenameTable renames a table; its directory keeps the old name.
func (c *Commit) RenameTable(s catalog.Schema, t catalog.Table, newName string) {
	if nt := c.findNewTable(t.ID); nt != nil {
		nt.name = newName
		return
	}
	for i, r := range c.renamed {
		if r.t.ID == t.ID {
			if newName == r.t.Name { // back to the name it has: no rename
				c.renamed = slices.Delete(c.renamed, i, i+1)
			} else {
				r.newName = newName
			}
			return
		}
	}
	c.renamed = append(c.renamed, &renamedTable{s: s, t: t, newName: newName})
}

// AddColumn adds a top-level column and returns its column id: one more
// than the largest column id the table ever had.
//
// For an existing table the id is looked up in the catalog now (without a
// context; the query is one MAX) and recomputed inside the commit's
// transaction.
func (c *Commit) AddColumn(t catalog.Table, col ColumnDef) int64 {
	if nt := c.findNewTable(t.ID); nt != nil {
		nt.cols = append(nt.cols, col)
		nt.colDrop = append(nt.colDrop, false)
		ids := nt.columnIDs()
		return ids[len(ids)-1]
	}
	// Ids of columns added to one table in one commit keep their distance
	// from the table's maximum column id at the first AddColumn, so that
	// dropping one of them again does not renumber the others.
	var base, last int64 = -1, 0
	for _, a := range c.addedColsAll {
		if a.tableID == t.ID {
			base = a.base
			if end := a.provID + idWidth(a.def) - 1; end > last {
				last = end
			}
		}
	}
	if base < 0 {
		for _, cl := range t.Columns {
			if cl.ID > base {
				base = cl.ID
			}
		}
		if m, err := c.db.MaxColumnID(context.Background(), t.ID); err == nil && m > base {
			base = m
		}
		if base < 0 {
			base = 0
		}
	}
	if last < base {
		last = base
	}
	a := &addedColumn{tableID: t.ID, base: base, provID: last + 1, def: col}
	c.addedCols = append(c.addedCols, a)
	c.addedColsAll = append(c.addedColsAll, a)
	return a.provID
}

// addedColumn finds a column added to an existing table in this commit.
func (c *Commit) findAddedColumn(tableID, columnID int64) *addedColumn {
	for _, a := range c.addedCols {
		if a.tableID == tableID && a.provID == columnID {
			return a
		}
	}
	return nil
}

// change returns the accumulated change record for an existing column.
func (c *Commit) change(tableID, columnID int64) *columnChange {
	for _, ch := range c.colChanges {
		if ch.tableID == tableID && ch.columnID == columnID {
			return ch
		}
	}
	ch := &columnChange{tableID: tableID, columnID: columnID}
	c.colChanges = append(c.colChanges, ch)
	return ch
}

// columnIDs are the ids of a new table's top-level columns, dropped ones
// included (their ids stay used): depth-first from 1.
func (nt *newTable) columnIDs() []int64 {
	ids := make([]int64, len(nt.cols))
	next := int64(1)
	for i, def := range nt.cols {
		ids[i] = next
		next += idWidth(def)
	}
	return ids
}

// newTableColumn returns the definition of top-level column id in a table
// created in this commit.
func newTableColumn(nt *newTable, columnID int64) (*ColumnDef, int) {
	for i, id := range nt.columnIDs() {
		if id == columnID {
			return &nt.cols[i], i
		}
	}
	return nil, -1
}

// DropColumn drops a column (and, for nested columns, its children).
func (c *Commit) DropColumn(t catalog.Table, columnID int64) {
	if nt := c.findNewTable(t.ID); nt != nil {
		if _, i := newTableColumn(nt, columnID); i >= 0 {
			nt.colDrop[i] = true
		}
		return
	}
	if a := c.findAddedColumn(t.ID, columnID); a != nil {
		c.removeAddedColumn(a)
		return
	}
	c.change(t.ID, columnID).drop = true
}

func (c *Commit) removeAddedColumn(a *addedColumn) {
	for i, x := range c.addedCols {
		if x == a {
			c.addedCols = append(c.addedCols[:i], c.addedCols[i+1:]...)
			return
		}
	}
}

// RenameColumn renames a column; its column id (Parquet field id) stays.
func (c *Commit) RenameColumn(t catalog.Table, columnID int64, newName string) {
	if nt := c.findNewTable(t.ID); nt != nil {
		if d, _ := newTableColumn(nt, columnID); d != nil {
			d.Name = newName
		}
		return
	}
	if a := c.findAddedColumn(t.ID, columnID); a != nil {
		a.def.Name = newName
		return
	}
	c.change(t.ID, columnID).rename = &newName
}

// SetColumnType changes a column's type. Only widening promotions are
// valid; the caller checks that.
func (c *Commit) SetColumnType(t catalog.Table, columnID int64, newType string) {
	if nt := c.findNewTable(t.ID); nt != nil {
		if d, _ := newTableColumn(nt, columnID); d != nil {
			d.Type = newType
		}
		return
	}
	if a := c.findAddedColumn(t.ID, columnID); a != nil {
		a.def.Type = newType
		return
	}
	c.change(t.ID, columnID).typ = &newType
}

// SetColumnDefault sets (or with nil, drops) a column's DEFAULT, a literal.
func (c *Commit) SetColumnDefault(t catalog.Table, columnID int64, def *string) {
	c.SetColumnDefaultExpr(t, columnID, def, false)
}

// SetColumnDefaultExpr sets a column's DEFAULT, an expression when expr
// (see ColumnDef.DefaultIsExpression).
func (c *Commit) SetColumnDefaultExpr(t catalog.Table, columnID int64, def *string, expr bool) {
	if nt := c.findNewTable(t.ID); nt != nil {
		if d, _ := newTableColumn(nt, columnID); d != nil {
			d.DefaultValue, d.DefaultIsExpression = def, expr
		}
		return
	}
	if a := c.findAddedColumn(t.ID, columnID); a != nil {
		a.def.DefaultValue, a.def.DefaultIsExpression = def, expr
		return
	}
	ch := c.change(t.ID, columnID)
	ch.setDefault, ch.def, ch.defExpr = true, def, expr
}

// AddDataFile registers a new data file of table t. Its data_file_id and
// row_id_start are assigned at commit: files take consecutive row id ranges
// from the table's next_row_id in the order they were added.
func (c *Commit) AddDataFile(t catalog.Table, f NewDataFile) {
	c.addedFiles = append(c.addedFiles, addedFile{tableID: t.ID, f: f})
}

// ReplaceDeleteFile gives data file df a new delete file f that holds all
// its deleted positions (those of df.Delete plus the new ones). When df has
// a committed delete file, f carries the snapshot column (f.Stamp) and the
// old row is removed and its file scheduled for deletion, as DuckDB does:
// an end-dated old row next to the new one would make DuckDB's change feed
// count the old positions again at the new file's begin_snapshot.
func (c *Commit) ReplaceDeleteFile(t catalog.Table, df catalog.DataFile, f NewDeleteFile) {
	// A later delete of the same file in one transaction supersedes the
	// earlier one (its file holds the earlier positions too).
	for i := range c.replaced {
		if c.replaced[i].df.ID == df.ID {
			c.replaced[i].f = f
			return
		}
	}
	c.replaced = append(c.replaced, replacedDelete{tableID: t.ID, df: df, f: f})
}

// RestampDeletes rewrites, through fn, the delete files staged with a
// snapshot column stamped for another snapshot id than snap, the id the
// commit is about to get (another writer committed since they were
// written). fn returns the replacement, stamped snap.
func (c *Commit) RestampDeletes(snap int64, fn func(df catalog.DataFile, f NewDeleteFile) (NewDeleteFile, error)) error {
	for i := range c.replaced {
		r := &c.replaced[i]
		if r.f.Stamp == 0 || r.f.Stamp == snap || c.dropsTable(r.tableID) {
			continue
		}
		nf, err := fn(r.df, r.f)
		if err != nil {
			return err
		}
		r.f = nf
	}
	return nil
}

// EndDataFile records that every row of df is deleted: the data file (and
// its live delete file) are end-dated instead of writing a delete file.
func (c *Commit) EndDataFile(t catalog.Table, df catalog.DataFile) {
	c.replaced = slices.DeleteFunc(c.replaced, func(r replacedDelete) bool { return r.df.ID == df.ID })
	c.ended = append(c.ended, endedFile{tableID: t.ID, df: df})
}
