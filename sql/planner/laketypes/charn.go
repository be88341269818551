package laketypes

import (
	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/types"
)

// DeclaredType is the type a table column reads as: its DuckLake type,
// with a DuckLake varchar shown as character varying (DuckLake has no text
// type), refined by the column's lakepg.type tag (catalog/pgtype.go) to
// varchar(n) or character(n).
func DeclaredType(c *catalog.Column) (types.T, error) {
	ty, err := ColumnType(c) // nested.go
	if err != nil {
		return ty, err
	}
	if ty.ID == types.Text && c.Type == "varchar" {
		ty = types.ApplyPGTypeTag(types.VarcharT, c.PGType)
	}
	return ty, nil
}

// AlterTextModifier handles ALTER COLUMN TYPE between text types that are
// all DuckLake varchar, which changes only the column's lakepg.type tag.
// Like PostgreSQL without a table rewrite, it accepts lengthening or
// lifting a varchar limit; a change that would have to check or re-pad
// stored values (shortening, to or from character(n)) is not supported.
func AlterTextModifier(c *snapshot.Commit, t *catalog.Table, col *catalog.Column, to types.T) error {
	from, err := DeclaredType(col)
	if err != nil {
		return err
	}
	if types.PGTypeTag(from) == types.PGTypeTag(to) {
		return nil
	}
	ok := TextModifierInPlace(from, to)
	if !ok {
		return pgerr.New(pgerr.FeatureNotSupported, "changing column \"%s\" from %s to %s would rewrite data files; only lengthening or removing a varchar limit is supported", col.Name, from, to)
	}
	c.SetColumnPGType(*t, col.ID, types.PGTypeTag(to))
	return nil
}

// TextModifierInPlace reports whether a text column of type from can become
// to without touching a stored value: lengthening a varchar limit or lifting
// it (sql/alter_type.go rewrites the table for the other changes).
func TextModifierInPlace(from, to types.T) bool {
	return !from.Bpchar && !to.Bpchar && (to.Width == 0 || from.Width > 0 && to.Width >= from.Width)
}
