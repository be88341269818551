// Package fn is lakepg's library of scalar SQL functions and of the
// operators that are really functions (date/time/interval arithmetic, regular
// expression matches, text concatenation with non-text): their overloads,
// PostgreSQL's overload resolution over them, and their vectorised kernels.
//
// It owns what pg_proc and pg_operator own in PostgreSQL: for a name and
// argument types, which implementation runs, what each argument is cast to
// first, the result type, and whether the function is strict (NULL in, NULL
// out), stable (reads the session's TimeZone or statement time) or volatile.
// It does not know SQL text, plans or operators over batches: the binder
// calls Resolve once per call site and an expression evaluator calls
// Overload.Eval once per batch.
//
// Lifecycle:
//
//	ov, casts, ret, err := fn.Resolve("date_trunc", []types.T{types.UnknownT, types.TimestampT})
//	// binder: cast argument i to casts[i]; if some arguments are constants,
//	// ov.RetConst (when set) may narrow ret, e.g. extract(year …) to numeric scale 0.
//	out := vec.New(ret, n)
//	err = ov.Eval(&fn.Ctx{Loc: loc, Now: stmtStart}, out, args, n)
//
// Invariants kernels rely on and keep:
//   - args[i] has at least n rows and the type casts[i] (same ID; numeric
//     arguments may be fixed-scale or dynamic and kernels read both);
//   - out arrives empty with the result type; a kernel leaves exactly n values
//     in it, with the zero value in NULL rows;
//   - for Strict overloads Eval has already set out.Nulls to the rows with a
//     NULL argument (nil when none); kernels must not fail on those rows and
//     may compute garbage there, which Eval then clears;
//   - kernels loop over typed slices and never box values; string kernels may
//     allocate their output strings; errors carry PostgreSQL's SQLSTATE and
//     wording.
//
// Semantics follow PostgreSQL 15 with lc_ctype = C (lakepg reports C), so
// case mapping (lower, upper, initcap, ILIKE-style regex flags) touches ASCII
// letters only.
package fn
