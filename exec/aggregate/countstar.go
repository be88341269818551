package aggregate

import (
	"context"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
)

// DuckLake's catalog knows every data file's row count and every delete
// file's delete count, so count(*) of a whole table needs no Parquet read
// (DuckDB answers it from metadata too). The counts are exact only where
// no file is read as of an older snapshot than it was written for (a
// partial file, or a delete file with later deletes in it).

// CountOnly reports whether the aggregate is count(*)s of one group.
func (h *HashAgg) CountOnly() bool {
	if h.NGroup != 0 || h.GroupingSets != nil || len(h.Aggs) == 0 {
		return false
	}
	for _, a := range h.Aggs {
		if a.Kind != AggCountStar || a.Filter != 0 {
			return false
		}
	}
	return true
}

// countFromMetadata feeds n rows to a count(*)-only aggregate without
// reading them.
func (h *HashAgg) countFromMetadata(ctx context.Context) (bool, error) {
	if !h.CountOnly() {
		return false, nil
	}
	n, ok := exec.ExactRowsOf(h.Input)
	if !ok {
		return false, nil
	}
	r, err := h.newRun()
	if err != nil {
		return true, err
	}
	h.run = r
	b := &vec.Batch{}
	for n > 0 {
		b.N = int(min(n, vec.BatchSize))
		if err := r.consume(b); err != nil {
			return true, err
		}
		n -= int64(b.N)
	}
	return true, nil
}
