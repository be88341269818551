package pruning

import (
	"strconv"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/sql/partitioning"
	"github.com/lakepg/lakepg/types"
)

// Partition pruning: a file whose partition values show that none of its
// rows can satisfy the pushed-down bounds is skipped at plan time, before
// its footer is read. Only what the values prove is used; anything lakepg
// cannot evaluate keeps the file.
//
//   - identity: the value is every row's value of the column (NULL: the
//     column is NULL in every row, so no comparison holds);
//   - year/month/day/hour: the keys present from year down (year; year and
//     month; ...) bound the column to one calendar range, which ranges and
//     equalities are checked against; a key without the ones above it
//     (month alone) still rules out equalities on a date or timestamp;
//   - bucket(N): equalities and IN lists are hashed as the writer did;
//   - epoch_year/month/day/hour: each key alone is one range of the column.
//
// Timestamps with time zone were split in the writer's session time zone
// (UTC for lakepg, DuckDB's TimeZone for DuckDB), so their calendar range
// is widened by the largest offset and unanchored keys are not used.

// maxZoneOffset bounds any time zone's distance from UTC.
const maxZoneOffset = 16 * time.Hour

// PartitionMayMatch reports whether file f of table t may hold rows that
// satisfy every Bound, judging by its partition values only.
func PartitionMayMatch(f catalog.DataFile, t *catalog.Table, cols []exec.ScanCol, bs []Bound) bool {
	if len(f.Partition) == 0 {
		return true
	}
	for _, b := range bs {
		if !boundMayMatchPartition(f.Partition, t, cols[b.col], b) {
			return false
		}
	}
	return true
}

func boundMayMatchPartition(pvs []catalog.PartitionValue, t *catalog.Table, col exec.ScanCol, b Bound) bool {
	id := int64(col.FieldID)
	ty := col.T
	var cal [4]int64 // year, month, day, hour
	var have [4]bool
	for _, pv := range pvs {
		if pv.ColumnID != id {
			continue
		}
		kind, n, ok := partitioning.ParseTransform(pv.Transform)
		if !ok {
			continue
		}
		switch kind {
		case partitioning.Identity:
			if pv.Value == nil {
				return false
			}
			if v := identityValue(ty, *pv.Value); v != nil && !mayMatch(b, v, v) {
				return false
			}
		case partitioning.Bucket:
			if pv.Value == nil {
				continue
			}
			want, err := strconv.ParseInt(*pv.Value, 10, 64)
			if err != nil {
				continue
			}
			dl := ""
			if c, ok := t.ColumnByID(id); ok {
				dl = c.Type
			}
			if !anyPoint(b, func(v *vec.Vector, i int) bool {
				h, ok := partitioning.BucketHash(v, i, dl)
				return !ok || int64(h&0x7fffffff)%n == want
			}) {
				return false
			}
		case partitioning.EpochYear, partitioning.EpochMonth, partitioning.EpochDay, partitioning.EpochHour:
			if pv.Value == nil || (ty.ID != types.Date && ty.ID != types.Timestamp && ty.ID != types.Timestamptz) {
				continue
			}
			x, err := strconv.ParseInt(*pv.Value, 10, 64)
			if err != nil {
				continue
			}
			// each epoch key alone bounds the column to one range, in UTC
			// even for timestamptz, so no zone widening is needed
			if lo, hi, ok := partitioning.EpochRange(kind, ty.ID, x); ok {
				l, h := vec.New(ty, 1), vec.New(ty, 1)
				l.AppendInt(lo)
				h.AppendInt(hi)
				if !mayMatch(b, l, h) {
					return false
				}
			}
		default:
			if pv.Value == nil || (ty.ID != types.Date && ty.ID != types.Timestamp && ty.ID != types.Timestamptz) {
				continue // NULL: also infinite timestamps
			}
			x, err := strconv.ParseInt(*pv.Value, 10, 64)
			if err != nil {
				continue
			}
			cal[kind-partitioning.Year], have[kind-partitioning.Year] = x, true
			if ty.ID != types.Timestamptz && !anyPoint(b, func(v *vec.Vector, i int) bool {
				f, ok := partitioning.CalendarField(kind, ty.ID, v.I64[i], nil)
				return !ok || f == x
			}) {
				return false
			}
		}
	}
	if have[0] {
		if lo, hi, ok := calendarRange(ty.ID, cal, have); ok {
			l, h := vec.New(ty, 1), vec.New(ty, 1)
			l.AppendInt(lo)
			h.AppendInt(hi)
			if !mayMatch(b, l, h) {
				return false
			}
		}
	}
	return true
}

// anyPoint applies match to an equality's constant or an IN list's
// constants; ranges always pass.
func anyPoint(b Bound, match func(v *vec.Vector, i int) bool) bool {
	switch {
	case b.alts != nil:
		// an OR: some branch whose every point passes
		for _, alt := range b.alts {
			all := true
			for _, x := range alt {
				all = all && anyPoint(x, match)
			}
			if all {
				return true
			}
		}
		return false
	case b.list != nil:
		for i := 0; i < b.list.Len(); i++ {
			if match(b.list, i) {
				return true
			}
		}
		return false
	case b.op == exec.EQ:
		return match(b.val, 0)
	}
	return true
}

// identityValue reads an identity partition value (DuckDB's text of it) as
// a value of the column's type; nil when lakepg cannot read it exactly.
func identityValue(t types.T, text string) *vec.Vector {
	switch t.ID {
	case types.Bytea, types.Interval, types.Float32, types.Float64:
		// DuckDB's escaped BLOB text, its interval text and float spellings
		// (inf, nan) are not PostgreSQL input
		return nil
	}
	v := vec.New(t, 1)
	if err := exec.ParseInto(v, text, time.UTC, false); err != nil {
		return nil
	}
	return v
}

// calendarRange is the inclusive range of the column's values (days for
// a date, microseconds for timestamps) that the calendar keys from year
// down allow; timestamptz ranges are widened by any zone offset.
func calendarRange(id types.ID, cal [4]int64, have [4]bool) (lo, hi int64, ok bool) {
	y := int(cal[0])
	start := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(1, 0, 0)
	if have[1] {
		if cal[1] < 1 || cal[1] > 12 {
			return 0, 0, false
		}
		start = time.Date(y, time.Month(cal[1]), 1, 0, 0, 0, 0, time.UTC)
		end = start.AddDate(0, 1, 0)
		if have[2] {
			if cal[2] < 1 || cal[2] > 31 {
				return 0, 0, false
			}
			start = time.Date(y, time.Month(cal[1]), int(cal[2]), 0, 0, 0, 0, time.UTC)
			end = start.AddDate(0, 0, 1)
			if have[3] && id != types.Date {
				if cal[3] < 0 || cal[3] > 23 {
					return 0, 0, false
				}
				start = start.Add(time.Duration(cal[3]) * time.Hour)
				end = start.Add(time.Hour)
			}
		}
	}
	if id == types.Date {
		return partitioning.FloorDiv(start.Unix(), 86400), partitioning.FloorDiv(end.Unix(), 86400) - 1, true
	}
	if id == types.Timestamptz {
		start, end = start.Add(-maxZoneOffset), end.Add(maxZoneOffset)
	}
	return start.UnixMicro(), end.UnixMicro() - 1, true
}
