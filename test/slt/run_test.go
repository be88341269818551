package slt

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeDB answers queries from a table of canned results, so the runner's parsing,
// formatting, sorting and hashing can be checked without a server.
type fakeDB struct {
	results map[string]*Result
	execErr map[string]error
}

func (f *fakeDB) Exec(_ context.Context, sql string) error { return f.execErr[sql] }

func (f *fakeDB) Query(_ context.Context, sql string) (*Result, error) {
	if r, ok := f.results[sql]; ok {
		return r, nil
	}
	return nil, errors.New("no such query")
}

func ints(cols int, vals ...string) *Result {
	r := &Result{}
	for i := 0; i < cols; i++ {
		r.Columns = append(r.Columns, Column{Name: "c", OID: 23})
	}
	for i := 0; i < len(vals); i += cols {
		var row []Value
		for _, v := range vals[i : i+cols] {
			if v == "<null>" {
				row = append(row, Value{Null: true})
			} else {
				row = append(row, Value{Text: v})
			}
		}
		r.Rows = append(r.Rows, row)
	}
	return r
}

func TestRunner(t *testing.T) {
	// 3b03…: md5 of "1\n2\n…10\n" (printf '%s\n' $(seq 10) | md5sum); ff26…: the same values
	// sorted as strings (1 10 2 … 9); c527…: 1 … 9 11.
	const script = `# a comment
hash-threshold 8

statement ok
CREATE TABLE t(a int)

statement error
CREATE TABLE t(a int)

query II rowsort
SELECT two
----
1
20
3
4

query I nosort
SELECT ten
----
10 values hashing to 3b0332e02daabf31651a5a0d81ba830a

query I valuesort label-a
SELECT ten_shuffled
----
10 values hashing to ff2650590d3f27ea6644b5573ccc37ba

query I nosort label-a
SELECT ten_wrong
----
10 values hashing to c527baf782f556900a03797e2abe5a63

skipif postgresql
query I nosort
SELECT not_run
----
1

onlyif sqlite
statement ok
NOT RUN

onlyif postgresql
query T nosort
SELECT texts
----
(empty)
NULL
a@b
x y

query I nosort
SELECT wrong
----
1
2

statement ok
FAILS

halt

query I nosort
SELECT after_halt
----
1
`
	recs, err := Parse(strings.NewReader(script), "script")
	if err != nil {
		t.Fatal(err)
	}
	tenShuffled := ints(1, "7", "10", "1", "2", "3", "4", "5", "6", "8", "9")
	tenWrong := ints(1, "1", "2", "3", "4", "5", "6", "7", "8", "9", "11")
	texts := &Result{Columns: []Column{{Name: "t", OID: 25}}, Rows: [][]Value{{{Text: ""}}, {{Null: true}}, {{Text: "a\tb"}}, {{Text: "x y"}}}}
	db := &fakeDB{
		results: map[string]*Result{
			"SELECT two":          ints(2, "3", "4", "1", "20"),
			"SELECT ten":          ints(1, "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"),
			"SELECT ten_shuffled": tenShuffled,
			"SELECT ten_wrong":    tenWrong,
			"SELECT texts":        texts,
			"SELECT wrong":        ints(1, "1", "3"),
		},
		execErr: map[string]error{"FAILS": errors.New("boom")},
	}
	// The second CREATE TABLE must fail for "statement error" to pass.
	db.execErr["CREATE TABLE t(a int)"] = nil
	r := &Runner{Engine: "postgresql"}
	res := r.Run(context.Background(), db, "script", recs)
	// Passing: statement ok; rowsort (rows "3 4" and "1 20" sorted); the hash of 1…10; the
	// valuesort hash; texts. Failing: statement error (the fake accepts it); ten_wrong (its
	// own hash is right but label-a was given another result); wrong; FAILS.
	if res.Passed != 5 || res.Failed != 4 || res.Skipped != 3 || !res.Halted {
		t.Errorf("passed %d failed %d skipped %d halted %v, want 5 4 3 true\n%s",
			res.Passed, res.Failed, res.Skipped, res.Halted, Summary("script", []FileResult{res}, 10))
	}
	var lines []int
	for _, f := range res.Failures {
		lines = append(lines, f.Line)
	}
	// The first failure of each cause is kept: line 52 is the second wrong result.
	if want := []int{7, 28, 58}; !reflect.DeepEqual(lines, want) {
		t.Errorf("failures at lines %v, want %v\n%s", lines, want, Summary("script", []FileResult{res}, 10))
	}
	if res.Causes["wrong result"] != 2 || res.Causes["boom"] != 1 {
		t.Errorf("causes %v", res.Causes)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		typ  byte
		v    Value
		oid  uint32
		want string
	}{
		{'I', Value{Text: "42"}, 23, "42"},
		{'I', Value{Text: "-7"}, 20, "-7"},
		{'I', Value{Null: true}, 23, "NULL"},
		{'I', Value{Text: "101.5000"}, 1700, "101"},
		{'I', Value{Text: "-2.9"}, 701, "-2"},
		{'I', Value{Text: "t"}, 16, "1"},
		{'I', Value{Text: "f"}, 16, "0"},
		{'R', Value{Text: "1.23456"}, 701, "1.235"},
		{'R', Value{Text: "7"}, 23, "7.000"},
		{'R', Value{Text: "-0.5"}, 1700, "-0.500"},
		{'R', Value{Null: true}, 701, "NULL"},
		{'T', Value{Text: ""}, 25, "(empty)"},
		{'T', Value{Text: "héllo\n"}, 25, "h@@llo@"},
		{'T', Value{Text: "123"}, 23, "123"},
		{'T', Value{Null: true}, 25, "NULL"},
	} {
		if got := Format(c.typ, c.v, c.oid); got != c.want {
			t.Errorf("Format(%c, %+v, %d) = %q, want %q", c.typ, c.v, c.oid, got, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{
		"statement maybe\nSELECT 1\n",
		"query X\nSELECT 1\n----\n1\n",
		"query I bogussort\nSELECT 1\n",
		"skipif postgresql\n\nstatement ok\nSELECT 1\n",
		"frobnicate\n",
	} {
		if _, err := Parse(strings.NewReader(bad), "bad"); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", bad)
		}
	}
}

// blockingDB never answers before its context ends.
type blockingDB struct{}

func (blockingDB) Exec(ctx context.Context, _ string) error {
	<-ctx.Done()
	return ctx.Err()
}

func (blockingDB) Query(ctx context.Context, _ string) (*Result, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestTimeoutAndBudget: records over their time limit count as timed out, records cut by
// the file's budget or after it as not run; neither counts as failed.
func TestTimeoutAndBudget(t *testing.T) {
	recs, err := Parse(strings.NewReader(strings.Repeat("query I nosort\nSELECT 1\n----\n1\n\n", 5)), "slow")
	if err != nil {
		t.Fatal(err)
	}
	// Times far above a loaded machine's scheduling delays: CI once saw the
	// first timeout end more than 50 ms late.
	r := &Runner{Engine: "postgresql", Timeout: 500 * time.Millisecond, Budget: 1250 * time.Millisecond}
	res := r.Run(context.Background(), blockingDB{}, "slow", recs)
	// 0–500 ms and 500–1000 ms: timed out; the third is cut by the budget at 1250 ms; the
	// last two are not started.
	if res.TimedOut != 2 || res.NotRun != 3 || res.Failed != 0 || res.Passed != 0 {
		t.Errorf("timed out %d, not run %d, failed %d, passed %d; want 2, 3, 0, 0", res.TimedOut, res.NotRun, res.Failed, res.Passed)
	}
	if res.Undecided() != 5 {
		t.Errorf("Undecided() = %d, want 5", res.Undecided())
	}
}
