package integration

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestExtendedAndSimpleProtocol drives lakepg with pgx in the simple protocol, pgx's
// default extended protocol (named prepared statements, binary formats) and the extended
// protocol with text formats: start-up parameters, parameterised INSERT and SELECT,
// several statements in one simple query, and a round trip of every supported type.
func TestExtendedAndSimpleProtocol(t *testing.T) {
	srv := startServer(t, t.TempDir())
	runProtocolChecks(t, srv)
}

func runProtocolChecks(t *testing.T, srv *server) {
	setup := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, setup, "CREATE SCHEMA proto")

	t.Run("ParameterStatus", func(t *testing.T) {
		pc := setup.PgConn()
		if v := pc.ParameterStatus("server_version"); !regexp.MustCompile(`^15\.\d+ \(lakepg \d+\.\d+\.\d+[^)]*\)$`).MatchString(v) {
			t.Errorf("server_version = %q, want like \"15.18 (lakepg 0.1.0)\"", v)
		}
		for name, want := range map[string]string{
			"server_encoding":             "UTF8",
			"client_encoding":             "UTF8",
			"DateStyle":                   "ISO, MDY",
			"TimeZone":                    "UTC",
			"integer_datetimes":           "on",
			"standard_conforming_strings": "on",
			"application_name":            "lakepg-integration",
		} {
			if got := pc.ParameterStatus(name); got != want {
				t.Errorf("ParameterStatus %s = %q, want %q", name, got, want)
			}
		}
		if key := pc.SecretKey(); len(key) == 0 || bytes.Count(key, []byte{0}) == len(key) {
			t.Errorf("BackendKeyData: secret key %x, want a random one (it authorises cancel requests)", key)
		}
	})

	for i, mode := range pgxModes {
		t.Run(mode.String(), func(t *testing.T) {
			conn := srv.connect(t, mode)
			checkParams(t, conn, fmt.Sprintf("proto.kv%d", i))
			checkTypes(t, conn, fmt.Sprintf("proto.types%d", i))
		})
	}

	t.Run("PreparedStatement", func(t *testing.T) {
		conn := srv.connect(t, pgx.QueryExecModeCacheStatement)
		ctx := testCtx(t)
		mustExec(t, conn, "CREATE TABLE proto.prep (id integer, name text)")
		mustExec(t, conn, "INSERT INTO proto.prep VALUES (1, 'one'), (2, 'two')")
		sd, err := conn.Prepare(ctx, "by_id", "SELECT name, id FROM proto.prep WHERE id = $1")
		if err != nil {
			t.Fatalf("Prepare: %v", err)
		}
		if want := []uint32{pgtype.Int4OID}; !reflect.DeepEqual(sd.ParamOIDs, want) {
			t.Errorf("ParameterDescription: %v, want %v (the type of id)", sd.ParamOIDs, want)
		}
		var cols []string
		var oids []uint32
		for _, f := range sd.Fields {
			cols = append(cols, f.Name)
			oids = append(oids, f.DataTypeOID)
		}
		// name is a text column, which DuckLake stores as varchar: 25 or 1043.
		if !reflect.DeepEqual(cols, []string{"name", "id"}) || len(oids) != 2 ||
			oids[0] != pgtype.TextOID && oids[0] != pgtype.VarcharOID || oids[1] != pgtype.Int4OID {
			t.Errorf("RowDescription of the prepared statement: %v %v, want [name id] [25 23] (or [1043 23])", cols, oids)
		}
		for _, id := range []int32{2, 1, 2} {
			var name string
			var got int32
			if err := conn.QueryRow(ctx, "by_id", id).Scan(&name, &got); err != nil {
				t.Fatalf("executing by_id(%d): %v", id, err)
			}
			if want := map[int32]string{1: "one", 2: "two"}[id]; name != want || got != id {
				t.Errorf("by_id(%d) = %q, %d; want %q, %d", id, name, got, want, id)
			}
		}
		if err := conn.Deallocate(ctx, "by_id"); err != nil {
			t.Errorf("Deallocate (Close): %v", err)
		}
		if n := queryInt(t, conn, "SELECT count(*) FROM proto.prep"); n != 2 {
			t.Errorf("count after Close = %d, want 2", n)
		}
	})

	t.Run("MultiStatementSimpleQuery", func(t *testing.T) {
		conn := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
		ctx := testCtx(t)
		mustExec(t, conn, "CREATE TABLE proto.multi (id integer, name text)")
		results, err := conn.PgConn().Exec(ctx,
			"INSERT INTO proto.multi VALUES (1, 'a'); INSERT INTO proto.multi VALUES (2, 'b'), (3, 'c'); "+
				"SELECT id, name FROM proto.multi ORDER BY id; SELECT count(*) FROM proto.multi").ReadAll()
		if err != nil {
			t.Fatalf("multi-statement query: %v", err)
		}
		var got []string
		for _, r := range results {
			if r.Err != nil {
				t.Fatalf("multi-statement query: %v", r.Err)
			}
			got = append(got, r.CommandTag.String()+" "+fmt.Sprint(rowsText(r.Rows)))
		}
		want := []string{
			"INSERT 0 1 []",
			"INSERT 0 2 []",
			"SELECT 3 [[1 a] [2 b] [3 c]]",
			"SELECT 1 [[3]]",
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("multi-statement results:\n got %q\nwant %q", got, want)
		}

		// An error stops the rest of the string, and the session goes on.
		results, err = conn.PgConn().Exec(ctx, "SELECT 1; SELECT 1/0; SELECT 2").ReadAll()
		if pe := pgError(t, "SELECT 1; SELECT 1/0; SELECT 2", err); pe.Code != "22012" {
			t.Errorf("SELECT 1; SELECT 1/0; SELECT 2: SQLSTATE %s, want 22012", pe.Code)
		}
		for _, r := range results {
			if fmt.Sprint(rowsText(r.Rows)) == "[[2]]" {
				t.Errorf("the statement after the failing one ran")
			}
		}
		if n := queryInt(t, conn, "SELECT 41 + 1"); n != 42 {
			t.Errorf("SELECT 41 + 1 after the error = %d", n)
		}
	})
}

func rowsText(rows [][][]byte) [][]string {
	out := [][]string{}
	for _, r := range rows {
		var vals []string
		for _, v := range r {
			if v == nil {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, string(v))
			}
		}
		out = append(out, vals)
	}
	return out
}

// checkParams: INSERT and SELECT with $n parameters given as text (Go strings) and as
// typed Go values, one prepared query run several times with different arguments.
func checkParams(t *testing.T, conn *pgx.Conn, table string) {
	ctx := testCtx(t)
	mustExec(t, conn, "CREATE TABLE "+table+" (id integer, name text, score double precision)")
	insert := "INSERT INTO " + table + " (id, name) VALUES ($1, $2)"
	for _, args := range [][]any{{"1", "alice"}, {"2", "bob"}, {int32(3), "carol's"}, {"4", nil}} {
		tag := mustExec(t, conn, insert, args...)
		if tag.String() != "INSERT 0 1" {
			t.Errorf("%s %v: command tag %q, want INSERT 0 1", insert, args, tag)
		}
	}
	tag := mustExec(t, conn, "UPDATE "+table+" SET score = $1 WHERE id >= $2", "0.5", "3")
	if tag.String() != "UPDATE 2" {
		t.Errorf("UPDATE with parameters: command tag %q, want UPDATE 2", tag)
	}

	sel := "SELECT id, name, score FROM " + table + " WHERE id = $1 OR name = $2 ORDER BY id"
	for _, c := range []struct {
		args []any
		want string
	}{
		{[]any{"2", "alice"}, "[1 alice <nil>] [2 bob <nil>]"},
		{[]any{"3", "nobody"}, "[3 carol's 0.5]"},
		{[]any{int32(4), "x"}, "[4 <nil> 0.5]"},
		{[]any{"9", "nobody"}, ""},
	} {
		rows, err := conn.Query(ctx, sel, c.args...)
		if err != nil {
			t.Fatalf("%s %v: %v", sel, c.args, err)
		}
		var got []string
		for rows.Next() {
			var id int32
			var name *string
			var score *float64
			if err := rows.Scan(&id, &name, &score); err != nil {
				t.Fatalf("%s %v: %v", sel, c.args, err)
			}
			got = append(got, fmt.Sprintf("[%d %s %s]", id, strOrNil(name), floatOrNil(score)))
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s %v: %v", sel, c.args, err)
		}
		if s := joinSpace(got); s != c.want {
			t.Errorf("%s %v = %s, want %s", sel, c.args, s, c.want)
		}
	}
}

func strOrNil(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func floatOrNil(f *float64) string {
	if f == nil {
		return "<nil>"
	}
	return fmt.Sprint(*f)
}

func joinSpace(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x)
	}
	return b.String()
}

// typeColumns are the columns of the round-trip table with the type OID lakepg must report.
// DuckLake stores text and varchar alike as "varchar", so a text column read back from the
// catalog may be described as varchar (1043): both OIDs are accepted for it.
var typeColumns = []struct {
	name, typ string
	oid       uint32
}{
	{"id", "integer", pgtype.Int4OID},
	{"s", "smallint", pgtype.Int2OID},
	{"i", "integer", pgtype.Int4OID},
	{"b", "bigint", pgtype.Int8OID},
	{"r", "real", pgtype.Float4OID},
	{"d", "double precision", pgtype.Float8OID},
	{"n", "numeric(10,2)", pgtype.NumericOID},
	{"t", "text", pgtype.TextOID},
	{"v", "varchar(5)", pgtype.VarcharOID},
	{"bo", "boolean", pgtype.BoolOID},
	{"dt", "date", pgtype.DateOID},
	{"ts", "timestamp", pgtype.TimestampOID},
	{"tz", "timestamptz", pgtype.TimestamptzOID},
	{"by", "bytea", pgtype.ByteaOID},
	{"u", "uuid", pgtype.UUIDOID},
}

func mustUUID(s string) [16]byte {
	var u pgtype.UUID
	if err := u.Scan(s); err != nil {
		panic(err)
	}
	return u.Bytes
}

// checkTypes stores rows of every supported type from a SQL literal, from text
// parameters, from typed Go parameters and as NULLs, and compares the Go values pgx
// decodes from lakepg's answers.
func checkTypes(t *testing.T, conn *pgx.Conn, table string) {
	ctx := testCtx(t)
	ddl := "CREATE TABLE " + table + " ("
	for i, c := range typeColumns {
		if i > 0 {
			ddl += ", "
		}
		ddl += c.name + " " + c.typ
	}
	mustExec(t, conn, ddl+")")

	utc := time.UTC
	want := map[int32][]any{
		1: {int32(1), int16(-32768), int32(-2147483648), int64(9223372036854775807), float32(0.1), -1.5e300, "12345678.91",
			"héllo, 'wörld'", "abcde", true, time.Date(2024, 2, 29, 0, 0, 0, 0, utc),
			time.Date(2024, 2, 29, 13, 14, 15, 123456000, utc), time.Date(2024, 2, 29, 13, 14, 15, 123456000, utc),
			[]byte{0x00, 0xff, 0x10}, mustUUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")},
		2: {int32(2), int16(32767), int32(2147483647), int64(-9223372036854775808), float32(3.25), 1e20, "1.50",
			"tab\tnew\nline", "ab", false, time.Date(1999, 12, 31, 0, 0, 0, 0, utc),
			time.Date(2000, 1, 1, 0, 0, 0, 0, utc), time.Date(2000, 1, 1, 0, 0, 0, 0, utc),
			[]byte{}, mustUUID("00000000-0000-0000-0000-000000000000")},
		3: {int32(3), int16(7), int32(-7), int64(1) << 40, float32(-0.5), 2.5e-10, "0.05",
			"typed", "x", true, time.Date(2024, 1, 1, 0, 0, 0, 0, utc),
			time.Date(2024, 1, 1, 12, 0, 0, 0, utc), time.Date(2024, 6, 30, 21, 59, 59, 999000000, utc),
			[]byte{0x41}, mustUUID("ffffffff-ffff-ffff-ffff-ffffffffffff")},
		4: {int32(4), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
	}

	// Row 1: literals in the SQL text.
	mustExec(t, conn, "INSERT INTO "+table+` VALUES (1, -32768, -2147483648, 9223372036854775807, 0.1, -1.5e300, 12345678.91,
		'héllo, ''wörld''', 'abcde', true, '2024-02-29', '2024-02-29 13:14:15.123456', '2024-02-29 13:14:15.123456+00',
		'\x00ff10', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')`)
	params := "$1"
	for i := 2; i <= len(typeColumns); i++ {
		params += fmt.Sprintf(", $%d", i)
	}
	insert := "INSERT INTO " + table + " VALUES (" + params + ")"
	// Row 2: every value as text.
	mustExec(t, conn, insert, "2", "32767", "2147483647", "-9223372036854775808", "3.25", "1e+20", "1.5",
		"tab\tnew\nline", "ab", "f", "1999-12-31", "2000-01-01 00:00:00", "2000-01-01 05:30:00+05:30",
		`\x`, "00000000-0000-0000-0000-000000000000")
	// Row 3: typed Go values, encoded by pgx (binary where it knows the type).
	mustExec(t, conn, insert, int32(3), int16(7), int32(-7), int64(1)<<40, float32(-0.5), 2.5e-10, "0.05",
		"typed", "x", true, pgtype.Date{Time: time.Date(2024, 1, 1, 0, 0, 0, 0, utc), Valid: true},
		pgtype.Timestamp{Time: time.Date(2024, 1, 1, 12, 0, 0, 0, utc), Valid: true},
		time.Date(2024, 7, 1, 0, 59, 59, 999000000, time.FixedZone("+03", 3*3600)),
		[]byte{0x41}, pgtype.UUID{Bytes: mustUUID("ffffffff-ffff-ffff-ffff-ffffffffffff"), Valid: true})
	// Row 4: NULLs.
	mustExec(t, conn, insert, int32(4), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)

	for id := int32(1); id <= 4; id++ {
		rows, err := conn.Query(ctx, "SELECT * FROM "+table+" WHERE id = $1", id)
		if err != nil {
			t.Fatalf("select row %d: %v", id, err)
		}
		if id == 1 {
			fds := rows.FieldDescriptions()
			for i, c := range typeColumns {
				if i >= len(fds) {
					t.Errorf("RowDescription has %d columns, want %d", len(fds), len(typeColumns))
					break
				}
				if fds[i].Name != c.name || fds[i].DataTypeOID != c.oid && !(c.oid == pgtype.TextOID && fds[i].DataTypeOID == pgtype.VarcharOID) {
					t.Errorf("RowDescription column %d: %s type OID %d, want %s (%s) OID %d", i, fds[i].Name, fds[i].DataTypeOID, c.name, c.typ, c.oid)
				}
			}
		}
		n := 0
		for rows.Next() {
			n++
			vals, err := rows.Values()
			if err != nil {
				t.Fatalf("decoding row %d: %v", id, err)
			}
			for i, w := range want[id] {
				if i >= len(vals) {
					t.Errorf("row %d has %d columns, want %d", id, len(vals), len(typeColumns))
					break
				}
				if !sameValue(vals[i], w) {
					t.Errorf("row %d column %s (%s): got %#v, want %#v", id, typeColumns[i].name, typeColumns[i].typ, vals[i], w)
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("select row %d: %v", id, err)
		}
		if n != 1 {
			t.Errorf("select row %d: %d rows, want 1", id, n)
		}
	}
}

// sameValue compares a value pgx decoded with the expected one: instants with Equal,
// numerics by their text, the rest exactly.
func sameValue(got, want any) bool {
	switch w := want.(type) {
	case time.Time:
		g, ok := got.(time.Time)
		return ok && g.Equal(w)
	case string:
		if n, ok := got.(pgtype.Numeric); ok {
			v, err := n.Value()
			return err == nil && v == w
		}
	case []byte:
		g, ok := got.([]byte)
		return ok && bytes.Equal(g, w)
	}
	return reflect.DeepEqual(got, want)
}
