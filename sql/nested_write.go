package sql

import (
	"strings"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/types"
)

// Array columns are stored as DuckLake lists, as DuckDB stores its lists:
// a column row of type list plus a child row named element with the
// element's type (nested.go reads them back as the array type). Only
// arrays of scalar types are written; arrays of arrays or of records have
// no writer yet.

// tableColumnDef is the catalog definition of a new column of type t.
func tableColumnDef(name string, t types.T) (snapshot.ColumnDef, error) {
	if t.ID != types.Array {
		dl, err := t.DuckLake()
		if err != nil {
			return snapshot.ColumnDef{}, err
		}
		return snapshot.ColumnDef{Name: name, Type: dl, NullsAllowed: true}, nil
	}
	elem := t.Elem()
	switch elem.ID {
	case types.Array, types.Struct, types.Unknown:
		return snapshot.ColumnDef{}, pgerr.New(pgerr.FeatureNotSupported, "column \"%s\": type %s cannot be stored in a table; only arrays of scalar types can", name, t)
	}
	edl, err := elem.DuckLake()
	if err != nil {
		return snapshot.ColumnDef{}, err
	}
	return snapshot.ColumnDef{Name: name, Type: "list", NullsAllowed: true,
		Children: []snapshot.ColumnDef{{Name: "element", Type: edl, NullsAllowed: true}}}, nil
}

// columnIDWidth is how many column ids def takes (its own and its
// children's, handed out depth-first).
func columnIDWidth(def snapshot.ColumnDef) int32 {
	n := int32(1)
	for _, c := range def.Children {
		n += columnIDWidth(c)
	}
	return n
}

// elemFieldID is the element column id of a list column (0 otherwise).
func elemFieldID(c *catalog.Column) int32 {
	if strings.EqualFold(c.Type, "list") && len(c.Children) == 1 {
		return int32(c.Children[0].ID)
	}
	return 0
}
