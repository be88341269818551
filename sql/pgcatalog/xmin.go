package pgcatalog

import (
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// The xmin system column: in PostgreSQL the transaction that wrote a row
// version. Tools read it from catalog rows to tell what changed since they
// last looked (DataGrip's introspector stores pg_namespace.xmin, pg_class.xmin
// and friends as "state numbers" and re-reads only objects whose number
// moved). A lake's transactions are its DuckLake snapshots, so a lake
// object's catalog rows carry the snapshot that last wrote the object,
// shifted past the transaction ids PostgreSQL reserves (0 invalid,
// 1 bootstrap, 2 frozen): snapshot s is xid s+3. Built-in rows carry 1, as
// rows initdb's bootstrap wrote do. The values are bigint, as lakepg's
// other xid columns are.

const (
	xminColumn     = "xmin"
	bootstrapXID   = 1
	firstNormalXID = 3
)

// SnapshotXID is the transaction id lakepg shows for lake snapshot id s.
func SnapshotXID(s int64) int64 { return s + firstNormalXID }

// HasXmin reports whether t is a relation whose rows carry xmin.
func (t *Table) HasXmin() bool {
	if t.rowsXmin == nil {
		return false
	}
	for _, c := range t.Cols {
		if c.Name == xminColumn {
			return false // a view with a column of that name (pg_replication_slots)
		}
	}
	return true
}

// RowsWithXmin is Rows with the xmin system column appended as a last,
// bigint column.
func (t *Table) RowsWithXmin(c *Context) (*vec.Batch, error) {
	b, xmins, err := t.rowsXmin(c)
	if err != nil {
		return nil, err
	}
	v := vec.New(types.Int64T, len(xmins))
	for _, x := range xmins {
		v.AppendInt(x)
	}
	return &vec.Batch{Vecs: append(b.Vecs, v), N: b.N}, nil
}

// xmin is the xid of the snapshot that last changed a lake table: its
// creation or rename (a new ducklake_table row) or a column change (new
// ducklake_column rows), as each of those writes the pg_class row in
// PostgreSQL. System relations were written by bootstrap.
func (r *relation) xmin() int64 {
	if r.lake == nil {
		return bootstrapXID
	}
	last := r.lake.BeginSnapshot
	for _, col := range r.lake.Columns {
		last = max(last, col.BeginSnapshot)
	}
	return SnapshotXID(last)
}
