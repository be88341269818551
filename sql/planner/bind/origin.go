package bind

import (
	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/types"
)

// ColOrigin is the lake table column a value is a plain copy of. A result
// column that is one carries it in RowDescription (table OID, attnum), as
// PostgreSQL's do; drivers build getTableName, editable result sets and
// cursor.description on it. The numbers are the ones pg_class.oid and
// pg_attribute.attnum show for the table and column, so a client can look
// them up. The zero value is "computed".
type ColOrigin struct {
	Rel uint32
	Att int16
}

// TableColOrigin is the origin of the k-th column (0-based) of table t.
func TableColOrigin(t *catalog.Table, k int) ColOrigin {
	return ColOrigin{Rel: uint32(pgcatalog.RelationOID(t.ID)), Att: int16(k + 1)}
}

// Origin is the origin a result column of a subquery or CTE passes on.
func (c Column) Origin() ColOrigin { return ColOrigin{Rel: c.TableOID, Att: c.Attnum} }

// Column describes one result column.
type Column struct {
	Name     string
	Type     types.T
	TableOID uint32
	Attnum   int16
	Rec      []Column // a record column's fields (srf.go)
}
