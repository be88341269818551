// Package order sorts: ORDER BY and top-N (Sort), with each row's sort key
// encoded once into bytes whose memcmp order is the SQL order (KeyEncoder:
// NULL placement, DESC, NaN and numerics included), so comparisons never
// dispatch per column; the workers of a Parallel input sort their own rows
// and the sorted runs are merged (parallel.go); a sort that outgrows its
// memory writes sorted runs to temp files and merges them with a loser
// heap, in passes when there are too many (spill.go).
//
// It is an operator package above exec, as exec/aggregate is: windows sort
// their partitions with it.
package order
