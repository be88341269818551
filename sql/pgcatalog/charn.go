package pgcatalog

import (
	"strings"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/types"
)

// lakeColumnType is ColumnType refined by the column's lakepg.type tag,
// which keeps varchar(n) and character(n) that DuckLake's varchar forgets.
func lakeColumnType(col *catalog.Column) (oid int64, typmod int32) {
	switch strings.ToLower(col.Type) {
	case "list":
		// an array of the element's type, as lakepg reads it (int4[]
		// for INTEGER[]); arrays of arrays are one array type in
		// PostgreSQL
		if len(col.Children) == 1 {
			eoid, etm := lakeColumnType(&col.Children[0])
			if eoid == types.OIDVarchar && col.Children[0].PGType == "" {
				eoid = types.OIDText // a list of varchar reads as text[]
			}
			if t := typeByOID[eoid]; t != nil && t.array != 0 {
				return t.array, etm
			}
			if t := typeByOID[eoid]; t != nil && t.elem != 0 && t.typtype == "b" {
				return eoid, etm
			}
		}
		return types.OIDText, -1
	case "struct":
		return 2249, -1 // record: lakepg reads a struct as an anonymous record
	case "map":
		return 114, -1 // json: lakepg reads a map as its JSON text
	}
	if col.PGType != "" && col.Type == "varchar" {
		t := types.ApplyPGTypeTag(types.VarcharT, col.PGType)
		return int64(t.OID()), t.Typmod()
	}
	return ColumnType(col.Type)
}
