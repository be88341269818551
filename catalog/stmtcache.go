package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// A statement's catalog facts. On PostgreSQL, lakepg's own tables
// (lakepg_role, lakepg_sequence, …) may be absent, and another server may
// create one at any moment, so their absence cannot be cached across
// statements (tablecache.go); nor can ducklake_metadata's options, which
// DuckDB's set_option changes without a snapshot. Yet every INSERT asked
// for both: one probe for lakepg_role, one for lakepg_sequence and one read
// of data_inlining_row_limit, a round trip each.
//
// A statement reads the head first thing. Within a statement (WithStatement),
// the head query also returns which of lakepg's own tables exist and the
// ducklake_metadata rows, as of that same moment, and the statement's later
// questions are answered from them: exactly what probing at the statement's
// start would answer. Questions asked before the statement's head read, or
// inside a transaction (which may have created a table itself), still go to
// the database.

type stmtCtxKey struct{}

// stmtFacts is what the statement's head read learnt.
type stmtFacts struct {
	read  bool
	own   map[string]bool // lakepg's own tables: name -> exists
	rows  []MetadataRow
	drawn bool // rows were read (ducklake_metadata exists)
}

// MetadataRow is one ducklake_metadata row.
type MetadataRow struct {
	Key, Value string
	Scope      sql.NullString
	ScopeID    sql.NullInt64
}

// WithStatement marks ctx as one statement's: its first head read (DB.Head)
// also gathers the facts later questions of the statement are answered from.
func WithStatement(ctx context.Context) context.Context {
	return context.WithValue(ctx, stmtCtxKey{}, &stmtFacts{})
}

func statementFacts(ctx context.Context) *stmtFacts {
	f, _ := ctx.Value(stmtCtxKey{}).(*stmtFacts)
	return f
}

// ownTables are the tables of lakepg's own whose existence the head read
// reports: those created outside any transaction (lakepg_constraint is
// created inside a commit's).
var ownTables = []string{"lakepg_privilege", "lakepg_role", "lakepg_role_member", "lakepg_sequence"}

// headWithFacts is the head query with the facts: the names of lakepg's own
// tables that exist, and ducklake_metadata as JSON.
func headWithFacts() string {
	names := make([]string, len(ownTables))
	for i, n := range ownTables {
		names[i] = "'" + n + "'"
	}
	return `SELECT s.snapshot_id, s.snapshot_time, s.schema_version, s.next_catalog_id, s.next_file_id,
	c.changes_made, c.author, c.commit_message,
	(SELECT string_agg(t.relname, ',') FROM pg_catalog.pg_class t JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
		WHERE n.nspname = current_schema() AND t.relname IN (` + strings.Join(names, ", ") + `) AND t.relkind IN ('r', 'p')),
	(SELECT json_agg(json_build_array(m."key", m."value", m.scope, m.scope_id)) FROM ducklake_metadata m)::text
FROM ducklake_snapshot s LEFT JOIN ducklake_snapshot_changes c ON c.snapshot_id = s.snapshot_id ` + headWhere
}

// headGathering reads the head and the statement's facts in one query.
func (db *DB) headGathering(ctx context.Context, f *stmtFacts) (Snapshot, error) {
	rows, err := db.sql.QueryContext(ctx, headWithFacts())
	if err != nil {
		return Snapshot{}, fmt.Errorf("catalog: read snapshot: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return Snapshot{}, fmt.Errorf("catalog: read snapshot: %w", err)
		}
		return Snapshot{}, ErrSnapshotNotFound
	}
	var (
		s               Snapshot
		t               NullTime
		sv, nc, nf      sql.NullInt64
		changes, author sql.NullString
		msg             sql.NullString
		own, meta       sql.NullString
	)
	if err := rows.Scan(&s.ID, &t, &sv, &nc, &nf, &changes, &author, &msg, &own, &meta); err != nil {
		return Snapshot{}, fmt.Errorf("catalog: read snapshot: %w", err)
	}
	s.Time = t.Time
	s.SchemaVersion, s.NextCatalogID, s.NextFileID = sv.Int64, nc.Int64, nf.Int64
	s.Changes = changes.String
	s.Author, s.Message = nullStr(author), nullStr(msg)
	facts := stmtFacts{read: true, own: map[string]bool{}, drawn: true}
	for _, n := range strings.Split(own.String, ",") {
		if n != "" {
			facts.own[n] = true
		}
	}
	if meta.Valid {
		if facts.rows, err = parseMetadataJSON(meta.String); err != nil {
			return Snapshot{}, fmt.Errorf("catalog: read ducklake_metadata: %w", err)
		}
	}
	*f = facts
	return s, rows.Err()
}

// ownTableInStatement answers whether own table name exists from the
// statement's facts; ok is false when they cannot say.
func ownTableInStatement(ctx context.Context, name string) (exists, ok bool) {
	f := statementFacts(ctx)
	if f == nil || !f.read {
		return false, false
	}
	for _, n := range ownTables {
		if n == name {
			return f.own[name], true
		}
	}
	return false, false
}

// noteCreated records that this process created own table name (committed):
// later questions, this statement's included, see it.
func (db *DB) noteCreated(ctx context.Context, name string) {
	c := &db.tables
	c.mu.Lock()
	if c.known == nil {
		c.known = map[string]bool{}
	}
	if db.d.name != "sqlite" {
		c.known[name] = true
	}
	c.mu.Unlock()
	if f := statementFacts(ctx); f != nil && f.read {
		f.own[name] = true
	}
}

// NoteMetadataWritten records that the statement of ctx changed
// ducklake_metadata: its later reads of it go to the database.
func NoteMetadataWritten(ctx context.Context) {
	if f := statementFacts(ctx); f != nil {
		f.drawn = false
	}
}

// MetadataRows are the ducklake_metadata rows with key: from the
// statement's head read when it gathered them, else read now.
func (db *DB) MetadataRows(ctx context.Context, key string) ([]MetadataRow, error) {
	if f := statementFacts(ctx); f != nil && f.read && f.drawn {
		var out []MetadataRow
		for _, r := range f.rows {
			if r.Key == key {
				out = append(out, r)
			}
		}
		return out, nil
	}
	rows, err := db.q().QueryContext(ctx, `SELECT "key", "value", scope, scope_id FROM ducklake_metadata WHERE "key" = ?`, key) // prepared on SQLite
	if err != nil {
		return nil, fmt.Errorf("catalog: read option %s: %w", key, err)
	}
	defer rows.Close()
	var out []MetadataRow
	for rows.Next() {
		var r MetadataRow
		if err := rows.Scan(&r.Key, &r.Value, &r.Scope, &r.ScopeID); err != nil {
			return nil, fmt.Errorf("catalog: read option %s: %w", key, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// parseMetadataJSON reads the head query's ducklake_metadata rows, a JSON
// array of [key, value, scope, scope_id].
func parseMetadataJSON(s string) ([]MetadataRow, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var raw [][]any
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	out := make([]MetadataRow, 0, len(raw))
	for _, r := range raw {
		if len(r) != 4 {
			return nil, fmt.Errorf("row of %d values", len(r))
		}
		var m MetadataRow
		m.Key, _ = r[0].(string)
		m.Value, _ = r[1].(string)
		if sc, ok := r[2].(string); ok {
			m.Scope = sql.NullString{String: sc, Valid: true}
		}
		if n, ok := r[3].(json.Number); ok {
			id, err := n.Int64()
			if err != nil {
				return nil, err
			}
			m.ScopeID = sql.NullInt64{Int64: id, Valid: true}
		}
		out = append(out, m)
	}
	return out, nil
}
