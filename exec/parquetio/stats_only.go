package parquetio

import (
	"math"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// ScalarStats are the statistics Close would report for a file of b's
// rows, computed with the Writer's own accumulators but without encoding a
// file. An inlined INSERT of a few rows needs only these: building the
// Parquet file in memory was the largest allocation of such a commit, and
// its garbage a good part of the server's CPU. SizeBytes is 0 and Sketch
// nil, as no file exists (inlined rows get their sketch when flushed).
//
// ok is false where only the Writer can answer: list, nested, variant and
// geometry columns, and types whose values the Writer may refuse (wide
// numerics, intervals, uuids); the same goes for a value the Writer would
// refuse (an integer out of its column's range), so that the caller's
// fallback reports the Writer's error.
func ScalarStats(cols []Column, b *vec.Batch) (stats []ColumnStats, ok bool) {
	if len(b.Vecs) != len(cols) {
		return nil, false
	}
	for i, c := range cols {
		v := b.Vecs[i]
		if c.Geometry || c.Variant || v.Type.Storage() != c.Type.Storage() || v.Len() < b.N ||
			!plainScalar(c.Type) || !inRange(c.Type, v, b.N) {
			return nil, false
		}
	}
	stats = make([]ColumnStats, len(cols))
	for i, c := range cols {
		a := statAcc{t: c.Type}
		a.add(b.Vecs[i], 0, b.N)
		stats[i] = a.result(c.FieldID, 0)
	}
	return stats, true
}

// plainScalar: a type whose Parquet value the Writer makes without a
// check that can fail other than inRange's.
func plainScalar(t types.T) bool {
	switch t.ID {
	case types.Bool, types.Int16, types.Int32, types.Int64, types.Date,
		types.Timestamp, types.Timestamptz, types.Time, types.TimeTZ,
		types.Float32, types.Float64, types.Text, types.Bytea, types.JSON:
		return true
	case types.Numeric:
		if t.Wide() {
			return false
		}
		p, s := numericPS(t)
		return s >= 0 && p <= types.MaxInt64Precision && s <= p
	}
	return false
}

// inRange: the first n values of v fit the Parquet type the Writer stores
// t in (Writer.scalar's checks).
func inRange(t types.T, v *vec.Vector, n int) bool {
	lim := int64(math.MaxInt32)
	switch t.ID {
	case types.Int16:
		lim = math.MaxInt16
	case types.Int32, types.Date:
	case types.Numeric:
		if p, _ := numericPS(t); p > 9 {
			return true
		}
	default:
		return true
	}
	for i, x := range v.I64[:n] {
		if (x > lim || x < -lim-1) && !v.IsNull(i) {
			return false
		}
	}
	return true
}
