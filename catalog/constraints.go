package catalog

import (
	"context"

	"fmt"
	"strconv"
	"strings"
)

// PRIMARY KEY and UNIQUE constraints live in lakepg_constraint, a table of
// lakepg's own beside the DuckLake tables (as lakepg_role, roles.go): DuckLake
// has no keys, and DuckDB ignores tables it does not know. Rows are
// versioned like DuckLake's (begin_snapshot, end_snapshot), written in the
// catalog transaction of the snapshot that adds or drops them, so a
// constraint appears and disappears atomically with the DDL and time travel
// sees the constraints of its snapshot. constraint_id comes from the
// catalog's next_catalog_id, so it never equals a table, view or schema id
// (pg_class shows the constraint's index under it). column_ids lists the key
// columns' column_ids in key order, comma-separated.
const constraintTableDDL = `CREATE TABLE IF NOT EXISTS lakepg_constraint (
	constraint_id BIGINT NOT NULL,
	begin_snapshot BIGINT NOT NULL,
	end_snapshot BIGINT,
	table_id BIGINT NOT NULL,
	constraint_name VARCHAR NOT NULL,
	constraint_type VARCHAR NOT NULL,
	column_ids VARCHAR NOT NULL
)`

// Constraint is one live lakepg_constraint row: a PRIMARY KEY (Type "p") or
// UNIQUE (Type "u") constraint of a table.
type Constraint struct {
	ID            int64
	TableID       int64
	Name          string
	Type          string  // "p" or "u", as pg_constraint.contype
	Columns       []int64 // key columns' column_ids, in key order
	BeginSnapshot int64
}

// Primary reports a PRIMARY KEY.
func (c *Constraint) Primary() bool { return c.Type == "p" }

// HasColumn reports whether the key includes column id.
func (c *Constraint) HasColumn(id int64) bool {
	for _, x := range c.Columns {
		if x == id {
			return true
		}
	}
	return false
}

// ConstraintsOf lists the constraints of table id, primary key first.
func (m *Metadata) ConstraintsOf(tableID int64) []Constraint {
	var out []Constraint
	for _, c := range m.Constraints {
		if c.TableID == tableID {
			if c.Primary() {
				out = append([]Constraint{c}, out...)
			} else {
				out = append(out, c)
			}
		}
	}
	return out
}

// EncodeColumnIDs is column_ids' text.
func EncodeColumnIDs(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ",")
}

func decodeColumnIDs(s string) ([]int64, error) {
	var out []int64
	for _, p := range strings.Split(s, ",") {
		id, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("catalog: malformed lakepg_constraint.column_ids %q", s)
		}
		out = append(out, id)
	}
	return out, nil
}

// loadConstraints reads the constraints visible at snapshot s; none when
// lakepg_constraint does not exist yet.
func loadConstraints(ctx context.Context, db *DB, q queryer, s int64) ([]Constraint, error) {
	if ok, err := db.tableExists(ctx, q, "lakepg_constraint"); err != nil {
		return nil, fmt.Errorf("catalog: look for lakepg_constraint: %w", err)
	} else if !ok {
		return nil, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT constraint_id, table_id, constraint_name, constraint_type, column_ids, begin_snapshot
FROM lakepg_constraint WHERE `+visibleAt("")+` ORDER BY constraint_id`, s, s)
	if err != nil {
		return nil, fmt.Errorf("catalog: load constraints: %w", err)
	}
	defer rows.Close()
	var out []Constraint
	for rows.Next() {
		var c Constraint
		var cols string
		if err := rows.Scan(&c.ID, &c.TableID, &c.Name, &c.Type, &cols, &c.BeginSnapshot); err != nil {
			return nil, fmt.Errorf("catalog: load constraints: %w", err)
		}
		if c.Columns, err = decodeColumnIDs(cols); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// EnsureConstraintTable creates lakepg_constraint inside the commit's
// transaction when it does not exist yet.
func (t *Tx) EnsureConstraintTable(ctx context.Context) error {
	if ok, err := t.db.tableExists(ctx, t, "lakepg_constraint"); err != nil {
		return fmt.Errorf("catalog: look for lakepg_constraint: %w", err)
	} else if ok {
		return nil
	}
	if _, err := t.ExecContext(ctx, constraintTableDDL); err != nil {
		return fmt.Errorf("catalog: create lakepg_constraint: %w", err)
	}
	return nil
}

// ConstraintTableExists reports whether lakepg_constraint exists.
func (t *Tx) ConstraintTableExists(ctx context.Context) (bool, error) {
	return t.db.tableExists(ctx, t, "lakepg_constraint")
}
