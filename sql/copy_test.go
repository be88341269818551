package sql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// sliceRows is CopyRows over prepared rows (a nil field is NULL); after
// them it returns end (io.EOF when nil).
type sliceRows struct {
	rows [][][]byte
	line int64
	end  error
}

func (r *sliceRows) Next() ([][]byte, error) {
	if int(r.line) >= len(r.rows) {
		if r.end != nil {
			return nil, r.end
		}
		return nil, io.EOF
	}
	r.line++
	return r.rows[r.line-1], nil
}

func (r *sliceRows) Line() int64 { return r.line }

// textRows turns "a|b" lines into rows; the field NULL is a NULL.
func textRows(lines ...string) [][][]byte {
	var rows [][][]byte
	for _, l := range lines {
		var row [][]byte
		for _, f := range strings.Split(l, "|") {
			if f == "NULL" {
				row = append(row, nil)
			} else {
				row = append(row, []byte(f))
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// copyIn runs a COPY FROM STDIN statement with rows as the client's data.
func copyIn(t *testing.T, s *Session, stmt string, rows CopyRows) (*CopySpec, string, error) {
	t.Helper()
	ctx := context.Background()
	stmts, err := s.Prepare(ctx, stmt, nil)
	if err != nil {
		return nil, "", err
	}
	res, err := stmts[0].Execute(ctx, nil)
	if err != nil {
		return nil, "", err
	}
	defer res.Close()
	spec := res.Copy()
	if spec == nil || !spec.In {
		t.Fatalf("%s: not a COPY FROM STDIN result (%+v)", stmt, spec)
	}
	if err := res.CopyIn(ctx, rows); err != nil {
		return spec, "", err
	}
	if b, err := res.Next(ctx); b != nil || err != nil {
		t.Fatalf("%s: Next after CopyIn: %v %v", stmt, b, err)
	}
	return spec, res.Tag(), nil
}

func snapshots(t *testing.T, s *Session) string {
	t.Helper()
	rows, _, err := run(t, s, "SELECT count(*) FROM lakepg.snapshots")
	if err != nil {
		t.Fatal(err)
	}
	return rows[0]
}

// dataFiles lists the Parquet files under the lake's data directory.
func dataFiles(t *testing.T, s *Session) []string {
	t.Helper()
	var files []string
	root := strings.TrimPrefix(s.eng.DB.DataPath(), "file://")
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return nil
	})
	return files
}

func TestCopyFromColumnsAndDefaults(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE c (id integer NOT NULL, name varchar(5), d date DEFAULT '2024-01-01', n numeric(6,2), f double precision DEFAULT 2.5)`)
	before := snapshots(t, s)
	spec, tag, err := copyIn(t, s, `COPY c (name, id, n) FROM STDIN`, &sliceRows{rows: textRows("a|1|1.5", "NULL|2|NULL", "é|3|-0.125")})
	if err != nil {
		t.Fatal(err)
	}
	if tag != "COPY 3" {
		t.Errorf("tag %q, want COPY 3", tag)
	}
	if spec.Format != CopyText || spec.Delimiter != '\t' || spec.Null != `\N` || spec.Relation != "c" || len(spec.Columns) != 3 ||
		spec.Columns[0].Name != "name" || spec.Columns[1].Name != "id" || spec.Columns[1].Type.ID != types.Int32 {
		t.Errorf("spec %+v", spec)
	}
	must(t, s, `SELECT id, name, d, n, f FROM c ORDER BY id`,
		"1|a|2024-01-01|1.50|2.5", "2|NULL|2024-01-01|NULL|2.5", "3|é|2024-01-01|-0.13|2.5")
	if got := snapshots(t, s); got == before {
		t.Errorf("no snapshot committed")
	}

	// An empty COPY commits nothing.
	before = snapshots(t, s)
	if _, tag, err := copyIn(t, s, `COPY c FROM STDIN`, &sliceRows{}); err != nil || tag != "COPY 0" {
		t.Errorf("empty COPY: %q %v", tag, err)
	}
	if got := snapshots(t, s); got != before {
		t.Errorf("empty COPY committed a snapshot (%s -> %s)", before, got)
	}
}

// TestCopyFromManyRowsOneSnapshot copies more rows than a batch holds: they
// stream through several batches into one file and one snapshot.
func TestCopyFromManyRowsOneSnapshot(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE m (i bigint, s text)`)
	before := snapshots(t, s)
	var lines []string
	for i := 1; i <= 10000; i++ {
		lines = append(lines, fmt.Sprintf("%d|row %d", i, i))
	}
	if _, tag, err := copyIn(t, s, `COPY m FROM STDIN (FORMAT csv)`, &sliceRows{rows: textRows(lines...)}); err != nil || tag != "COPY 10000" {
		t.Fatalf("COPY: %q %v", tag, err)
	}
	must(t, s, `SELECT count(*), sum(i), max(s) FROM m`, "10000|50005000|row 9999")
	must(t, s, `SELECT count(*) - `+before+` FROM lakepg.snapshots`, "1")
	if files := dataFiles(t, s); len(files) != 1 {
		t.Errorf("data files %v, want one", files)
	}
}

// TestCopyFromErrorsLeaveNothing fails a COPY in several ways after rows
// were written: the error names the line and column, no snapshot is
// committed and no file is left behind.
func TestCopyFromErrorsLeaveNothing(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE e (a integer NOT NULL, b text)`)
	many := make([]string, 5000)
	for i := range many {
		many[i] = "1|x"
	}
	clientFailed := pgerr.New(pgerr.QueryCanceled, "COPY from stdin failed: client gave up")
	cases := []struct {
		name  string
		rows  *sliceRows
		code  string
		msg   string
		where string
	}{
		{"bad integer", &sliceRows{rows: textRows(append(many, "2|y", "3x|z")...)}, pgerr.InvalidTextRepr,
			`invalid input syntax for type integer: "3x"`, `COPY e, line 5002, column a: "3x"`},
		{"not null", &sliceRows{rows: textRows("1|a", "NULL|b")}, pgerr.NotNullViolation,
			`null value in column "a" of relation "e" violates not-null constraint`, "COPY e, line 2"},
		{"client failed", &sliceRows{rows: textRows(many...), end: clientFailed}, pgerr.QueryCanceled,
			"COPY from stdin failed: client gave up", ""},
	}
	before := snapshots(t, s)
	for _, c := range cases {
		_, _, err := copyIn(t, s, `COPY e FROM STDIN`, c.rows)
		pe, ok := pgerr.As(err)
		var ctxErr interface{ Where() string }
		where := ""
		if errors.As(err, &ctxErr) {
			where = ctxErr.Where()
		}
		if !ok || pe.Code != c.code || pe.Message != c.msg || where != c.where {
			t.Errorf("%s: got %v (code %s, context %q), want %s %q context %q", c.name, err, pgerr.Code(err), where, c.code, c.msg, c.where)
		}
	}
	if got := snapshots(t, s); got != before {
		t.Errorf("failed COPYs committed snapshots (%s -> %s)", before, got)
	}
	if files := dataFiles(t, s); len(files) != 0 {
		t.Errorf("failed COPYs left files: %v", files)
	}
	must(t, s, `SELECT count(*) FROM e`, "0")
}

func TestCopyTo(t *testing.T) {
	s := setup(t)
	ctx := context.Background()
	check := func(stmt string, wantCols string, want ...string) *CopySpec {
		t.Helper()
		stmts, err := s.Prepare(ctx, stmt, nil)
		if err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		if cols := stmts[0].Columns(); cols != nil {
			t.Errorf("%s: describes result columns %v; COPY sends no RowDescription", stmt, cols)
		}
		res, err := stmts[0].Execute(ctx, nil)
		if err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		spec := res.Copy()
		res.Close()
		if spec == nil || spec.In {
			t.Fatalf("%s: not a COPY TO result", stmt)
		}
		var names []string
		for _, c := range spec.Columns {
			names = append(names, c.Name+":"+c.Type.String())
		}
		if strings.Join(names, ",") != wantCols {
			t.Errorf("%s: columns %s, want %s", stmt, strings.Join(names, ","), wantCols)
		}
		rows, tag, err := run(t, s, stmt)
		if err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		if strings.Join(rows, "\n") != strings.Join(want, "\n") || tag != fmt.Sprintf("COPY %d", len(want)) {
			t.Errorf("%s:\n got %q %s\nwant %q", stmt, rows, tag, want)
		}
		return spec
	}
	spec := check(`COPY t TO STDOUT`, "g:text,x:integer,y:double precision,n:numeric(8,2),d:date",
		"a|1|1.5|1.25|2024-01-01", "b|2|NULL|2.50|2024-02-01", "a|3|3.5|NULL|NULL", "c|NULL|0.5|0.10|2024-03-01")
	if spec.Relation != "t" || spec.Format != CopyText {
		t.Errorf("spec %+v", spec)
	}
	spec = check(`COPY t (x, g) TO STDOUT WITH (FORMAT csv, HEADER, FORCE_QUOTE (g))`, "x:integer,g:text", "1|a", "2|b", "3|a", "NULL|c")
	if !spec.Header || spec.Format != CopyCSV || fmt.Sprint(spec.ForceQuote) != "[false true]" {
		t.Errorf("spec %+v", spec)
	}
	spec = check(`COPY (SELECT g, sum(x) AS s FROM t GROUP BY g ORDER BY g) TO STDOUT BINARY`, "g:text,s:bigint", "a|4", "b|2", "c|NULL")
	if spec.Format != CopyBinary || spec.Relation != "" {
		t.Errorf("spec %+v", spec)
	}
	mustFail(t, s, `COPY nope TO STDOUT`, pgerr.UndefinedTable)
	mustFail(t, s, `COPY t (nope) TO STDOUT`, pgerr.UndefinedColumn)
	mustFail(t, s, `COPY t (x, x) TO STDOUT`, pgerr.DuplicateColumn)
	mustFail(t, s, `COPY t (x) TO STDOUT (FORMAT csv, FORCE_QUOTE (g))`, pgerr.InvalidColumnReference)
	mustFail(t, s, `COPY t TO '/tmp/x.csv'`, "42501")
	mustFail(t, s, `COPY t FROM '/etc/passwd'`, "42501")
	mustFail(t, s, `COPY t FROM PROGRAM 'true'`, "42501")
}

func TestCopyFromErrorAbortsTransaction(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE a (i integer)`)
	must(t, s, `BEGIN`)
	if _, _, err := copyIn(t, s, `COPY a FROM STDIN`, &sliceRows{rows: textRows("x")}); pgerr.Code(err) != pgerr.InvalidTextRepr {
		t.Fatalf("COPY: %v", err)
	}
	mustFail(t, s, `SELECT 1`, pgerr.InFailedTransaction)
	if _, tag, _ := run(t, s, `COMMIT`); tag != "ROLLBACK" {
		t.Errorf("COMMIT of the failed block: %q, want ROLLBACK", tag)
	}
}
