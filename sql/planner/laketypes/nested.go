package laketypes

import (
	"fmt"
	"strings"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// ColumnType is the lakepg type a catalog column reads as: FromDuckLake for
// scalar types; a DuckLake list is an array of its element's type, a
// struct a composite (record) of its fields, a map its JSON text
// (PostgreSQL has no map type).
func ColumnType(c *catalog.Column) (types.T, error) {
	return nestedType(c, 0)
}

func nestedType(c *catalog.Column, depth int) (types.T, error) {
	if depth > 64 {
		return types.T{}, pgerr.New(pgerr.FeatureNotSupported, "column %q is nested too deeply", c.Name)
	}
	switch strings.ToLower(c.Type) {
	case "list":
		if len(c.Children) != 1 {
			return types.T{}, fmt.Errorf("catalog: list column %q (id %d) has %d children, want one element: corrupt catalog", c.Name, c.ID, len(c.Children))
		}
		e, err := nestedType(&c.Children[0], depth+1)
		if err != nil {
			return types.T{}, err
		}
		return types.ArrayOf(e), nil
	case "struct":
		if len(c.Children) == 0 {
			return types.T{}, fmt.Errorf("catalog: struct column %q (id %d) has no fields: corrupt catalog", c.Name, c.ID)
		}
		fs := make([]types.Field, len(c.Children))
		for i := range c.Children {
			t, err := nestedType(&c.Children[i], depth+1)
			if err != nil {
				return types.T{}, err
			}
			fs[i] = types.Field{Name: c.Children[i].Name, Type: t}
		}
		return types.StructOf(fs), nil
	case "map":
		if len(c.Children) != 2 {
			return types.T{}, fmt.Errorf("catalog: map column %q (id %d) has %d children, want key and value: corrupt catalog", c.Name, c.ID, len(c.Children))
		}
		for i := range c.Children {
			if _, err := nestedType(&c.Children[i], depth+1); err != nil {
				return types.T{}, err
			}
		}
		return MapType, nil
	}
	return types.FromDuckLake(c.Type)
}

// MapType is the type map columns read as: json, marked so that creating
// a column from it (CREATE TABLE AS) is refused instead of turning
// DuckDB's map into a json column without saying so; lakepg has no map
// type to write one back.
var MapType = func() types.T {
	t := types.JSONT
	t.Sub = MapMarker
	return t
}()

// MapMarker is the Sub of mapType (json has no Sub of its own).
const MapMarker = -2

func ErrMapWrite(col string) error {
	e := pgerr.New(pgerr.FeatureNotSupported, "column \"%s\" holds a DuckDB map, which lakepg reads as json but cannot write as a map", col)
	e.Hint = "Store it as text or json explicitly, e.g. CAST(col AS text)::json, or create the table in DuckDB."
	return e
}

// ElemFieldID is the element column id of a list column (0 otherwise).
func ElemFieldID(c *catalog.Column) int32 {
	if strings.EqualFold(c.Type, "list") && len(c.Children) == 1 {
		return int32(c.Children[0].ID)
	}
	return 0
}

// NestedFieldIDs are the column ids of c's descendants, depth-first in
// the order of its type's fields, for the Parquet writer.
func NestedFieldIDs(c *catalog.Column) []int32 {
	if len(c.Children) == 0 {
		return nil
	}
	var out []int32
	var walk func(c *catalog.Column, depth int)
	walk = func(c *catalog.Column, depth int) {
		if depth > 64 {
			return
		}
		for i := range c.Children {
			out = append(out, int32(c.Children[i].ID))
			walk(&c.Children[i], depth+1)
		}
	}
	walk(c, 0)
	return out
}
