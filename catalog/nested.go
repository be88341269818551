package catalog

import (
	"context"
	"fmt"
	"strings"
)

// Nested DuckLake columns: a list, struct or map column is one
// ducklake_column row plus one row per child whose parent_column names it
// (list: element; map: key and value; struct: its fields), ids assigned
// depth-first. Load hangs the children under their parents, so a Column is
// the whole tree and the Parquet reader can match every level by field id.

// IsNestedType reports whether a DuckLake column_type has children.
func IsNestedType(typ string) bool {
	switch strings.ToLower(typ) {
	case "list", "struct", "map":
		return true
	}
	return false
}

// loadChildren reads the visible child columns of every table that has a
// nested top-level column and attaches them to their parents.
func loadChildren(ctx context.Context, q queryer, m *Metadata, byID map[int64]int, snap int64, only []string) error {
	has := false
	for i := range m.Tables {
		for _, c := range m.Tables[i].Columns {
			has = has || IsNestedType(c.Type)
		}
	}
	if !has {
		return nil
	}
	kids, err := readColumns(ctx, q, `WHERE `+visibleAt("")+` AND parent_column IS NOT NULL`+onlyTables("table_id", only), snap, snap)
	if err != nil {
		return err
	}
	type key struct{ table, parent int64 }
	byParent := map[key][]Column{}
	for _, k := range kids {
		kk := key{k.tableID, *k.ParentID}
		byParent[kk] = append(byParent[kk], k.Column)
	}
	var attach func(table int64, c *Column, depth int) error
	attach = func(table int64, c *Column, depth int) error {
		if depth > 64 {
			return fmt.Errorf("catalog: table %d: column %d is nested too deeply: corrupt catalog", table, c.ID)
		}
		c.Children = append([]Column(nil), byParent[key{table, c.ID}]...)
		for i := range c.Children {
			if err := attach(table, &c.Children[i], depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	for tid, i := range byID {
		for j := range m.Tables[i].Columns {
			c := &m.Tables[i].Columns[j]
			if IsNestedType(c.Type) {
				if err := attach(tid, c, 0); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
