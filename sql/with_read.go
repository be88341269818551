package sql

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
	pg "github.com/pganalyze/pg_query_go/v6"
)

func isWriteNode(n *pg.Node) bool {
	switch n.Node.(type) {
	case *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt:
		return true
	}
	return false
}

// writtenSource is a reference to a data-modifying WITH query: its
// RETURNING rows.
func (qc *queryCtx) writtenSource(cte *cteDef, wc *writtenCTE, alias string, colAliases []string, loc int32) (*source, error) {
	if wc.cols == nil {
		return nil, errAt(pgerr.New(pgerr.FeatureNotSupported, "WITH query \"%s\" does not have a RETURNING clause", cte.name), loc)
	}
	var op exec.Operator = &exec.Values{Env: qc.env, T: typesOfColumns(wc.cols)}
	if wc.rows != nil {
		op = wc.rows.Scan()
	}
	q := &query{op: op, cols: wc.cols}
	src, err := querySource(q, alias, cte.colps)
	if err != nil {
		return nil, err
	}
	if wc.qualified {
		for i := range src.sc.cols {
			src.sc.cols[i].hidden = true
		}
	}
	return src, renameCols(src.sc, colAliases, alias)
}

// writtenCTE is the outcome of one data-modifying WITH query.
type writtenCTE struct {
	cols []Column        // nil: no RETURNING
	rows *exec.RowBuffer // nil while only describing
	// qualified: the columns are reachable only qualified by the name (ON
	// CONFLICT's excluded, upsert.go)
	qualified bool
}

func typesOfColumns(cols []Column) []types.T {
	ts := make([]types.T, len(cols))
	for i, c := range cols {
		ts[i] = c.Type
	}
	return ts
}
