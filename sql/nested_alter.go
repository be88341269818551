package sql

import (
	"strings"

	"github.com/lakepg/lakepg/sql/planner"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/types"
)

// alterArrayType widens the element type of an array column as DuckDB
// does (INTEGER[] → BIGINT[]): the list's own catalog row stays and the
// element's row is replaced by one of the wider type, so files written
// before keep their narrower values and are read widened. Any other change
// of an array column, or to or from one, would rewrite files.
func alterArrayType(c *snapshot.Commit, t *catalog.Table, col *catalog.Column, nt types.T) error {
	refuse := func() error {
		old, _ := planner.ColumnType(col)
		return pgerr.New(pgerr.FeatureNotSupported, "changing column \"%s\" from %s to %s would rewrite data files; only widening (smallint→integer→bigint, real→double precision, also of array elements) is supported", col.Name, old, nt)
	}
	cur, want := col, nt
	for strings.EqualFold(cur.Type, "list") && want.ID == types.Array {
		if len(cur.Children) != 1 {
			return pgerr.New(pgerr.DataCorrupted, "catalog: list column %q (id %d) has %d children, want one element", cur.Name, cur.ID, len(cur.Children))
		}
		cur, want = &cur.Children[0], want.Elem()
	}
	switch strings.ToLower(cur.Type) {
	case "list", "struct", "map":
		return refuse()
	}
	if want.ID == types.Array || want.ID == types.Struct || cur == col {
		return refuse()
	}
	dl, err := want.DuckLake()
	if err != nil {
		return err
	}
	if dl == cur.Type {
		return nil
	}
	if !widening(cur.Type, dl) {
		return refuse()
	}
	c.SetColumnType(*t, cur.ID, dl)
	return nil
}
