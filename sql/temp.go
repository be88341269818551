package sql

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/sql/planner"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// Temporary tables (CREATE TEMP TABLE) live in their session only: never in
// the shared DuckLake catalog, so other sessions, other servers and DuckDB
// see no trace of them, and they are gone when the session ends. A table's
// rows are immutable column chunks in memory (exec.TableChunk), charged to
// the session's memory account against the engine's budget. A table
// version is its definition plus a list of chunk pointers, and the
// session's temporary tables are a map from name to version that is never
// changed in place: a statement builds a new map. So a transaction block
// (or a savepoint) keeps the map it started from, and ROLLBACK puts it back
// without copying any rows. Chunks no map reaches any more are given back
// to the memory account (tempGC).

// tempTables are a session's temporary tables by name.
type tempTables map[string]*planner.TempTable

// tempState is a session's temporary tables and what their transaction
// block started from.
type tempState struct {
	cur     tempTables
	start   tempTables // at the block's first change (valid while started)
	started bool
	mem     *memory.Memory
	held    map[*exec.TableChunk]bool // chunks charged to mem
	num     int64                     // the N of pg_temp_N, 0 until the first temporary table
	nextRel int64
}

var tempSessions atomic.Int64

func (ts *tempState) nsOID() int64      { return planner.TempNSBase + 2*ts.num }
func (ts *tempState) nsName() string    { return fmt.Sprintf("pg_temp_%d", ts.num) }
func (ts *tempState) toastName() string { return fmt.Sprintf("pg_toast_temp_%d", ts.num) }

// isTempSchemaName reports whether a schema name is the session's temporary
// schema (pg_temp or its pg_temp_N) or another session's.
func isTempSchemaName(name string) bool {
	return name == "pg_temp" || strings.HasPrefix(name, "pg_temp_")
}

// TempLookup finds the temporary table a (schema, name) reference means:
// unqualified names look in pg_temp first, as PostgreSQL does when the
// search_path does not name pg_temp.
func (s *Session) TempLookup(schema, name string) *planner.TempTable {
	ts := &s.temp
	if len(ts.cur) == 0 {
		return nil
	}
	switch {
	case schema == "":
	case schema == "pg_temp" || schema == ts.nsName():
	default:
		return nil
	}
	return ts.cur[name]
}

// tempByID finds the current version of the temporary table with the
// given catalog ID (a definition a statement resolved earlier).
func (s *Session) tempByID(id int64) *planner.TempTable {
	for _, t := range s.temp.cur {
		if t.Tbl.ID == id {
			return t
		}
	}
	return nil
}

// isTempTable reports whether t is a temporary table's definition.
func isTempTable(t *catalog.Table) bool {
	return t != nil && t.SchemaID == tempSchemaID
}

// tempSchemaID is the schema id temporary tables' definitions carry.
const tempSchemaID = -1

// tempSchema is the catalog schema a temporary table is in, for the code
// paths (INSERT, COPY) that resolve a table and its schema together.
func (s *Session) tempSchema() *catalog.Schema {
	return &catalog.Schema{ID: tempSchemaID, Name: s.temp.nsName()}
}

// tempPut makes t (nil: no table) the session's table name, in a new map.
// Outside a transaction block the statement commits at once, so the ON
// COMMIT actions run now.
func (s *Session) tempPut(name string, t *planner.TempTable) {
	s.tempApply(map[string]*planner.TempTable{name: t})
}

// tempApply is tempPut of several names at once (nil values drop).
func (s *Session) tempApply(set map[string]*planner.TempTable) {
	ts := &s.temp
	if s.inTx && !ts.started {
		ts.start, ts.started = ts.cur, true
	}
	next := make(tempTables, len(ts.cur)+1)
	for k, v := range ts.cur {
		next[k] = v
	}
	for name, t := range set {
		if t == nil {
			delete(next, name)
		} else {
			next[name] = t
		}
	}
	ts.cur = next
	if !s.inTx {
		s.tempEnd(true)
	} else {
		s.tempGC()
	}
}

// tempEnd ends the block for the temporary tables: COMMIT runs the ON
// COMMIT actions (DELETE ROWS empties, DROP drops), ROLLBACK returns to
// what the block started from.
func (s *Session) tempEnd(commit bool) {
	ts := &s.temp
	if !commit && ts.started {
		ts.cur = ts.start
	}
	ts.start, ts.started = nil, false
	if commit {
		var next tempTables
		for name, t := range ts.cur {
			switch {
			case t.OnCommit == pg.OnCommitAction_ONCOMMIT_DROP:
			case t.OnCommit == pg.OnCommitAction_ONCOMMIT_DELETE_ROWS && t.Rows > 0:
				e := *t
				e.Chunks, e.Rows = nil, 0
				t = &e
			default:
				if next != nil {
					next[name] = t
				}
				continue
			}
			if next == nil {
				next = make(tempTables, len(ts.cur))
				for k, v := range ts.cur {
					next[k] = v
				}
			}
			if t.OnCommit == pg.OnCommitAction_ONCOMMIT_DROP {
				delete(next, name)
			} else {
				next[name] = t
			}
		}
		if next != nil {
			ts.cur = next
		}
	}
	s.tempGC()
}

// tempMark is the state a savepoint goes back to.
func (s *Session) tempMark() tempTables {
	ts := &s.temp
	if !ts.started {
		ts.start, ts.started = ts.cur, true
	}
	return ts.cur
}

// tempRollbackTo returns to a savepoint's state.
func (s *Session) tempRollbackTo(m tempTables) {
	s.temp.cur = m
	s.tempGC()
}

// tempDropAll drops every temporary table (DISCARD TEMP, DISCARD ALL, the
// end of the session).
func (s *Session) tempDropAll() {
	if len(s.temp.cur) == 0 {
		return
	}
	if s.inTx && !s.temp.started {
		s.temp.start, s.temp.started = s.temp.cur, true
	}
	s.temp.cur = nil
	s.tempGC()
}

// tempClose frees everything at the end of the session.
func (s *Session) tempClose() {
	s.temp.cur, s.temp.start, s.temp.started = nil, nil, false
	s.tempGC()
}

// tempHold records chunks just built as charged to the session.
func (s *Session) tempHold(cs []*exec.TableChunk) {
	ts := &s.temp
	if ts.held == nil {
		ts.held = map[*exec.TableChunk]bool{}
	}
	for _, c := range cs {
		ts.held[c] = true
	}
}

// tempGC gives back the memory of chunks no version reaches: not the
// current tables, the block's start, nor a savepoint.
func (s *Session) tempGC() {
	ts := &s.temp
	if len(ts.held) == 0 {
		return
	}
	live := map[*exec.TableChunk]bool{}
	mark := func(m tempTables) {
		for _, t := range m {
			for _, c := range t.Chunks {
				live[c] = true
			}
		}
	}
	mark(ts.cur)
	if ts.started {
		mark(ts.start)
	}
	for _, sp := range s.savepoints {
		mark(sp.temp)
	}
	for c := range ts.held {
		if !live[c] {
			ts.mem.Shrink(c.Bytes)
			c.Drop()
			delete(ts.held, c)
		}
	}
}

// tempDropChunks gives back chunks a failed statement built: those in no
// table version.
func (s *Session) tempDropChunks(cs []*exec.TableChunk) {
	if len(cs) > 0 {
		s.tempGC()
	}
}

// tempMemory is the session's account for temporary tables' rows. It may
// hold a quarter of the memory budget: the rest of a table goes to disk, so
// that a session's tables, which live as long as it does, leave the
// statements memory to work in (a join under a budget that temporary
// tables filled ran by chunks of one batch).
func (s *Session) tempMemory() *memory.Memory {
	if s.temp.mem == nil {
		s.temp.mem = memory.NewMemory(nil, 0)
	}
	s.temp.mem.Limit = max(memory.GlobalMemory.Limit()/tempMemoryShare, 1)
	return s.temp.mem
}

// tempMemoryShare: temporary tables keep in memory 1/tempMemoryShare of
// the budget at most.
const tempMemoryShare = 4

// TempMemoryUsed is how many bytes the session's temporary tables hold.
func (s *Session) TempMemoryUsed() int64 { return s.temp.mem.Used() }

// newTempTable makes the definition of a temporary table from column
// definitions.
func (s *Session) newTempTable(name string, defs []snapshot.ColumnDef, onCommit pg.OnCommitAction) (*planner.TempTable, error) {
	ts := &s.temp
	if ts.num == 0 {
		ts.num = tempSessions.Add(1)
	}
	ts.nextRel++
	oid := int64(planner.TempRelBase) + ts.nextRel
	t := &catalog.Table{ID: oid - pgcatalog.RelationOID(0), SchemaID: tempSchemaID, Name: name}
	next := int64(1)
	for _, d := range defs {
		t.Columns = append(t.Columns, tempColumn(next, d))
		next += int64(columnIDWidth(d))
	}
	cols, err := planner.ScanColumns(t)
	if err != nil {
		return nil, err
	}
	if onCommit == pg.OnCommitAction_ON_COMMIT_ACTION_UNDEFINED {
		onCommit = pg.OnCommitAction_ONCOMMIT_NOOP
	}
	return &planner.TempTable{Tbl: t, Cols: cols, OnCommit: onCommit}, nil
}

// tempColumn is the catalog column of def with id, children numbered
// depth-first after it, as a lake table's.
func tempColumn(id int64, def snapshot.ColumnDef) catalog.Column {
	c := catalog.Column{ID: id, Order: id, Name: def.Name, Type: def.Type, InitialDefault: def.InitialDefault,
		DefaultValue: def.DefaultValue, DefaultValueType: "literal", NullsAllowed: def.NullsAllowed, PGType: def.PGType}
	if len(def.Children) > 0 {
		c.DefaultValueType = ""
	} else if def.DefaultIsExpression && def.DefaultValue != nil {
		c.DefaultValueType = "expression"
	}
	next := id + 1
	for _, ch := range def.Children {
		cc := tempColumn(next, ch)
		cc.ParentID = &c.ID
		c.Children = append(c.Children, cc)
		next += int64(columnIDWidth(ch))
	}
	return c
}

// errTempNotSupported is what a lake-only path answers for a temporary
// table.
func errTempNotSupported(name, what string, loc int32) error {
	var e *pgerr.Error
	if what == "" {
		e = pgerr.New(pgerr.FeatureNotSupported, "\"%s\" is a temporary table, which this statement cannot use", name)
	} else {
		e = pgerr.New(pgerr.FeatureNotSupported, "%s is not supported for temporary table \"%s\"", what, name)
	}
	e.Detail = "Temporary tables live in the session's memory, not in the lake: time travel, change feeds, maintenance and the other lake operations do not apply to them."
	return planner.ErrAt(e, loc)
}

// tempCatalog is the session's temporary schema for pg_catalog, nil when
// the session never made a temporary table.
func (s *Session) tempCatalog() *pgcatalog.TempSchema {
	ts := &s.temp
	if ts.num == 0 {
		return nil
	}
	out := &pgcatalog.TempSchema{Name: ts.nsName(), OID: ts.nsOID(), ToastName: ts.toastName(), ToastOID: ts.nsOID() + 1}
	for _, t := range ts.cur {
		out.Tables = append(out.Tables, t.Tbl)
	}
	slices.SortFunc(out.Tables, func(a, b *catalog.Table) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// TempNamespace is the OID of the session's pg_temp_N, false before the
// session made a temporary table.
func (s *Session) TempNamespace() (int64, bool) {
	if s.temp.num == 0 {
		return 0, false
	}
	return s.temp.nsOID(), true
}
