package planner

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/sql/planner/bind"
)

// addDependentGroups applies PostgreSQL's functional dependency rule to a plain GROUP BY: when
// the grouped columns include every column of a table's PRIMARY KEY, the other columns of that
// table may be used ungrouped in the select list, HAVING and ORDER BY (Django groups an
// annotate() by the model's primary key and selects its other fields). Each such column that
// the query uses becomes one more group key: it cannot split a group, since the key decides it.
// Only base-table columns qualify, as in PostgreSQL (not a subquery's or a view's).
func (qc *QueryCtx) addDependentGroups(coll *bind.AggCollector, sc *Scope, sel *pg.SelectStmt, nodes []*pg.Node, cols []int) {
	if coll.Sets != nil || len(coll.Groups) == 0 {
		return
	}
	grouped := map[int]bool{}
	for _, gc := range coll.GroupCols {
		if gc >= 0 {
			grouped[gc] = true
		}
	}
	var want []int // used, ungrouped base-table columns, in order of use
	seen := map[int]bool{}
	use := func(i int) {
		if c := sc.Cols[i]; !grouped[i] && !seen[i] && c.Used != nil && c.Orig.Rel != 0 {
			seen[i] = true
			want = append(want, i)
		}
	}
	b := qc.binder()
	visit := func(n *pg.Node) {
		Walk(n, func(x *pg.Node) bool {
			if f := x.GetFuncCall(); f != nil && f.Over == nil && bind.IsAggregate(FuncName(f)) {
				return false // an aggregate's arguments need no group key
			}
			if cr := x.GetColumnRef(); cr != nil {
				if i, err := b.FindColumn(sc, StrNodes(cr.Fields), cr.Location); err == nil {
					use(i)
				}
			}
			return true
		})
	}
	for _, i := range cols {
		use(i)
	}
	for _, n := range nodes {
		visit(n)
	}
	visit(sel.HavingClause)
	for _, sb := range sel.SortClause {
		visit(sb.GetSortBy().GetNode())
	}
	if len(want) == 0 {
		return
	}
	snap, err := qc.s.Host.ReadSnapshot(qc.ctx)
	if err != nil {
		return
	}
	meta, err := qc.s.Host.Metadata(qc.ctx, snap)
	if err != nil {
		return
	}
	keyed := map[string]bool{} // table alias + relation whose primary key is grouped
	covered := func(c ScopeCol) bool {
		k := fmt.Sprint(c.Table, "\x00", c.Orig.Rel)
		if v, ok := keyed[k]; ok {
			return v
		}
		ok := false
		for _, t := range meta.Tables {
			if uint32(pgcatalog.RelationOID(t.ID)) != c.Orig.Rel {
				continue
			}
			for _, con := range meta.ConstraintsOf(t.ID) {
				if !con.Primary() {
					continue
				}
				ok = true
				for _, id := range con.Columns {
					att := int16(0)
					for k := range t.Columns {
						if t.Columns[k].ID == id {
							att = int16(k + 1)
						}
					}
					found := false
					for gi := range grouped {
						g := sc.Cols[gi]
						found = found || g.Used != nil && g.Table == c.Table && g.Orig.Rel == c.Orig.Rel && g.Orig.Att == att
					}
					ok = ok && found
				}
			}
		}
		keyed[k] = ok
		return ok
	}
	for _, i := range want {
		c := sc.Cols[i]
		if !covered(c) {
			continue
		}
		*c.Used = true
		coll.GroupKeys = append(coll.GroupKeys, DeparseExpr(ColRefNode(c)))
		coll.GroupCols = append(coll.GroupCols, i)
		coll.Groups = append(coll.Groups, &exec.ColRef{Idx: i, T: c.T})
	}
}
