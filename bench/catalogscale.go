package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", to edit a PostgreSQL catalog
	_ "modernc.org/sqlite"             // database/sql driver "sqlite", to edit a SQLite catalog
)

// catalogBuildClients is how many clients create the catalog section's tables at once.
const catalogBuildClients = 4

// catalogRealFiles are the data files of the files table written through lakepg;
// the others are registered in the catalog directly, with ranges the query prunes.
const catalogRealFiles = 10

// dtQuery is what psql 15 sends for \dt.
const dtQuery = `SELECT n.nspname as "Schema",
  c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
WHERE c.relkind IN ('r','p','')
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 1,2;`

// catalogScale is what the section measured on one catalog.
type catalogScale struct {
	kind       string
	blocks     []float64 // tables/s of each block of 1,000 tables
	blockCPU   []float64 // lakepg's CPU per table in each block, ms
	blockPGCPU []float64 // the PostgreSQL server's (the catalog's), ms; nil for SQLite or a remote server
	blockLoad  []float64 // the machine's 1-minute load average at each block's end
	retries    int64     // 40001 answers retried while building
	pointMs    []float64 // SELECT * of one small table, warm
	pointRT    float64   // catalog round trips per point read
	warmMs     []float64 // the same tables read again
	warmRT     float64
	firstMs    float64   // first point read after the restart
	infoMs     []float64 // count(*) over information_schema.tables
	infoRows   int64
	dtMs       []float64 // psql's \dt
	dtRows     int
	restartMs  float64 // process start until a table answers
	planMs     []float64
	explainMs  []float64 // wall time of EXPLAIN (planning with the catalog reads)
	queryMs    []float64
	queryRT    float64 // catalog round trips per query over the files table
	filesKept  string
	files      int64 // files of table facts, which the files query reads
	lakeFiles  int64 // of all the files tables
	facts      int   // files tables
	metaBytes  string
	catalogSz  string
	registered time.Duration // how long registering the files took
	listMs     float64       // the files query's first run, which reads the file list
	listCPU    float64       // lakepg's CPU in it, s
	rss        int64         // lakepg's resident memory after the files queries
}

// sectionCatalog builds a lake of BENCH_CATALOG_TABLES small tables and one table of
// BENCH_CATALOG_FILES data files, on a SQLite catalog and on a PostgreSQL one, and
// measures what grows with the catalog: creating tables, reading one, listing them,
// restarting, and planning a query whose filter prunes all but a few files.
func (r *Runner) sectionCatalog(ctx context.Context, s *section) error {
	if r.cfg.CatalogTables < 1 || r.cfg.CatalogFiles <= catalogRealFiles || (r.cfg.CatalogFilesPerTable > 0 && r.cfg.CatalogFilesPerTable <= catalogRealFiles) {
		return fmt.Errorf("the catalog section needs tables (BENCH_CATALOG_TABLES) and more than %d files (BENCH_CATALOG_FILES, BENCH_CATALOG_FILES_PER_TABLE)", catalogRealFiles)
	}
	var res []*catalogScale
	for _, kind := range []string{"sqlite", "postgres"} {
		cs, err := r.catalogScaleOn(ctx, kind)
		if err != nil {
			return fmt.Errorf("%s catalog: %w", kind, err)
		}
		res = append(res, cs)
	}
	_, load := loadAvg()
	per, _ := r.catalogFileTables()
	more := ""
	if per < r.cfg.CatalogFiles {
		more = fmt.Sprintf(", and tables `facts_2` to `facts_%d` (%d files in all) get one data file written through lakepg "+
			"and the rest of theirs (up to %d each) registered the same way", res[0].facts, r.cfg.CatalogFiles, per)
	}
	s.printf("One lake per catalog (data in a local directory), one lakepg server. %d tables are created by %d clients "+
		"(`CREATE TABLE tNNNNN (id bigint, name text, v double precision)` and a 3-row `INSERT` each, a 40001 answer retried); "+
		"then table `facts` gets %d data files written through lakepg (1,000 rows each, id ranges 0–%d) and %d more registered "+
		"in the catalog directly (rows in ducklake_data_file and ducklake_file_column_stats, id ranges above 1,000,000, "+
		"named as files that do not exist: pruning must keep them unread)%s. The server is then restarted and measured: a point read is "+
		"`SELECT * FROM tNNNNN` of a random table over the extended protocol, the first read of that table since the restart "+
		"(cold), then the same tables again (warm: nothing changed since); the files query is "+
		"`SELECT count(*), sum(v) FROM facts WHERE id BETWEEN 2000 AND 4999` (3 files kept). Catalog round trips are the "+
		"server's lakepg_catalog_queries_total. Load average at the end: %s.",
		r.cfg.CatalogTables, catalogBuildClients, catalogRealFiles, catalogRealFiles*1000-1, per-catalogRealFiles, more, load)
	s.printf("\nBuild rate per block of 1,000 tables (tables/s):")
	var hdr []string
	hdr = append(hdr, "catalog")
	for i := range res[0].blocks {
		hdr = append(hdr, fmt.Sprintf("%dk", i+1))
	}
	hdr = append(hdr, "40001 retries")
	var rows [][]string
	for _, cs := range res {
		row := []string{cs.kind}
		for _, b := range cs.blocks {
			row = append(row, fmt.Sprintf("%.0f", b))
		}
		rows = append(rows, append(row, fmt.Sprint(cs.retries)))
		// the rate follows the machine's load: show it beside
		row = []string{cs.kind + ": 1-min load at the block's end"}
		for _, l := range cs.blockLoad {
			row = append(row, fmt.Sprintf("%.1f", l))
		}
		rows = append(rows, append(row, ""))
	}
	s.table(hdr, rows)
	// the rate follows the machine's load; the CPU per table does not, and
	// shows whether the work of a table grows with the lake
	s.printf("Server CPU per table in each block (ms; PostgreSQL: its whole server, when it runs on this machine):")
	rows = nil
	for _, cs := range res {
		for _, v := range []struct {
			what string
			ms   []float64
		}{{"lakepg", cs.blockCPU}, {"PostgreSQL", cs.blockPGCPU}} {
			if len(v.ms) == 0 {
				continue
			}
			row := []string{cs.kind + ": " + v.what}
			for _, b := range v.ms {
				row = append(row, fmt.Sprintf("%.1f", b))
			}
			rows = append(rows, row)
		}
	}
	s.table(hdr[:len(hdr)-1], rows)
	rows = nil
	f := func(xs []float64) string { return fmt.Sprintf("%.1f ms", median(xs)) }
	for _, cs := range res {
		rows = append(rows, []string{cs.kind,
			f(cs.pointMs) + fmt.Sprintf(" (p95 %.1f)", percentile(cs.pointMs, 95)), fmt.Sprintf("%.1f", cs.pointRT),
			f(cs.warmMs), fmt.Sprintf("%.1f", cs.warmRT),
			f(cs.infoMs) + fmt.Sprintf(" (%d)", cs.infoRows), f(cs.dtMs) + fmt.Sprintf(" (%d rows)", cs.dtRows),
			fmt.Sprintf("%.0f ms", cs.restartMs), fmt.Sprintf("%.1f ms", cs.firstMs),
			f(cs.planMs), f(cs.explainMs), f(cs.queryMs), fmt.Sprintf("%.1f", cs.queryRT), cs.filesKept,
			cs.metaBytes, cs.catalogSz})
	}
	s.table([]string{"catalog", "point read median (cold)", "round trips", "warm", "round trips", "information_schema.tables", "\\dt", "restart to ready",
		"first read after restart", "planning (EXPLAIN ANALYZE)", "EXPLAIN wall", "files query", "round trips",
		"files scanned/pruned", "metadata + file list caches", "catalog size"}, rows)
	for _, cs := range res {
		s.printf("%s: %d files in %d files tables; the files query's first run (it reads the list of facts' %d files) took %.0f ms, %.1f s of lakepg's CPU; lakepg's RSS after the files queries %s.",
			cs.kind, cs.lakeFiles, cs.facts, cs.files, cs.listMs, cs.listCPU, mib(cs.rss))
	}
	s.printf("Targets (issue 20): point read ≤ 5 ms median, information_schema.tables ≤ 200 ms, \\dt ≤ 300 ms, " +
		"restart ≤ 2 s, planning over 100,000 files ≤ 20 ms; the build rate steady.")
	return nil
}

// catalogScaleOn runs the section on one catalog kind.
func (r *Runner) catalogScaleOn(ctx context.Context, kind string) (*catalogScale, error) {
	cs := &catalogScale{kind: kind}
	dir := filepath.Join(r.work, "lake-catalog-"+kind)
	var catalog, driver, dsn string
	catalogCPU := func() float64 { return 0 }
	if kind == "sqlite" {
		catalog = "sqlite:" + filepath.Join(dir, "catalog.sqlite")
		driver, dsn = "sqlite", filepath.Join(dir, "catalog.sqlite")
	} else {
		pg, err := r.postgresServer(ctx)
		if err != nil {
			return nil, err
		}
		if catalog, err = pg.createDB(ctx, r, "catalogscale"); err != nil {
			return nil, err
		}
		catalogCPU = func() float64 { return cpuSeconds(pg.pids()) }
		driver, dsn = "pgx", catalog
	}
	mport, err := freePort()
	if err != nil {
		return nil, err
	}
	metrics := fmt.Sprintf("127.0.0.1:%d", mport)
	args := []string{"--catalog", catalog, "--data", filepath.Join(dir, "data"), "--metrics-listen", metrics}
	if r.cfg.CatalogFileListCache != "" {
		// a table of a million files needs more than the default to be kept
		args = append(args, "--file-list-cache", r.cfg.CatalogFileListCache)
	}
	sv, err := r.startLakepg(ctx, "catalog-"+kind, dir, nil, args...)
	if err != nil {
		return nil, err
	}
	defer sv.stop()
	if kind == "sqlite" && !r.cfg.CatalogSQLiteInlining {
		// each table's first inlined rows create a SQLite table of their own, and every
		// other connection of every process then parses the whole schema again: with
		// thousands of tables that, not lakepg, sets the pace (see the report)
		if err := execSQL(ctx, sv.dsn(), "CALL lakepg.set_option('data_inlining_row_limit', '0')"); err != nil {
			return nil, err
		}
		cs.kind = "sqlite (inlining off)"
	}

	// build the tables, 1,000 at a time
	n := r.cfg.CatalogTables
	for start := 0; start < n; start += 1000 {
		end := min(start+1000, n)
		t := time.Now()
		cpu0, pgCPU0 := cpuSeconds(sv.pids()), catalogCPU()
		retries, err := buildTables(ctx, sv.dsn(), start, end)
		if err != nil {
			return nil, err
		}
		cs.retries += retries
		cs.blocks = append(cs.blocks, float64(end-start)/time.Since(t).Seconds())
		one, _ := loadAvg()
		cs.blockLoad = append(cs.blockLoad, one)
		cs.blockCPU = append(cs.blockCPU, (cpuSeconds(sv.pids())-cpu0)*1000/float64(end-start))
		if pgCPU0 > 0 {
			cs.blockPGCPU = append(cs.blockPGCPU, (catalogCPU()-pgCPU0)*1000/float64(end-start))
		}
		r.logf("catalog %s: %d tables, %.0f tables/s", kind, end, cs.blocks[len(cs.blocks)-1])
	}

	// the files table: real files first
	if err := execSQL(ctx, sv.dsn(), "CREATE TABLE facts (id bigint, v bigint)"); err != nil {
		return nil, err
	}
	for k := 0; k < catalogRealFiles; k++ {
		// more rows than are inlined, so that each INSERT writes a file
		if err := execSQL(ctx, sv.dsn(), fmt.Sprintf("INSERT INTO facts SELECT i, i FROM generate_series(%d, %d) i", k*1000, k*1000+999)); err != nil {
			return nil, err
		}
	}
	// the other files tables, one real file each
	per, sizes := r.catalogFileTables()
	for k := 2; k <= len(sizes); k++ {
		for _, st := range []string{fmt.Sprintf("CREATE TABLE facts_%d (id bigint, v bigint)", k),
			fmt.Sprintf("INSERT INTO facts_%d SELECT i, i FROM generate_series(0, 999) i", k)} {
			if err := execSQL(ctx, sv.dsn(), st); err != nil {
				return nil, err
			}
		}
	}
	sv.stop()
	t := time.Now()
	for k, size := range sizes {
		name, real := "facts", catalogRealFiles
		if k > 0 {
			name, real = fmt.Sprintf("facts_%d", k+1), 1
		}
		if err := registerFiles(ctx, driver, dsn, name, int64(size-real)); err != nil {
			return nil, fmt.Errorf("registering files of %s in the catalog: %w", name, err)
		}
	}
	cs.registered = time.Since(t)
	cs.files, cs.lakeFiles, cs.facts = int64(per), int64(r.cfg.CatalogFiles), len(sizes)
	r.logf("catalog %s: %d files in %d tables registered in %s", kind, r.cfg.CatalogFiles, len(sizes), cs.registered.Round(time.Millisecond))

	// restart: the time until a table answers
	t = time.Now()
	if err := sv.start(ctx); err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, sv.dsn())
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	q := time.Now()
	var cnt int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t00000").Scan(&cnt); err != nil {
		return nil, err
	}
	cs.firstMs = msSince(q)
	cs.restartMs = msSince(t)

	// point reads of 200 tables picked at random: their times and the
	// catalog round trips per read
	pointReads := func() ([]float64, float64, error) {
		const reads = 200
		before, err := catalogQueries([]string{metrics})
		if err != nil {
			return nil, 0, err
		}
		rnd := rand.New(rand.NewSource(1))
		var ms []float64
		for i := 0; i < reads; i++ {
			name := fmt.Sprintf("t%05d", rnd.Intn(n))
			q := time.Now()
			rows, err := conn.Query(ctx, "SELECT * FROM "+name)
			if err != nil {
				return nil, 0, err
			}
			k := 0
			for rows.Next() {
				k++
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, 0, fmt.Errorf("%s: %w", name, err)
			}
			if k != 3 {
				return nil, 0, fmt.Errorf("%s has %d rows, want 3", name, k)
			}
			ms = append(ms, msSince(q))
		}
		after, err := catalogQueries([]string{metrics})
		return ms, float64(after-before) / reads, err
	}
	if cs.pointMs, cs.pointRT, err = pointReads(); err != nil {
		return nil, err
	}
	// the same tables again: their lists are kept and nothing changed, so
	// a read should cost the catalog no more than the head
	if cs.warmMs, cs.warmRT, err = pointReads(); err != nil {
		return nil, err
	}

	for i := 0; i < 5; i++ {
		q := time.Now()
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables").Scan(&cs.infoRows); err != nil {
			return nil, err
		}
		cs.infoMs = append(cs.infoMs, msSince(q))
		q = time.Now()
		rows, err := conn.Query(ctx, dtQuery)
		if err != nil {
			return nil, err
		}
		cs.dtRows = 0
		for rows.Next() {
			cs.dtRows++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		cs.dtMs = append(cs.dtMs, msSince(q))
	}
	if cs.infoRows < int64(n) || cs.dtRows < n {
		return nil, fmt.Errorf("information_schema.tables counts %d and \\dt lists %d, want at least %d", cs.infoRows, cs.dtRows, n)
	}

	const query = "SELECT count(*), sum(v) FROM facts WHERE id BETWEEN 2000 AND 4999"
	planLine := regexp.MustCompile(`Planning Time: ([0-9.]+) ms`)
	filesLine := regexp.MustCompile(`Files: (\d+) scanned, (\d+) pruned`)
	before, _ := catalogQueries([]string{metrics})
	cpu0 := cpuSeconds(sv.pids())
	for i := 0; i < 7; i++ {
		q := time.Now()
		var c, sum int64
		if err := conn.QueryRow(ctx, query).Scan(&c, &sum); err != nil {
			return nil, err
		}
		if c != 3000 || sum != (2000+4999)*3000/2 {
			return nil, fmt.Errorf("facts query answered count %d sum %d, want 3000 and %d", c, sum, (2000+4999)*3000/2)
		}
		cs.queryMs = append(cs.queryMs, msSince(q))
		if i == 0 {
			cs.listMs, cs.listCPU = cs.queryMs[0], cpuSeconds(sv.pids())-cpu0
		}
	}
	if p := sv.pids(); len(p) > 0 {
		cs.rss = statusBytes(p[0], "VmRSS:")
	}
	after, _ := catalogQueries([]string{metrics})
	cs.queryRT = float64(after-before) / 7
	for i := 0; i < 7; i++ {
		q := time.Now()
		plan, err := explain(ctx, conn, "EXPLAIN "+query)
		if err != nil {
			return nil, err
		}
		cs.explainMs = append(cs.explainMs, msSince(q))
		if m := filesLine.FindStringSubmatch(plan); m != nil {
			cs.filesKept = m[1] + " / " + m[2]
		}
		plan, err = explain(ctx, conn, "EXPLAIN ANALYZE "+query)
		if err != nil {
			return nil, err
		}
		m := planLine.FindStringSubmatch(plan)
		if m == nil {
			return nil, fmt.Errorf("EXPLAIN ANALYZE shows no planning time:\n%s", plan)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		cs.planMs = append(cs.planMs, v)
	}
	cs.metaBytes = metricValue(metrics, "lakepg_metadata_cache_bytes") + " + " + metricValue(metrics, "lakepg_file_list_cache_bytes")
	if kind == "sqlite" {
		cs.catalogSz = mib(dirSize(filepath.Join(dir, "catalog.sqlite")))
	} else {
		var sz int64
		if err := conn.QueryRow(ctx, "SELECT 0").Scan(&sz); err == nil {
			if db, err := sql.Open("pgx", dsn); err == nil {
				db.QueryRowContext(ctx, "SELECT pg_database_size(current_database())").Scan(&sz)
				db.Close()
			}
		}
		cs.catalogSz = mib(sz)
	}
	return cs, nil
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

func explain(ctx context.Context, conn *pgx.Conn, q string) (string, error) {
	rows, err := conn.Query(ctx, q)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return "", err
		}
		b.WriteString(line + "\n")
	}
	rows.Close()
	return b.String(), rows.Err()
}

// catalogFileTables splits the section's files into files tables: facts
// first, then facts_2, facts_3, ..., each of at most per files (and more than
// its real ones).
func (r *Runner) catalogFileTables() (per int, sizes []int) {
	per = r.cfg.CatalogFilesPerTable
	if per <= 0 || per > r.cfg.CatalogFiles {
		per = r.cfg.CatalogFiles
	}
	for left := r.cfg.CatalogFiles; left > 0; left -= per {
		size := min(per, left)
		if len(sizes) > 0 && size <= 1 {
			sizes[len(sizes)-1] += size // a table needs a registered file beside its real one
			break
		}
		sizes = append(sizes, size)
	}
	return per, sizes
}

// buildTables creates tables start..end-1 with catalogBuildClients clients, retrying a
// statement that answers 40001 (a concurrent commit won).
func buildTables(ctx context.Context, dsn string, start, end int) (int64, error) {
	var next atomic.Int64
	next.Store(int64(start))
	var retries atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, catalogBuildClients)
	for c := 0; c < catalogBuildClients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				errs[c] = err
				return
			}
			defer conn.Close(context.Background())
			for {
				i := int(next.Add(1) - 1)
				if i >= end {
					return
				}
				name := fmt.Sprintf("t%05d", i)
				for _, st := range []string{
					"CREATE TABLE " + name + " (id bigint, name text, v double precision)",
					"INSERT INTO " + name + " VALUES (1, 'a', 1.5), (2, 'b', 2.5), (3, 'c', 3.5)",
				} {
					for try := 0; ; try++ {
						_, err := conn.Exec(ctx, st)
						var pe *pgconn.PgError
						if err != nil && errors.As(err, &pe) && pe.Code == "40001" && try < 20 {
							retries.Add(1)
							continue
						}
						if err != nil {
							errs[c] = fmt.Errorf("%s: %w", st, err)
							return
						}
						break
					}
				}
			}
		}(c)
	}
	wg.Wait()
	return retries.Load(), errors.Join(errs...)
}

// registerFiles adds n data files to a table straight in the catalog, one
// transaction, with the same snapshot as its last real file: copies of that file's rows
// in ducklake_data_file and ducklake_file_column_stats, each with an id range of its own
// above 1,000,000 (so a filter on the real ranges prunes them), new file ids and row id
// ranges, and the table's statistics and the snapshot's next_file_id raised to match.
func registerFiles(ctx context.Context, driver, dsn, table string, n int64) error {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var tableID, fileID, rowStart, nextRow, nextFile int64
	if err := tx.QueryRowContext(ctx, `SELECT t.table_id, max(f.data_file_id), max(f.row_id_start)
FROM ducklake_table t JOIN ducklake_data_file f ON f.table_id = t.table_id
WHERE t.table_name = '`+table+`' AND t.end_snapshot IS NULL GROUP BY t.table_id`).Scan(&tableID, &fileID, &rowStart); err != nil {
		return fmt.Errorf("%s's files: %w", table, err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT next_row_id FROM ducklake_table_stats WHERE table_id = `+fmt.Sprint(tableID)).Scan(&nextRow); err != nil {
		return err
	}
	if err := tx.QueryRowContext(ctx, `SELECT next_file_id FROM ducklake_snapshot ORDER BY snapshot_id DESC LIMIT 1`).Scan(&nextFile); err != nil {
		return err
	}
	series := fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) `, n)
	base := nextFile - 1 // file ids nextFile .. nextFile+n-1
	stmts := []string{
		series + fmt.Sprintf(`INSERT INTO ducklake_data_file (data_file_id, table_id, begin_snapshot, end_snapshot, file_order, path,
 path_is_relative, file_format, record_count, file_size_bytes, footer_size, row_id_start, partition_id, encryption_key, mapping_id, partial_max)
SELECT %d + i, f.table_id, f.begin_snapshot, NULL, NULL, f.path || '.copy' || CAST(i AS VARCHAR), f.path_is_relative, f.file_format, f.record_count,
 f.file_size_bytes, f.footer_size, %d + (i - 1) * 1000, f.partition_id, f.encryption_key, f.mapping_id, f.partial_max
FROM n, ducklake_data_file f WHERE f.data_file_id = %d`, base, nextRow, fileID),
		series + fmt.Sprintf(`INSERT INTO ducklake_file_column_stats (data_file_id, table_id, column_id, column_size_bytes,
 value_count, null_count, min_value, max_value, contains_nan, extra_stats)
SELECT %d + i, s.table_id, s.column_id, s.column_size_bytes, s.value_count, s.null_count,
 CAST(1000000 + i * 1000 AS VARCHAR), CAST(1000000 + i * 1000 + 999 AS VARCHAR), s.contains_nan, s.extra_stats
FROM n, ducklake_file_column_stats s WHERE s.data_file_id = %d`, base, fileID),
		fmt.Sprintf(`UPDATE ducklake_table_stats SET record_count = record_count + %d, next_row_id = %d WHERE table_id = %d`,
			n*1000, nextRow+n*1000, tableID),
		fmt.Sprintf(`UPDATE ducklake_table_column_stats SET max_value = '%d' WHERE table_id = %d`, 1000000+n*1000+999, tableID),
		fmt.Sprintf(`UPDATE ducklake_snapshot SET next_file_id = %d WHERE snapshot_id = (SELECT max(snapshot_id) FROM ducklake_snapshot)`,
			nextFile+n),
	}
	for _, st := range stmts {
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("%s: %w", firstLines(st, 1), err)
		}
	}
	return tx.Commit()
}

// metricValue is one gauge or counter of a server's /metrics, as text, or "n/a".
func metricValue(addr, name string) string {
	v, err := metricLine(addr, name)
	if err != nil {
		return "n/a"
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && strings.HasSuffix(name, "_bytes") {
		return mib(int64(f))
	}
	return v
}

// metricLine reads one unlabelled metric of a server's /metrics.
func metricLine(addr, name string) (string, error) {
	cl := &http.Client{Timeout: 10 * time.Second}
	resp, err := cl.Get("http://" + addr + "/metrics")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)`).FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("%s/metrics has no %s", addr, name)
	}
	return string(m[1]), nil
}
