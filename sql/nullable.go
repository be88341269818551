package sql

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
)

// alterNullability runs ALTER TABLE … ALTER COLUMN c DROP NOT NULL and SET NOT NULL (Django's
// migrations write both) as PostgreSQL does: DROP NOT NULL of a primary key's column answers
// 42P16, SET NOT NULL reads the column and answers 23502 when a row holds NULL; either is a
// no-op when the column already is so. The change is a new ducklake_column row, as DuckDB
// writes it.
func (s *Session) alterNullability(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, t *catalog.Table, cmd *pg.AlterTableCmd) error {
	col, ok := t.ColumnByName(cmd.Name)
	if !ok {
		return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, t.Name)
	}
	if cmd.Subtype == pg.AlterTableType_AT_DropNotNull {
		for _, con := range meta.ConstraintsOf(t.ID) {
			if con.Primary() && con.HasColumn(col.ID) {
				return pgerr.New(pgerr.InvalidTableDefinition, "column \"%s\" is in a primary key", col.Name)
			}
		}
		if !col.NullsAllowed {
			c.SetColumnNullable(*t, col.ID)
		}
		return nil
	}
	if !col.NullsAllowed {
		return nil
	}
	sch, _ := meta.SchemaByID(t.SchemaID)
	hasNull, err := s.columnHasNull(ctx, meta.Snapshot, sch, t, col.ID)
	if err != nil {
		return err
	}
	if hasNull {
		return pgerr.New(pgerr.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", col.Name, t.Name)
	}
	c.SetColumnNotNull(*t, col.ID)
	return nil
}

// columnHasNull reads one column of t (the block's own writes included) for a NULL.
func (s *Session) columnHasNull(ctx context.Context, snap catalog.Snapshot, sch *catalog.Schema, t *catalog.Table, colID int64) (bool, error) {
	src, err := s.TableSource(ctx, snap, sch.Name, t.Name, t.Name, -1, false)
	if err != nil {
		return false, err
	}
	scan := src.Ref.Scan
	defer scan.Close()
	idx := -1
	for i, sc := range scan.Cols {
		if int64(sc.FieldID) == colID {
			idx = i
		}
	}
	if idx < 0 {
		return false, nil
	}
	scan.Needed[idx] = true
	found := false
	err = exec.Drain(ctx, scan, func(b *vec.Batch) error {
		v := b.Vecs[idx]
		for i := 0; i < b.N && !found; i++ {
			found = v.IsNull(i)
		}
		return nil
	})
	return found, err
}
