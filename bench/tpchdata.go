package bench

import (
	"context"
	"embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

//go:embed queries/*.sql
var queryFiles embed.FS

// tpchTables are the eight TPC-H tables, smallest first.
var tpchTables = []string{"region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"}

// tpchPGSchema is the PostgreSQL DDL of the tables, with the types tpchgen-cli writes.
const tpchPGSchema = `
CREATE TABLE region(r_regionkey INTEGER, r_name VARCHAR, r_comment VARCHAR);
CREATE TABLE nation(n_nationkey INTEGER, n_name VARCHAR, n_regionkey INTEGER, n_comment VARCHAR);
CREATE TABLE supplier(s_suppkey BIGINT, s_name VARCHAR, s_address VARCHAR, s_nationkey INTEGER, s_phone VARCHAR, s_acctbal DECIMAL(15,2), s_comment VARCHAR);
CREATE TABLE customer(c_custkey BIGINT, c_name VARCHAR, c_address VARCHAR, c_nationkey INTEGER, c_phone VARCHAR, c_acctbal DECIMAL(15,2), c_mktsegment VARCHAR, c_comment VARCHAR);
CREATE TABLE part(p_partkey BIGINT, p_name VARCHAR, p_mfgr VARCHAR, p_brand VARCHAR, p_type VARCHAR, p_size INTEGER, p_container VARCHAR, p_retailprice DECIMAL(15,2), p_comment VARCHAR);
CREATE TABLE partsupp(ps_partkey BIGINT, ps_suppkey BIGINT, ps_availqty BIGINT, ps_supplycost DECIMAL(15,2), ps_comment VARCHAR);
CREATE TABLE orders(o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus VARCHAR, o_totalprice DECIMAL(15,2), o_orderdate DATE, o_orderpriority VARCHAR, o_clerk VARCHAR, o_shippriority INTEGER, o_comment VARCHAR);
CREATE TABLE lineitem(l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber BIGINT, l_quantity DECIMAL(15,2), l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), l_tax DECIMAL(15,2), l_returnflag VARCHAR, l_linestatus VARCHAR, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR, l_shipmode VARCHAR, l_comment VARCHAR);
`

// pgIndexes are test/tpch's two indexes for Q17 and Q20, only with BENCH_PG_INDEXES=1:
// by default PostgreSQL gets heap tables without indexes, as lakepg has none.
var pgIndexes = []string{
	"CREATE INDEX lineitem_part_supp ON lineitem (l_partkey, l_suppkey)",
	"CREATE INDEX partsupp_part ON partsupp (ps_partkey)",
}

// tpchQuery is query n (1–22) as the 22 files in queries/ have it: the validation
// parameters, written so that lakepg, DuckDB and PostgreSQL run it unchanged.
func tpchQuery(n int) string {
	b, err := queryFiles.ReadFile(fmt.Sprintf("queries/q%02d.sql", n))
	if err != nil {
		panic(err) // embedded: cannot happen
	}
	return string(b)
}

// tpchData returns the directory of <table>.parquet at scale factor sf, generating it with
// tpchgen-cli when the cache has none.
func (r *Runner) tpchData(ctx context.Context, sf float64) (string, error) {
	dir := filepath.Join(r.cfg.CacheDir, "tpch-sf"+sfName(sf))
	done := true
	for _, t := range tpchTables {
		done = done && fileExists(filepath.Join(dir, t+".parquet"))
	}
	if err := r.ensureTpchgen(ctx); err != nil {
		return "", err
	}
	if done {
		r.rep.command(fmt.Sprintf("%s parquet -s %s -o %s   # (cached from an earlier run)", r.tools.tpchgen, sfName(sf), dir))
		return dir, nil
	}
	tmp := dir + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	r.logf("generating TPC-H SF%s with tpchgen-cli", sfName(sf))
	if _, err := r.run(ctx, "", os.Environ(), r.tools.tpchgen, "parquet", "-s", sfName(sf), "-o", tmp, "-q"); err != nil {
		return "", err
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	return dir, nil
}

// loadResult is the time one system took to load the TPC-H tables.
type loadResult struct {
	system  string
	how     string
	elapsed time.Duration
	peak    int64
	size    int64 // bytes on disk, when known
}

// loadLakepgTPCH creates the eight tables in a lakepg lake with CREATE TABLE … AS SELECT *
// FROM read_parquet(…).
func (r *Runner) loadLakepgTPCH(ctx context.Context, s *lakepgServer, dataDir string) (loadResult, error) {
	mw := watchMemory(s.pids)
	defer mw.Close()
	mw.Reset()
	start := time.Now()
	for _, t := range tpchTables {
		st := fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM read_parquet('%s')", t, filepath.Join(dataDir, t+".parquet"))
		r.rep.command("lakepg: " + st)
		if err := execSQL(ctx, s.dsn(), "DROP TABLE IF EXISTS "+t, st); err != nil {
			return loadResult{}, fmt.Errorf("lakepg %s: %w", s.name, err)
		}
	}
	return loadResult{system: "lakepg", how: "CREATE TABLE … AS SELECT * FROM read_parquet(…), 8 tables",
		elapsed: time.Since(start), peak: mw.Peak()}, nil
}

// loadPostgresTPCH fills PostgreSQL's heap tables by piping lakepg's COPY … TO STDOUT into
// PostgreSQL's COPY … FROM STDIN, then analyzes (PostgreSQL reads no Parquet).
func (r *Runner) loadPostgresTPCH(ctx context.Context, lake *lakepgServer, pg *postgres, dsn string) (loadResult, error) {
	mw := watchMemory(pg.pids)
	defer mw.Close()
	mw.Reset()
	start := time.Now()
	dst, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return loadResult{}, err
	}
	defer dst.Close(context.Background())
	src, err := pgx.Connect(ctx, lake.dsn())
	if err != nil {
		return loadResult{}, err
	}
	defer src.Close(context.Background())
	for _, t := range tpchTables {
		if _, err := dst.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return loadResult{}, err
		}
	}
	r.rep.command("PostgreSQL: " + strings.Join(strings.Fields(tpchPGSchema), " "))
	if _, err := dst.Exec(ctx, tpchPGSchema); err != nil {
		return loadResult{}, fmt.Errorf("PostgreSQL: %w", err)
	}
	for _, t := range tpchTables {
		r.rep.command(fmt.Sprintf("lakepg: COPY %s TO STDOUT | PostgreSQL: COPY %s FROM STDIN", t, t))
		if err := pipeCopy(ctx, src, dst, "COPY "+t+" TO STDOUT", "COPY "+t+" FROM STDIN"); err != nil {
			return loadResult{}, fmt.Errorf("copying %s into PostgreSQL: %w", t, err)
		}
	}
	stmts := []string{"ANALYZE"}
	if r.cfg.PGIndexes {
		stmts = append(pgIndexes, stmts...)
	}
	for _, st := range stmts {
		r.rep.command("PostgreSQL: " + st)
		if _, err := dst.Exec(ctx, st); err != nil {
			return loadResult{}, fmt.Errorf("PostgreSQL: %s: %w", st, err)
		}
	}
	how := "COPY FROM STDIN (rows from lakepg's COPY TO STDOUT), then ANALYZE; heap tables without indexes"
	if r.cfg.PGIndexes {
		how = "COPY FROM STDIN (rows from lakepg's COPY TO STDOUT), two indexes (BENCH_PG_INDEXES=1), ANALYZE"
	}
	return loadResult{system: "PostgreSQL", how: how, elapsed: time.Since(start), peak: mw.Peak()}, nil
}

// pipeCopy streams one COPY TO STDOUT into a COPY FROM STDIN.
func pipeCopy(ctx context.Context, src, dst *pgx.Conn, out, in string) error {
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		_, err := src.PgConn().CopyTo(ctx, pw, out)
		pw.CloseWithError(err)
		errc <- err
	}()
	_, err := dst.PgConn().CopyFrom(ctx, pr, in)
	pr.CloseWithError(err)
	if serr := <-errc; serr != nil {
		return serr
	}
	return err
}

// ensureTPCH loads the TPC-H tables at Config.SF into the main lake and, when pgToo,
// into PostgreSQL, once per run.
func (r *Runner) ensureTPCH(ctx context.Context, pgToo bool) (string, error) {
	dataDir, err := r.tpchData(ctx, r.cfg.SF)
	if err != nil {
		return "", err
	}
	lake, err := r.mainLake(ctx)
	if err != nil {
		return "", err
	}
	if !r.tpchLake {
		r.logf("loading TPC-H SF%s into lakepg", sfName(r.cfg.SF))
		lr, err := r.loadLakepgTPCH(ctx, lake, dataDir)
		if err != nil {
			return "", err
		}
		lr.size = dirSize(filepath.Join(lake.dir, "data"))
		r.tpchLoads = append(r.tpchLoads, lr)
		r.tpchLake = true
	}
	if pgToo && !r.tpchPG {
		pg, err := r.postgresServer(ctx)
		if err != nil {
			return "", err
		}
		r.logf("loading TPC-H SF%s into PostgreSQL", sfName(r.cfg.SF))
		lr, err := r.loadPostgresTPCH(ctx, lake, pg, r.pgDB)
		if err != nil {
			return "", err
		}
		if c, err := pgx.Connect(ctx, r.pgDB); err == nil {
			c.QueryRow(ctx, "SELECT pg_database_size(current_database())").Scan(&lr.size)
			c.Close(ctx)
		}
		r.tpchLoads = append(r.tpchLoads, lr)
		r.tpchPG = true
	}
	return dataDir, nil
}
