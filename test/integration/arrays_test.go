package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestArraysOverTheWire checks real arrays end to end: RowDescription's
// array OIDs, pgx scanning into Go slices in the text and binary formats,
// array parameters (text and binary), psql's text output, and psycopg
// returning Python lists.
func TestArraysOverTheWire(t *testing.T) {
	s := startServer(t, t.TempDir())
	for _, mode := range pgxModes {
		conn := s.connect(t, mode)
		ctx := testCtx(t)
		var ints []int32
		var strs []*string
		var i8 []int64
		var f8 []float64
		var bs []bool
		err := conn.QueryRow(ctx, `SELECT ARRAY[1, 2, 3], ARRAY['a', 'b c', NULL, '{x}'], '{7,8}'::bigint[], ARRAY[1.5::float8], ARRAY[true, false]`).
			Scan(&ints, &strs, &i8, &f8, &bs)
		if err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		if !slices.Equal(ints, []int32{1, 2, 3}) || len(strs) != 4 || *strs[1] != "b c" || strs[2] != nil || *strs[3] != "{x}" ||
			!slices.Equal(i8, []int64{7, 8}) || !slices.Equal(f8, []float64{1.5}) || !slices.Equal(bs, []bool{true, false}) {
			t.Fatalf("%v: scanned %v %v %v %v %v", mode, ints, strs, i8, f8, bs)
		}
		// parameters: = ANY($1) and a cast parameter
		var n int64
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM generate_series(1, 10) x WHERE x = ANY($1)`, []int64{2, 3, 11}).Scan(&n); err != nil || n != 2 {
			t.Fatalf("%v: = ANY($1): %d %v", mode, n, err)
		}
		var back []string
		if err := conn.QueryRow(ctx, `SELECT $1::text[] || ARRAY['z']`, []string{"x", "y y"}).Scan(&back); err != nil ||
			!slices.Equal(back, []string{"x", "y y", "z"}) {
			t.Fatalf("%v: text[] parameter: %v %v", mode, back, err)
		}
		var agg []int32
		if err := conn.QueryRow(ctx, `SELECT array_agg(x ORDER BY x DESC) FROM generate_series(1, 3) x`).Scan(&agg); err != nil ||
			!slices.Equal(agg, []int32{3, 2, 1}) {
			t.Fatalf("%v: array_agg: %v %v", mode, agg, err)
		}
	}
	// the OIDs in RowDescription
	conn := s.connect(t, pgx.QueryExecModeCacheStatement)
	rows, err := conn.Query(testCtx(t), `SELECT ARRAY[true], ARRAY['\x01'::bytea], ARRAY[1::int2], ARRAY[1], ARRAY['a'::text],
		ARRAY['a'::varchar], ARRAY[1::int8], ARRAY[1::float4], ARRAY[1::float8], ARRAY['2020-01-01'::timestamp], ARRAY['2020-01-01'::date],
		ARRAY['2020-01-01'::timestamptz], ARRAY['1 day'::interval], ARRAY[1.5], ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid]`)
	if err != nil {
		t.Fatal(err)
	}
	var oids []uint32
	for _, f := range rows.FieldDescriptions() {
		oids = append(oids, f.DataTypeOID)
	}
	rows.Close()
	if want := []uint32{1000, 1001, 1005, 1007, 1009, 1015, 1016, 1021, 1022, 1115, 1182, 1185, 1187, 1231, 2951}; !slices.Equal(oids, want) {
		t.Fatalf("array OIDs %v, want %v", oids, want)
	}
	out := s.mustPsql(t, `SELECT ARRAY['a b', '', NULL, 'x"y', 'back\slash'] AS a, (ARRAY[1, 2, 3])[2:3] AS s`)
	if !strings.Contains(out, ` {"a b","",NULL,"x\"y","back\\slash"} | {2,3}`) {
		t.Fatalf("psql output:\n%s", out)
	}
	// psycopg 3 turns arrays into lists, in text and binary
	py := `import psycopg, sys
c = psycopg.connect(sys.argv[1])
for binary in (False, True):
    r = c.execute("SELECT ARRAY[1, NULL, 3], %s::text[], %s = ANY(%s::int[])", (["a", None], 2, [1, 2]), binary=binary).fetchone()
    assert r == ([1, None, 3], ["a", None], True), r
print("ok")
`
	script := filepath.Join(t.TempDir(), "arrays.py")
	if err := os.WriteFile(script, []byte(py), 0o644); err != nil {
		t.Fatal(err)
	}
	pyOut, err := exec.Command("python3", script, s.dsn()).CombinedOutput()
	if err != nil || strings.TrimSpace(string(pyOut)) != "ok" {
		t.Fatalf("psycopg: %v\n%s", err, pyOut)
	}
}
