// Package hashtab holds the open-addressing hash tables that joins and
// aggregation use on typed keys, never Go maps: one integer-stored key
// (integers, dates, timestamps, scaled numerics) is kept inline in
// I64Table and hashed with one multiply; other keys are hashed a column at
// a time from the typed slices into HashTable and compared column by
// column (KeyCols) on hash agreement. KeyPacker caches GROUP BY keys of
// several small columns packed into one word; text keys are kept as
// references into shared chunks (textkeys.go).
//
// Grouping and joining follow PostgreSQL equality: NaN = NaN, -0 = 0,
// numerics by value whatever their scale, intervals by span.
package hashtab
