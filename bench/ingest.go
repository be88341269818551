package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// The ingest table: six columns of the common types, generated deterministically.
const (
	ingestPGColumns   = "id bigint, grp integer, amount numeric(12,2), day date, label text, score double precision"
	ingestDuckColumns = "id BIGINT, grp INTEGER, amount DECIMAL(12,2), day DATE, label VARCHAR, score DOUBLE"
)

// ingestTables are the ingest table's rows in a file (PostgreSQL's COPY text format) and
// the table loaded from it into lakepg's main lake and PostgreSQL; the wire section reads
// them back.
type ingestTables struct {
	file   string
	rows   int64
	bytes  int64
	lakepg opResult
	pg     opResult
}

// opResult is one timed operation on one system.
type opResult struct {
	system  string
	elapsed time.Duration
	rows    int64
	peak    int64
}

// writeIngestFile writes n rows as tab-separated text: no quoting, escapes or NULLs, so
// PostgreSQL's text format and DuckDB's CSV reader read it alike.
func writeIngestFile(path string, n int64) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	days := make([][]byte, 1500)
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range days {
		days[i] = []byte(base.AddDate(0, 0, i).Format("2006-01-02"))
	}
	var buf []byte
	for i := int64(1); i <= n; i++ {
		buf = buf[:0]
		buf = strconv.AppendInt(buf, i, 10)
		buf = append(buf, '\t')
		buf = strconv.AppendInt(buf, i%1000, 10)
		buf = append(buf, '\t')
		cents := i * 7919 % 10000000
		buf = strconv.AppendInt(buf, cents/100, 10)
		buf = append(buf, '.', byte('0'+cents%100/10), byte('0'+cents%10), '\t')
		buf = append(buf, days[i%1500]...)
		buf = append(buf, "\titem-"...)
		buf = strconv.AppendUint(buf, uint64(i)*2654435761%(1<<32), 16)
		buf = append(buf, '\t')
		buf = strconv.AppendFloat(buf, float64(i%9973)/8, 'g', -1, 64)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return 0, err
	}
	return st.Size(), f.Close()
}

// copyFile runs COPY … FROM STDIN with the file's contents and times it.
func copyFile(ctx context.Context, dsn, table, path string, pids func() []int) (opResult, error) {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return opResult{}, err
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
		return opResult{}, err
	}
	if _, err := c.Exec(ctx, "CREATE TABLE "+table+" ("+ingestPGColumns+")"); err != nil {
		return opResult{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return opResult{}, err
	}
	defer f.Close()
	mw := watchMemory(pids)
	defer mw.Close()
	mw.Reset()
	start := time.Now()
	tag, err := c.PgConn().CopyFrom(ctx, bufio.NewReaderSize(f, 1<<20), "COPY "+table+" FROM STDIN")
	if err != nil {
		return opResult{}, err
	}
	return opResult{elapsed: time.Since(start), rows: tag.RowsAffected(), peak: mw.Peak()}, nil
}

// ensureIngest writes the ingest file and loads it into lakepg and PostgreSQL once.
func (r *Runner) ensureIngest(ctx context.Context) (*ingestTables, error) {
	if r.ingest != nil {
		return r.ingest, nil
	}
	lake, err := r.mainLake(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := r.postgresServer(ctx)
	if err != nil {
		return nil, err
	}
	it := &ingestTables{file: filepath.Join(r.work, "ingest.tsv"), rows: r.cfg.Rows}
	r.logf("writing %d rows to %s", it.rows, it.file)
	if it.bytes, err = writeIngestFile(it.file, it.rows); err != nil {
		return nil, err
	}
	r.rep.command(fmt.Sprintf("CREATE TABLE ingest (%s); COPY ingest FROM STDIN   # lakepg and PostgreSQL, through pgx, %d rows", ingestPGColumns, it.rows))
	r.logf("COPY into lakepg")
	if it.lakepg, err = copyFile(ctx, lake.dsn(), "ingest", it.file, lake.pids); err != nil {
		return nil, fmt.Errorf("lakepg: %w", err)
	}
	it.lakepg.system = "lakepg"
	r.logf("COPY into PostgreSQL")
	if it.pg, err = copyFile(ctx, r.pgDB, "ingest", it.file, pg.pids); err != nil {
		return nil, fmt.Errorf("PostgreSQL: %w", err)
	}
	it.pg.system = "PostgreSQL"
	r.ingest = it
	return it, nil
}

func (r *Runner) sectionIngest(ctx context.Context, s *section) error {
	it, err := r.ensureIngest(ctx)
	if err != nil {
		return err
	}
	dataDir, err := r.tpchData(ctx, r.cfg.SF)
	if err != nil {
		return err
	}
	lineitem := filepath.Join(dataDir, "lineitem.parquet")

	// DuckDB writes into a DuckLake of its own (SQLite catalog, Parquet files): the same job.
	dir := filepath.Join(r.work, "duck-ingest")
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return err
	}
	d, err := r.startDuck(ctx, "ingest", ":memory:", r.cfg.Threads, "ducklake", "sqlite")
	if err != nil {
		return err
	}
	defer d.close()
	mw := watchMemory(d.pids)
	defer mw.Close()
	duckOp := func(sqls ...string) (opResult, error) {
		mw.Reset()
		var total float64
		for _, st := range sqls {
			r.rep.command("DuckDB: " + st)
			rep, err := d.exec(st, 0, false)
			if err != nil {
				return opResult{}, err
			}
			total += rep.Seconds
		}
		return opResult{system: "DuckDB", elapsed: time.Duration(total * float64(time.Second)), peak: mw.Peak()}, nil
	}
	if _, err := duckOp(fmt.Sprintf("ATTACH 'ducklake:sqlite:%s' AS dl (DATA_PATH '%s/')", filepath.Join(dir, "catalog.sqlite"), filepath.Join(dir, "data")),
		"CREATE TABLE dl.ingest ("+ingestDuckColumns+")"); err != nil {
		return err
	}
	duckCopy, err := duckOp(fmt.Sprintf("COPY dl.ingest FROM '%s' (FORMAT csv, DELIMITER '\\t', HEADER false)", it.file))
	if err != nil {
		return err
	}
	duckCopy.rows = it.rows
	duckCTAS, err := duckOp(fmt.Sprintf("CREATE TABLE dl.ctas_lineitem AS SELECT * FROM read_parquet('%s')", lineitem))
	if err != nil {
		return err
	}

	lake := r.lake
	lmw := watchMemory(lake.pids)
	defer lmw.Close()
	ctas := fmt.Sprintf("CREATE TABLE ctas_lineitem AS SELECT * FROM read_parquet('%s')", lineitem)
	r.rep.command("lakepg: " + ctas)
	if err := execSQL(ctx, lake.dsn(), "DROP TABLE IF EXISTS ctas_lineitem"); err != nil {
		return err
	}
	lmw.Reset()
	start := time.Now()
	if err := execSQL(ctx, lake.dsn(), ctas); err != nil {
		return fmt.Errorf("lakepg: %w", err)
	}
	lakeCTAS := opResult{system: "lakepg", elapsed: time.Since(start), peak: lmw.Peak()}
	var liRows int64
	if c, err := pgx.Connect(ctx, lake.dsn()); err == nil {
		c.QueryRow(ctx, "SELECT count(*) FROM ctas_lineitem").Scan(&liRows)
		c.Close(ctx)
	}
	lakeCTAS.rows, duckCTAS.rows = liRows, liRows

	s.printf("**COPY FROM STDIN** of %d rows (%s of text: bigint, integer, numeric(12,2), date, text, double precision) "+
		"from a client through pgx, into lakepg (one Parquet file, one snapshot) and into a PostgreSQL heap table; "+
		"DuckDB loads the same file with `COPY … FROM 'file'` into a DuckLake of its own (SQLite catalog, Parquet files), "+
		"reading it itself rather than over a protocol. **CREATE TABLE … AS SELECT * FROM read_parquet** of TPC-H SF%s "+
		"lineitem (%d rows) into lakepg's lake and DuckDB's DuckLake (PostgreSQL reads no Parquet).",
		it.rows, bytesHuman(it.bytes), sfName(r.cfg.SF), liRows)
	rows := [][]string{}
	add := func(op, how string, o opResult) {
		rows = append(rows, []string{op, o.system, how, fmt.Sprint(o.rows), fmtDur(o.elapsed), rate(float64(o.rows), o.elapsed) + " rows/s", mib(o.peak)})
	}
	add("COPY", "COPY ingest FROM STDIN (pgx)", it.lakepg)
	add("COPY", "COPY ingest FROM STDIN (pgx)", it.pg)
	add("COPY", "COPY dl.ingest FROM 'file' (CSV reader)", duckCopy)
	add("CTAS", "CREATE TABLE … AS SELECT * FROM read_parquet", lakeCTAS)
	add("CTAS", "CREATE TABLE dl.… AS SELECT * FROM read_parquet", duckCTAS)
	s.table([]string{"operation", "system", "statement", "rows", "time", "rate", "peak memory"}, rows)
	s.printf("Peak memory is the server's during that statement (DuckDB's includes its Python host process).")

	path, link := r.chartPath("ingest")
	err = barChart(path, "Ingest: rows per second (higher is better)", "rows/s", []string{"COPY " + fmt.Sprint(it.rows) + " rows", "CTAS lineitem"}, []series{
		{name: "lakepg", values: []float64{perSec(it.lakepg), perSec(lakeCTAS)}},
		{name: "PostgreSQL", values: []float64{perSec(it.pg), nan()}},
		{name: "DuckDB", values: []float64{perSec(duckCopy), perSec(duckCTAS)}},
	}, false)
	if err != nil {
		return err
	}
	s.chart(link, "Ingest rows per second")
	return nil
}

func perSec(o opResult) float64 {
	if o.elapsed <= 0 {
		return nan()
	}
	return float64(o.rows) / o.elapsed.Seconds()
}
