package sql

import (
	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/types"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// tempTable is one version of a temporary table. It is never changed once
// it is in a tempTables map.
type tempTable struct {
	tbl      *catalog.Table // definition, as a lake table's (IDs make pg_class OIDs)
	cols     []exec.ScanCol
	chunks   []*exec.TableChunk
	rows     int64
	onCommit pg.OnCommitAction
}

// tempSource plans a FROM item that names a temporary table: a scan of its
// chunks as they are now.
func (qc *queryCtx) tempSource(rv *pg.RangeVar, alias string, colAliases []string) (*source, bool, error) {
	t := qc.s.host.tempLookup(rv.Schemaname, rv.Relname)
	if t == nil {
		return nil, false, nil
	}
	src := tempScanSource(t, alias, false)
	if err := renameCols(src.sc, colAliases, alias); err != nil {
		return nil, true, err
	}
	return src, true, nil
}

// tempScanSource is a scan of t's current rows; with ord the scope ends
// with the hidden row ordinal column.
func tempScanSource(t *tempTable, alias string, ord bool) *source {
	ts := typesOf(t.cols)
	sc := &scope{}
	for i, c := range t.cols {
		sc.cols = append(sc.cols, scopeCol{Table: alias, Name: c.Name, T: c.T, orig: tableColOrigin(t.tbl, i)})
	}
	if ord {
		sc.cols = append(sc.cols, scopeCol{Table: alias, Name: tempOrdColumn, T: types.Int64T, hidden: true})
	}
	return &source{op: &exec.ChunkScan{T: ts, Chunks: t.chunks, Ord: ord, Label: "pg_temp." + t.tbl.Name}, sc: sc, rows: max(float64(t.rows), 1)}
}

// tempOrdColumn names the row ordinal column of a temporary table's scan
// planned for UPDATE or DELETE; the NUL byte keeps it out of SQL's reach.
const tempOrdColumn = "\x00ord"

// withChunks is a new version of t with other rows.
func (t *tempTable) withChunks(cs []*exec.TableChunk) *tempTable {
	n := *t
	n.chunks, n.rows = cs, 0
	for _, c := range cs {
		n.rows += int64(c.N)
	}
	return &n
}
