package sql

import (
	"context"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
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
// and a filter on it skips most of them. Like DuckDB, lakepg takes column
// names as keys; an unspecified NULL order is NULLS LAST (DuckDB's default,
// also for DESC).

const sortOption = "sorted_by" // in namespace lakepg

// alterSorting handles ALTER TABLE SET/RESET (lakepg.sorted_by); ok is
// false when cmd is not about it.
func alterSorting(c *snapshot.Commit, t *catalog.Table, cmd *pg.AlterTableCmd) (bool, error) {
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
	s := found.Arg.GetString_()
	if s == nil {
		return true, pgerr.New(pgerr.InvalidParameterValue, "lakepg.%s takes a list of sort keys as a string", sortOption)
	}
	keys, err := parseSortKeys(t, s.Sval)
	if err != nil {
		return true, err
	}
	c.SetSortKeys(*t, keys)
	return true, nil
}

// parseSortKeys parses the key list of SET SORTED BY against table t.
func parseSortKeys(t *catalog.Table, text string) ([]catalog.SortKey, error) {
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
			return nil, pgerr.New(pgerr.FeatureNotSupported, "SET SORTED BY takes column names; \"%s\" is not one", text)
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

// sortedInput wraps op, the rows of a write into table t with the columns
// pcols, in a sort by the table's sort order, if it has one. Keys that do
// not name one of the columns (an expression DuckDB stored) end the order
// used: a prefix of it still narrows the files.
// The caller closes op as before and done after the write (it frees the
// sort's memory and spill files, not op).
func (s *Session) sortedInput(ctx context.Context, t *catalog.Table, pcols []parquetio.Column, op exec.Operator) (out exec.Operator, done func(), err error) {
	keys, staged := []catalog.SortKey(nil), false
	if tx := s.txn; tx != nil && tx.c != nil {
		keys, staged = tx.c.StagedSortKeys(t.ID)
	}
	if !staged {
		// the live order: the one a commit now would see
		if keys, err = s.eng.DB.SortKeys(ctx, t.ID, 1<<62); err != nil {
			return nil, nil, err
		}
	}
	var sk []exec.SortKey
	for _, k := range keys {
		i := -1
		for j, c := range pcols {
			if strings.EqualFold(c.Name, k.Expression) {
				i = j
				break
			}
		}
		if i < 0 {
			break
		}
		sk = append(sk, exec.SortKey{Col: i, Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	if len(sk) == 0 {
		return op, func() {}, nil
	}
	srt := &exec.Sort{Input: keepOpen{op}, Keys: sk}
	return srt, func() { srt.Close() }, nil
}

// keepOpen hides Close from an operator wrapped by one its owner closes.
type keepOpen struct{ exec.Operator }

func (keepOpen) Close() error { return nil }
