package slt

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Value is one result value in PostgreSQL's text format.
type Value struct {
	Text string
	Null bool
}

// Column describes one result column.
type Column struct {
	Name string
	OID  uint32 // PostgreSQL type OID
}

// Result is the outcome of a query.
type Result struct {
	Columns []Column
	Rows    [][]Value
}

// DB is a connection the runner drives; PgxDB is the one over pgx.
type DB interface {
	Exec(ctx context.Context, sql string) error
	Query(ctx context.Context, sql string) (*Result, error)
}

// Runner runs sqllogictest records against a DB.
type Runner struct {
	// Engine is the name matched by skipif/onlyif, "postgresql" for lakepg and PostgreSQL.
	Engine string
	// Timeout bounds each record (0: none). A record that runs out of time counts as timed
	// out, not as failed: the suites assert results, and speed is for benchmarks.
	Timeout time.Duration
	// Budget bounds the whole file (0: none): once it is spent, the remaining records are
	// not run. It keeps CI short while the engine still runs some queries slowly.
	Budget time.Duration
	// KeepFailures is how many failures per file are kept as examples, the first of each
	// cause (0: 20).
	KeepFailures int
}

// FileResult is what a run of one file achieved. Every statement and query record counts
// in exactly one of Passed, Failed (an error or a wrong result), TimedOut, NotRun (the
// budget was spent) and Skipped (skipif/onlyif, or after halt).
type FileResult struct {
	Name                                      string
	Passed, Failed, TimedOut, NotRun, Skipped int
	Failures                                  []Failure      // the first failure of each cause, at most KeepFailures
	Causes                                    map[string]int // failures by cause: the error, "wrong result" or "timeout"
	Halted                                    bool           // a halt record ended the file
	Slowest                                   []Timing       // the slowest records, slowest first
	Duration                                  time.Duration
}

// Records is the number of statement and query records of the file.
func (r *FileResult) Records() int {
	return r.Passed + r.Failed + r.TimedOut + r.NotRun + r.Skipped
}

// Undecided is the number of records whose outcome the run did not establish (timed out or
// not run): they may pass on a faster machine, so a baseline check counts them in favour.
func (r *FileResult) Undecided() int { return r.TimedOut + r.NotRun }

// Failure is one failed record.
type Failure struct {
	Line    int
	SQL     string
	Cause   string
	Problem string
}

// Timing is the time one record took.
type Timing struct {
	Line     int
	Duration time.Duration
}

// slowestKept is how many timings FileResult.Slowest keeps.
const slowestKept = 5

func (r *FileResult) timed(line int, d time.Duration) {
	i := len(r.Slowest)
	for i > 0 && r.Slowest[i-1].Duration < d {
		i--
	}
	if i >= slowestKept {
		return
	}
	r.Slowest = append(r.Slowest[:i], append([]Timing{{line, d}}, r.Slowest[i:]...)...)
	if len(r.Slowest) > slowestKept {
		r.Slowest = r.Slowest[:slowestKept]
	}
}

func (f Failure) String() string {
	return fmt.Sprintf("line %d: %s\n    %s", f.Line, f.Problem, strings.ReplaceAll(f.SQL, "\n", "\n    "))
}

// Run executes the records in order and counts them (see FileResult). Failures never stop
// the run.
func (r *Runner) Run(ctx context.Context, db DB, name string, recs []Record) (res FileResult) {
	keep := r.KeepFailures
	if keep == 0 {
		keep = 20
	}
	res = FileResult{Name: name, Causes: map[string]int{}}
	start := time.Now()
	defer func() { res.Duration = time.Since(start) }()
	var budgetEnd time.Time
	if r.Budget > 0 {
		budgetEnd = start.Add(r.Budget)
	}
	labels := map[string]string{} // label → hash of its first result
	fail := func(rec *Record, err error, cause, problem string) {
		var te *timeoutError
		switch {
		case errors.As(err, &te) && te.budget:
			// Cut short by the file's budget, not by its own time limit.
			res.NotRun++
			return
		case errors.As(err, &te):
			res.TimedOut++
			cause = "timeout"
		default:
			res.Failed++
		}
		res.Causes[cause]++
		if res.Causes[cause] == 1 && len(res.Failures) < keep {
			res.Failures = append(res.Failures, Failure{Line: rec.Line, SQL: rec.SQL, Cause: cause, Problem: problem})
		}
	}
	for i := range recs {
		rec := &recs[i]
		runnable := rec.Kind == Statement || rec.Kind == Query
		switch {
		case res.Halted || !rec.Applies(r.Engine):
			if runnable {
				res.Skipped++
			}
			continue
		case runnable && !budgetEnd.IsZero() && !time.Now().Before(budgetEnd):
			res.NotRun++
			continue
		}
		began := time.Now()
		switch rec.Kind {
		case Halt:
			res.Halted = true
		case HashThreshold:
			// Only matters when writing results; Check accepts values and hashes alike.
		case Statement:
			err := r.withTimeout(ctx, budgetEnd, func(ctx context.Context) error { return db.Exec(ctx, rec.SQL) })
			switch {
			case rec.ExpectError && err == nil:
				fail(rec, nil, "statement succeeded, want an error", "statement succeeded, want an error")
			case !rec.ExpectError && err != nil:
				fail(rec, err, Cause(err), "statement failed: "+oneLine(err.Error()))
			default:
				res.Passed++
			}
		case Query:
			var out *Result
			err := r.withTimeout(ctx, budgetEnd, func(ctx context.Context) error {
				var err error
				out, err = db.Query(ctx, rec.SQL)
				return err
			})
			if err != nil {
				fail(rec, err, Cause(err), "query failed: "+oneLine(err.Error()))
				break
			}
			values, problem := Check(rec, out)
			if problem == "" && rec.Label != "" {
				h := hashValues(values)
				if prev, ok := labels[rec.Label]; ok && prev != h {
					problem = fmt.Sprintf("result differs from the earlier result labelled %q", rec.Label)
				} else if !ok {
					labels[rec.Label] = h
				}
			}
			if problem != "" {
				fail(rec, nil, "wrong result", problem)
			} else {
				res.Passed++
			}
		}
		res.timed(rec.Line, time.Since(began))
	}
	return res
}

// withTimeout runs f under the record timeout and the file's budget; an error after either
// ran out becomes a *timeoutError.
func (r *Runner) withTimeout(ctx context.Context, budgetEnd time.Time, f func(context.Context) error) error {
	deadline, byBudget := time.Time{}, false
	if r.Timeout > 0 {
		deadline = time.Now().Add(r.Timeout)
	}
	if !budgetEnd.IsZero() && (deadline.IsZero() || budgetEnd.Before(deadline)) {
		deadline, byBudget = budgetEnd, true
	}
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	began := time.Now()
	err := f(ctx)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &timeoutError{after: time.Since(began).Round(time.Millisecond), budget: byBudget, err: err}
	}
	return err
}

var hashLine = regexp.MustCompile(`^(\d+) values hashing to ([0-9a-f]{32})$`)

// Check formats, sorts and compares a query result with the record's expectation, returning
// the formatted (sorted) values and "" when they match, or a description of the first
// difference.
//
// The expectation is either the values, one per line (as the corpus writes them), or one
// "N values hashing to MD5" line, where MD5 is the hex MD5 of every value followed by a
// newline. Whichever the file holds is checked, so hash-threshold (which decides how a
// result is written when a file is generated) does not matter for verification.
// A file writing one row per line with values separated by single blanks is accepted too.
func Check(rec *Record, out *Result) ([]string, string) {
	if len(out.Columns) != len(rec.Types) {
		return nil, fmt.Sprintf("got %d columns, want %d (%s)", len(out.Columns), len(rec.Types), rec.Types)
	}
	rows := make([][]string, len(out.Rows))
	for i, row := range out.Rows {
		if len(row) != len(rec.Types) {
			return nil, fmt.Sprintf("row %d has %d values, want %d", i+1, len(row), len(rec.Types))
		}
		rows[i] = make([]string, len(row))
		for j, v := range row {
			rows[i][j] = Format(rec.Types[j], v, out.Columns[j].OID)
		}
	}
	var values []string
	switch rec.Sort {
	case RowSort:
		sort.SliceStable(rows, func(a, b int) bool {
			for k := range rows[a] {
				if rows[a][k] != rows[b][k] {
					return rows[a][k] < rows[b][k]
				}
			}
			return false
		})
	}
	for _, row := range rows {
		values = append(values, row...)
	}
	if rec.Sort == ValueSort {
		sort.Strings(values)
	}

	if len(rec.Expected) == 1 {
		if m := hashLine.FindStringSubmatch(rec.Expected[0]); m != nil {
			n, _ := strconv.Atoi(m[1])
			h := hashValues(values)
			if n != len(values) || h != m[2] {
				return values, fmt.Sprintf("got %d values hashing to %s, want %s%s", len(values), h, rec.Expected[0], preview(values))
			}
			return values, ""
		}
	}
	if len(rec.Expected) == len(values) {
		for i := range values {
			if values[i] != rec.Expected[i] {
				return values, fmt.Sprintf("value %d (row %d, column %d): got %q, want %q%s",
					i+1, i/len(rec.Types)+1, i%len(rec.Types)+1, values[i], rec.Expected[i], preview(values))
			}
		}
		return values, ""
	}
	if len(rec.Expected) == len(rows) && len(rec.Types) > 1 && rec.Sort != ValueSort {
		ok := true
		for i, row := range rows {
			if strings.Join(row, " ") != rec.Expected[i] {
				ok = false
				break
			}
		}
		if ok {
			return values, ""
		}
	}
	return values, fmt.Sprintf("got %d values, want %d%s", len(values), len(rec.Expected), preview(values))
}

func preview(values []string) string {
	const max = 12
	if len(values) == 0 {
		return " (got no rows)"
	}
	if len(values) > max {
		return fmt.Sprintf(" (got %s …)", strings.Join(values[:max], " "))
	}
	return fmt.Sprintf(" (got %s)", strings.Join(values, " "))
}

func hashValues(values []string) string {
	h := md5.New()
	for _, v := range values {
		h.Write([]byte(v))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// OIDs of the PostgreSQL types that need care when formatted.
const (
	oidBool = 16
)

// Format renders one value as sqllogictest prints it for a column of type typ: NULL as
// "NULL"; I as an integer (booleans as 1 and 0, as SQLite and PostgreSQL's ODBC driver give
// them; a decimal or float truncated toward zero, as sqllogictest's integer conversion
// does); R with three decimals ("%.3f"); T as the text, "(empty)" for the empty string and
// every character outside printable ASCII replaced by '@'.
func Format(typ byte, v Value, oid uint32) string {
	if v.Null {
		return "NULL"
	}
	s := v.Text
	if oid == oidBool {
		switch s {
		case "t":
			s = "1"
		case "f":
			s = "0"
		}
	}
	switch typ {
	case 'I':
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return s
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return strconv.FormatInt(int64(f), 10)
		}
		return s
	case 'R':
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return fmt.Sprintf("%.3f", f)
		}
		return s
	default:
		if s == "" {
			return "(empty)"
		}
		b := []byte(s)
		for i, c := range b {
			if c < ' ' || c > '~' {
				b[i] = '@'
			}
		}
		return string(b)
	}
}

// Cause is the error of a failed record reduced to what it has in common with similar
// failures: the SQLSTATE and message of a PostgreSQL error (without its position), or the
// error text, so failures can be counted by cause.
func Cause(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code + " " + pe.Message
	}
	var te *timeoutError
	if errors.As(err, &te) {
		return "timeout"
	}
	return oneLine(err.Error())
}

type timeoutError struct {
	after  time.Duration
	budget bool // the file's budget ran out, not the record's own time limit
	err    error
}

func (e *timeoutError) Error() string { return fmt.Sprintf("timed out after %v (%v)", e.after, e.err) }
func (e *timeoutError) Unwrap() error { return e.err }

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
