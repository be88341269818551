package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/lakepg/lakepg/test/testserver"
)

// copyTable has a column of every type COPY's binary format covers.
const copyTable = `CREATE TABLE ct (i2 smallint, i4 integer, i8 bigint, f4 real, f8 double precision,
	n numeric(12,3), t text, vc varchar(10), b boolean, d date, ts timestamp, tz timestamptz,
	iv interval, by bytea, u uuid)`

// copyData is COPY text input for copyTable: NULLs, every escape, quotes, delimiters and
// line ends inside values, non-ASCII text, extreme numbers.
var copyData = strings.Join([]string{
	"1\t1\t9000000000\t1.5\t3.141592653589793\t12.345\thello\tabc\tt\t2024-02-29\t2024-02-29 13:14:15.123456\t2024-02-29 11:14:15.5+00\t1 year 2 mons 3 days 04:05:06.789\t\\\\x0001ff\ta0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
	"\\N\t2\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N",
	"-32768\t3\t-9223372036854775808\t-0.25\t-1e-300\t-999999999.999\ttab\\there nl\\nthere cr\\rback\\\\slash \"quote\" 'single' comma, semi; ü 日本\t\\x41\\102C\tf\t1970-01-01\t1999-12-31 23:59:59\t2000-01-01 00:00:00+00\t2 days 02:00:00\t\\\\x\t00000000-0000-0000-0000-000000000000",
	"32767\t4\t0\tNaN\tInfinity\t0.000\t\\\\N\t\ttrue\t2000-02-28\t1900-01-01 00:00:00.000001\t1969-12-31 23:59:59.999999+00\t00:00:00\t\\\\x5c6e\tffffffff-ffff-ffff-ffff-ffffffffffff",
	"0\t5\t-1\t-Infinity\t-0\t1.5\t,\t\"\"\tfalse\t1999-01-08\t2038-01-19 03:14:08\t2100-06-15 12:00:00+05:30\t10 years 00:00:01\t\\\\xdeadbeef\t12345678-1234-5678-1234-567812345678",
}, "\n") + "\n"

// copyOuts are COPY TO statements whose output must equal PostgreSQL's byte for byte.
var copyOuts = []string{
	"COPY ct TO STDOUT",
	"COPY ct TO STDOUT (FORMAT binary)",
	"COPY ct TO STDOUT WITH CSV HEADER",
	"COPY ct (t, i4, vc) TO STDOUT (DELIMITER '|', NULL '', HEADER)",
	"COPY (SELECT * FROM ct ORDER BY i4) TO STDOUT (FORMAT csv, HEADER)",
	"COPY (SELECT i4, t, vc, by FROM ct ORDER BY i4 DESC) TO STDOUT (FORMAT csv, DELIMITER ';', NULL 'NULL', QUOTE '''', ESCAPE '\\', FORCE_QUOTE (t, by))",
	"COPY (SELECT t FROM ct ORDER BY i4) TO STDOUT (FORMAT csv, FORCE_QUOTE *)",
	"COPY (SELECT i4, count(*) AS n, sum(i2) AS s, min(f8) AS m FROM ct GROUP BY i4 ORDER BY i4) TO STDOUT BINARY",
}

// copyErrors are bad COPY FROM inputs; lakepg must report what PostgreSQL reports: the
// SQLSTATE, the message and the CONTEXT line naming the line and column.
var copyErrors = []struct{ stmt, data string }{
	{"COPY ct FROM STDIN", "1\t2\n"},
	{"COPY ct (i2, i4) FROM STDIN", "1\t2\n3\t4\t5\n"},
	{"COPY ct (i2, i4) FROM STDIN", "1\t2\n3\tx\n"},
	{"COPY ct (i2, d) FROM STDIN", "1\t2024-01-01\n2\t2024-01-02\n3\tnot a date\n"},
	{"COPY ct (i2, i4) FROM STDIN", "40000\t1\n"},
	{"COPY ct (i4, t) FROM STDIN (FORMAT csv)", "1,a\n2,\"open\n3,c\n"},
	{"COPY ct (i4, t) FROM STDIN (FORMAT csv, HEADER)", "i4,t\n1,a\n2x,b\n"},
	{"COPY ct (i4, t) FROM STDIN (FORMAT csv, HEADER match)", "i4,tt\n1,a\n"},
	{"COPY ct (i4, t) FROM STDIN", "1\ta\n\\.x\n"},
	{"COPY ct (i4, t) FROM STDIN", "1\ta\n2\t\xff\n"},
	{"COPY ct (i4, t) FROM STDIN", "1\ta\r\n2\tb\n"},
	{"COPY ct (i4) FROM STDIN (FORMAT binary)", "NOTPGCOPY\n"},
	{"COPY ct (i4, t) FROM STDIN (FORMAT binary)", "PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x04\x00\x00\x00\x01\xff\xff"},
	{"COPY ct (i4) FROM STDIN (FORMAT binary)", "PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x03\x00\x00\x01\xff\xff"},
	{"COPY ct (i4) FROM STDIN (FORMAT binary)", "PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x05\x00\x00\x00\x00\x01\xff\xff"},
	{"COPY ct (t) FROM STDIN (FORMAT binary)", "PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x01\xff\xff\xff"},
}

func copyOut(ctx context.Context, pc *pgconn.PgConn, stmt string) (string, error) {
	var buf bytes.Buffer
	tag, err := pc.CopyTo(ctx, &buf, stmt)
	if err != nil {
		return "", err
	}
	return buf.String() + "\n-- " + tag.String(), nil
}

// TestCopyMatchesPostgres loads the same data into lakepg and PostgreSQL with COPY FROM
// STDIN and compares what COPY TO STDOUT sends in every format, then the errors of bad
// input, after which the session goes on and nothing was committed or left on disk.
func TestCopyMatchesPostgres(t *testing.T) {
	ctx := testCtx(t)
	pgConn, err := pgconn.Connect(ctx, testserver.PostgresDatabase(t, "copy"))
	if err != nil {
		t.Fatalf("connecting to PostgreSQL: %v", err)
	}
	defer pgConn.Close(context.Background())
	srv := startServer(t, t.TempDir())
	lake := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
	lc := lake.PgConn()

	for name, c := range map[string]*pgconn.PgConn{"PostgreSQL": pgConn, "lakepg": lc} {
		if _, err := c.Exec(ctx, "SET TimeZone = 'UTC'; "+copyTable).ReadAll(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tag, err := c.CopyFrom(ctx, strings.NewReader(copyData), "COPY ct FROM STDIN")
		if err != nil || tag.String() != "COPY 5" {
			t.Fatalf("%s: COPY FROM STDIN: %q %v", name, tag, err)
		}
	}
	for _, stmt := range copyOuts {
		want, err := copyOut(ctx, pgConn, stmt)
		if err != nil {
			t.Fatalf("PostgreSQL: %s: %v", stmt, err)
		}
		got, err := copyOut(ctx, lc, stmt)
		if err != nil {
			t.Errorf("lakepg: %s: %v", stmt, err)
			continue
		}
		if got != want {
			t.Errorf("%s:\n lakepg     %q\n PostgreSQL %q", stmt, got, want)
		}
	}

	// Binary out, binary in: the round trip keeps every value.
	bin, err := copyOut(ctx, lc, "COPY ct TO STDOUT (FORMAT binary)")
	if err != nil {
		t.Fatal(err)
	}
	bin = bin[:strings.LastIndex(bin, "\n-- ")]
	mustExec(t, lake, strings.Replace(copyTable, "TABLE ct", "TABLE ct2", 1))
	if tag, err := lc.CopyFrom(ctx, strings.NewReader(bin), "COPY ct2 FROM STDIN (FORMAT binary)"); err != nil || tag.String() != "COPY 5" {
		t.Fatalf("binary COPY FROM: %q %v", tag, err)
	}
	a, _ := copyOut(ctx, lc, "COPY ct TO STDOUT")
	b, _ := copyOut(ctx, lc, "COPY ct2 TO STDOUT")
	if a != b {
		t.Errorf("binary round trip:\n before %q\n after  %q", a, b)
	}

	snaps := snapshotCount(t, lake)
	files := parquetFiles(t, srv.Dir)
	for _, c := range copyErrors {
		_, werr := pgConn.CopyFrom(ctx, strings.NewReader(c.data), c.stmt)
		_, gerr := lc.CopyFrom(ctx, strings.NewReader(c.data), c.stmt)
		want := pgError(t, "PostgreSQL: "+c.stmt, werr)
		got := pgError(t, "lakepg: "+c.stmt, gerr)
		if got.Code != want.Code || got.Message != want.Message || got.Where != want.Where {
			t.Errorf("%s with %q:\n lakepg     %s %q CONTEXT %q\n PostgreSQL %s %q CONTEXT %q",
				c.stmt, c.data, got.Code, got.Message, got.Where, want.Code, want.Message, want.Where)
		}
		if n := queryInt(t, lake, "SELECT count(*) FROM ct"); n != 5 {
			t.Errorf("after %s: ct has %d rows, want 5", c.stmt, n)
		}
	}
	if got := snapshotCount(t, lake); got != snaps {
		t.Errorf("failed COPYs made snapshots: %d before, %d after", snaps, got)
	}
	if got := parquetFiles(t, srv.Dir); !slices.Equal(got, files) {
		t.Errorf("failed COPYs left files behind:\n before %v\n after  %v", files, got)
	}
}

// parquetFiles lists the data files of the lake in dir.
func parquetFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(dir, "data"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

// TestCopyPgxBinary copies 100,000 rows in with pgx's CopyFrom (binary format, simple
// protocol), checks them with aggregates and that they made one snapshot; then a CopyFrom
// whose source fails mid-way (pgx sends CopyFail) must change nothing.
func TestCopyPgxBinary(t *testing.T) {
	ctx := testCtx(t)
	srv := startServer(t, t.TempDir())
	conn := srv.connect(t, pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, "CREATE TABLE big (id bigint, name text, val double precision, amount numeric(12,2), day date, at timestamptz, flag boolean)")
	snaps := snapshotCount(t, conn)
	const n = 100000
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	row := func(i int) []any {
		var amount pgtype.Numeric
		if err := amount.Scan(fmt.Sprintf("%d.%02d", i/100, i%100)); err != nil {
			t.Fatal(err)
		}
		var name any = fmt.Sprintf("name %d", i)
		if i%1000 == 0 {
			name = nil
		}
		return []any{int64(i), name, float64(i) / 4, amount, base.AddDate(0, 0, i%365), base.Add(time.Duration(i) * time.Second), i%2 == 0}
	}
	cols := []string{"id", "name", "val", "amount", "day", "at", "flag"}
	i := 0
	copied, err := conn.CopyFrom(ctx, pgx.Identifier{"big"}, cols, pgx.CopyFromFunc(func() ([]any, error) {
		if i == n {
			return nil, nil
		}
		i++
		return row(i), nil
	}))
	if err != nil || copied != n {
		t.Fatalf("CopyFrom: %d rows, %v", copied, err)
	}
	if got := snapshotCount(t, conn) - snaps; got != 1 {
		t.Errorf("CopyFrom made %d snapshots, want 1", got)
	}
	var count, sumID, nulls, flags int64
	var sumVal float64
	var sumAmount, maxAt, maxDay string
	err = conn.QueryRow(ctx, `SELECT count(*), sum(id), sum(val), sum(amount)::text, count(*) - count(name),
		count(*) FILTER (WHERE flag), max(at)::text, max(day)::text FROM big`).Scan(&count, &sumID, &sumVal, &sumAmount, &nulls, &flags, &maxAt, &maxDay)
	if err != nil {
		t.Fatal(err)
	}
	// sum(i/100 + (i%100)/100) over 1..n is sum(i)/100.
	if count != n || sumID != n*(n+1)/2 || sumVal != float64(n*(n+1)/2)/4 || sumAmount != "50000500.00" ||
		nulls != n/1000 || flags != n/2 || maxAt != "2024-01-02 03:46:40+00" || maxDay != "2024-12-30" {
		t.Errorf("aggregates: count %d sum(id) %d sum(val) %v sum(amount) %s nulls %d flags %d max(at) %s max(day) %s",
			count, sumID, sumVal, sumAmount, nulls, flags, maxAt, maxDay)
	}
	var name string
	var amount string
	if err := conn.QueryRow(ctx, "SELECT name, amount::text FROM big WHERE id = 54321").Scan(&name, &amount); err != nil || name != "name 54321" || amount != "543.21" {
		t.Errorf("row 54321: %q %q %v", name, amount, err)
	}

	// The source fails after 50,000 rows: pgx sends CopyFail.
	snaps = snapshotCount(t, conn)
	files := parquetFiles(t, srv.Dir)
	i = 0
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"big"}, cols, pgx.CopyFromFunc(func() ([]any, error) {
		if i == 50000 {
			return nil, errors.New("source broke")
		}
		i++
		return row(i), nil
	}))
	if err == nil {
		t.Fatal("CopyFrom with a failing source succeeded")
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if pe.Code != "57014" || !strings.HasPrefix(pe.Message, "COPY from stdin failed: ") {
			t.Errorf("CopyFail: %s %q, want 57014 \"COPY from stdin failed: ...\"", pe.Code, pe.Message)
		}
	}
	if got := queryInt(t, conn, "SELECT count(*) FROM big"); got != n {
		t.Errorf("after CopyFail: %d rows, want %d", got, n)
	}
	if got := snapshotCount(t, conn); got != snaps {
		t.Errorf("CopyFail made a snapshot")
	}
	if got := parquetFiles(t, srv.Dir); !slices.Equal(got, files) {
		t.Errorf("CopyFail left files behind:\n before %v\n after  %v", files, got)
	}
}

// TestCopyPsql uses psql's \copy both ways in text and csv, and a malformed file: psql
// shows the SQLSTATE and the line, nothing is committed and the script goes on.
func TestCopyPsql(t *testing.T) {
	srv := startServer(t, t.TempDir())
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("id,name,note\n1,one,\"a, b\"\n2,,\"say \"\"hi\"\"\"\n3,three,\"two\nlines\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("10\tten\tx\n11\televen\ty\n1x\tbad\tz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.txt")
	outCSV := filepath.Join(dir, "out.csv")
	r := srv.psqlScript(t, fmt.Sprintf(`CREATE TABLE pc (id integer, name text, note text);
\copy pc from '%s' with (format csv, header)
SELECT count(*) FROM lakepg.snapshots;
\copy pc from '%s'
SELECT count(*) FROM lakepg.snapshots;
SELECT id, name, note FROM pc ORDER BY id;
\copy pc to '%s'
\copy (SELECT id, note FROM pc ORDER BY id DESC) to '%s' csv header
`, in, bad, out, outCSV))
	want := text(`
CREATE TABLE
COPY 3
 count 
-------
     3
(1 row)

 count 
-------
     3
(1 row)

 id | name  |   note   
----+-------+----------
  1 | one   | a, b
  2 |       | say "hi"
  3 | three | two     +
    |       | lines
(3 rows)

COPY 3
COPY 3
`)
	checkText(t, "psql \\copy script", r.stdout, want)
	if !strings.Contains(r.stderr, `ERROR:  22P02: invalid input syntax for type integer: "1x"`) ||
		!strings.Contains(r.stderr, `CONTEXT:  COPY pc, line 3, column id: "1x"`) {
		t.Errorf("malformed \\copy: stderr %q, want 22P02 with CONTEXT COPY pc, line 3, column id", r.stderr)
	}
	gotOut, _ := os.ReadFile(out)
	if want := "1\tone\ta, b\n2\t\\N\tsay \"hi\"\n3\tthree\ttwo\\nlines\n"; string(gotOut) != want {
		t.Errorf("\\copy to text:\n got  %q\n want %q", gotOut, want)
	}
	gotCSV, _ := os.ReadFile(outCSV)
	if want := "id,note\n3,\"two\nlines\"\n2,\"say \"\"hi\"\"\"\n1,\"a, b\"\n"; string(gotCSV) != want {
		t.Errorf("\\copy to csv:\n got  %q\n want %q", gotCSV, want)
	}
}

// TestCopyExtendedProtocol runs COPY through Parse/Bind/Execute: COPY TO streams
// CopyData, COPY FROM takes the data after a Sync that is ignored during the copy, as in
// PostgreSQL; the message sequences are compared with PostgreSQL's.
func TestCopyExtendedProtocol(t *testing.T) {
	ctx := testCtx(t)
	pgConn, err := pgconn.Connect(ctx, testserver.PostgresDatabase(t, "copyext"))
	if err != nil {
		t.Fatalf("connecting to PostgreSQL: %v", err)
	}
	defer pgConn.Close(context.Background())
	srv := startServer(t, t.TempDir())
	lake := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
	script := func(c *pgconn.PgConn) []string {
		if _, err := c.Exec(ctx, "CREATE TABLE x (a integer, b text); INSERT INTO x VALUES (1, 'one'), (2, NULL)").ReadAll(); err != nil {
			t.Fatal(err)
		}
		fe := c.Frontend()
		var got []string
		recvUntilReady := func() {
			for {
				m, err := fe.Receive()
				if err != nil {
					t.Fatalf("receive: %v", err)
				}
				got = append(got, summarizeBackend(m))
				if _, ok := m.(*pgproto3.ReadyForQuery); ok {
					return
				}
			}
		}
		send := func(msgs ...pgproto3.FrontendMessage) {
			for _, m := range msgs {
				fe.Send(m)
			}
			if err := fe.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		send(&pgproto3.Parse{Query: "COPY (SELECT a, b FROM x ORDER BY a) TO STDOUT (FORMAT csv)"}, &pgproto3.Bind{},
			&pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{MaxRows: 1}, &pgproto3.Sync{})
		recvUntilReady()
		send(&pgproto3.Parse{Query: "COPY x (b, a) FROM STDIN"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
		for {
			m, err := fe.Receive()
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, summarizeBackend(m))
			if _, ok := m.(*pgproto3.CopyInResponse); ok {
				break
			}
		}
		send(&pgproto3.CopyData{Data: []byte("three\t3\nfo")}, &pgproto3.CopyData{Data: []byte("ur\t4\n")}, &pgproto3.CopyDone{}, &pgproto3.Sync{})
		recvUntilReady()
		// A failing COPY FROM in the extended protocol: the rest up to Sync is skipped.
		send(&pgproto3.Parse{Query: "COPY x FROM STDIN"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{},
			&pgproto3.CopyData{Data: []byte("5\tfive\nsix\t6\n")}, &pgproto3.CopyDone{}, &pgproto3.Sync{})
		recvUntilReady()
		send(&pgproto3.Query{String: "SELECT count(*) FROM x"})
		recvUntilReady()
		return got
	}
	want := script(pgConn)
	got := script(lake.PgConn())
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("extended-protocol COPY:\n lakepg     %q\n PostgreSQL %q", got, want)
	}
}

func summarizeBackend(m pgproto3.BackendMessage) string {
	switch m := m.(type) {
	case *pgproto3.CopyData:
		return fmt.Sprintf("CopyData %q", m.Data)
	case *pgproto3.CopyOutResponse:
		return fmt.Sprintf("CopyOutResponse %d %v", m.OverallFormat, m.ColumnFormatCodes)
	case *pgproto3.CopyInResponse:
		return fmt.Sprintf("CopyInResponse %d %v", m.OverallFormat, m.ColumnFormatCodes)
	case *pgproto3.CommandComplete:
		return "CommandComplete " + string(m.CommandTag)
	case *pgproto3.ErrorResponse:
		return fmt.Sprintf("ErrorResponse %s %s (%s)", m.Code, m.Message, m.Where)
	case *pgproto3.DataRow:
		return fmt.Sprintf("DataRow %q", m.Values)
	case *pgproto3.RowDescription:
		return fmt.Sprintf("RowDescription %d", len(m.Fields))
	case *pgproto3.ReadyForQuery:
		return "ReadyForQuery " + string(m.TxStatus)
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3.")
}

// TestCopyClientGone starts a COPY FROM STDIN, sends rows (more than one batch), and
// disconnects without CopyDone, then cancels another COPY with a CancelRequest: neither
// commits a snapshot or leaves a file, and the server serves on.
func TestCopyClientGone(t *testing.T) {
	ctx := testCtx(t)
	srv := startServer(t, t.TempDir())
	conn := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, conn, "CREATE TABLE gone (a integer, b text)")
	snaps := snapshotCount(t, conn)
	files := parquetFiles(t, srv.Dir)

	var rows strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&rows, "%d\trow %d\n", i, i)
	}
	for _, how := range []string{"disconnect", "cancel"} {
		victim, err := pgconn.Connect(ctx, srv.dsn())
		if err != nil {
			t.Fatal(err)
		}
		fe := victim.Frontend()
		fe.Send(&pgproto3.Query{String: "COPY gone FROM STDIN"})
		fe.Send(&pgproto3.CopyData{Data: []byte(rows.String())})
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		if m, err := fe.Receive(); err != nil {
			t.Fatal(err)
		} else if _, ok := m.(*pgproto3.CopyInResponse); !ok {
			t.Fatalf("%s: got %T, want CopyInResponse", how, m)
		}
		if how == "disconnect" {
			victim.Conn().Close()
		} else {
			if err := victim.CancelRequest(ctx); err != nil {
				t.Fatal(err)
			}
			var got []string
			for {
				m, err := fe.Receive()
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, summarizeBackend(m))
				if _, ok := m.(*pgproto3.ReadyForQuery); ok {
					break
				}
			}
			if want := "ErrorResponse 57014 canceling statement due to user request ()\nReadyForQuery I"; strings.Join(got, "\n") != want {
				t.Errorf("cancelled COPY: %q", got)
			}
			victim.Conn().Close()
		}
		// The server notices and cleans up shortly; poll.
		deadline := time.Now().Add(10 * time.Second)
		for {
			if got := parquetFiles(t, srv.Dir); slices.Equal(got, files) || time.Now().After(deadline) {
				if !slices.Equal(got, files) {
					t.Errorf("%s: files left behind: %v", how, got)
				}
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if got := snapshotCount(t, conn); got != snaps {
		t.Errorf("abandoned COPYs made snapshots")
	}
	if n := queryInt(t, conn, "SELECT count(*) FROM gone"); n != 0 {
		t.Errorf("abandoned COPYs stored %d rows", n)
	}
}
