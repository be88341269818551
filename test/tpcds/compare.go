package tpcds

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// Result is lakepg's result of one query, every value as text (nil for NULL).
type Result struct {
	Columns []string
	Rows    [][]*string
}

// Collect reads a pgx result into a Result, rendering each value as PostgreSQL's text
// format would show it (dates as YYYY-MM-DD, numerics exactly).
func Collect(rows pgx.Rows) (*Result, error) {
	defer rows.Close()
	r := &Result{}
	fds := rows.FieldDescriptions()
	for _, fd := range fds {
		r.Columns = append(r.Columns, fd.Name)
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		row := make([]*string, len(vals))
		for i, v := range vals {
			row[i] = render(v, fds[i])
		}
		r.Rows = append(r.Rows, row)
	}
	rows.Close()
	return r, rows.Err()
}

func render(v any, fd pgconn.FieldDescription) *string {
	var s string
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		s = x
	case []byte:
		s = string(x)
	case bool:
		s = strconv.FormatBool(x)
	case int16, int32, int64, int:
		s = fmt.Sprint(x)
	case float32:
		s = strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		s = strconv.FormatFloat(x, 'g', -1, 64)
	case pgtype.Numeric:
		if !x.Valid {
			return nil
		}
		// Value is the numeric's text form, exact.
		tv, err := x.Value()
		if err != nil {
			s = fmt.Sprintf("(numeric: %v)", err)
		} else {
			s = fmt.Sprint(tv)
		}
	case time.Time:
		if fd.DataTypeOID == pgtype.DateOID {
			s = x.Format("2006-01-02")
		} else {
			s = x.Format("2006-01-02 15:04:05.999999")
		}
	default:
		s = fmt.Sprint(x)
	}
	return &s
}

// Numeric DuckDB types: their columns compare as numbers, all others as text.
var numericTypes = map[string]bool{
	"TINYINT": true, "SMALLINT": true, "INTEGER": true, "BIGINT": true, "HUGEINT": true,
	"UTINYINT": true, "USMALLINT": true, "UINTEGER": true, "UBIGINT": true, "UHUGEINT": true,
	"FLOAT": true, "DOUBLE": true,
}

func isNumeric(duckType string) bool {
	return numericTypes[duckType] || strings.HasPrefix(duckType, "DECIMAL")
}

// cell is one value prepared for comparison.
type cell struct {
	null bool
	num  bool // a number of a numeric column, in f
	f    float64
	s    string
}

func cells(rows [][]*string, numeric []bool) [][]cell {
	out := make([][]cell, len(rows))
	for i, r := range rows {
		out[i] = make([]cell, len(r))
		for j, v := range r {
			c := &out[i][j]
			if v == nil {
				c.null = true
				continue
			}
			c.s = *v
			if j < len(numeric) && numeric[j] {
				if f, err := strconv.ParseFloat(*v, 64); err == nil {
					c.num, c.f = true, f
				}
			}
		}
	}
	return out
}

// SameNumber reports whether two numbers agree to 6 significant digits: their difference
// is within a millionth of the larger. Values within 1e-12 of each other are equal too, so
// that a floating-point residue (1e-17 for a sum that is 0 exactly) is not a difference.
func SameNumber(a, b float64) bool {
	if a == b {
		return true
	}
	if math.IsNaN(a) || math.IsNaN(b) {
		// PostgreSQL's NaN equals NaN.
		return math.IsNaN(a) && math.IsNaN(b)
	}
	d := math.Abs(a - b)
	return d <= 1e-12 || d <= 1e-6*math.Max(math.Abs(a), math.Abs(b))
}

// cmpCell orders NULL first, then numbers (equal when SameNumber), then text. Treating
// nearly equal numbers as equal lets a later column break the tie on both sides alike.
func cmpCell(a, b cell) int {
	switch {
	case a.null || b.null:
		return cmpBool(!a.null, !b.null)
	case a.num && b.num:
		if SameNumber(a.f, b.f) {
			return 0
		}
		return cmp.Compare(a.f, b.f)
	case a.num != b.num:
		return cmpBool(!a.num, !b.num)
	default:
		return strings.Compare(a.s, b.s)
	}
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	default:
		return 1
	}
}

func cmpRow(a, b []cell) int {
	for j := range min(len(a), len(b)) {
		if c := cmpCell(a[j], b[j]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// Compare returns "" when got equals DuckDB's answer want, or a one-line description of
// the first difference: the number of columns, or the first differing row of the two
// results sorted alike (with the row counts when they differ). Column names are not
// compared: DuckDB and PostgreSQL name unaliased expressions differently.
func Compare(got *Result, want Answer) string {
	if len(got.Columns) != len(want.Columns) {
		return fmt.Sprintf("%d columns %q, want %d %q", len(got.Columns), got.Columns, len(want.Columns), want.Columns)
	}
	numeric := make([]bool, len(want.Types))
	for j, t := range want.Types {
		numeric[j] = isNumeric(t)
	}
	g, w := cells(got.Rows, numeric), cells(want.Rows, numeric)
	slices.SortStableFunc(g, cmpRow)
	slices.SortStableFunc(w, cmpRow)
	counts := ""
	if len(g) != len(w) {
		counts = fmt.Sprintf("%d rows, want %d; ", len(g), len(w))
	}
	for i := range min(len(g), len(w)) {
		for j := range g[i] {
			if !sameCell(g[i][j], w[i][j]) {
				return fmt.Sprintf("%ssorted row %d, column %s: got (%s), want (%s)",
					counts, i+1, want.Columns[j], rowText(g[i]), rowText(w[i]))
			}
		}
	}
	switch {
	case len(g) > len(w):
		return fmt.Sprintf("%sfirst extra row (%s)", counts, rowText(g[len(w)]))
	case len(g) < len(w):
		return fmt.Sprintf("%sfirst missing row (%s)", counts, rowText(w[len(g)]))
	}
	return ""
}

// sameCell: strings exactly, numbers to 6 significant digits, NULL only to NULL.
func sameCell(a, b cell) bool {
	switch {
	case a.null || b.null:
		return a.null == b.null
	case a.num && b.num:
		return SameNumber(a.f, b.f)
	default:
		return a.s == b.s
	}
}

func rowText(r []cell) string {
	parts := make([]string, len(r))
	for j, c := range r {
		if c.null {
			parts[j] = "NULL"
		} else {
			parts[j] = c.s
		}
	}
	return clip(strings.Join(parts, "|"), 300)
}

// clip makes s one line of at most n bytes (cut at a rune boundary).
func clip(s string, n int) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(strings.TrimSpace(s))
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
