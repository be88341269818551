package difftest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// nullCell stands for NULL in a row: PostgreSQL text never holds a NUL byte.
const nullCell = "\x00"

// result is what one statement produced.
type result struct {
	// err is set when the statement did not complete at the protocol level (a timeout, a
	// lost connection): its outcome is unknown, which is not an SQL error.
	err       error
	code, msg string // SQLSTATE and message of an SQL error
	oids      []uint32
	typmods   []int32
	rows      [][]string
	tooMany   bool // more rows than maxRows: not compared
	timedOut  bool
}

func (r result) failed() bool { return r.code != "" }

// maxRows bounds a result: generated joins are small, and a bigger result means a query
// that is too expensive to compare, not a finding.
const maxRows = 200000

// run sends sql as one simple-protocol Query and reads its last result. pgconn's ReadAll
// keeps no column descriptions for an empty result, so the rows are read here.
func run(ctx context.Context, conn *pgconn.PgConn, sql string) result {
	var res result
	var failed error
	mrr := conn.Exec(ctx, sql)
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		res.oids, res.typmods, res.rows = nil, nil, nil
		for _, fd := range rr.FieldDescriptions() {
			res.oids = append(res.oids, fd.DataTypeOID)
			res.typmods = append(res.typmods, fd.TypeModifier)
		}
		for rr.NextRow() {
			if len(res.rows) >= maxRows {
				res.tooMany = true
				continue
			}
			vals := rr.Values()
			row := make([]string, len(vals))
			for i, v := range vals {
				if v == nil {
					row[i] = nullCell
				} else {
					row[i] = string(v)
				}
			}
			res.rows = append(res.rows, row)
		}
		if _, err := rr.Close(); err != nil && failed == nil {
			failed = err
		}
	}
	// the reader must be closed even after an error, or the connection stays busy
	if err := mrr.Close(); err != nil && failed == nil {
		failed = err
	}
	if failed != nil {
		return errResult(failed)
	}
	return res
}

func errResult(err error) result {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return result{code: pe.Code, msg: pe.Message}
	}
	return result{err: err}
}

// colMode is how a column's values compare.
type colMode uint8

const (
	exact   colMode = iota
	byValue         // numerics whose scale varies from value to value
	float           // floats: a small relative tolerance
	approx          // floats summed over rows: beyond the tolerance only inconclusive
)

const floatTolerance = 1e-9

// modes picks each column's comparison from PostgreSQL's column types and the generator's.
func modes(oids []uint32, types []sqlType) []colMode {
	m := make([]colMode, len(oids))
	for i, oid := range oids {
		var t sqlType
		if i < len(types) {
			t = types[i]
		}
		switch {
		case (oid == 700 || oid == 701) && t.approx:
			m[i] = approx
		case oid == 700 || oid == 701:
			m[i] = float
		case oid == 1700 && !(t.k == kNum && t.scale >= 0):
			m[i] = byValue
		}
	}
	return m
}

// canonNumeric writes a numeric without trailing fractional zeros, so that equal values
// of different scales compare equal.
func canonNumeric(s string) string {
	if s == nullCell || !strings.Contains(s, ".") {
		if s == "-0" {
			return "0"
		}
		return s
	}
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		return "0"
	}
	return s
}

func parseFloat(s string) float64 {
	switch s {
	case "NaN":
		return math.NaN()
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// floatCmp orders floats as PostgreSQL does (NaN above everything), for sorting.
func floatCmp(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func floatClose(a, b float64) bool {
	if a == b || math.IsNaN(a) && math.IsNaN(b) {
		return true
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
		return false
	}
	return math.Abs(a-b) <= floatTolerance*math.Max(math.Abs(a), math.Abs(b))
}

// cellCmp orders two cells of a column in mode m; NULL first.
func cellCmp(a, b string, m colMode) int {
	switch {
	case a == b:
		return 0
	case a == nullCell:
		return -1
	case b == nullCell:
		return 1
	}
	switch m {
	case float, approx:
		return floatCmp(parseFloat(a), parseFloat(b))
	case byValue:
		return strings.Compare(canonNumeric(a), canonNumeric(b))
	}
	return strings.Compare(a, b)
}

// cellEq tells whether two cells agree; close is set for float cells equal only within
// the tolerance of approx columns.
func cellEq(a, b string, m colMode) (eq, onlyApprox bool) {
	if a == b {
		return true, false
	}
	if a == nullCell || b == nullCell {
		return false, false
	}
	switch m {
	case float:
		return floatClose(parseFloat(a), parseFloat(b)), false
	case approx:
		if floatClose(parseFloat(a), parseFloat(b)) {
			return true, false
		}
		return false, true
	case byValue:
		return canonNumeric(a) == canonNumeric(b), false
	}
	return false, false
}

func sortRows(rows [][]string, m []colMode) [][]string {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b []string) int {
		for i := range a {
			if i >= len(b) || i >= len(m) {
				break
			}
			if c := cellCmp(a[i], b[i], m[i]); c != 0 {
				return c
			}
		}
		return len(a) - len(b)
	})
	return out
}

// verdict is the outcome of one check.
type verdict struct {
	kind   string // "" when the answers agree
	detail string
	// inconclusive: the answers differ only where SQL leaves the answer open (the last
	// digits, or an overflow, of a float summed in another order)
	inconclusive bool
	// invalid: PostgreSQL rejects the query (class 42 or 0A), a generator bug or a
	// shrinking step that broke the query
	invalid bool
	timeout bool
	// evalOrder: one side raised a data exception the other avoided by not evaluating an
	// expression, which SQL leaves open (see evalorder_test.go); inconclusive is set too
	evalOrder bool
}

func (v verdict) differs() bool { return v.kind != "" && !v.inconclusive }

// compareRows compares two row sets as multisets (in order when ordered). ok reports
// agreement; onlyApprox that every disagreeing cell is in an approx column.
func compareRows(a, b [][]string, m []colMode, ordered bool) (ok, onlyApprox bool) {
	if len(a) != len(b) {
		return false, false
	}
	if !ordered {
		a, b = sortRows(a, m), sortRows(b, m)
	}
	onlyApprox = true
	ok = true
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false, false
		}
		for j := range a[i] {
			eq, close := cellEq(a[i][j], b[i][j], m[j])
			if !eq {
				ok = false
				if !close {
					onlyApprox = false
				}
			}
		}
	}
	return ok, !ok && onlyApprox
}

// diffResults compares lakepg's result (got) with the reference (want): PostgreSQL's, or
// lakepg's own answer to an equivalent query. approxQuery says the query sums floats, so an
// overflow on one side only is the order of summation, not a difference.
func diffResults(want, got result, types []sqlType, ordered, approxQuery bool, wantName, gotName string) verdict {
	class := func(code string) string { return code[:2] }
	switch {
	case got.err != nil:
		return verdict{kind: "lakepg connection lost", detail: got.err.Error()}
	case want.failed() && got.failed():
		if class(want.code) == class(got.code) {
			return verdict{}
		}
		return verdict{kind: fmt.Sprintf("lakepg error %s, %s error %s", got.code, wantName, want.code),
			detail: fmt.Sprintf("%s: %s\n%s: %s", gotName, got.msg, wantName, want.msg)}
	case got.failed():
		v := verdict{kind: "lakepg error " + got.code, detail: gotName + ": " + got.msg + "\n" + wantName + ": " + summary(want)}
		v.inconclusive = approxQuery && got.code == "22003"
		return v
	case want.failed():
		v := verdict{kind: fmt.Sprintf("lakepg no error, %s error %s", wantName, want.code),
			detail: wantName + ": " + want.msg + "\n" + gotName + ": " + summary(got)}
		v.inconclusive = approxQuery && want.code == "22003"
		return v
	case want.tooMany || got.tooMany:
		return verdict{}
	case len(want.oids) != len(got.oids):
		return verdict{kind: "column count", detail: fmt.Sprintf("%s %d columns, %s %d", gotName, len(got.oids), wantName, len(want.oids))}
	}
	for i := range want.oids {
		if want.oids[i] != got.oids[i] {
			return verdict{kind: "column types", detail: fmt.Sprintf("column %d: %s type OID %d, %s %d", i+1, gotName, got.oids[i], wantName, want.oids[i])}
		}
	}
	m := modes(want.oids, types)
	ok, onlyApprox := compareRows(want.rows, got.rows, m, ordered)
	if ok {
		return verdict{}
	}
	return verdict{kind: "wrong result", detail: rowDiff(want.rows, got.rows, m, ordered, wantName, gotName), inconclusive: onlyApprox}
}

func summary(r result) string {
	if r.failed() {
		return "ERROR " + r.code + " " + r.msg
	}
	return fmt.Sprintf("%d rows", len(r.rows))
}

func rowText(row []string) string {
	parts := make([]string, len(row))
	for i, c := range row {
		if c == nullCell {
			parts[i] = "NULL"
		} else {
			parts[i] = c
		}
	}
	return strings.Join(parts, " | ")
}

// rowDiff shows how two results differ: the rows only one side has (a multiset
// difference), or for an ordered result the first position where they part.
func rowDiff(want, got [][]string, m []colMode, ordered bool, wantName, gotName string) string {
	const show = 8
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: %d rows, %s: %d rows", gotName, len(got), wantName, len(want))
	if ordered && len(want) == len(got) {
		for i := range want {
			same := true
			for j := range want[i] {
				if eq, _ := cellEq(want[i][j], got[i][j], m[j]); !eq {
					same = false
				}
			}
			if !same {
				if ok, _ := compareRows(want, got, m, false); ok {
					sb.WriteString(" (the same rows in another order)")
				}
				fmt.Fprintf(&sb, "; first difference at row %d:\n  %s: %s\n  %s: %s", i+1, gotName, rowText(got[i]), wantName, rowText(want[i]))
				return sb.String()
			}
		}
		return sb.String()
	}
	// a multiset difference on canonical texts (floats within tolerance count as equal
	// only when sorted side by side; close enough for a report)
	key := func(row []string) string {
		parts := make([]string, len(row))
		for j, c := range row {
			switch {
			case c == nullCell:
				parts[j] = "NULL"
			case j < len(m) && m[j] == byValue:
				parts[j] = canonNumeric(c)
			default:
				parts[j] = c
			}
		}
		return strings.Join(parts, " | ")
	}
	count := map[string]int{}
	for _, r := range want {
		count[key(r)]++
	}
	var onlyGot []string
	for _, r := range got {
		k := key(r)
		if count[k] > 0 {
			count[k]--
		} else {
			onlyGot = append(onlyGot, k)
		}
	}
	var onlyWant []string
	for _, r := range want {
		k := key(r)
		if count[k] > 0 {
			count[k]--
			onlyWant = append(onlyWant, k)
		}
	}
	list := func(name string, rows []string) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(&sb, "\n  only in %s (%d):", name, len(rows))
		for i, r := range rows {
			if i == show {
				fmt.Fprintf(&sb, "\n    …")
				break
			}
			fmt.Fprintf(&sb, "\n    %s", r)
		}
	}
	list(gotName, onlyGot)
	list(wantName, onlyWant)
	if len(onlyGot) == 0 && len(onlyWant) == 0 {
		sb.WriteString(" (same rows, different order)")
	}
	return sb.String()
}
