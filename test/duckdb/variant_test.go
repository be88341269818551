package duckdb

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestVariant: DuckDB 1.5.5 writes VARIANT columns in Parquet's variant
// encoding, shredded (typed_value) where a file's values share a type, and
// recursively for object fields and list elements; lakepg reads each as the
// JSON DuckDB gives for it (SQL NULL where DuckDB has NULL), deletes from
// such a table, and writes variants DuckDB reads back as the same JSON.
func TestVariant(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			l := newEncLake(t, kind)
			in := l.duck
			in.Attach = l.attach + " (DATA_PATH " + sqlString(l.data) + ")"
			in.Steps = []string{
				`CREATE TABLE lk.v (id INTEGER, val VARIANT)`,
				// one file of mixed values (hardly shredded)
				`INSERT INTO lk.v VALUES (1, 42::VARIANT), (2, 'str'::VARIANT), (3, NULL), (4, [1, 2]::VARIANT),
					(5, {'a': 1, 'b': 'x', 'c': [true, NULL]}::VARIANT), (6, 1.5::DOUBLE::VARIANT), (7, true::VARIANT),
					(8, DATE '2024-01-02'::VARIANT), (9, 'a "quoted" ünïcode\nline'::VARIANT), (10, 12.345::DECIMAL(10,3)::VARIANT),
					(11, [{'x': 1}, {'x': NULL}]::VARIANT), (12, -7::TINYINT::VARIANT), (13, 'null'::JSON::VARIANT)`,
				// objects of one shape: fields shredded, a list field's elements too
				`INSERT INTO lk.v SELECT i, {'k': i, 's': 'x' || i, 'l': [i, i + 1]}::VARIANT FROM range(100, 160) r(i)`,
				// lists of ints, decimals, big integers
				`INSERT INTO lk.v SELECT i, [i, i * 2]::VARIANT FROM range(200, 260) r(i)`,
				`INSERT INTO lk.v SELECT i, (i / 7)::DECIMAL(10,3)::VARIANT FROM range(300, 360) r(i)`,
				`INSERT INTO lk.v SELECT i, (i * 1000000000000)::BIGINT::VARIANT FROM range(400, 460) r(i)`,
			}
			in.Queries = []duckQuery{}
			in.Raw = []string{`SELECT id, CASE WHEN val IS NULL THEN NULL ELSE val::JSON END FROM lk.main.v ORDER BY id`}
			theirs := runDuckDB(t, in).Raw[0]

			_, conn := l.start(t, ctx)
			mine := query(t, ctx, conn, `SELECT id, val, pg_typeof(val)::text FROM main.v ORDER BY id`)
			compareVariants(t, "DuckDB's variants read by lakepg", mine.Rows, theirs)

			query(t, ctx, conn, `DELETE FROM main.v WHERE id % 3 = 0`)
			mine = query(t, ctx, conn, `SELECT id, val, pg_typeof(val)::text FROM main.v ORDER BY id`)
			// lakepg writes variants DuckDB reads: json text re-encoded
			for _, st := range []string{
				`INSERT INTO main.v VALUES (1000, '{"z": 1, "arr": [1, "two", null, {"d": 2.25}], "big": 12345678901234, "neg": -300, "f": 1.5e300}'),
					(1001, '"just a string"'), (1002, '[]'), (1003, '{}'), (1004, 'true'), (1005, '-12.000'), (1006, '{"ü \"q\"": "line\nbreak"}')`,
				`INSERT INTO main.v SELECT i, ('{"k": ' || i || ', "s": "x' || i || '"}')::json FROM generate_series(1100, 1199) i`,
				`UPDATE main.v SET id = id + 5000 WHERE id IN (1, 2, 4, 5, 100, 1000)`,
			} {
				query(t, ctx, conn, st)
			}
			if _, err := conn.Exec(ctx, `INSERT INTO main.v VALUES (3000, 'not json')`); err == nil {
				t.Fatalf("invalid json into a variant: no error")
			}
			mine = query(t, ctx, conn, `SELECT id, val, pg_typeof(val)::text FROM main.v ORDER BY id`)
			in2 := l.duck
			in2.Attach = l.attach + " (READ_ONLY)"
			in2.Queries = []duckQuery{}
			in2.Raw = []string{`SELECT id, CASE WHEN val IS NULL THEN NULL ELSE val::JSON END FROM lk.main.v ORDER BY id`}
			compareVariants(t, "after lakepg's DELETE", mine.Rows, runDuckDB(t, in2).Raw[0])
		})
	}
}

// compareVariants compares lakepg's rows (id, json, type) with DuckDB's (id,
// json) as JSON values: key order and spacing aside.
func compareVariants(t *testing.T, label string, mine, theirs [][]*string) {
	t.Helper()
	if len(mine) != len(theirs) || len(mine) < 150 {
		t.Fatalf("%s: lakepg %d rows, DuckDB %d", label, len(mine), len(theirs))
	}
	norm := func(s *string) string {
		if s == nil {
			return "<NULL>"
		}
		d := json.NewDecoder(strings.NewReader(*s))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return "<bad JSON " + *s + ">"
		}
		// numbers by value: 1.5e300 and 1.5e+300 are one double
		var canon func(v any) any
		canon = func(v any) any {
			switch x := v.(type) {
			case json.Number:
				if f, err := strconv.ParseFloat(string(x), 64); err == nil {
					return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
				}
			case map[string]any:
				for k, e := range x {
					x[k] = canon(e)
				}
			case []any:
				for i, e := range x {
					x[i] = canon(e)
				}
			}
			return v
		}
		v = canon(v)
		var b bytes.Buffer
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false)
		_ = e.Encode(v)
		return strings.TrimSpace(b.String())
	}
	nulls := 0
	for i := range mine {
		if fmtVal(mine[i][0]) != fmtVal(theirs[i][0]) {
			t.Fatalf("%s: row %d: id %s, DuckDB %s", label, i, fmtVal(mine[i][0]), fmtVal(theirs[i][0]))
		}
		if mine[i][2] == nil || *mine[i][2] != "json" {
			t.Fatalf("%s: type %s, want json", label, fmtVal(mine[i][2]))
		}
		a, b := norm(mine[i][1]), norm(theirs[i][1])
		if a != b {
			t.Fatalf("%s: id %s: lakepg %s (%s), DuckDB %s", label, fmtVal(mine[i][0]), a, fmtVal(mine[i][1]), b)
		}
		if a == "<NULL>" {
			nulls++
		}
	}
	if nulls == 0 || nulls > 2 {
		t.Fatalf("%s: %d NULLs", label, nulls)
	}
}
