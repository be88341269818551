package duckdb

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestVariant: DuckDB 1.5.5 writes VARIANT columns in Parquet's variant
// encoding, shredded (typed_value) where a file's values share a type, and
// recursively for object fields and list elements; lakepg reads each as the
// JSON DuckDB gives for it (SQL NULL where DuckDB has NULL), deletes from
// such a table, and refuses to write one (0A000).
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
			for _, st := range []string{`INSERT INTO main.v VALUES (1000, '{"z": 1}')`, `UPDATE main.v SET id = 2000 WHERE id = 1`} {
				mrr := conn.PgConn().Exec(ctx, st)
				_, err := mrr.ReadAll()
				if err == nil || !strings.Contains(err.Error(), "0A000") {
					t.Fatalf("%s: %v, want SQLSTATE 0A000", st, err)
				}
			}
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
