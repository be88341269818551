package wire

import (
	"bytes"
	"context"
	"errors"
	"math"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// modes are the pgx execution modes every protocol-level test runs in.
var modes = []struct {
	name string
	mode pgx.QueryExecMode
}{
	{"simple", pgx.QueryExecModeSimpleProtocol},
	{"extended-cache", pgx.QueryExecModeCacheStatement},
	{"extended-exec", pgx.QueryExecModeExec},
	{"extended-describe", pgx.QueryExecModeDescribeExec},
}

func TestPgxStartupParameterStatus(t *testing.T) {
	ts := startServer(t, Options{ServerVersion: "16.6 (lakepg 0.1.0)"})
	cfg, err := pgx.ParseConfig(ts.connString(""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["TimeZone"] = "Europe/Berlin"
	conn, err := pgx.ConnectConfig(testCtx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(testCtx(t))
	pc := conn.PgConn()
	for k, want := range map[string]string{
		"server_version":              "16.6 (lakepg 0.1.0)",
		"server_encoding":             "UTF8",
		"client_encoding":             "UTF8",
		"DateStyle":                   "ISO, MDY",
		"TimeZone":                    "Europe/Berlin",
		"integer_datetimes":           "on",
		"standard_conforming_strings": "on",
		"application_name":            "wiretest",
		"IntervalStyle":               "postgres",
		"is_superuser":                "on",
		"session_authorization":       "alice",
	} {
		if got := pc.ParameterStatus(k); got != want {
			t.Errorf("ParameterStatus(%q) = %q, want %q", k, got, want)
		}
	}
	if pc.PID() == 0 || len(pc.SecretKey()) != 4 {
		t.Errorf("BackendKeyData: pid %d, secret %x", pc.PID(), pc.SecretKey())
	}

	info := ts.eng.session(0).info
	if info.User != "alice" || info.Database != "lake" || info.ApplicationName != "wiretest" ||
		info.Params["TimeZone"] != "Europe/Berlin" {
		t.Errorf("StartupInfo = %+v", info)
	}
	if a, ok := info.RemoteAddr.(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
		t.Errorf("RemoteAddr = %v", info.RemoteAddr)
	}

	// Process ids are unique per live session.
	other := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	if other.PgConn().PID() == pc.PID() {
		t.Errorf("two sessions share pid %d", pc.PID())
	}
}

func TestPgxQueryRows(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ts := startServer(t, Options{})
			conn := ts.connect(t, m.mode)
			ctx := testCtx(t)
			for _, n := range []int{0, 1, 3, 7, 10000} {
				rows, err := conn.Query(ctx, "gen "+itoa(n))
				if err != nil {
					t.Fatal(err)
				}
				var got []int64
				for rows.Next() {
					var v int64
					if err := rows.Scan(&v); err != nil {
						t.Fatal(err)
					}
					got = append(got, v)
				}
				if err := rows.Err(); err != nil {
					t.Fatal(err)
				}
				if len(got) != n {
					t.Fatalf("gen %d: %d rows", n, len(got))
				}
				for i, v := range got {
					if v != int64(i+1) {
						t.Fatalf("gen %d: row %d = %d", n, i, v)
					}
				}
				if tag := rows.CommandTag().String(); tag != "SELECT "+itoa(n) {
					t.Errorf("tag %q", tag)
				}
				fds := rows.FieldDescriptions()
				if len(fds) != 1 || fds[0].Name != "n" || fds[0].DataTypeOID != 20 || fds[0].TableOID != 12345 || fds[0].TableAttributeNumber != 1 {
					t.Errorf("field descriptions %+v", fds)
				}
			}
			tag, err := conn.Exec(ctx, "insert")
			if err != nil || tag.String() != "INSERT 0 2" {
				t.Errorf("insert: %q %v", tag, err)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestPgxMultiStatementSimpleQuery(t *testing.T) {
	ts := startServer(t, Options{})
	conn := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	results, err := conn.PgConn().Exec(testCtx(t), "insert; gen 2; empty;  ; types").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var tags []string
	for _, r := range results {
		tags = append(tags, r.CommandTag.String())
	}
	wantTags := []string{"INSERT 0 2", "SELECT 2", "SELECT 0", "SELECT 2"}
	if !equalStrings(tags, wantTags) {
		t.Fatalf("tags %q, want %q", tags, wantTags)
	}
	if len(results[1].Rows) != 2 || string(results[1].Rows[1][0]) != "2" {
		t.Errorf("gen 2 rows %q", results[1].Rows)
	}
	if results[0].FieldDescriptions != nil {
		t.Errorf("insert has a RowDescription")
	}
	if len(results[2].Rows) != 0 {
		t.Errorf("empty: rows %v", results[2].Rows)
	}
	// Text output of every type, as PostgreSQL prints it.
	row := results[3].Rows[0]
	for i, tv := range typesRow {
		if string(row[i]) != tv.text {
			t.Errorf("text of %s = %q, want %q", tv.name, row[i], tv.text)
		}
		if results[3].Rows[1][i] != nil {
			t.Errorf("NULL %s came back as %q", tv.name, results[3].Rows[1][i])
		}
	}
	// The implicit transaction ended once, at the end of the Query.
	if n := ts.eng.session(0).syncCount(); n != 1 {
		t.Errorf("Sync called %d times", n)
	}

	// An error stops the rest of the string; the earlier statements count.
	results, err = conn.PgConn().Exec(testCtx(t), "gen 1; fail next; gen 5").ReadAll()
	if pgCode(err) != "22012" {
		t.Fatalf("err = %v", err)
	}
	if len(results) != 2 || len(results[0].Rows) != 1 || len(results[1].Rows) != 3 {
		t.Errorf("results before the error: %+v", results)
	}
	if err := conn.Ping(testCtx(t)); err != nil {
		t.Errorf("session dead after error: %v", err)
	}
}

func TestPgxErrorsKeepSession(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ts := startServer(t, Options{})
			conn := ts.connect(t, m.mode)
			ctx := testCtx(t)

			_, err := conn.Exec(ctx, "error at 7")
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				t.Fatalf("want PgError, got %v", err)
			}
			if pe.Code != "42601" || pe.Position != 7 || pe.Severity != "ERROR" ||
				pe.Message != `syntax error at or near "error"` || pe.Hint != "try again" {
				t.Errorf("error = %+v", pe)
			}

			_, err = conn.Exec(ctx, "plain error")
			if !errors.As(err, &pe) || pe.Code != "XX000" || pe.Message != "disk on fire" {
				t.Errorf("plain error: %v", err)
			}

			// A runtime error after some rows: pgx reports it from rows.Err.
			rows, _ := conn.Query(ctx, "fail next")
			n := 0
			for rows.Next() {
				n++
			}
			if pgCode(rows.Err()) != "22012" {
				t.Errorf("fail next: %v after %d rows", rows.Err(), n)
			}

			var v int64
			if err := conn.QueryRow(ctx, "gen 1").Scan(&v); err != nil || v != 1 {
				t.Errorf("session after errors: %v %v", v, err)
			}
		})
	}
}

func TestPgxPanicsBecomeInternalErrors(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ts := startServer(t, Options{})
			conn := ts.connect(t, m.mode)
			ctx := testCtx(t)
			for _, q := range []string{"panic prepare", "panic execute", "panic next", "panic tag", "rows without columns"} {
				rows, err := conn.Query(ctx, q)
				if err == nil {
					for rows.Next() {
					}
					err = rows.Err()
				}
				var pe *pgconn.PgError
				if !errors.As(err, &pe) || pe.Code != "XX000" {
					t.Errorf("%s: %v", q, err)
				} else if q != "rows without columns" && !strings.Contains(pe.Message, "boom") {
					t.Errorf("%s: message %q", q, pe.Message)
				}
				var v int64
				if err := conn.QueryRow(ctx, "gen 1").Scan(&v); err != nil {
					t.Fatalf("session dead after %s: %v", q, err)
				}
			}
			// The server goes on for everyone.
			other := ts.connect(t, m.mode)
			if err := other.Ping(ctx); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestPgxParameterStatusAfterSet(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ts := startServer(t, Options{})
			conn := ts.connect(t, m.mode)
			ctx := testCtx(t)
			if got := conn.PgConn().ParameterStatus("TimeZone"); got != "UTC" {
				t.Errorf("TimeZone at start %q", got)
			}
			if _, err := conn.Exec(ctx, "set timezone Asia/Kolkata"); err != nil {
				t.Fatal(err)
			}
			if got := conn.PgConn().ParameterStatus("TimeZone"); got != "Asia/Kolkata" {
				t.Errorf("TimeZone after SET %q", got)
			}
			// Text output follows the session zone.
			var s string
			if err := conn.QueryRow(ctx, "tz", pgx.QueryResultFormats{pgx.TextFormatCode}).Scan(&s); err != nil {
				t.Fatal(err)
			}
			if s != "2024-01-01 17:30:00+05:30" {
				t.Errorf("timestamptz text %q", s)
			}
		})
	}
}

func TestPgxBinaryResults(t *testing.T) {
	ts := startServer(t, Options{})
	conn := ts.connect(t, pgx.QueryExecModeCacheStatement)
	ctx := testCtx(t)
	rows, err := conn.Query(ctx, "types")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()

	// pgx asks for binary for every type it has a binary codec for.
	binary := 0
	for _, fd := range rows.FieldDescriptions() {
		if fd.Format == 1 {
			binary++
		}
	}
	if binary < 12 {
		t.Errorf("only %d binary columns: %+v", binary, rows.FieldDescriptions())
	}

	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	var (
		b     bool
		i2    int16
		i4    int32
		i8    int64
		f4    float32
		f8    float64
		n, nd pgtype.Numeric
		txt   string
		vc    string
		by    []byte
		d     time.Time
		tsv   time.Time
		tz    time.Time
		u     [16]byte
	)
	if err := rows.Scan(&b, &i2, &i4, &i8, &f4, &f8, &n, &nd, &txt, &vc, &by, &d, &tsv, &tz, &u); err != nil {
		t.Fatal(err)
	}
	check := func(name string, ok bool, got any) {
		if !ok {
			t.Errorf("%s decoded as %v", name, got)
		}
	}
	check("bool", b, b)
	check("int2", i2 == -12345, i2)
	check("int4", i4 == math.MaxInt32, i4)
	check("int8", i8 == math.MinInt64, i8)
	check("float4", f4 == 1.5, f4)
	check("float8", f8 == -2.25e-07, f8)
	check("numeric(10,2)", numericString(t, n) == "-1234.50", numericString(t, n))
	check("numeric", numericString(t, nd) == "12345678901234567890.000123", numericString(t, nd))
	check("text", txt == "héllo", txt)
	check("varchar", vc == "abc", vc)
	check("bytea", bytes.Equal(by, []byte{0, 1, 0xff}), by)
	check("date", d.Equal(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)), d)
	check("timestamp", tsv.Equal(time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC)), tsv)
	check("timestamptz", tz.Equal(time.Date(2024, 2, 29, 11, 14, 15, 500000000, time.UTC)), tz)
	check("uuid", u == [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}, u)

	// Row two is all NULL, in every format.
	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	vals, err := rows.Values()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if v != nil {
			t.Errorf("column %s: %v, want NULL", typesRow[i].name, v)
		}
	}
	if rows.Next() {
		t.Error("extra row")
	}
}

// numericString renders a pgtype.Numeric as exact decimal text.
func numericString(t *testing.T, n pgtype.Numeric) string {
	t.Helper()
	v, err := n.Value()
	if err != nil {
		t.Fatal(err)
	}
	s, _ := v.(string)
	return s
}

// TestPgxBinaryNumerics runs numerics through the binary encoder and pgx's
// decoder, in both vector representations, and compares with the text form.
func TestPgxBinaryNumerics(t *testing.T) {
	ts := startServer(t, Options{})
	conn := ts.connect(t, pgx.QueryExecModeCacheStatement)
	ctx := testCtx(t)
	for _, q := range []string{
		"num 0 0 1 -1 9999 10000 -10000 123456789 100000000 9223372036854775807 -9223372036854775808",
		"num 2 0.00 0.01 -0.01 1.00 100.00 1234.50 -99999.99 0.10 10000.00 92233720368547758.07",
		"num 6 0.000001 -0.000100 1.000000 12.345678 0.100000",
		"num 18 0.000000000000000001 -0.123456789012345678",
		"num any 0 -0 0.0 12.5 -12.50 0.000001 1000000000000000000000000000000 123456789012345678901234567890.123456789 0.00012 -7",
	} {
		rows, err := conn.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Fields(q)[2:]
		i := 0
		for rows.Next() {
			if rows.FieldDescriptions()[0].Format != 1 {
				t.Fatalf("pgx did not ask for binary numeric")
			}
			var n pgtype.Numeric
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			w := want[i]
			if strings.Trim(w, "-0.") == "" {
				// pgx drops the display scale of a zero (it does so with
				// PostgreSQL too); the scale is checked by TestNumericBinary.
				w = "0"
			}
			if got := numericString(t, n); got != w {
				t.Errorf("%s: row %d = %q, want %q", q, i, got, w)
			}
			i++
		}
		if rows.Err() != nil || i != len(want) {
			t.Fatalf("%s: %d rows, %v", q, i, rows.Err())
		}
	}
}

func TestPgxBinaryParameters(t *testing.T) {
	ts := startServer(t, Options{})
	conn := ts.connect(t, pgx.QueryExecModeCacheStatement)
	ctx := testCtx(t)
	var num pgtype.Numeric
	if err := num.Scan("-98765.4321"); err != nil {
		t.Fatal(err)
	}
	uuid := [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}
	args := []any{
		true, int16(-7), int32(123456), int64(-9000000000), float32(0.25), float64(1e100),
		num, "tëxt", []byte{0xde, 0xad}, time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC),
		time.Date(2001, 2, 3, 4, 5, 6, 789000000, time.UTC),
		time.Date(2001, 2, 3, 4, 5, 6, 0, time.FixedZone("x", 3600)), uuid, nil,
	}
	want := []string{
		"bin:t", "bin:-7", "bin:123456", "bin:-9000000000", "bin:0.25", "bin:1e+100",
		"bin:-98765.4321", "txt:tëxt", "bin:\\xdead", "bin:1999-12-31",
		"bin:2001-02-03 04:05:06.789", "bin:2001-02-03 03:05:06+00",
		"bin:a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "NULL",
	}
	q := "echo bool int2 int4 int8 float4 float8 numeric text bytea date timestamp timestamptz uuid int4"
	rows, err := conn.Query(ctx, q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	vals, err := rows.Values()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		got := "NULL"
		if v != nil {
			got = v.(string)
		}
		if got != want[i] {
			t.Errorf("param %d: %q, want %q", i+1, got, want[i])
		}
	}
}

// TestPgxPipelineErrorSkipsToSync mirrors pgconn's own pipeline test: after
// an error the rest of that sync group is skipped, the next group runs.
func TestPgxPipelineErrorSkipsToSync(t *testing.T) {
	ts := startServer(t, Options{})
	conn := ts.connect(t, pgx.QueryExecModeCacheStatement)
	ctx := testCtx(t)
	p := conn.PgConn().StartPipeline(ctx)
	p.SendQueryParams("gen 1", nil, nil, nil, nil)
	p.SendQueryParams("gen 2", nil, nil, nil, nil)
	p.SendPipelineSync()
	p.SendQueryParams("gen 3", nil, nil, nil, nil)
	p.SendQueryParams("fail next", nil, nil, nil, nil)
	p.SendQueryParams("insert", nil, nil, nil, nil)
	p.SendPipelineSync()
	p.SendQueryParams("error at 3", nil, nil, nil, nil)
	p.SendQueryParams("gen 4", nil, nil, nil, nil)
	p.SendPipelineSync()
	p.SendQueryParams("gen 5", nil, nil, nil, nil)
	p.SendPipelineSync()
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}

	expectRows := func(n int) {
		t.Helper()
		res, err := p.GetResults()
		if err != nil {
			t.Fatal(err)
		}
		rr, ok := res.(*pgconn.ResultReader)
		if !ok {
			t.Fatalf("want ResultReader, got %#v", res)
		}
		r := rr.Read()
		if r.Err != nil || len(r.Rows) != n {
			t.Fatalf("want %d rows, got %d (%v)", n, len(r.Rows), r.Err)
		}
	}
	expectErr := func(code string) {
		t.Helper()
		res, err := p.GetResults()
		if err == nil {
			if rr, ok := res.(*pgconn.ResultReader); ok {
				err = rr.Read().Err
			}
		}
		if pgCode(err) != code {
			t.Fatalf("want %s, got %v (%#v)", code, err, res)
		}
	}
	expectSync := func() {
		t.Helper()
		res, err := p.GetResults()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := res.(*pgconn.PipelineSync); !ok {
			t.Fatalf("want PipelineSync, got %#v", res)
		}
	}
	expectRows(1)
	expectRows(2)
	expectSync()
	expectRows(3)
	expectErr("22012")
	expectSync() // "insert" was discarded
	expectErr("42601")
	expectSync() // "gen 4" was discarded
	expectRows(5)
	expectSync()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := conn.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestPgxCancelRequest(t *testing.T) {
	ts := startServer(t, Options{})
	conn := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := testCtx(t)
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Exec(ctx, "sleep")
		errc <- err
	}()
	<-ts.eng.started
	if err := conn.PgConn().CancelRequest(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; pgCode(err) != "57014" {
		t.Fatalf("cancelled statement: %v", err)
	}
	if err := conn.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestPgxContextCancel: pgx cancels a query whose context ends by sending
// a CancelRequest, and the connection stays usable.
func TestPgxContextCancel(t *testing.T) {
	ts := startServer(t, Options{})
	conn := ts.connect(t, pgx.QueryExecModeCacheStatement)
	qctx, cancel := context.WithTimeout(testCtx(t), 200*time.Millisecond)
	defer cancel()
	_, err := conn.Exec(qctx, "sleep")
	if err == nil {
		t.Fatal("sleep returned without error")
	}
	select {
	case <-ts.eng.canceled:
	case <-time.After(10 * time.Second):
		t.Fatal("statement context never cancelled")
	}
}
