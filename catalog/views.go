package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// View is a ducklake_view row. SQL is the view's query text in Dialect:
// 'duckdb' for views DuckDB wrote, 'postgres' for lakepg's (a SELECT
// deparsed from PostgreSQL's parse tree, relations schema-qualified).
type View struct {
	ID            int64
	UUID          string
	SchemaID      int64
	Name          string
	Dialect       string
	SQL           string
	ColumnAliases []string // CREATE VIEW v (a, b): the names given, in order
	BeginSnapshot int64
	Comment       string // COMMENT ON VIEW's text, "" for none (comments.go)
	// ColumnComments are COMMENT ON COLUMN texts by column name (DuckLake
	// 1.1's ducklake_view_column_tag); nil for none. Shared between
	// metadata copies: replaced, never changed in place.
	ColumnComments map[string]string
}

// ViewByName finds a view in a schema by exact name.
func (m *Metadata) ViewByName(schemaID int64, name string) (*View, bool) {
	for i := range m.Views {
		if m.Views[i].SchemaID == schemaID && m.Views[i].Name == name {
			return &m.Views[i], true
		}
	}
	return nil, false
}

// loadViews reads the views visible at snapshot s.
func loadViews(ctx context.Context, q queryer, s int64) ([]View, error) {
	rows, err := q.QueryContext(ctx, `SELECT view_id, view_uuid, schema_id, view_name, dialect, sql, column_aliases, begin_snapshot
FROM ducklake_view WHERE `+visibleAt("")+` ORDER BY view_id`, s, s)
	if err != nil {
		return nil, fmt.Errorf("catalog: load views: %w", err)
	}
	defer rows.Close()
	var out []View
	for rows.Next() {
		var (
			v                          View
			uuid, dialect, text, alias sql.NullString
		)
		if err := rows.Scan(&v.ID, &uuid, &v.SchemaID, &v.Name, &dialect, &text, &alias, &v.BeginSnapshot); err != nil {
			return nil, fmt.Errorf("catalog: load views: %w", err)
		}
		v.UUID, v.Dialect, v.SQL = uuid.String, dialect.String, text.String
		v.ColumnAliases = ParseColumnAliases(alias.String)
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalog: load views: %w", err)
	}
	return out, nil
}

// ParseColumnAliases reads ducklake_view.column_aliases: comma-separated
// double-quoted names ("" escapes a quote), or empty.
func ParseColumnAliases(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == '"' && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			i++
		case c == '"':
			in = !in
		case !in && c == ',':
			out = append(out, cur.String())
			cur.Reset()
		case !in && (c == ' ' || c == '\t'):
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 || len(out) > 0 {
		out = append(out, cur.String())
	}
	return out
}

// FormatColumnAliases writes column aliases as ducklake_view.column_aliases
// holds them.
func FormatColumnAliases(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
	}
	return strings.Join(q, ",")
}
