package planner

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
	pg "github.com/pganalyze/pg_query_go/v6"
)

func IsWriteNode(n *pg.Node) bool {
	switch n.Node.(type) {
	case *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt:
		return true
	}
	return false
}

// writtenSource is a reference to a data-modifying WITH query: its
// RETURNING rows.
func (qc *QueryCtx) writtenSource(cte *CteDef, wc *WrittenCTE, alias string, colAliases []string, loc int32) (*Source, error) {
	if wc.Cols == nil {
		return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "WITH query \"%s\" does not have a RETURNING clause", cte.Name), loc)
	}
	var op exec.Operator = &exec.Values{Env: qc.env, T: TypesOfColumns(wc.Cols)}
	if wc.Rows != nil {
		op = wc.Rows.Scan()
	}
	q := &query{Op: op, Cols: wc.Cols}
	src, err := querySource(q, alias, cte.Colps)
	if err != nil {
		return nil, err
	}
	if wc.Qualified {
		for i := range src.Sc.Cols {
			src.Sc.Cols[i].Hidden = true
		}
	}
	return src, renameCols(src.Sc, colAliases, alias)
}

// WrittenCTE is the outcome of one data-modifying WITH query.
type WrittenCTE struct {
	Cols []Column        // nil: no RETURNING
	Rows *exec.RowBuffer // nil while only describing
	// Qualified: the columns are reachable only qualified by the name (ON
	// CONFLICT's excluded, sql/upsert.go)
	Qualified bool
}

func TypesOfColumns(cols []Column) []types.T {
	ts := make([]types.T, len(cols))
	for i, c := range cols {
		ts[i] = c.Type
	}
	return ts
}
