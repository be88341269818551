package duckdb

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/test/testserver"
)

// listElems are the element types of the list columns DuckDB writes: column name, DuckDB
// type, an expression of the integer n giving an element, and the DuckDB expression of an
// element x that prints it as compareValue expects.
var listElems = []struct{ col, typ, gen, text string }{
	{"c_bool", "BOOLEAN", "{n} % 2 = 0", "x::VARCHAR"},
	{"c_i1", "TINYINT", "({n} % 200 - 100)::TINYINT", "x::VARCHAR"},
	{"c_i2", "SMALLINT", "({n} * 7 % 60000 - 30000)::SMALLINT", "x::VARCHAR"},
	{"c_i4", "INTEGER", "({n} * 1000003 % 4000000000 - 2000000000)::INTEGER", "x::VARCHAR"},
	{"c_i8", "BIGINT", "{n} * 100000000000", "x::VARCHAR"},
	{"c_u1", "UTINYINT", "({n} % 256)::UTINYINT", "x::VARCHAR"},
	{"c_u2", "USMALLINT", "({n} % 65536)::USMALLINT", "x::VARCHAR"},
	{"c_u4", "UINTEGER", "({n} * 1000003 % 4294967296)::UINTEGER", "x::VARCHAR"},
	{"c_f4", "REAL", "({n} / 8)::REAL", "x::VARCHAR"},
	{"c_f8", "DOUBLE", "{n} / 3 - 100", "x::VARCHAR"},
	{"c_dec", "DECIMAL(10,2)", "({n} / 4)::DECIMAL(10,2)", "x::VARCHAR"},
	{"c_txt", "VARCHAR", "'v' || {n} || CASE WHEN {n} % 3 = 0 THEN ' a,b{}\"q\"\\' ELSE '' END", "x::VARCHAR"},
	{"c_date", "DATE", "DATE '2000-01-01' + {n}::INTEGER", "x::VARCHAR"},
	{"c_ts", "TIMESTAMP", "TIMESTAMP '2000-01-01' + to_microseconds({n} * 1000003)", "epoch_us(x)::VARCHAR"},
	{"c_tstz", "TIMESTAMPTZ", "TIMESTAMPTZ '2000-01-01 00:00:00+00' + to_microseconds({n} * 999983)", "epoch_us(x)::VARCHAR"},
	{"c_blob", "BLOB", "('b' || {n})::BLOB", "hex(x)"},
	{"c_uuid", "UUID", "md5({n}::VARCHAR)::UUID", "x::VARCHAR"},
	{"c_iv", "INTERVAL", "to_days(({n} % 40)::INTEGER) + to_microseconds({n} * 1000)", "x::VARCHAR"},
}

// listSteps make DuckDB write list columns of every element type: NULL lists, empty
// lists, NULL elements, lists of several lengths, special values, several row groups
// (500 rows each), a delete file and inlined deletes. (-0.0 is not among the float
// elements: lakepg's array encoding orders -0 as 0 and prints it as 0.)
func listSteps() []string {
	var cols, vals, edge1, edge2 []string
	for _, e := range listElems {
		cols = append(cols, fmt.Sprintf("%s %s[]", e.col, e.typ))
		gen := func(n string) string { return "(" + strings.ReplaceAll(e.gen, "{n}", n) + ")" }
		vals = append(vals, fmt.Sprintf(`CASE WHEN i %% 7 = 0 THEN NULL WHEN i %% 7 = 1 THEN [] WHEN i %% 7 = 2 THEN [NULL]
			ELSE list_transform(range(i %% 6), k -> CASE WHEN (i + k) %% 5 = 0 THEN NULL ELSE %s END) END`, gen("(i + k)")))
		edge1 = append(edge1, "["+gen("1")+", NULL, "+gen("2")+"]")
		edge2 = append(edge2, "[NULL, NULL]")
	}
	specials := `(3, [true], [-128, 127], [-32768, 32767], [-2147483648, 2147483647], [-9223372036854775808, 9223372036854775807],
		[0, 255], [0, 65535], [0, 4294967295], ['nan'::REAL, 'inf'::REAL, 0.0::REAL], ['nan'::DOUBLE, '-inf'::DOUBLE, 1e308],
		[-99999999.99, 0.01], ['', 'NULL', 'null', ' lead', 'a"b', 'back\slash', 'ü ✓', '{x}', 'a,b'],
		['0001-01-01'::DATE, '9999-12-31'::DATE], ['1900-06-15 12:00:00.5'::TIMESTAMP], ['1969-12-31 23:59:59.999999+00'::TIMESTAMPTZ],
		['\x00\xFF'::BLOB, ''::BLOB], ['00000000-0000-0000-0000-000000000000'::UUID], [INTERVAL '1 year 2 months 3 days 04:05:06.5'])`
	return []string{
		`CALL lk.set_option('parquet_row_group_size', 500)`,
		"CREATE TABLE l (id INTEGER, " + strings.Join(cols, ", ") + ")",
		"INSERT INTO l VALUES (1, " + strings.Join(edge1, ", ") + "), (2, " + strings.Join(edge2, ", ") + "), " + specials +
			", (4" + strings.Repeat(", NULL", len(listElems)) + "), (5" + strings.Repeat(", []", len(listElems)) + ")" +
			", (6" + strings.Repeat(", NULL", len(listElems)) + "), (7, [false]" + strings.Repeat(", NULL", len(listElems)-1) + ")" +
			", (8" + strings.Repeat(", []", len(listElems)) + "), (9" + strings.Repeat(", [NULL]", len(listElems)) + ")" +
			", (10" + strings.Repeat(", NULL", len(listElems)) + "), (11" + strings.Repeat(", NULL", len(listElems)) + ")",
		"INSERT INTO l SELECT i, " + strings.Join(vals, ", ") + " FROM range(100, 2600) r(i)",
		`DELETE FROM l WHERE id % 13 = 0`,
		`DELETE FROM l WHERE id IN (105, 2)`,
		// a small insert: DuckDB keeps it inlined in the catalog, as text
		`INSERT INTO l (id, c_i4, c_txt, c_f8) VALUES (12, [5, NULL], ['x', NULL, 'y z'], []), (13, NULL, [], [1.5])`,
	}
}

// structSteps make DuckDB write structs, lists of structs, structs with lists and maps.
var structSteps = []string{
	`CREATE TABLE st (id INTEGER, s STRUCT(x INTEGER, y VARCHAR), ls STRUCT(p INTEGER, q INTEGER[])[],
		sl STRUCT(a INTEGER[], b STRUCT(c VARCHAR, d DOUBLE)), m MAP(VARCHAR, INTEGER), mi MAP(INTEGER, DOUBLE[]))`,
	`INSERT INTO st SELECT i,
		CASE WHEN i % 5 = 0 THEN NULL ELSE {'x': CASE WHEN i % 3 = 0 THEN NULL ELSE i END, 'y': CASE WHEN i % 4 = 0 THEN NULL ELSE 'y(' || i || '), "q"' END} END,
		CASE WHEN i % 6 = 0 THEN NULL WHEN i % 6 = 1 THEN [] ELSE
			list_transform(range(i % 4), k -> CASE WHEN k = 2 THEN NULL ELSE {'p': i + k, 'q': CASE WHEN k = 1 THEN NULL ELSE range(k + i % 3)::INTEGER[] END} END) END,
		CASE WHEN i % 7 = 0 THEN NULL ELSE {'a': CASE WHEN i % 2 = 0 THEN [i, NULL] ELSE [] END, 'b': CASE WHEN i % 3 = 0 THEN NULL ELSE {'c': 'c' || i, 'd': i / 2} END} END,
		CASE WHEN i % 8 = 0 THEN NULL WHEN i % 8 = 1 THEN MAP {} ELSE MAP {'k' || i: i, 'n"' || i: NULL} END,
		CASE WHEN i % 9 = 0 THEN NULL ELSE MAP {i: [i / 2, NULL], i + 1: []} END
		FROM range(0, 1500) r(i)`,
	`DELETE FROM st WHERE id % 11 = 0`,
}

// duckNestedScript runs steps on a new lake (SQLite catalog), then answers each query with
// its rows (Python values: lists, strings, None) as JSON.
const duckNestedScript = `
import json, sys, duckdb
inp = json.load(sys.stdin)
c = duckdb.connect()
c.execute("SET enable_progress_bar=false")
c.execute("SET autoinstall_known_extensions=false")
c.execute("SET autoload_known_extensions=false")
c.execute("LOAD '%s'" % inp["ducklake"].replace("'", "''"))
c.execute("LOAD '%s'" % inp["sqlite"].replace("'", "''"))
c.execute("ATTACH 'ducklake:sqlite:%s' AS lk (DATA_PATH '%s')" % (inp["catalog"].replace("'", "''"), inp["data"].replace("'", "''")))
c.execute("USE lk")
for st in inp["steps"]:
    c.execute(st)
out = []
for q in inp["queries"]:
    out.append([list(r) for r in c.execute(q).fetchall()])
json.dump(out, sys.stdout)
`

// TestLakepgReadsDuckDBNested: DuckDB writes list, struct and map columns; lakepg reads
// them as PostgreSQL arrays, composite values and json text, and every value must be
// DuckDB's.
func TestLakepgReadsDuckDBNested(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	dir := t.TempDir()
	catalogPath, dataPath := filepath.Join(dir, "catalog.sqlite"), filepath.Join(dir, "data")+"/"

	var listExprs []string
	for _, e := range listElems {
		listExprs = append(listExprs, fmt.Sprintf("list_transform(%s, x -> %s)", e.col, e.text))
	}
	queries := []string{
		"SELECT id, " + strings.Join(listExprs, ", ") + " FROM l ORDER BY id",
		`SELECT id, to_json(s)::VARCHAR, to_json(ls)::VARCHAR, to_json(sl)::VARCHAR, to_json(m)::VARCHAR, to_json(mi)::VARCHAR FROM st ORDER BY id`,
		`SELECT count(*) FROM l`,
	}
	in, err := json.Marshal(map[string]any{"ducklake": ducklakeExt, "sqlite": sqliteExt,
		"catalog": catalogPath, "data": dataPath, "steps": append(listSteps(), structSteps...), "queries": queries})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", "-c", duckNestedScript)
	cmd.Stdin = strings.NewReader(string(in))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB writing the lake failed: %v\n%s", err, stderr.String())
	}
	var duck [][][]any
	if err := json.Unmarshal(stdout, &duck); err != nil {
		t.Fatalf("DuckDB script output: %v\n%s", err, stdout)
	}

	srv := testserver.Start(t, testserver.Binary(t), dir)
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatalf("connecting to lakepg: %v", err)
	}
	defer conn.Close(context.Background())
	query(t, ctx, conn, `SET TimeZone = 'UTC'`)

	t.Run("lists", func(t *testing.T) {
		res := query(t, ctx, conn, `SELECT * FROM l ORDER BY id`)
		if len(res.Rows) != len(duck[0]) {
			t.Fatalf("lakepg has %d rows, DuckDB %d", len(res.Rows), len(duck[0]))
		}
		if n := fmt.Sprint(duck[2][0][0]); n != strconv.Itoa(len(res.Rows)) {
			t.Errorf("DuckDB count(*) %s, lakepg returned %d rows", n, len(res.Rows))
		}
		if len(res.Rows) < 2000 {
			t.Fatalf("only %d rows: the lake has fewer than the steps wrote", len(res.Rows))
		}
		bad := 0
		for r, row := range res.Rows {
			drow := duck[0][r]
			if fmt.Sprint(drow[0]) != *row[0] {
				t.Fatalf("row %d: lakepg id %s, DuckDB %v", r, *row[0], drow[0])
			}
			for c := 1; c < len(row); c++ {
				oid, _ := strconv.Atoi(res.Types[c])
				elemOID, ok := arrayElemOID[oid]
				if !ok {
					t.Fatalf("column %s: lakepg type OID %d is not an array type", res.Columns[c], oid)
				}
				if msg := compareList(elemOID, row[c], drow[c]); msg != "" {
					t.Errorf("table l, id %s, column %s: %s", *row[0], res.Columns[c], msg)
					if bad++; bad > 10 {
						t.FailNow()
					}
				}
			}
		}
		t.Logf("compared %d rows of %d list columns", len(res.Rows), len(listElems))
	})

	t.Run("structs and maps", func(t *testing.T) {
		res := query(t, ctx, conn, `SELECT * FROM st ORDER BY id`)
		if len(res.Rows) != len(duck[1]) {
			t.Fatalf("lakepg has %d rows, DuckDB %d", len(res.Rows), len(duck[1]))
		}
		wantOIDs := []string{"23", "2249", "2287", "2249", "114", "114"}
		if strings.Join(res.Types, ",") != strings.Join(wantOIDs, ",") {
			t.Errorf("type OIDs %v, want %v", res.Types, wantOIDs)
		}
		// the shape of each column: i = int, s = text, d = double, [x] a list, (x,y) a record
		shapes := []string{"", "(i,s)", "[(i,[i])]", "([i],(s,d))", "", ""}
		bad := 0
		for r, row := range res.Rows {
			drow := duck[1][r]
			for c := 1; c < len(row); c++ {
				var msg string
				if shapes[c] == "" {
					msg = compareJSON(row[c], drow[c])
				} else {
					msg = compareShaped(shapes[c], row[c], drow[c])
				}
				if msg != "" {
					t.Errorf("table st, id %s, column %s: %s", *row[0], res.Columns[c], msg)
					if bad++; bad > 10 {
						t.FailNow()
					}
				}
			}
		}
		t.Logf("compared %d rows of struct, list-of-struct and map columns", len(res.Rows))
	})

	t.Run("filters and projections", func(t *testing.T) {
		// a nested column beside pruned scalar predicates, and unnest over a read list
		r := query(t, ctx, conn, `SELECT id, c_i4 FROM l WHERE id BETWEEN 1000 AND 1010 AND c_i4 IS NOT NULL ORDER BY id`)
		var want []string
		for _, d := range duck[0] {
			id := int(d[0].(float64))
			if id >= 1000 && id <= 1010 && d[4] != nil {
				want = append(want, strconv.Itoa(id))
			}
		}
		var got []string
		for _, row := range r.Rows {
			got = append(got, *row[0])
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("ids %v, want %v", got, want)
		}
		n := query(t, ctx, conn, `SELECT count(*) FROM (SELECT unnest(c_i8) FROM l) u`)
		total := 0
		for _, d := range duck[0] {
			if l, ok := d[5].([]any); ok {
				total += len(l)
			}
		}
		if *n.Rows[0][0] != strconv.Itoa(total) {
			t.Errorf("unnest of c_i8 gives %s elements, DuckDB's lists hold %d", *n.Rows[0][0], total)
		}
	})
}

// arrayElemOID maps PostgreSQL array type OIDs to their element OIDs.
var arrayElemOID = map[int]int{1000: oidBool, 1005: oidInt2, 1007: oidInt4, 1016: oidInt8, 1021: oidFloat4, 1022: oidFloat8,
	1231: oidNumeric, 1009: oidText, 1015: oidVarchar, 1182: oidDate, 1115: oidTimestamp, 1185: oidTimestamptz, 1001: oidBytea,
	2951: oidUUID, 1187: oidInterval}

// compareList compares lakepg's array text with DuckDB's list of element texts.
func compareList(elemOID int, pg *string, dk any) string {
	if pg == nil || dk == nil {
		if pg == nil && dk == nil {
			return ""
		}
		return fmt.Sprintf("lakepg %s, DuckDB %v", fmtVal(pg), dk)
	}
	elems, err := parsePGArray(*pg)
	if err != nil {
		return err.Error()
	}
	dl, ok := dk.([]any)
	if !ok {
		return fmt.Sprintf("DuckDB value %v is not a list", dk)
	}
	if len(elems) != len(dl) {
		return fmt.Sprintf("lakepg %s has %d elements, DuckDB %v %d", *pg, len(elems), dl, len(dl))
	}
	for i := range elems {
		var d *string
		if dl[i] != nil {
			s := fmt.Sprint(dl[i])
			d = &s
		}
		if msg := compareValue(elemOID, elems[i], d); msg != "" {
			return fmt.Sprintf("element %d of %s: %s", i+1, *pg, msg)
		}
	}
	return ""
}

// parsePGArray splits PostgreSQL's text of a one-dimensional array into its elements (nil
// for NULL).
func parsePGArray(s string) ([]*string, error) {
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, fmt.Errorf("not an array: %q", s)
	}
	return splitComposite(s[1:len(s)-1], ',', true)
}

// parsePGRecord splits PostgreSQL's text of a record into its fields (nil for NULL).
func parsePGRecord(s string) ([]*string, error) {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return nil, fmt.Errorf("not a record: %q", s)
	}
	return splitComposite(s[1:len(s)-1], ',', false)
}

// splitComposite splits array (unquoted NULL is NULL, backslash escapes) or record
// (empty is NULL, "" inside quotes is a quote) contents.
func splitComposite(s string, sep byte, array bool) ([]*string, error) {
	var out []*string
	if array && s == "" {
		return out, nil
	}
	i := 0
	for {
		var b strings.Builder
		quoted := false
		for i < len(s) && s[i] != sep {
			switch c := s[i]; {
			case c == '"':
				quoted = true
				i++
				for {
					if i >= len(s) {
						return nil, fmt.Errorf("unterminated quote in %q", s)
					}
					if s[i] == '\\' && i+1 < len(s) {
						b.WriteByte(s[i+1])
						i += 2
						continue
					}
					if s[i] == '"' {
						if !array && i+1 < len(s) && s[i+1] == '"' {
							b.WriteByte('"')
							i += 2
							continue
						}
						i++
						break
					}
					b.WriteByte(s[i])
					i++
				}
			case c == '\\' && i+1 < len(s):
				b.WriteByte(s[i+1])
				i += 2
			default:
				b.WriteByte(c)
				i++
			}
		}
		v := b.String()
		switch {
		case array && !quoted && v == "NULL", !array && !quoted && v == "":
			out = append(out, nil)
		default:
			out = append(out, &v)
		}
		if i >= len(s) {
			return out, nil
		}
		i++ // separator
	}
}

// compareShaped compares lakepg's text of a nested value of the given shape with DuckDB's
// to_json of it.
func compareShaped(shape string, pg *string, dk any) string {
	var dv any
	if dk != nil {
		if err := json.Unmarshal([]byte(dk.(string)), &dv); err != nil {
			return fmt.Sprintf("DuckDB JSON %v: %v", dk, err)
		}
	}
	pv, err := pgShaped(shape, pg)
	if err != nil {
		return err.Error()
	}
	if msg := sameShaped(pv, dv); msg != "" {
		return fmt.Sprintf("lakepg %s, DuckDB %v: %s", fmtVal(pg), dk, msg)
	}
	return ""
}

// pgShaped parses PostgreSQL text of shape into nested []any of strings (nil for NULL).
func pgShaped(shape string, s *string) (any, error) {
	if s == nil {
		return nil, nil
	}
	switch shape[0] {
	case '[':
		elems, err := parsePGArray(*s)
		if err != nil {
			return nil, err
		}
		out := []any{}
		for _, e := range elems {
			v, err := pgShaped(shape[1:len(shape)-1], e)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case '(':
		fields, err := parsePGRecord(*s)
		if err != nil {
			return nil, err
		}
		shapes := splitShapes(shape[1 : len(shape)-1])
		if len(shapes) != len(fields) {
			return nil, fmt.Errorf("record %q has %d fields, want %d", *s, len(fields), len(shapes))
		}
		out := []any{}
		for i, f := range fields {
			v, err := pgShaped(shapes[i], f)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return *s, nil
}

// splitShapes splits a record shape's field list at top-level commas.
func splitShapes(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// sameShaped compares a parsed PostgreSQL value with decoded DuckDB JSON: records against
// objects field by field (DuckDB's to_json keeps field order, the object's keys are the
// field names in order), lists element by element, scalars by their text (numbers by
// value).
func sameShaped(pv, dv any) string {
	if pv == nil || dv == nil {
		if pv == nil && dv == nil {
			return ""
		}
		return fmt.Sprintf("%v vs %v", pv, dv)
	}
	switch p := pv.(type) {
	case []any:
		switch d := dv.(type) {
		case []any:
			if len(p) != len(d) {
				return fmt.Sprintf("%d vs %d elements", len(p), len(d))
			}
			for i := range p {
				if msg := sameShaped(p[i], d[i]); msg != "" {
					return msg
				}
			}
			return ""
		case map[string]any:
			vals, err := orderedValues(d)
			if err != nil {
				return err.Error()
			}
			if len(p) != len(vals) {
				return fmt.Sprintf("%d vs %d fields", len(p), len(vals))
			}
			for i := range p {
				if msg := sameShaped(p[i], vals[i]); msg != "" {
					return msg
				}
			}
			return ""
		}
	case string:
		switch d := dv.(type) {
		case string:
			if p == d {
				return ""
			}
		case float64:
			if f, err := strconv.ParseFloat(p, 64); err == nil && f == d {
				return ""
			}
		}
	}
	return fmt.Sprintf("%v vs %v", pv, dv)
}

// orderedValues returns an object's values in the order its fields were declared. The
// struct columns of this test name their fields in alphabetical order, which is that
// order.
func orderedValues(m map[string]any) ([]any, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out, nil
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// compareJSON compares lakepg's json text of a map with DuckDB's to_json.
func compareJSON(pg *string, dk any) string {
	if pg == nil || dk == nil {
		if pg == nil && dk == nil {
			return ""
		}
		return fmt.Sprintf("lakepg %s, DuckDB %v", fmtVal(pg), dk)
	}
	var a, b any
	if err := json.Unmarshal([]byte(*pg), &a); err != nil {
		return fmt.Sprintf("lakepg %q is not JSON: %v", *pg, err)
	}
	if err := json.Unmarshal([]byte(dk.(string)), &b); err != nil {
		return fmt.Sprintf("DuckDB %q is not JSON: %v", dk, err)
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("lakepg %s, DuckDB %s", *pg, dk)
	}
	return ""
}
