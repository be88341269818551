package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/estimate"
	"github.com/lakepg/lakepg/sql/planner/optimize"
	"github.com/lakepg/lakepg/sql/planner/runtimefilter"
)

// The planner's rewrites are named rules: each can be switched off for a
// session (SET lakepg.disabled_rules = 'name, …') to compare plans or to
// get around a rule that misbehaves, and EXPLAIN (VERBOSE) lists the rules
// that changed the plan and how often. The rules over the logical plan are
// in sql/planner/optimize (logical_plan.go runs them); the others still
// rewrite operator trees here, until what they rewrite is logical too.
const (
	RuleJoinOrder          = "join_order"                 // joins ordered by cost (join_order.go); off: as written
	RuleOuterPushdown      = optimize.OuterJoinPushdown   // WHERE below an outer join, into its preserved side (outer_join.go for the FROM list's; optimize/outer_join_pushdown.go)
	ruleOuterJoinReorder   = optimize.OuterJoinReorder    // a FROM list's tables joined to a LEFT JOIN's preserved side join it below the outer join (optimize/outer_join_reorder.go)
	ruleFilterBelowProject = optimize.FilterBelowProject  // a filter over a USING join's merged columns reaches the join (optimize/filter_below_project.go)
	ruleOuterToInner       = optimize.OuterJoinToInner    // a null-rejecting WHERE makes an outer join inner (optimize/outer_join_to_inner.go; outer_join.go for the FROM list's)
	ruleOuterToAnti        = optimize.OuterJoinToAnti     // WHERE <joined column> IS NULL makes a LEFT JOIN an anti join (outer_join.go for the FROM list's; optimize/outer_join_to_anti.go)
	ruleImpliedCondition   = "implied_conditions"         // col = constant carried across ON equalities
	RuleSubqueryPushdown   = "subquery_pushdown"          // WHERE into derived tables and WITH queries
	ruleCTESharedFilter    = "cte_shared_filter"          // a WITH query read by several references runs once, their conditions OR'ed into it
	ruleCTEInline          = "cte_inline"                 // a WITH query that only joins and filters tables is planned into each of its references (cte_inline.go)
	ruleConstantFalse      = "constant_false"             // a constant false condition reads nothing
	ruleSubqueryFirst      = "correlated_subquery_first"  // a condition with a correlated scalar subquery over one FROM item filters it before the joins (subquery_narrow.go)
	RuleFactorOr           = "factor_or"                  // a condition common to OR branches taken out
	ruleOrRanges           = "or_ranges"                  // an OR of ranges of one column that form one range is that range (or_ranges.go)
	ruleDynamicFilters     = "dynamic_filters"            // scans skip row groups outside a join's build keys
	ruleOuterJoinKeyFilter = "outer_join_key_filter"      // an aggregation below LEFT JOINs whose WHERE needs a match keeps the rows whose keys a build has (runtimefilter/outer_join.go)
	ruleSharedSubqueries   = "shared_subqueries"          // uncorrelated scalar subqueries reading the same rows run as one
	ruleSharedDerived      = "shared_derived_tables"      // derived tables written alike run once (derived_shared.go)
	ruleFilteredAggs       = "filtered_aggregates"        // one-row aggregates of one FROM side by side, differing in WHERE conjuncts, as one scan with FILTER (filtered_aggregates.go)
	ruleEagerAggregation   = optimize.EagerAggregation    // a GROUP BY over a join partly done below it (optimize/eager_aggregation.go)
	ruleSetOpDistinct      = optimize.SetOpDistinctInputs // INTERSECT/EXCEPT inputs made distinct first, on all cores (optimize/setop_distinct_inputs.go)
	ruleSetOpAggregate     = optimize.SetOpAggregate      // INTERSECT/EXCEPT without ALL as an aggregation of both sides' rows tagged (optimize/setop_aggregate.go)
	ruleWindowOrder        = optimize.WindowOrder         // a window sorting by another's keys and more runs first (optimize/window_order.go)
	ruleParallelWindows    = "parallel_windows"           // windows with PARTITION BY evaluate their partitions on all cores (window_parallel.go)
	ruleCommonSubexprs     = "common_subexpressions"      // an expression written several times in a projection computed once (optree/cse.go)
	ruleAggregateHaving    = "aggregate_having"           // a filter over an aggregation's groups also tested by the aggregation, on float8 of its numeric results, before it makes them (optree/having.go)
)

// Rules are the rule names in the order the planner applies them.
var Rules = []string{ruleSharedDerived, ruleFilteredAggs, ruleSharedSubqueries, RuleFactorOr, ruleOrRanges, ruleConstantFalse, ruleSubqueryFirst, ruleCTEInline, RuleSubqueryPushdown, ruleCTESharedFilter, ruleFilterBelowProject, ruleOuterToInner, ruleOuterToAnti,
	RuleOuterPushdown, ruleOuterJoinReorder, ruleImpliedCondition, RuleJoinOrder, ruleEagerAggregation, ruleSetOpDistinct, ruleSetOpAggregate, ruleWindowOrder, ruleParallelWindows, ruleDynamicFilters, ruleOuterJoinKeyFilter, ruleCommonSubexprs, ruleAggregateHaving, estimate.RuleNDVSketches}

// CheckDisabledRules validates a lakepg.disabled_rules value.
func CheckDisabledRules(v string) error {
	for _, name := range splitRuleList(v) {
		if !slices.Contains(Rules, name) {
			return fmt.Errorf("unknown rule %q (rules: %s)", name, strings.Join(Rules, ", "))
		}
	}
	return nil
}

func splitRuleList(v string) []string {
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.ToLower(strings.TrimSpace(f)); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ruleOn reports whether the session leaves rule name on.
func (qc *QueryCtx) ruleOn(name string) bool { return qc.s.ruleOn(name) }

// ruleOn reports whether the session leaves rule name on.
func (s *Session) ruleOn(name string) bool {
	v := s.Settings["lakepg.disabled_rules"]
	return v == "" || !slices.Contains(splitRuleList(v), name)
}

// dynamicFilters applies rule dynamic_filters (runtimefilter/dynamic.go).
func (qc *QueryCtx) dynamicFilters(op exec.Operator) {
	if qc.ruleOn(ruleDynamicFilters) {
		runtimefilter.Dynamic(op, func() { qc.fired(ruleDynamicFilters) })
	}
}

// outerJoinKeyFilters applies rule outer_join_key_filter
// (runtimefilter/outer_join.go).
func (qc *QueryCtx) outerJoinKeyFilters(op exec.Operator) {
	if qc.ruleOn(ruleOuterJoinKeyFilter) {
		runtimefilter.OuterJoinKeys(qc.env, op, func() { qc.fired(ruleOuterJoinKeyFilter) })
	}
}

// fired records that rule name changed the plan.
func (qc *QueryCtx) fired(name string) {
	if qc.rulesFired == nil {
		qc.rulesFired = map[string]int{}
	}
	qc.rulesFired[name]++
}

// joinBlock is one join ordering: its items, how they were ordered and the
// estimated cost of the order chosen.
type joinBlock struct {
	items int
	how   string
	cost  float64
}

// planSummary is what EXPLAIN (VERBOSE) prints after the tree: the join
// orderings and the rules that changed the plan.
func planSummary(blocks []joinBlock, fired map[string]int) []string {
	var lines []string
	total := 0.0
	for _, b := range blocks {
		total += b.cost
	}
	if len(blocks) > 0 {
		lines = append(lines, fmt.Sprintf("Join order: estimated cost %.0f over %d FROM lists", total, len(blocks)))
		for _, b := range blocks {
			lines = append(lines, fmt.Sprintf("  %d items by %s, estimated cost %.0f", b.items, b.how, b.cost))
		}
	}
	var used []string
	for _, r := range Rules {
		if n := fired[r]; n > 0 {
			used = append(used, fmt.Sprintf("%s (%d)", r, n))
		}
	}
	if len(used) == 0 {
		used = []string{"none"}
	}
	return append(lines, "Rules applied: "+strings.Join(used, ", "))
}
