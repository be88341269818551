package sql

import (
	"context"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// explain prints the operator tree with, for each table scan, the files and
// row groups it reads and those pruned by statistics.
func (s *Session) explain(ctx context.Context, st *pg.ExplainStmt, p *params) (*Result, error) {
	sel := st.Query.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "EXPLAIN supports SELECT only")
	}
	q, err := s.planQuery(ctx, sel, p, false)
	if err != nil {
		return nil, err
	}
	defer q.op.Close()
	var lines []string
	if err := s.explainOp(ctx, q.op, 0, &lines); err != nil {
		return nil, err
	}
	var rows [][]exec.Expr
	for _, l := range lines {
		rows = append(rows, []exec.Expr{textConst(l)})
	}
	return &Result{cols: []Column{{Name: "QUERY PLAN", Type: types.TextT}}, op: &exec.Values{Env: s.newEnv(), Rows: rows, T: []types.T{types.TextT}}, tag: "EXPLAIN"}, nil
}

func (s *Session) explainOp(ctx context.Context, op exec.Operator, depth int, lines *[]string) error {
	pad := strings.Repeat("  ", depth)
	arrow := ""
	if depth > 0 {
		arrow = "->  "
		pad = strings.Repeat("  ", depth-1) + "  "
	}
	add := func(format string, args ...any) {
		*lines = append(*lines, pad+arrow+fmt.Sprintf(format, args...))
	}
	detail := func(format string, args ...any) {
		*lines = append(*lines, pad+strings.Repeat(" ", len(arrow))+"  "+fmt.Sprintf(format, args...))
	}
	switch o := op.(type) {
	case *exec.TableScan:
		add("Lake Scan on %s (snapshot %d)", o.Label, o.Snapshot)
		var cols []string
		for i, c := range o.Cols {
			if o.Needed == nil || o.Needed[i] {
				cols = append(cols, c.Name)
			}
		}
		detail("Columns: %s", strings.Join(cols, ", "))
		detail("Files: %d scanned, %d pruned", len(o.Files), o.FilesPruned)
		scanned, pruned, err := s.rowGroups(ctx, o)
		if err != nil {
			return err
		}
		detail("Row groups: %d scanned, %d pruned", scanned, pruned)
	case *exec.Filter:
		add("Filter")
		return s.explainOp(ctx, o.Input, depth+1, lines)
	case *exec.Project:
		return s.explainOp(ctx, o.Input, depth, lines)
	case *exec.HashAgg:
		add("HashAggregate (%d group keys, %d aggregates)", o.NGroup, len(o.Aggs))
		return s.explainOp(ctx, o.Input, depth+1, lines)
	case *exec.Sort:
		add("Sort")
		return s.explainOp(ctx, o.Input, depth+1, lines)
	case *exec.Limit:
		add("Limit")
		return s.explainOp(ctx, o.Input, depth+1, lines)
	case *exec.NestedLoopJoin:
		add("Nested Loop Join")
		if err := s.explainOp(ctx, o.Left, depth+1, lines); err != nil {
			return err
		}
		return s.explainOp(ctx, o.Right, depth+1, lines)
	case *exec.Values:
		add("Values (%d rows)", len(o.Rows))
	default:
		add("%T", op)
	}
	return nil
}

// rowGroups counts the row groups a scan would read, from the files' footers.
func (s *Session) rowGroups(ctx context.Context, o *exec.TableScan) (int, int, error) {
	var proj []parquetio.Projection
	for i, c := range o.Cols {
		if o.Needed == nil || o.Needed[i] {
			proj = append(proj, parquetio.Projection{FieldID: c.FieldID, Name: c.Name, Pos: i, Type: c.T, Default: c.Default})
		}
	}
	scanned, pruned := 0, 0
	for _, f := range o.Files {
		file, err := s.eng.Store.Open(ctx, f.Path)
		if err != nil {
			return 0, 0, pgerr.Wrap(pgerr.IOError, err, "could not read file \"%s\"", f.Path)
		}
		pf, err := parquetio.Open(file, file.Size())
		if err != nil {
			file.Close()
			return 0, 0, err
		}
		for rg := 0; rg < pf.NumRowGroups(); rg++ {
			if o.Keep == nil || o.Keep(rg, pf.RowGroupRanges(rg, proj)) {
				scanned++
			} else {
				pruned++
			}
		}
		file.Close()
	}
	return scanned, pruned, nil
}
