package duckdb

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestDuckDBWithPrivileges: lakepg keeps owners and grants in lakepg_privilege beside the
// DuckLake tables. DuckDB 1.5.5 must still attach such a catalog, read and write it; a
// table DuckDB creates has no recorded owner, so lakepg gives it to the bootstrap
// superuser and a role without grants cannot read it.
func TestDuckDBWithPrivileges(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	ctx, dir, srv, conn := startLake(t)
	query(t, ctx, conn, `CREATE ROLE reader`)
	query(t, ctx, conn, `GRANT CREATE ON SCHEMA public TO reader`)
	query(t, ctx, conn, `SET ROLE reader`)
	query(t, ctx, conn, `CREATE TABLE owned (x integer)`)
	query(t, ctx, conn, `INSERT INTO owned VALUES (1), (2)`)
	query(t, ctx, conn, `GRANT SELECT ON owned TO PUBLIC`)
	query(t, ctx, conn, `RESET ROLE`)
	conn.Close(context.Background())
	srv.Stop(t)

	runDuckSteps(t, ctx, ducklakeExt, sqliteExt, dir, []string{
		`CREATE TABLE public.duck_made AS SELECT 1 AS x`,
		`INSERT INTO public.owned VALUES (3)`,
	})
	out := runDuckDB(t, duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: filepath.Join(dir, "catalog.sqlite"),
		Queries: []duckQuery{}, Raw: []string{
			`SELECT count(*)::VARCHAR, sum(x)::VARCHAR FROM lk.public.owned`,
		}})
	if got, want := fmtFlat(out.Raw[0]), "3 6 "; got != want {
		t.Errorf("DuckDB reads owned: %q, want %q", got, want)
	}

	srv, conn = startOn(t, ctx, dir)
	defer conn.Close(context.Background())
	res := query(t, ctx, conn, `SELECT relname, pg_get_userbyid(relowner) = current_user AS bootstrap, relacl::text
		FROM pg_class WHERE relname IN ('owned', 'duck_made') ORDER BY 1`)
	if got, want := fmtRows(res.Rows), fmtRows(rows(
		[]string{"duck_made", "t", ""},
		[]string{"owned", "f", "{reader=arwdDxt/reader,=r/reader}"},
	)); got != want {
		t.Errorf("owners after DuckDB\n%s\nwant\n%s", got, want)
	}
	query(t, ctx, conn, `SET ROLE reader`)
	res = query(t, ctx, conn, `SELECT count(*) FROM owned`)
	if got := fmtFlat(res.Rows); got != "3 " {
		t.Errorf("reader reads owned: %q", got)
	}
	_, err := conn.Exec(ctx, `SELECT * FROM duck_made`)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42501" {
		t.Errorf("reader reads DuckDB's table: %v, want 42501", err)
	}
}
