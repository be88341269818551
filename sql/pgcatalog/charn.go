package pgcatalog

import (
	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/types"
)

// lakeColumnType is ColumnType refined by the column's lakepg.type tag,
// which keeps varchar(n) and character(n) that DuckLake's varchar forgets.
func lakeColumnType(col *catalog.Column) (oid int64, typmod int32) {
	if col.PGType != "" && col.Type == "varchar" {
		t := types.ApplyPGTypeTag(types.VarcharT, col.PGType)
		return int64(t.OID()), t.Typmod()
	}
	return ColumnType(col.Type)
}
