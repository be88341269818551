package duckdb

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestDuckDBKeepsCharacterTypes: lakepg keeps varchar(n) and character(n) in lakepg.type
// column tags. DuckDB 1.5.5 attaches such a lake, reads it, writes to it (insert, rename a
// column, add a column, comment, rename the table) and the declared types are still there
// for lakepg afterwards.
func TestDuckDBKeepsCharacterTypes(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	ctx, dir, srv, conn := startLake(t)
	query(t, ctx, conn, `CREATE TABLE ch (id integer, v varchar(10), c char(4))`)
	query(t, ctx, conn, `INSERT INTO ch VALUES (1, 'abc', 'ab'), (2, NULL, 'wxyz')`)
	query(t, ctx, conn, `ALTER TABLE ch ALTER COLUMN v TYPE varchar(12)`)
	conn.Close(context.Background())
	srv.Stop(t)

	runDuckSteps(t, ctx, ducklakeExt, sqliteExt, dir, []string{
		`INSERT INTO public.ch VALUES (3, 'from duckdb', 'dk')`,
		`ALTER TABLE public.ch RENAME COLUMN v TO label`,
		`ALTER TABLE public.ch ADD COLUMN extra INTEGER`,
		`INSERT INTO public.ch VALUES (4, 'after alter', 'z', 4)`,
		`COMMENT ON TABLE public.ch IS 'table note'`,
		`COMMENT ON COLUMN public.ch.c IS 'column note'`,
		`ALTER TABLE public.ch RENAME TO chr`,
	})
	out := runDuckDB(t, duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: filepath.Join(dir, "catalog.sqlite"),
		Queries: []duckQuery{}, Raw: []string{
			`SELECT id::VARCHAR, label, '[' || c || ']', extra::VARCHAR FROM lk.public.chr ORDER BY id`,
			`SELECT data_type FROM duckdb_columns() WHERE database_name = 'lk' AND table_name = 'chr' ORDER BY column_index`,
		}})
	// DuckDB sees varchar columns with the values lakepg stored (character(n) padded)
	if got, want := fmtRows(out.Raw[0]), fmtRows(rows(
		[]string{"1", "abc", "[ab  ]", ""},
		[]string{"2", "", "[wxyz]", ""},
		[]string{"3", "from duckdb", "[dk]", ""},
		[]string{"4", "after alter", "[z]", "4"},
	)); got != want {
		t.Errorf("DuckDB reads\n%s\nwant\n%s", got, want)
	}
	if got, want := fmtFlat(out.Raw[1]), "INTEGER VARCHAR VARCHAR INTEGER "; got != want {
		t.Errorf("DuckDB column types %q, want %q", got, want)
	}

	srv, conn = startOn(t, ctx, dir)
	defer conn.Close(context.Background())
	types := query(t, ctx, conn, `SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'chr'::regclass AND attnum > 0 ORDER BY attnum`)
	if got, want := fmtRows(types.Rows), fmtRows(rows(
		[]string{"id", "integer"}, []string{"label", "character varying(12)"},
		[]string{"c", "character(4)"}, []string{"extra", "integer"},
	)); got != want {
		t.Errorf("lakepg column types after DuckDB's writes\n%s\nwant\n%s", got, want)
	}
	// RowDescription carries the declared type and its typmod
	rs, err := conn.Query(ctx, `SELECT label, c FROM chr`)
	if err != nil {
		t.Fatal(err)
	}
	fds := rs.FieldDescriptions()
	rs.Close()
	if len(fds) != 2 || fds[0].DataTypeOID != 1043 || fds[0].TypeModifier != 16 || fds[1].DataTypeOID != 1042 || fds[1].TypeModifier != 8 {
		t.Errorf("RowDescription %+v, want varchar typmod 16 and bpchar typmod 8", fds)
	}
	// DuckDB's rows read through the declared types; the limits still hold
	vals := query(t, ctx, conn, `SELECT id, label, '[' || c::varchar || ']', c = 'dk' FROM chr ORDER BY id`)
	if got, want := fmtRows(vals.Rows), fmtRows(rows(
		[]string{"1", "abc", "[ab]", "f"}, []string{"2", "", "[wxyz]", "f"},
		[]string{"3", "from duckdb", "[dk]", "t"}, []string{"4", "after alter", "[z]", "f"},
	)); got != want {
		t.Errorf("lakepg reads\n%s\nwant\n%s", got, want)
	}
	var pe *pgconn.PgError
	if _, err := conn.Exec(ctx, `INSERT INTO chr (id, label) VALUES (5, 'thirteen char')`); !errors.As(err, &pe) || pe.Code != "22001" {
		t.Errorf("too long a value after DuckDB's writes: %v, want 22001", err)
	}
}

// rows builds expected rows; "" stands for NULL.
func rows(rs ...[]string) [][]*string {
	out := make([][]*string, len(rs))
	for i, r := range rs {
		out[i] = make([]*string, len(r))
		for j, v := range r {
			if v != "" {
				s := v
				out[i][j] = &s
			}
		}
	}
	return out
}
