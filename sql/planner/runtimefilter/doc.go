// Package runtimefilter wires the filters a finished operator tree takes
// from its hash joins' build sides at run time: a join's key ranges and
// key sets handed to the scans below its probe side (dynamic.go, rule
// dynamic_filters), and the rows an aggregation below LEFT JOINs may drop
// because WHERE needs them matched (outer_join.go, rule
// outer_join_key_filter). It runs after column pruning and before the
// pipelines are made parallel; the planner decides whether a rule is on.
package runtimefilter
