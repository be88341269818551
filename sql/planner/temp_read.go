package planner

import (
	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/types"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// TempTable is one version of a temporary table. It is never changed once
// it is in a tempTables map.
type TempTable struct {
	Tbl      *catalog.Table // definition, as a lake table's (IDs make pg_class OIDs)
	Cols     []exec.ScanCol
	Chunks   []*exec.TableChunk
	Rows     int64
	OnCommit pg.OnCommitAction
}

// tempSource plans a FROM item that names a temporary table: a scan of its
// chunks as they are now.
func (qc *QueryCtx) tempSource(rv *pg.RangeVar, alias string, colAliases []string) (*Source, bool, error) {
	t := qc.s.Host.TempLookup(rv.Schemaname, rv.Relname)
	if t == nil {
		return nil, false, nil
	}
	src := TempScanSource(t, alias, false)
	if err := renameCols(src.Sc, colAliases, alias); err != nil {
		return nil, true, err
	}
	return src, true, nil
}

// TempScanSource is a scan of t's current rows; with ord the scope ends
// with the hidden row ordinal column.
func TempScanSource(t *TempTable, alias string, ord bool) *Source {
	ts := TypesOf(t.Cols)
	sc := &Scope{}
	for i, c := range t.Cols {
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: c.Name, T: c.T, Orig: TableColOrigin(t.Tbl, i)})
	}
	if ord {
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: TempOrdColumn, T: types.Int64T, Hidden: true})
	}
	return &Source{op: &exec.ChunkScan{T: ts, Chunks: t.Chunks, Ord: ord, Label: "pg_temp." + t.Tbl.Name}, Sc: sc, rows: max(float64(t.Rows), 1)}
}

// TempOrdColumn names the row ordinal column of a temporary table's scan
// planned for UPDATE or DELETE; the NUL byte keeps it out of SQL's reach.
const TempOrdColumn = "\x00ord"

// WithChunks is a new version of t with other rows.
func (t *TempTable) WithChunks(cs []*exec.TableChunk) *TempTable {
	n := *t
	n.Chunks, n.Rows = cs, 0
	for _, c := range cs {
		n.Rows += int64(c.N)
	}
	return &n
}
