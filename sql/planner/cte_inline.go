package planner

import (
	"maps"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// runOnce reports whether cte is planned once and its rows read by every
// reference (exec.Materialized), rather than planned into each reference
// as a derived table is. One written MATERIALIZED is run once even when
// read once: PostgreSQL then computes its every column, so an error in a
// column the statement does not read is still raised.
func (c *CteDef) runOnce() bool {
	return c.refs > 1 && !c.inline || c.refs == 1 && c.Materialized && !c.Recursive
}

// inlineCTE decides, once the references of cte are counted, whether a
// WITH query read more than once is planned into each reference instead
// of run once: when the user wrote NOT MATERIALIZED (and it calls no
// volatile function), as PostgreSQL does, or (rule cte_inline) when its
// body only joins and filters tables and its join makes more rows than it
// reads (joinExpands): then running it again costs a scan each time,
// while each reference planned on its own gets its conditions pushed in
// and the key filters of the joins it is in. TPC-DS q95 reads the
// web_sales self-join of its ws_wh in two IN subqueries: run once it
// makes all 8.6 M pairs, planned into each it reads only the orders of
// the few sales the outer query keeps. A WITH query that aggregates,
// removes duplicates, numbers rows, limits, combines queries or calls a
// function is run once: recomputing costs more, and a volatile function
// must give every reference the same rows.
func (qc *QueryCtx) inlineCTE(cte *CteDef) bool {
	if cte.refs < 2 || cte.Recursive || cte.Written != nil {
		return false
	}
	sel := cte.Query.GetSelectStmt()
	if sel == nil {
		return false
	}
	switch {
	case cte.Materialized:
		return false
	case cte.notMaterialized:
		return !callsVolatile(sel) // PostgreSQL runs such a body once anyway
	}
	if !qc.ruleOn(ruleCTEInline) || qc.DescribeOnly || !qc.joinsAndFilters(sel) || !qc.joinExpands(sel) {
		return false
	}
	qc.fired(ruleCTEInline)
	return true
}

// joinExpands plans sel on trial and reports whether its estimated rows
// are more than the rows of the tables it reads: materialized, such a
// join would write and read more rows than running it again scans. A
// fact table joined to dimensions by their keys (TPC-DS q27's store
// sales of some states, read by three aggregations) makes fewer rows
// than it reads and is run once; q95's web_sales joined with itself on
// the order makes 8.6 M pairs of 720 K sales. What the trial leaves for
// EXPLAIN is put back.
func (qc *QueryCtx) joinExpands(sel *pg.SelectStmt) bool {
	joins, fired := qc.joins, maps.Clone(qc.rulesFired)
	defer func() { qc.joins, qc.rulesFired = joins, fired }()
	q, err := qc.PlanSelect(proto.Clone(sel).(*pg.SelectStmt))
	if err != nil {
		return false // the run-once planning reports it
	}
	defer q.Op.Close()
	est := qc.planEstimator()
	in := 0.0
	for _, s := range q.scans {
		in += est.N(s)
	}
	return est.N(q.Op) > in
}

// joinsAndFilters is true for a SELECT of columns and expressions over
// tables and joins of tables, with a WHERE, and nothing else: no function
// call (aggregates, volatile functions), subquery, grouping, DISTINCT,
// window, ORDER BY, LIMIT, set operation, VALUES or locking, and no
// reference to a WITH query (whose own planning is not settled yet).
func (qc *QueryCtx) joinsAndFilters(sel *pg.SelectStmt) bool {
	if sel.Op != pg.SetOperation_SETOP_NONE || sel.WithClause != nil || len(sel.ValuesLists) > 0 ||
		len(sel.GroupClause) > 0 || sel.HavingClause != nil || len(sel.DistinctClause) > 0 ||
		len(sel.WindowClause) > 0 || len(sel.SortClause) > 0 || sel.LimitCount != nil ||
		sel.LimitOffset != nil || len(sel.LockingClause) > 0 || sel.IntoClause != nil || len(sel.FromClause) == 0 {
		return false
	}
	for _, f := range sel.FromClause {
		if !qc.tablesJoined(f) {
			return false
		}
	}
	plain := true
	EachMessage(sel.ProtoReflect(), func(m protoreflect.Message) {
		switch m.Interface().(type) {
		case *pg.FuncCall, *pg.SubLink, *pg.RangeSubselect, *pg.RangeFunction, *pg.SQLValueFunction, *pg.GroupingFunc:
			plain = false
		}
	})
	return plain
}

// tablesJoined is true for a table, or joins of tables on conditions.
func (qc *QueryCtx) tablesJoined(n *pg.Node) bool {
	if rv := n.GetRangeVar(); rv != nil {
		return rv.Schemaname != "" || qc.lookupCTE(rv.Relname) == nil
	}
	if j := n.GetJoinExpr(); j != nil {
		return qc.tablesJoined(j.Larg) && qc.tablesJoined(j.Rarg)
	}
	return false
}
