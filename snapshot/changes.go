package snapshot

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/catalog"
)

// ErrConflict means another writer committed a change that this commit
// cannot be combined with (DuckLake §10). The caller reports SQLSTATE 40001.
var ErrConflict = errors.New("transaction conflict")

func conflictf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrConflict}, args...)...)
}

// idSet is a set of catalog ids.
type idSet map[int64]bool

func (s idSet) add(id int64) { s[id] = true }

func (s idSet) sorted() []int64 {
	out := make([]int64, 0, len(s))
	for id := range s {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// changeSet is what one or more snapshots' changes_made say happened.
// Names are kept lower-cased: DuckDB compares them case-insensitively.
type changeSet struct {
	createdSchemas map[string]bool
	// createdEntries: schema name -> names of tables, views and macros
	// created in it (a rename also appears as created_table).
	createdEntries map[string]map[string]bool
	droppedSchemas idSet
	droppedTables  idSet
	droppedViews   idSet
	inserted       idSet // inserted_into_table
	insertedInline idSet // inlined_insert
	deleted        idSet // deleted_from_table
	deletedInline  idSet // inlined_delete
	altered        idSet
	alteredViews   idSet
	flushed        idSet // inline_flush / flushed_inlined
	compacted      idSet // merge_adjacent, rewrite_delete, compacted_table
}

func newChangeSet() *changeSet {
	return &changeSet{
		createdSchemas: map[string]bool{},
		createdEntries: map[string]map[string]bool{},
		droppedSchemas: idSet{}, droppedTables: idSet{}, droppedViews: idSet{},
		inserted: idSet{}, insertedInline: idSet{}, deleted: idSet{}, deletedInline: idSet{},
		altered: idSet{}, alteredViews: idSet{}, flushed: idSet{}, compacted: idSet{},
	}
}

func (cs *changeSet) created(schema, name string) bool {
	return cs.createdEntries[strings.ToLower(schema)][strings.ToLower(name)]
}

func (cs *changeSet) addCreated(schema, name string) {
	s := strings.ToLower(schema)
	if cs.createdEntries[s] == nil {
		cs.createdEntries[s] = map[string]bool{}
	}
	cs.createdEntries[s][strings.ToLower(name)] = true
}

// parseChanges adds one changes_made value to cs. The format is
// comma-separated type:value items; names are SQL double-quoted ("" escapes
// a quote), ids bare integers. Unknown types are skipped: they may come from
// a newer writer, and refusing to commit over them would stop lakepg from
// writing to that lake at all.
func (cs *changeSet) parse(s string) error {
	pos := 0
	for pos < len(s) {
		colon := strings.IndexByte(s[pos:], ':')
		if colon < 0 {
			return fmt.Errorf("snapshot: malformed changes_made %q", s)
		}
		typ := strings.ToLower(s[pos : pos+colon])
		pos += colon + 1
		start := pos
		inQuotes := false
		for pos < len(s) && (inQuotes || s[pos] != ',') {
			if s[pos] == '"' {
				inQuotes = !inQuotes
			}
			pos++
		}
		val := s[start:pos]
		if pos < len(s) {
			pos++ // the comma
		}
		switch typ {
		case "created_schema":
			names, err := parseQuotedList(val)
			if err != nil || len(names) != 1 {
				return fmt.Errorf("snapshot: malformed created_schema %q", val)
			}
			cs.createdSchemas[strings.ToLower(names[0])] = true
		case "created_table", "created_view", "created_scalar_macro", "created_table_macro":
			names, err := parseQuotedList(val)
			if err != nil || len(names) == 0 || len(names) > 2 {
				return fmt.Errorf("snapshot: malformed %s %q", typ, val)
			}
			if len(names) == 1 { // the spec's unqualified form
				names = []string{"main", names[0]}
			}
			cs.addCreated(names[0], names[1])
		default:
			set := cs.idSetFor(typ)
			if set == nil {
				continue
			}
			id, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if err != nil {
				return fmt.Errorf("snapshot: malformed %s %q", typ, val)
			}
			set.add(id)
		}
	}
	return nil
}

func (cs *changeSet) idSetFor(typ string) idSet {
	switch typ {
	case "dropped_schema":
		return cs.droppedSchemas
	case "dropped_table":
		return cs.droppedTables
	case "dropped_view":
		return cs.droppedViews
	case "inserted_into_table":
		return cs.inserted
	case "inlined_insert":
		return cs.insertedInline
	case "deleted_from_table":
		return cs.deleted
	case "inlined_delete":
		return cs.deletedInline
	case "altered_table":
		return cs.altered
	case "altered_view":
		return cs.alteredViews
	case "inline_flush", "flushed_inlined":
		return cs.flushed
	case "merge_adjacent", "rewrite_delete", "compacted_table":
		return cs.compacted
	}
	return nil
}

// parseQuotedList parses "a"."b" (dot-separated double-quoted names).
func parseQuotedList(s string) ([]string, error) {
	var out []string
	pos := 0
	for pos < len(s) {
		if s[pos] != '"' {
			return nil, fmt.Errorf("expected '\"' at %d in %q", pos, s)
		}
		pos++
		var b strings.Builder
		closed := false
		for pos < len(s) {
			if s[pos] == '"' {
				if pos+1 < len(s) && s[pos+1] == '"' {
					b.WriteByte('"')
					pos += 2
					continue
				}
				pos++
				closed = true
				break
			}
			b.WriteByte(s[pos])
			pos++
		}
		if !closed {
			return nil, fmt.Errorf("unterminated name in %q", s)
		}
		out = append(out, b.String())
		if pos < len(s) {
			if s[pos] != '.' {
				return nil, fmt.Errorf("expected '.' at %d in %q", pos, s)
			}
			pos++
		}
	}
	return out, nil
}

// quoteName writes a name as changes_made quotes it.
func quoteName(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// mine is this commit's own change set in final ids, plus what the
// conflict rules need beyond the tokens.
type mine struct {
	createdSchemas []string
	// createdTables: (schema name, table name, schema id or -1 when the
	// schema is created in this commit). Renames are included.
	createdTables  []createdName
	droppedSchemas []droppedSchema
	droppedTables  idSet
	inserted       idSet
	deleted        idSet
	deletedInline  idSet
	altered        idSet // column changes (tokens: altered_table)
	renamed        idSet // renamed tables: treated as altered for conflicts
	changedViews   idSet // views dropped or renamed (views.go)
}

type createdName struct {
	schema, name string
	schemaID     int64 // -1: schema created by this commit
	rename       bool
}

// check applies DuckLake's conflict table (§10): my change against any
// snapshot committed after my base.
func (m *mine) check(other *changeSet) error {
	for _, name := range m.createdSchemas {
		if other.createdSchemas[strings.ToLower(name)] {
			return conflictf("attempting to create schema %q, but another transaction created a schema with this name already", name)
		}
	}
	for _, d := range m.droppedSchemas {
		if other.droppedSchemas[d.s.ID] {
			return conflictf("attempting to drop schema %q, but another transaction dropped it already", d.s.Name)
		}
		if len(other.createdEntries[strings.ToLower(d.s.Name)]) > 0 {
			return conflictf("attempting to drop schema %q, but another transaction created an entry in this schema", d.s.Name)
		}
	}
	for _, ct := range m.createdTables {
		if ct.schemaID >= 0 && other.droppedSchemas[ct.schemaID] {
			return conflictf("attempting to create table %q in schema %q, but another transaction dropped this schema", ct.name, ct.schema)
		}
		if other.created(ct.schema, ct.name) {
			return conflictf("attempting to create table %q in schema %q, but this table has been created by another transaction already", ct.name, ct.schema)
		}
	}
	for _, id := range m.droppedTables.sorted() {
		if other.droppedTables[id] {
			return conflictf("attempting to drop table with index %d, but another transaction dropped it already", id)
		}
	}
	for _, id := range m.inserted.sorted() {
		switch {
		case other.droppedTables[id]:
			return conflictf("attempting to insert into table with index %d, but another transaction dropped it", id)
		case other.altered[id]:
			return conflictf("attempting to insert into table with index %d, but another transaction altered it", id)
		case other.deleted[id], other.deletedInline[id]:
			return conflictf("attempting to insert into table with index %d, but another transaction deleted from it", id)
		}
	}
	for _, id := range m.deleted.sorted() {
		switch {
		case other.droppedTables[id]:
			return conflictf("attempting to delete from table with index %d, but another transaction dropped it", id)
		case other.altered[id]:
			return conflictf("attempting to delete from table with index %d, but another transaction altered it", id)
		case other.compacted[id]:
			return conflictf("attempting to delete from table with index %d, but another transaction compacted it", id)
		case other.inserted[id], other.insertedInline[id]:
			return conflictf("attempting to delete from table with index %d, but another transaction inserted into it", id)
		}
	}
	if err := checkInlinedDeletes(m.deletedInline, other); err != nil {
		return err
	}
	if err := m.checkViews(other); err != nil {
		return err
	}
	for _, set := range []idSet{m.altered, m.renamed} {
		for _, id := range set.sorted() {
			switch {
			case other.droppedTables[id]:
				return conflictf("attempting to alter table with index %d, but another transaction dropped it", id)
			case other.altered[id]:
				return conflictf("attempting to alter table with index %d, but another transaction altered it", id)
			}
		}
	}
	return nil
}

// retryable reports whether err means another writer won the race for the
// next snapshot, so the commit may be retried on top of the new head.
// Logical conflicts are final. The catalog classifies its backend's errors
// (PostgreSQL 23505/40001/40P01, SQLite busy and key violations); the text
// match catches the same conditions when they arrive without the driver's
// error type (wrapped by another layer, or from a test hook).
func retryable(err error) bool {
	if err == nil || errors.Is(err, ErrConflict) {
		return false
	}
	if catalog.LostRace(err) {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"primary key", "unique", "conflict", "concurrent", "database is locked", "sqlite_busy", "could not serialize", "deadlock detected"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
