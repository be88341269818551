package tablelayout

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/planner"
	"github.com/lakepg/lakepg/types"
)

// Sorted tables, DuckDB's
//
//	ALTER TABLE t SET SORTED BY (region, ts DESC, id ASC NULLS FIRST)
//	ALTER TABLE t RESET SORTED BY
//
// rewritten like SET PARTITIONED BY (partition_ddl.go) to
// ALTER TABLE t SET/RESET (lakepg.sorted_by = '…'). The order is kept in
// ducklake_sort_info/ducklake_sort_expression as DuckDB 1.5 keeps it, and
// every file a write makes for the table (INSERT, COPY, UPDATE, CREATE
// TABLE AS into it later, compaction) holds its rows in that order, so a
// file's and a row group's min/max span a narrow range of the leading key
// and a filter on it skips most of them. Keys are column names or
// expressions over the columns, kept as text as DuckDB keeps them; an
// unspecified NULL order is NULLS LAST (DuckDB's default, also for DESC).

const sortOption = "sorted_by" // in namespace lakepg

// alterSorting handles ALTER TABLE SET/RESET (lakepg.sorted_by); ok is
// false when cmd is not about it.
func (s *Layouts) alterSorting(ctx context.Context, c *snapshot.Commit, t *catalog.Table, cmd *pg.AlterTableCmd) (bool, error) {
	if cmd.Subtype != pg.AlterTableType_AT_SetRelOptions && cmd.Subtype != pg.AlterTableType_AT_ResetRelOptions {
		return false, nil
	}
	items := cmd.Def.GetList().GetItems()
	var found *pg.DefElem
	for _, it := range items {
		if d := it.GetDefElem(); d != nil && d.Defnamespace == "lakepg" && d.Defname == sortOption {
			found = d
		}
	}
	if found == nil {
		return false, nil
	}
	if len(items) > 1 {
		return true, pgerr.New(pgerr.FeatureNotSupported, "lakepg.%s cannot be combined with other storage parameters", sortOption)
	}
	if cmd.Subtype == pg.AlterTableType_AT_ResetRelOptions {
		c.SetSortKeys(*t, nil)
		return true, nil
	}
	str := found.Arg.GetString_()
	if str == nil {
		return true, pgerr.New(pgerr.InvalidParameterValue, "lakepg.%s takes a list of sort keys as a string", sortOption)
	}
	keys, err := s.parseSortKeys(ctx, t, str.Sval)
	if err != nil {
		return true, err
	}
	c.SetSortKeys(*t, keys)
	return true, nil
}

// parseSortKeys parses the key list of SET SORTED BY against table t.
func (s *Layouts) parseSortKeys(ctx context.Context, t *catalog.Table, text string) ([]catalog.SortKey, error) {
	tree, err := pg.Parse("SELECT 1 ORDER BY " + text)
	if err != nil || len(tree.Stmts) != 1 {
		return nil, pgerr.New(pgerr.SyntaxError, "invalid sort key list \"%s\"", text)
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.SortClause) == 0 || sel.LimitCount != nil || len(sel.TargetList) != 1 {
		return nil, pgerr.New(pgerr.SyntaxError, "invalid sort key list \"%s\"", text)
	}
	var keys []catalog.SortKey
	for _, n := range sel.SortClause {
		sb := n.GetSortBy()
		cr := sb.GetNode().GetColumnRef()
		if cr == nil || len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil {
			// an expression over the table's columns, kept as its text
			expr, err := s.sortKeyText(ctx, t, sb.GetNode())
			if err != nil {
				return nil, err
			}
			keys = append(keys, catalog.SortKey{Expression: expr, Desc: sb.SortbyDir == pg.SortByDir_SORTBY_DESC, NullsFirst: sb.SortbyNulls == pg.SortByNulls_SORTBY_NULLS_FIRST})
			continue
		}
		name := cr.Fields[0].GetString_().Sval
		col, ok := t.ColumnByName(name)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, t.Name)
		}
		if len(col.Children) > 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot sort by the nested column \"%s\"", name)
		}
		keys = append(keys, catalog.SortKey{
			Expression: col.Name,
			Desc:       sb.SortbyDir == pg.SortByDir_SORTBY_DESC,
			NullsFirst: sb.SortbyNulls == pg.SortByNulls_SORTBY_NULLS_FIRST,
		})
	}
	return keys, nil
}

// SortedInput wraps op, the rows of a write into table t with the columns
// pcols, in a sort by the table's sort order, if it has one. Keys that do
// not name one of the columns (an expression DuckDB stored) end the order
// used: a prefix of it still narrows the files.
// The caller closes op as before and done after the write (it frees the
// sort's memory and spill files, not op).
func (s *Layouts) SortedInput(ctx context.Context, t *catalog.Table, pcols []parquetio.Column, op exec.Operator) (out exec.Operator, done func(), err error) {
	keys, staged := []catalog.SortKey(nil), false
	if c := s.StagedCommit(); c != nil {
		keys, staged = c.StagedSortKeys(t.ID)
	}
	if !staged {
		// the live order: the one a commit now would see
		if keys, err = s.DB.SortKeys(ctx, t.ID, 1<<62); err != nil {
			return nil, nil, err
		}
	}
	var sk []order.SortKey
	var extra []exec.Expr // expression keys, computed as columns after pcols
	for _, k := range keys {
		i := -1
		for j, c := range pcols {
			if strings.EqualFold(c.Name, k.Expression) || strings.EqualFold(`"`+c.Name+`"`, k.Expression) {
				i = j
				break
			}
		}
		if i < 0 {
			e, ok := s.sortKeyExpr(ctx, pcols, k.Expression)
			if !ok {
				break
			}
			i = len(pcols) + len(extra)
			extra = append(extra, e)
		}
		sk = append(sk, order.SortKey{Col: i, Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	if len(sk) == 0 {
		return op, func() {}, nil
	}
	if len(extra) == 0 {
		srt := &order.Sort{Input: keepOpen{op}, Keys: sk}
		return srt, func() { srt.Close() }, nil
	}
	env := s.NewEnv()
	cols := make([]exec.Expr, len(pcols))
	for i, c := range pcols {
		cols[i] = &exec.ColRef{Idx: i, T: c.Type}
	}
	withKeys := &exec.Project{Env: env, Input: keepOpen{op}, Exprs: append(append([]exec.Expr(nil), cols...), extra...)}
	srt := &order.Sort{Input: withKeys, Keys: sk}
	// the computed keys are dropped again after the sort
	return &exec.Project{Env: env, Input: keepOpen{srt}, Exprs: cols}, func() { srt.Close() }, nil
}

// sortKeyExpr binds a stored sort key that is not a column name (DuckDB
// stores SET SORTED BY (lower(x)) as the text "lower(x)", (id % 10) as
// "(id % 10)") against the written columns; ok is false when lakepg
// cannot parse or evaluate it (a DuckDB-only function, say), and the order
// then ends before it.
func (s *Layouts) sortKeyExpr(ctx context.Context, pcols []parquetio.Column, text string) (exec.Expr, bool) {
	tree, err := pg.Parse("SELECT " + text)
	if err != nil || len(tree.Stmts) != 1 {
		return nil, false
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || len(sel.FromClause) > 0 {
		return nil, false
	}
	sc := &planner.Scope{}
	for _, c := range pcols {
		sc.Cols = append(sc.Cols, planner.ScopeCol{Name: c.Name, T: c.Type})
	}
	b := &planner.Binder{Sess: s.Session, Env: s.NewEnv(), Params: &planner.Params{}, NoAggMsg: "aggregate functions are not allowed in sort keys", Qc: s.NewQueryCtx(ctx, &planner.Params{}, false)}
	e, err := b.Bind(sel.TargetList[0].GetResTarget().Val, sc)
	if err != nil || !sortableType(e.Type()) {
		return nil, false
	}
	return e, true
}

// sortableType: what order.Sort orders (scalars).
func sortableType(t types.T) bool {
	switch t.ID {
	case types.Array, types.Struct:
		return false
	}
	return true
}

// sortKeyText checks an expression key of SET SORTED BY against table t
// and gives the text stored for it (PostgreSQL's deparse, which DuckDB
// parses alike for the usual operators and functions).
func (s *Layouts) sortKeyText(ctx context.Context, t *catalog.Table, n *pg.Node) (string, error) {
	// a parse of "SELECT 1" carries the parse tree version deparse wants
	res, err := pg.Parse("SELECT 1")
	if err != nil {
		return "", err
	}
	res.Stmts[0].Stmt.GetSelectStmt().TargetList = []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n}}}}
	out, err := pg.Deparse(res)
	if err != nil || !strings.HasPrefix(out, "SELECT ") {
		return "", pgerr.New(pgerr.SyntaxError, "invalid sort key")
	}
	text := strings.TrimPrefix(out, "SELECT ")
	cols, err := planner.ScanColumns(t)
	if err != nil {
		return "", err
	}
	var pcols []parquetio.Column
	for _, c := range cols {
		pcols = append(pcols, parquetio.Column{FieldID: c.FieldID, Name: c.Name, Type: c.T})
	}
	if _, ok := s.sortKeyExpr(ctx, pcols, text); !ok {
		return "", pgerr.New(pgerr.FeatureNotSupported, "SET SORTED BY takes column names and scalar expressions over the table's columns; \"%s\" is neither", text)
	}
	return text, nil
}

// keepOpen hides Close from an operator wrapped by one its owner closes.
type keepOpen struct{ exec.Operator }

func (keepOpen) Close() error { return nil }
