package exec

// Replanned tells an operator that the planner changed its inputs after it
// was built (column pruning), so types it cached must be computed again.
// It must be called before execution starts.
func Replanned(op Operator) {
	switch o := op.(type) {
	case *HashJoin:
		o.ts = nil
	case *NestedLoopJoin:
		o.ts = nil
	case interface{ ResetTypes() }: // HashAgg, Window (exec/agg, exec/window)
		o.ResetTypes()
	}
}
