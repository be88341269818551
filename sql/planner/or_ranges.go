package planner

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/sql/planner/rewrite"
)

// orRanges is c with rewrite.MergeOrRanges applied, unless the rule is off.
func (qc *QueryCtx) orRanges(c *pg.Node) *pg.Node {
	if !qc.ruleOn(ruleOrRanges) {
		return c
	}
	if m, ok := rewrite.MergeOrRanges(c); ok {
		qc.fired(ruleOrRanges)
		return m
	}
	return c
}
