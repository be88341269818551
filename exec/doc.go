// Package exec runs query plans: vectorised operators that pull batches of
// typed column vectors (package vec), expression kernels over whole
// vectors, scans of DuckLake Parquet files with positional deletes, hash
// joins, set operations, morsel-driven parallelism, and the sinks that
// write new Parquet files.
//
// It knows nothing of SQL text, names or catalogs: sql/ binds and plans,
// then hands exec a tree of operators whose expressions refer to input
// columns by position. Parquet encoding belongs to parquetio, object
// access to storage, per-function kernels to exec/fn. Sorting and top-N
// are exec/order's, aggregation and window functions exec/aggregate's,
// operators above this package;
// the hash tables (exec/hashtab) and memory accounting, column buffers and
// spill files (exec/memory) are below it.
//
// # Operators
//
// An Operator reports its output Types, returns batches from Next until it
// returns nil, and releases what it holds on Close. A batch is valid only
// until the next call: an operator that keeps rows copies them. Operators
// reuse their output batches and scratch (memory.ColBuf keeps NULL masks aside
// across resets), so a steady-state pipeline allocates nothing per batch.
// Every operator checks the query's context between batches and answers
// 57014 when it is cancelled; errors cross operator calls as values with a
// SQLSTATE, never as panics.
//
// Streaming: Values, Filter, Project, Limit, Append, TableScan, Parallel.
// Stacked Filters run as one chain: each condition on the rows the ones
// before kept, the kept rows copied once.
// Buffering: HashJoin (build side), NestedLoopJoin (right side), SetOp,
// RecursiveUnion (work table; UNION's set of rows seen), Materialized;
// Sort (exec/order); HashAgg and Window (exec/aggregate). Temporary tables'
// chunks (tablechunk.go) outlive statements.
//
// # Expressions
//
// An Expr evaluates a whole batch and may keep its output vector for the
// next call, so an expression tree belongs to one goroutine (MapColumns
// copies it for another). CASE, COALESCE and AND/OR follow PostgreSQL's
// evaluation rules (cond.go): a branch runs only for the rows that reach
// it, on a compact sub-batch when it may raise, so an error comes only
// from a row that takes the branch. FoldError (fold.go) gives the planner
// PostgreSQL's plan-time errors for constant subexpressions.
//
// # Hash tables and keys
//
// Joins and aggregation use open-addressing tables on typed keys
// (exec/hashtab), never Go maps: one integer-stored key (integers, dates,
// timestamps, scaled numerics) is kept inline and hashed with one
// multiply; other keys are hashed a column at a time from the typed slices
// and compared column by column on hash agreement. Grouping and joining
// follow PostgreSQL equality: NaN = NaN, -0 = 0, numerics by value
// whatever their scale, intervals by span. Aggregate states are
// column-major by dense group id (exec/aggregate); the same states serve
// HashAgg, the merge of per-worker partial aggregates, and window frames.
//
// # Parallelism
//
// Parallel splits a TableScan into morsels — one row group each — that
// GOMAXPROCS workers pull from a shared queue, each running its own
// pipeline built by Parallel.Build. Above a Parallel, HashAgg aggregates
// inside each worker and merges the partial states once; anything else
// sees the union of the workers' batches in no particular order. A panic
// in a worker becomes XX000 for the query, not a crash.
//
// # Memory
//
// Buffering operators reserve what they hold from a Memory account
// (exec/memory; per query, optional) and its MemoryPool (GlobalMemory by
// default); everything is returned on Close or when the operator has
// emitted its last row. A reservation that does not fit is refused: sorts
// (exec/order), hash and nested-loop joins (joinspill.go), set
// operations, recursive work tables, temporary tables' chunks and, in
// exec/aggregate, aggregation, DISTINCT and windows then spill to temp
// files, whose space (exec/memory) is bounded too. A query fails with 53200
// only when that runs out as well, or when an operator that cannot spill
// (grouping sets) reaches the limit.
package exec
