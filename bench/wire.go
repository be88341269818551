package bench

import (
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// psqlFetchCount is psql's FETCH_COUNT in the wire section: psql then reads the result
// through a cursor in batches of this many rows instead of holding all of it in memory.
const psqlFetchCount = 100000

// streamBinary reads every row of the query in binary format through pgx's protocol layer
// (pgconn), without decoding values; it returns rows and bytes of values.
func streamBinary(ctx context.Context, dsn, sql string) (int64, int64, time.Duration, error) {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, 0, 0, err
	}
	defer c.Close(context.Background())
	start := time.Now()
	rr := c.PgConn().ExecParams(ctx, sql, nil, nil, nil, []int16{1})
	var rows, bytes int64
	for rr.NextRow() {
		for _, v := range rr.Values() {
			bytes += int64(len(v))
		}
		rows++
	}
	if _, err := rr.Close(); err != nil {
		return 0, 0, 0, err
	}
	return rows, bytes, time.Since(start), nil
}

// streamPsql runs the query in psql, text output to /dev/null.
func (r *Runner) streamPsql(ctx context.Context, dsn, sql string) (time.Duration, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return 0, err
	}
	argv := []string{r.tools.psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-v", fmt.Sprintf("FETCH_COUNT=%d", psqlFetchCount),
		"-o", "/dev/null", "-c", sql, "-d", u.String()}
	shown := append(append([]string{}, argv[:len(argv)-1]...), "postgres://…")
	r.rep.command(strings.Join(shown, " "))
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = cleanEnv()
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("psql: %v: %s", err, tail(string(out), 2000))
	}
	return time.Since(start), nil
}

func (r *Runner) sectionWire(ctx context.Context, s *section) error {
	it, err := r.ensureIngest(ctx)
	if err != nil {
		return err
	}
	if err := r.ensurePsql(ctx); err != nil {
		return err
	}
	if out, err := exec.Command(r.tools.psql, "--version").Output(); err == nil {
		r.rep.version("psql", strings.TrimSpace(string(out)))
	}
	const sql = "SELECT * FROM ingest"
	type target struct {
		name string
		dsn  string
		pids func() []int
	}
	targets := []target{{"lakepg", r.lake.dsn(), r.lake.pids}, {"PostgreSQL", r.pgDB, r.pg.pids}}
	var rows [][]string
	vals := map[string][]float64{}
	for _, t := range targets {
		mw := watchMemory(t.pids)
		r.rep.command(t.name + ": " + sql + "   # binary results through pgconn.ExecParams, values not decoded")
		mw.Reset()
		n, b, el, err := streamBinary(ctx, t.dsn, sql)
		if err != nil {
			mw.Close()
			return fmt.Errorf("%s binary: %w", t.name, err)
		}
		peakB := mw.Peak()
		if n != it.rows {
			mw.Close()
			return fmt.Errorf("%s streamed %d rows, want %d", t.name, n, it.rows)
		}
		rows = append(rows, []string{t.name, "binary, pgx", fmt.Sprint(n), fmtDur(el), rate(float64(n), el) + " rows/s", fmt.Sprintf("%.0f MB/s", float64(b)/1e6/el.Seconds()), mib(peakB)})
		mw.Reset()
		elT, err := r.streamPsql(ctx, t.dsn, sql)
		peakT := mw.Peak()
		mw.Close()
		if err != nil {
			return fmt.Errorf("%s text: %w", t.name, err)
		}
		rows = append(rows, []string{t.name, "text, psql", fmt.Sprint(it.rows), fmtDur(elT), rate(float64(it.rows), elT) + " rows/s", "", mib(peakT)})
		vals[t.name] = []float64{float64(n) / el.Seconds(), float64(it.rows) / elT.Seconds()}
	}
	s.printf("`%s`: the %d rows of the ingest table (six columns) streamed to a client on the same machine. "+
		"Binary: pgx's protocol layer (`pgconn.ExecParams` with binary result format), reading each row's raw values "+
		"(MB/s counts value bytes). Text: `psql -A -t -o /dev/null` with `FETCH_COUNT=%d`, so psql fetches through a "+
		"cursor in batches instead of holding the whole result; the time includes psql's start.", sql, it.rows, psqlFetchCount)
	s.table([]string{"server", "format, client", "rows", "time", "rate", "value bytes", "server peak memory"}, rows)
	path, link := r.chartPath("wire")
	if err := barChart(path, "Wire: rows per second to one client (higher is better)", "rows/s", []string{"binary (pgx)", "text (psql)"},
		[]series{{name: "lakepg", values: vals["lakepg"]}, {name: "PostgreSQL", values: vals["PostgreSQL"]}}, false); err != nil {
		return err
	}
	s.chart(link, "Wire rows per second")
	return nil
}
