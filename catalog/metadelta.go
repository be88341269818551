package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// deltaTokens are the changes_made entries after which Advance can build
// the new metadata from the old: creating tables, and data changes, which
// leave the catalog as it was. Anything else (drops, renames are caught
// below, schemas, views, alters, comments) loads the catalog again.
var deltaTokens = []string{"created_table:", "inserted_into_table:", "deleted_from_table:",
	"inlined_insert:", "inlined_delete:", "compacted_table:", "flushed_inlined:"}

// changedSince counts catalog rows of kind, begun or ended in (from, to],
// that do not belong to a table created in that range.
const changedSince = `SELECT COUNT(*) FROM %s WHERE ((begin_snapshot > ? AND begin_snapshot <= ?) OR (end_snapshot > ? AND end_snapshot <= ?))
AND %s NOT IN (SELECT table_id FROM ducklake_table WHERE begin_snapshot > ? AND begin_snapshot <= ?)`

// Advance builds the metadata of snap, a later snapshot, from prev's when
// every snapshot in between only created tables or changed data: it reads
// the new tables alone instead of every table and column (what makes a
// statement after CREATE TABLE slow in a catalog of thousands of tables).
// ok is false when something else changed; the caller then uses Load.
func (db *DB) Advance(ctx context.Context, prev *Metadata, snap Snapshot) (m *Metadata, ok bool, err error) {
	return db.advanceInto(ctx, prev, snap, nil)
}

// advanceInto is Advance; when added is not nil it is set to the tables
// added to prev's.
func (db *DB) advanceInto(ctx context.Context, prev *Metadata, snap Snapshot, added *[]Table) (m *Metadata, ok bool, err error) {
	from, to := prev.Snapshot.ID, snap.ID
	if to <= from {
		return nil, false, nil
	}
	rt, err := db.beginRead(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("catalog: advance to snapshot %d: %w", to, err)
	}
	defer rt.done()

	// every snapshot in between, and only the changes Advance understands
	rows, err := rt.QueryContext(ctx, `SELECT changes_made FROM ducklake_snapshot_changes WHERE snapshot_id > ? AND snapshot_id <= ?`, from, to)
	if err != nil {
		return nil, false, fmt.Errorf("catalog: advance: %w", err)
	}
	n := int64(0)
	for rows.Next() {
		var ch sql.NullString
		if err := rows.Scan(&ch); err != nil {
			rows.Close()
			return nil, false, fmt.Errorf("catalog: advance: %w", err)
		}
		n++
		if ch.String == "" {
			continue
		}
		for _, tok := range strings.Split(ch.String, ",") {
			known := false
			for _, p := range deltaTokens {
				known = known || strings.HasPrefix(strings.ToLower(tok), p)
			}
			if !known {
				rows.Close()
				return nil, false, nil
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("catalog: advance: %w", err)
	}
	if n != to-from {
		return nil, false, nil
	}
	// nothing but the new tables' rows changed: no table ended (a drop, a
	// rename), no column, tag or partition of an older table begun or ended
	var ended int64
	if err := queryRow(ctx, rt, `SELECT COUNT(*) FROM ducklake_table WHERE end_snapshot > ? AND end_snapshot <= ?`, []any{from, to}, &ended); err != nil {
		return nil, false, err
	}
	if ended != 0 {
		return nil, false, nil
	}
	for _, kind := range [][2]string{{"ducklake_column", "table_id"}, {"ducklake_column_tag", "table_id"},
		{"ducklake_tag", "object_id"}, {"ducklake_partition_info", "table_id"}} {
		var c int64
		if err := queryRow(ctx, rt, fmt.Sprintf(changedSince, kind[0], kind[1]), []any{from, to, from, to, from, to}, &c); err != nil {
			return nil, false, err
		}
		if c != 0 {
			return nil, false, nil
		}
	}

	// the new tables, loaded as Load loads tables
	nm := &Metadata{}
	rows, err = rt.QueryContext(ctx, `SELECT table_id, table_uuid, schema_id, table_name, path, path_is_relative, begin_snapshot
FROM ducklake_table WHERE `+visibleAt("")+` AND begin_snapshot > ? ORDER BY table_id`, to, to, from)
	if err != nil {
		return nil, false, fmt.Errorf("catalog: advance: load tables: %w", err)
	}
	byID := map[int64]int{}
	var ids []string
	for rows.Next() {
		t, err := scanTable(rows)
		if err != nil {
			rows.Close()
			return nil, false, fmt.Errorf("catalog: advance: load tables: %w", err)
		}
		byID[t.ID] = len(nm.Tables)
		nm.Tables = append(nm.Tables, t)
		ids = append(ids, fmt.Sprint(t.ID))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("catalog: advance: load tables: %w", err)
	}
	if len(nm.Tables) > 0 {
		cols, err := readColumns(ctx, rt, `WHERE `+visibleAt("")+` AND parent_column IS NULL AND table_id IN (`+strings.Join(ids, ", ")+`)`, to, to)
		if err != nil {
			return nil, false, err
		}
		for _, tc := range cols {
			if i, ok := byID[tc.tableID]; ok {
				nm.Tables[i].Columns = append(nm.Tables[i].Columns, tc.Column)
			}
		}
		if err := loadChildren(ctx, rt, nm, byID, to, ids); err != nil {
			return nil, false, err
		}
		if err := loadPGTypes(ctx, rt, nm, byID, to, ids); err != nil {
			return nil, false, err
		}
		parts, err := loadPartitions(ctx, rt, to)
		if err != nil {
			return nil, false, err
		}
		for tid, spec := range parts {
			if i, ok := byID[tid]; ok {
				nm.Tables[i].Partition = spec
			}
		}
		if err := loadComments(ctx, rt, nm, byID, to, db.Format() == Format11, ids); err != nil {
			return nil, false, err
		}
		for i := range nm.Tables {
			if len(nm.Tables[i].Columns) == 0 {
				return nil, false, fmt.Errorf("catalog: table %d (%s) has no columns at snapshot %d: corrupt catalog", nm.Tables[i].ID, nm.Tables[i].Name, to)
			}
		}
	}
	cons, err := loadConstraints(ctx, db, rt, to)
	if err != nil {
		return nil, false, err
	}
	tables := db.tableArrays.extend(prev.Tables, nm.Tables)
	// both runs are in id order; new tables usually have the highest ids,
	// and then there is nothing to sort (a stable sort of 10,000 tables
	// after every CREATE TABLE was a cost growing with the lake)
	if k := len(prev.Tables); k > 0 && len(nm.Tables) > 0 && nm.Tables[0].ID < prev.Tables[k-1].ID {
		tables = append([]Table(nil), tables...) // never sort an array another version shares
		sort.SliceStable(tables, func(i, j int) bool { return tables[i].ID < tables[j].ID })
	}
	if added != nil {
		*added = nm.Tables
	}
	return &Metadata{Snapshot: snap, Schemas: prev.Schemas, Tables: tables, Views: prev.Views, Constraints: cons}, true, nil
}

func queryRow(ctx context.Context, q queryer, query string, args []any, dst *int64) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("catalog: advance: %w", err)
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(dst); err != nil {
			return fmt.Errorf("catalog: advance: %w", err)
		}
	}
	return rows.Err()
}

// onlyTables restricts a loader's query to the tables Advance reads (ids,
// decimal); nil keeps every table (Load).
func onlyTables(col string, ids []string) string {
	if ids == nil {
		return ""
	}
	return " AND " + col + " IN (" + strings.Join(ids, ", ") + ")"
}

// tableArrays lets the metadata Advance builds share its previous
// version's array of tables: copying 10,000 tables after every CREATE TABLE
// was a cost growing with the lake. The array has room past the tables
// handed out, where no Metadata looks; only the first extension of a given
// length may write there, a second one from the same previous version
// copies. Slices handed out have no room (their capacity is their length),
// so an append by whoever holds one copies instead of writing into the
// shared array.
type tableArrays struct {
	mu sync.Mutex
	// full: an array's first element -> the array, its length the tables
	// handed out so far, its capacity all of it
	full map[*Table][]Table
	// copied counts the tables written into arrays (copies and appends): it
	// should grow with the tables created, not with the lake's size at each
	// creation (the tests check it)
	copied int64
}

// tableArraysKept bounds the arrays kept for extension: each keeps a
// version's tables alive.
const tableArraysKept = 4

// extend returns prev followed by added.
func (a *tableArrays) extend(prev, added []Table) []Table {
	if len(added) == 0 {
		return prev
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	n := len(prev) + len(added)
	var arr []Table // the array prev's tables are in, when added continues it
	k := 0
	if len(prev) > 0 {
		if a0, ok := a.full[&prev[0]]; ok && len(a0) >= len(prev) {
			// Past prev the array may hold a later version's tables: statements
			// of several sessions advance from one cached version to different
			// heads at once. Its tables are ours when they are the same rows
			// (a table created in both ranges is the same row in both: an
			// advance's range changes nothing but data), and then the array is
			// still shared; copying and indexing the whole lake there made each
			// CREATE TABLE slower as the lake grew.
			k = min(len(a0)-len(prev), len(added))
			if sameTableRows(a0[len(prev):len(prev)+k], added[:k]) {
				arr = a0
			}
		}
	}
	switch {
	case arr != nil && k == len(added):
		return arr[:n:n]
	case arr != nil && cap(arr) >= n:
		out := append(arr, added[k:]...)
		a.copied += int64(len(out) - len(arr))
		a.full[&prev[0]] = out
		a.full[&out[0]] = out
		indexTableNames(out)
		return out[:n:n]
	}
	var out []Table
	if arr != nil {
		// the array is full: a larger one with all of its tables, which the
		// versions in the old one find too (the heads racing this one
		// extend the old array's versions)
		m := len(arr) + len(added) - k
		out = append(append(make([]Table, 0, m+m/4+16), arr...), added[k:]...)
		a.full = map[*Table][]Table{&prev[0]: out, &arr[0]: out}
	} else {
		out = append(append(make([]Table, 0, n+n/4+16), prev...), added...)
		if a.full == nil || len(a.full) >= tableArraysKept {
			a.full = map[*Table][]Table{}
		}
	}
	a.copied += int64(len(out))
	a.full[&out[0]] = out
	indexTableNames(out)
	return out[:n:n]
}

// sameTableRows tells whether a and b list the same catalog rows of tables.
func sameTableRows(a, b []Table) bool {
	for i := range a {
		if a[i].ID != b[i].ID || a[i].BeginSnapshot != b[i].BeginSnapshot || a[i].SchemaID != b[i].SchemaID || a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}

// Finding a table by name in the metadata of a lake of thousands of tables
// compared every table's name (18 % of the server's CPU while building a
// lake at 9,000 tables). The arrays tableArrays shares are indexed by schema
// and name as they grow: an array only ever grows at its end and a table's
// name never changes in it (a rename or a drop makes Load read the catalog
// into a new array), so a position once indexed stays right, and a name at
// or past a version's length is a later version's table.
type nameIndex struct {
	mu  sync.RWMutex
	pos map[nameKey]int32
	n   int // positions [0, n) are indexed
}

type nameKey struct {
	schema int64
	name   string
}

// nameIndexMin is the fewest tables worth an index.
const nameIndexMin = 256

// nameIndexes are the indexes of the arrays tableArrays shares, by their
// first element; a few, for the arrays still being extended.
var nameIndexes struct {
	mu sync.RWMutex
	m  map[*Table]*nameIndex
}

const nameIndexesKept = 16

// indexTableNames indexes the positions of arr not indexed yet.
func indexTableNames(arr []Table) {
	if len(arr) < nameIndexMin {
		return
	}
	nameIndexes.mu.Lock()
	ix := nameIndexes.m[&arr[0]]
	if ix == nil {
		if nameIndexes.m == nil || len(nameIndexes.m) >= nameIndexesKept {
			nameIndexes.m = map[*Table]*nameIndex{}
		}
		ix = &nameIndex{pos: make(map[nameKey]int32, cap(arr))}
		nameIndexes.m[&arr[0]] = ix
	}
	nameIndexes.mu.Unlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for i := ix.n; i < len(arr); i++ {
		k := nameKey{arr[i].SchemaID, arr[i].Name}
		if _, dup := ix.pos[k]; !dup {
			ix.pos[k] = int32(i)
		}
	}
	ix.n = max(ix.n, len(arr))
}

// indexedTable finds schema.name in tables by the index of its array;
// known is false when there is none (then t is nil and the caller looks).
func indexedTable(tables []Table, schema int64, name string) (t *Table, known bool) {
	if len(tables) < nameIndexMin {
		return nil, false
	}
	nameIndexes.mu.RLock()
	ix := nameIndexes.m[&tables[0]]
	nameIndexes.mu.RUnlock()
	if ix == nil {
		return nil, false
	}
	ix.mu.RLock()
	p, ok := ix.pos[nameKey{schema, name}]
	n := ix.n
	ix.mu.RUnlock()
	if n < len(tables) {
		return nil, false
	}
	if !ok || int(p) >= len(tables) {
		return nil, true
	}
	if t := &tables[p]; t.SchemaID == schema && t.Name == name {
		return t, true
	}
	return nil, false
}
