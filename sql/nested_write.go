package sql

import (
	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/planner"
	"github.com/lakepg/lakepg/types"
)

// Array and record columns are stored as DuckLake lists and structs, as
// DuckDB stores its own: a column row of type list with one child named
// element, or of type struct with one child per field, each child typed
// the same way (planner/laketypes/nested.go reads them back as arrays and records). Ids are
// handed out depth-first.

// tableColumnDef is the catalog definition of a new column of type t.
func tableColumnDef(name string, t types.T) (snapshot.ColumnDef, error) {
	t = storedType(t)
	return nestedColumnDef(name, name, t, 0)
}

func nestedColumnDef(top, name string, t types.T, depth int) (snapshot.ColumnDef, error) {
	if depth > 32 {
		return snapshot.ColumnDef{}, pgerr.New(pgerr.FeatureNotSupported, "column \"%s\": type %s is nested too deeply to be stored", top, t)
	}
	switch t.ID {
	case types.Array:
		if t.Elem().ID == types.Unknown {
			return snapshot.ColumnDef{}, pgerr.New(pgerr.FeatureNotSupported, "column \"%s\": type %s cannot be stored in a table", top, t)
		}
		e, err := nestedColumnDef(top, "element", t.Elem(), depth+1)
		if err != nil {
			return snapshot.ColumnDef{}, err
		}
		return snapshot.ColumnDef{Name: name, Type: "list", NullsAllowed: true, Children: []snapshot.ColumnDef{e}}, nil
	case types.Struct:
		fs := t.Fields()
		if len(fs) == 0 {
			return snapshot.ColumnDef{}, pgerr.New(pgerr.FeatureNotSupported, "column \"%s\": a record without fields cannot be stored in a table", top)
		}
		def := snapshot.ColumnDef{Name: name, Type: "struct", NullsAllowed: true}
		seen := map[string]bool{}
		for i, f := range fs {
			if f.Name == "" || seen[f.Name] {
				// an anonymous ROW(...) names its fields f1, f2, ... as
				// PostgreSQL does; duplicates cannot be told apart
				e := pgerr.New(pgerr.FeatureNotSupported, "column \"%s\": record type %s has unnamed or repeated fields (field %d), which a DuckLake struct cannot hold", top, t, i+1)
				e.Hint = "Build the value from a table's struct column or give every field a distinct name."
				return snapshot.ColumnDef{}, e
			}
			seen[f.Name] = true
			c, err := nestedColumnDef(top, f.Name, f.Type, depth+1)
			if err != nil {
				return snapshot.ColumnDef{}, err
			}
			def.Children = append(def.Children, c)
		}
		return def, nil
	}
	if t == planner.MapType && t.Sub == planner.MapMarker {
		return snapshot.ColumnDef{}, planner.ErrMapWrite(top)
	}
	dl, err := t.DuckLake()
	if err != nil {
		return snapshot.ColumnDef{}, err
	}
	return snapshot.ColumnDef{Name: name, Type: dl, NullsAllowed: true}, nil
}

// childFieldIDs are the ids of def's descendants, depth-first, when the
// column itself has id id (as CreateTable hands them out).
func childFieldIDs(id int32, def snapshot.ColumnDef) []int32 {
	n := columnIDWidth(def) - 1
	if n == 0 {
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = id + 1 + int32(i)
	}
	return out
}

// catalogColumnOf is def as a catalog column with id id (children
// depth-first after it), for code that checks a table before it exists.
func catalogColumnOf(id int64, def snapshot.ColumnDef) catalog.Column {
	c := catalog.Column{ID: id, Name: def.Name, Type: def.Type, NullsAllowed: true}
	next := id + 1
	for _, ch := range def.Children {
		c.Children = append(c.Children, catalogColumnOf(next, ch))
		next += int64(columnIDWidth(ch))
	}
	return c
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

// nestedDefError reports whether tableColumnDef's error for type t is its
// own message (nested types and maps) rather than a scalar type DuckLake
// has no name for.
func nestedDefError(t types.T) bool {
	return t.ID == types.Array || t.ID == types.Struct || (t == planner.MapType && t.Sub == planner.MapMarker)
}

// unconstrainedNumericStorage is the type a column declared numeric without
// precision (or made by CREATE TABLE AS from an expression of that type:
// coalesce(x, 0), avg(), a CASE over numerics) is stored as. DuckLake
// decimals need a precision and scale; 38 digits, 10 after the point, keep
// every value PostgreSQL users commonly hold exactly (amounts, rates,
// averages to 10 places) and DuckDB reads it as DECIMAL(38,10).
var unconstrainedNumericStorage = types.NumericT(38, 10)

// storedType is the type a table column of type t holds.
func storedType(t types.T) types.T {
	if t.ID == types.Numeric && t.Scale < 0 && !t.Wide() {
		return unconstrainedNumericStorage
	}
	return t
}
