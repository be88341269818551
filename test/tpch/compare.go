package tpch

import (
	"bufio"
	"fmt"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// Tolerance is the relative difference allowed between two numbers.
const Tolerance = 1e-9

// Table is a query result or an expected answer, every value as text ("" for NULL).
type Table struct {
	Columns []string
	Rows    [][]string
}

// ReadAnswer reads an answer file: pipe-separated, a header line with the column names,
// then one line per row.
func ReadAnswer(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	t := &Table{}
	first := true
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "|")
		if first {
			t.Columns, first = fields, false
			continue
		}
		if len(fields) != len(t.Columns) {
			return nil, fmt.Errorf("%s: %d fields in a row of %d columns: %q", path, len(fields), len(t.Columns), sc.Text())
		}
		t.Rows = append(t.Rows, fields)
	}
	if first {
		return nil, fmt.Errorf("%s: empty", path)
	}
	return t, sc.Err()
}

// Collect reads a pgx result into a Table, rendering each value as PostgreSQL's text
// format would show it (dates as YYYY-MM-DD, numerics exactly).
func Collect(rows pgx.Rows) (*Table, error) {
	defer rows.Close()
	t := &Table{}
	fds := rows.FieldDescriptions()
	for _, fd := range fds {
		t.Columns = append(t.Columns, fd.Name)
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = render(v, fds[i])
		}
		t.Rows = append(t.Rows, row)
	}
	rows.Close()
	return t, rows.Err()
}

func render(v any, fd pgconn.FieldDescription) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	case int16, int32, int64, int, bool:
		return fmt.Sprint(x)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case pgtype.Numeric:
		return numericText(x)
	case time.Time:
		if fd.DataTypeOID == pgtype.DateOID {
			return x.Format("2006-01-02")
		}
		return x.Format("2006-01-02 15:04:05.999999")
	default:
		return fmt.Sprint(x)
	}
}

// numericText renders a pgtype.Numeric exactly: Int × 10^Exp.
func numericText(n pgtype.Numeric) string {
	switch {
	case !n.Valid:
		return ""
	case n.NaN:
		return "NaN"
	case n.InfinityModifier == pgtype.Infinity:
		return "Infinity"
	case n.InfinityModifier == pgtype.NegativeInfinity:
		return "-Infinity"
	}
	i := new(big.Int).Set(n.Int)
	if n.Exp >= 0 {
		return i.Mul(i, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n.Exp)), nil)).String()
	}
	neg := i.Sign() < 0
	digits := i.Abs(i).String()
	scale := int(-n.Exp)
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	s := digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	if neg {
		s = "-" + s
	}
	return s
}

// Compare returns "" when got matches want, or a description of the first difference:
// the column names, the number of rows, or the first differing value (strings exactly,
// numbers within Tolerance relative to the larger magnitude).
func Compare(got, want *Table) string {
	if strings.Join(got.Columns, "|") != strings.Join(want.Columns, "|") {
		return fmt.Sprintf("columns %q, want %q", got.Columns, want.Columns)
	}
	for i := 0; i < len(got.Rows) && i < len(want.Rows); i++ {
		for j := range want.Columns {
			if !SameValue(got.Rows[i][j], want.Rows[i][j]) {
				return fmt.Sprintf("row %d, column %s: got %q, want %q\n      got row:  %s\n      want row: %s",
					i+1, want.Columns[j], got.Rows[i][j], want.Rows[i][j],
					strings.Join(got.Rows[i], "|"), strings.Join(want.Rows[i], "|"))
			}
		}
	}
	if len(got.Rows) != len(want.Rows) {
		return fmt.Sprintf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	return ""
}

// SameValue compares two values as text: equal strings, or two numbers within Tolerance.
func SameValue(got, want string) bool {
	if got == want {
		return true
	}
	g, err1 := strconv.ParseFloat(got, 64)
	w, err2 := strconv.ParseFloat(want, 64)
	if err1 != nil || err2 != nil || math.IsNaN(g) || math.IsNaN(w) {
		return false
	}
	return math.Abs(g-w) <= Tolerance*math.Max(math.Abs(g), math.Abs(w))
}
