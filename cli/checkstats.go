package cli

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"strings"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/storage"
	"github.com/lakepg/lakepg/types"
)

// The column statistics of a live data file prune files before they are
// read and, in DuckDB, answer MIN/MAX and COUNT. A catalog bound narrower
// than the file's values makes pruning drop rows, so that is a problem; a
// wider one (or NULL: unknown) only costs reads. Null and value counts are
// exact for files lakepg and DuckDB write, so any difference is a problem.
// The file side comes from the Parquet footer's column chunk statistics,
// decoded by parquetio into the column's type, so values are compared as
// numbers, dates, timestamps, decimals or bytes, never as text. Footers do
// not record NaN, so a float column the catalog says has no NaN is read.

// statCol is a column whose statistics are compared.
type statCol struct {
	id   int64
	name string
	t    types.T
}

// statColumns are the table's columns whose statistics can be checked:
// intervals are left out (DuckLake keeps no bounds for them and DuckDB
// writes zero counts), as are types lakepg cannot read.
func statColumns(t *catalog.Table) []statCol {
	var out []statCol
	for _, c := range t.Columns {
		typ, err := types.FromDuckLake(c.Type)
		if err != nil || typ.ID == types.Interval {
			continue
		}
		out = append(out, statCol{id: c.ID, name: c.Name, t: typ})
	}
	return out
}

// checkStats compares the column statistics of every data file live at the
// head snapshot with its footer, skipping the files in bad (already
// reported). It returns how many files it compared.
func checkStats(ctx context.Context, db *catalog.DB, store storage.Backend, bad map[string]bool, problem func(string, ...any)) (int, error) {
	head, err := db.Head(ctx)
	if err != nil {
		return 0, fmt.Errorf("read the head snapshot: %w", err)
	}
	md, err := db.Load(ctx, head)
	if err != nil {
		return 0, err
	}
	compared := 0
	for i := range md.Tables {
		t := &md.Tables[i]
		s, ok := md.SchemaByID(t.SchemaID)
		if !ok {
			continue
		}
		files, err := db.Files(ctx, s, t, head)
		if err != nil {
			return compared, err
		}
		cols := statColumns(t)
		for _, f := range files {
			if bad[f.Path] || len(f.Stats) == 0 || len(cols) == 0 {
				continue
			}
			what := fmt.Sprintf("data file %d of %s.%s", f.ID, s.Name, t.Name)
			ok, err := fileStats(ctx, store, f, cols, func(col, format string, args ...any) {
				problem("stats mismatch: %s (%s), column %s: "+format, append([]any{f.Path, what, col}, args...)...)
			})
			if err != nil {
				problem("unreadable: %s (%s): %v", f.Path, what, err)
				continue
			}
			if ok {
				compared++
			}
		}
	}
	return compared, nil
}

// footerStats is one column's statistics over all row groups of a file.
type footerStats struct {
	rows, nulls int64
	nullsKnown  bool
	// bounds is false when a row group holding values has no usable
	// min/max, so the file's bounds are unknown.
	bounds, seen bool
	lo, hi       parquetio.Range // MinX of lo and MaxX of hi are the bounds
}

func (s *footerStats) add(t types.T, r parquetio.Range, rows int64) {
	s.rows += rows
	s.nullsKnown = s.nullsKnown && r.HasNullCount
	s.nulls += r.NullCount
	if r.HasNullCount && r.NullCount == rows {
		return // only NULLs: no bounds to contribute
	}
	if !r.Known {
		s.bounds = false
		return
	}
	if !s.seen {
		s.lo, s.hi, s.seen = r, r, true
		return
	}
	switch t.Storage() {
	case types.StoreInt:
		s.lo.MinI, s.hi.MaxI = min(s.lo.MinI, r.MinI), max(s.hi.MaxI, r.MaxI)
	case types.StoreFloat:
		s.lo.MinF, s.hi.MaxF = math.Min(s.lo.MinF, r.MinF), math.Max(s.hi.MaxF, r.MaxF)
	case types.StoreBool:
		s.lo.MinB, s.hi.MaxB = s.lo.MinB && r.MinB, s.hi.MaxB || r.MaxB
	default:
		s.lo.MinS, s.hi.MaxS = min(s.lo.MinS, r.MinS), max(s.hi.MaxS, r.MaxS)
	}
}

// rangeValue is a bound as a one-row vector of type t.
func rangeValue(t types.T, r parquetio.Range, isMax bool) *vec.Vector {
	v := vec.New(t, 1)
	switch t.Storage() {
	case types.StoreInt:
		v.AppendInt(pick(isMax, r.MaxI, r.MinI))
	case types.StoreFloat:
		v.AppendFloat(pick(isMax, r.MaxF, r.MinF))
	case types.StoreBool:
		v.AppendBool(pick(isMax, r.MaxB, r.MinB))
	default:
		v.AppendString(pick(isMax, r.MaxS, r.MinS))
	}
	return v
}

func pick[T any](first bool, a, b T) T {
	if first {
		return a
	}
	return b
}

// fileStats compares one file's catalog statistics with its footer and
// reports each difference through mismatch. ok is false when the file has
// nothing to compare (no field ids: its columns are matched by a name
// mapping, not by column id).
func fileStats(ctx context.Context, store storage.Backend, f catalog.DataFile, cols []statCol, mismatch func(col, format string, args ...any)) (ok bool, err error) {
	key, err := parquetio.ParseKeyText(f.EncryptionKey)
	if err != nil {
		return false, err
	}
	fh, err := store.Open(ctx, f.Path)
	if err != nil {
		return false, err
	}
	defer fh.Close()
	pf, err := parquetio.OpenKey(fh, fh.Size(), key)
	if err != nil {
		return false, err
	}
	if !pf.HasFieldIDs() {
		return false, nil
	}
	var (
		proj []parquetio.Projection
		use  []statCol
	)
	for _, c := range cols {
		if f.Stats.Has(c.id) && pf.HasField(int32(c.id)) {
			proj = append(proj, parquetio.Projection{FieldID: int32(c.id), Name: c.name, Pos: -1, Type: c.t})
			use = append(use, c)
		}
	}
	foot := make([]footerStats, len(proj))
	for i := range foot {
		foot[i].nullsKnown, foot[i].bounds = true, true
	}
	for rg := 0; rg < pf.NumRowGroups(); rg++ {
		rows := pf.RowGroupNumRows(rg)
		for i, r := range pf.RowGroupRanges(rg, proj) {
			foot[i].add(use[i].t, r, rows)
		}
	}
	var nanCheck []int // columns whose catalog says they hold no NaN
	for i, c := range use {
		cs, _ := f.Stats.Get(c.id)
		fs := &foot[i]
		col := quoteCol(c.name)
		if fs.nullsKnown {
			if cs.NullCount != nil && *cs.NullCount != fs.nulls {
				mismatch(col, "catalog null_count %d, the Parquet footer %d", *cs.NullCount, fs.nulls)
			}
			if cs.ValueCount != nil && *cs.ValueCount != fs.rows-fs.nulls {
				mismatch(col, "catalog value_count %d, the Parquet footer %d non-NULL values (%d rows, %d NULLs)", *cs.ValueCount, fs.rows-fs.nulls, fs.rows, fs.nulls)
			}
		}
		if fs.bounds && fs.seen {
			compareBound(c, cs.Min, rangeValue(c.t, fs.lo, false), false, col, mismatch)
			compareBound(c, cs.Max, rangeValue(c.t, fs.hi, true), true, col, mismatch)
		}
		if c.t.IsFloat() && cs.ContainsNaN != nil && !*cs.ContainsNaN {
			nanCheck = append(nanCheck, i)
		}
	}
	if len(nanCheck) > 0 {
		if err := checkNaN(ctx, pf, proj, nanCheck, func(i int) {
			mismatch(quoteCol(use[i].name), "catalog contains_nan false, but the file holds NaN (a filter on the column could skip it)")
		}); err != nil {
			return true, err
		}
	}
	return true, nil
}

// compareBound reports a catalog bound that excludes the file's own
// minimum (or maximum), or that does not parse as the column's type.
func compareBound(c statCol, text *string, file *vec.Vector, isMax bool, col string, mismatch func(col, format string, args ...any)) {
	if text == nil {
		return // unknown: allowed
	}
	name, side, rel := "min_value", "minimum", "above"
	if isMax {
		name, side, rel = "max_value", "maximum", "below"
	}
	cat, err := parseStat(c.t, *text)
	if err != nil {
		mismatch(col, "catalog %s %q is not a %s: %v", name, *text, c.t, err)
		return
	}
	cmp := exec.CompareRows(cat, 0, file, 0)
	if (!isMax && cmp > 0) || (isMax && cmp < 0) {
		shown, _ := parquetio.StatText(c.t, file, 0)
		mismatch(col, "catalog %s %s is %s the Parquet footer's %s %s", name, *text, rel, side, shown)
	}
}

// parseStat reads a value in DuckLake's statistics text form, as DuckDB
// and lakepg write it, into a one-row vector of type t.
func parseStat(t types.T, s string) (*vec.Vector, error) {
	v := vec.New(t, 1)
	switch t.ID {
	case types.Bytea:
		// upper-case hex, without PostgreSQL's \x
		b, err := hex.DecodeString(s)
		if err != nil {
			return nil, err
		}
		v.AppendString(string(b))
		return v, nil
	case types.Date, types.Timestamp, types.Timestamptz:
		// DuckDB marks years before 1 with " (BC)", PostgreSQL with " BC"
		if rest, ok := strings.CutSuffix(s, " (BC)"); ok {
			s = rest + " BC"
		}
	}
	if err := exec.ParseInto(v, s, nil, false); err != nil {
		return nil, err
	}
	return v, nil
}

// checkNaN reads the float columns proj[which] and calls found once for
// each that holds a NaN.
func checkNaN(ctx context.Context, pf *parquetio.File, proj []parquetio.Projection, which []int, found func(i int)) error {
	sub := make([]parquetio.Projection, len(which))
	for k, i := range which {
		sub[k] = proj[i]
	}
	sc := pf.Scan(sub, parquetio.ScanOptions{})
	defer sc.Release()
	ts := make([]types.T, len(sub))
	for k := range sub {
		ts[k] = sub[k].Type
	}
	b := vec.NewBatch(ts, vec.BatchSize)
	has := make([]bool, len(sub))
	left := len(sub)
	for left > 0 {
		_, ok, err := sc.Next(b)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		for k, v := range b.Vecs {
			if has[k] {
				continue
			}
			for j, x := range v.F64[:b.N] {
				if x != x && !v.IsNull(j) {
					has[k] = true
					left--
					break
				}
			}
		}
	}
	for k, h := range has {
		if h {
			found(which[k])
		}
	}
	return nil
}

func quoteCol(name string) string {
	return fmt.Sprintf("%q", name)
}
