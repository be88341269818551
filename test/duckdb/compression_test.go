package duckdb

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestDuckDBReadsEveryCodec: lakepg writes LZ4_RAW by default and the codec
// the catalog option parquet_compression names at table, schema or global
// scope (DuckDB's option and names); DuckDB 1.5.5 reads every such file, and
// its parquet_metadata confirms the codec of each.
func TestDuckDBReadsEveryCodec(t *testing.T) {
	ducklakeExt, sqliteExt := duckdbExtensions(t)
	ctx, dir, srv, conn := startLake(t)
	fill := `INSERT INTO %s SELECT g, 'row ' || g, g * 0.25 FROM generate_series(1, 5000) g`
	query(t, ctx, conn, `CREATE TABLE dflt (id integer, s text, x numeric(12,2))`)
	query(t, ctx, conn, fmt.Sprintf(fill, "dflt"))
	query(t, ctx, conn, `CREATE TABLE zs (id integer, s text, x numeric(12,2))`)
	query(t, ctx, conn, `CALL lakepg.set_option('parquet_compression', 'zstd', table_name => 'zs')`)
	query(t, ctx, conn, fmt.Sprintf(fill, "zs"))
	query(t, ctx, conn, `CREATE SCHEMA sn`)
	query(t, ctx, conn, `CALL lakepg.set_option('parquet_compression', 'snappy', schema => 'sn')`)
	query(t, ctx, conn, `CREATE TABLE sn.t AS SELECT g AS id, 'row ' || g AS s, (g * 0.25)::numeric(12,2) AS x FROM generate_series(1, 5000) g`)
	query(t, ctx, conn, `CREATE TABLE un (id integer, s text, x numeric(12,2))`)
	query(t, ctx, conn, `CALL lakepg.set_option('parquet_compression', 'UNCOMPRESSED', table_name => 'un')`)
	query(t, ctx, conn, fmt.Sprintf(fill, "un"))
	var pe *pgconn.PgError
	if _, err := conn.Exec(ctx, `CALL lakepg.set_option('parquet_compression', 'lzma')`); !errors.As(err, &pe) || pe.Code != "22023" {
		t.Errorf("parquet_compression 'lzma': %v, want 22023", err)
	}
	if n := query(t, ctx, conn, `SELECT count(*) FROM zs WHERE s = 'row 4999'`); fmtRows(n.Rows) != fmtRows(rows([]string{"1"})) {
		t.Errorf("lakepg reads its zstd file: %s", fmtRows(n.Rows))
	}
	conn.Close(context.Background())
	srv.Stop(t)

	codec := func(table string) string {
		return `SELECT string_agg(DISTINCT compression, ',') FROM parquet_metadata(` + sqlString(filepath.Join(dir, "data", table, "*.parquet")) + `)`
	}
	out := runDuckDB(t, duckInput{Ducklake: ducklakeExt, Sqlite: sqliteExt, Catalog: filepath.Join(dir, "catalog.sqlite"),
		Queries: []duckQuery{}, Raw: []string{
			`SELECT count(*)::VARCHAR, sum(id)::VARCHAR, max(s), sum(x)::VARCHAR FROM lk.public.dflt`,
			`SELECT count(*)::VARCHAR, sum(id)::VARCHAR, max(s), sum(x)::VARCHAR FROM lk.public.zs`,
			`SELECT count(*)::VARCHAR, sum(id)::VARCHAR, max(s), sum(x)::VARCHAR FROM lk.sn.t`,
			`SELECT count(*)::VARCHAR, sum(id)::VARCHAR, max(s), sum(x)::VARCHAR FROM lk.public.un`,
			codec("public/dflt"), codec("public/zs"), codec("sn/t"), codec("public/un"),
		}})
	want := fmtRows(rows([]string{"5000", "12502500", "row 999", "3125625.00"}))
	for i, table := range []string{"dflt", "zs", "sn.t", "un"} {
		if got := fmtRows(out.Raw[i]); got != want {
			t.Errorf("DuckDB reads %s: %s, want %s", table, got, want)
		}
	}
	for i, codec := range []string{"LZ4_RAW", "ZSTD", "SNAPPY", "UNCOMPRESSED"} {
		if got := fmtFlat(out.Raw[4+i]); got != codec+" " {
			t.Errorf("file codec of table %d: %q, want %s", i, got, codec)
		}
	}
}
