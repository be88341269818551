package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/jackc/pgx/v5"
	"github.com/parquet-go/parquet-go"
)

const s3Region = "us-east-1"

// wideColumns are the 20 columns of the S3 table, expressions over i = 1…n; the scan
// reads c03 (bigint, nearly unique) and c10 (double, 100 distinct values).
var wideColumns = []string{
	"i AS c01",
	"(i % 1000)::integer AS c02",
	"(i * 7919) % 1000003 AS c03",
	"(i % 9973)::double precision / 7 AS c04",
	"CAST(((i * 31) % 100000) / 100.0 AS numeric(12,2)) AS c05",
	"'name-' || (i % 50000)::text AS c06",
	"DATE '2020-01-01' + (i % 3000)::integer AS c07",
	"md5(i::text) AS c08",
	"i * 2 AS c09",
	"(i % 100)::double precision * 1.5 AS c10",
	"i % 7 = 0 AS c11",
	"(i * 13) % 65536 AS c12",
	"'status-' || (i % 5)::text AS c13",
	"(i % 1000003)::double precision * 0.001 AS c14",
	"i + 1000000000 AS c15",
	"(i % 24)::integer AS c16",
	"(i * 104729) % 2147483647 AS c17",
	"'code-' || ((i * 37) % 9999)::text AS c18",
	"(i % 365)::integer AS c19",
	"(i % 86400)::double precision AS c20",
}

const s3Query = "SELECT sum(c03), sum(c10) FROM wide"

var s3QueryColumns = []string{"c03", "c10"}

func wideCTAS(n int64) string {
	return "CREATE TABLE wide AS SELECT " + strings.Join(wideColumns, ", ") + fmt.Sprintf(" FROM generate_series(CAST(1 AS bigint), %d) AS g(i)", n)
}

// s3Server is the S3-compatible server: an existing one (BENCH_S3_ENDPOINT or the test
// harness's) or a private versitygw serving a directory of the work tree.
type s3Server struct {
	endpoint, key, secret string
	p                     *proc
}

func (r *Runner) startS3(ctx context.Context) (*s3Server, error) {
	if r.cfg.S3Endpoint != "" {
		r.rep.setting("S3 server", "an existing server (BENCH_S3_ENDPOINT or LAKEPG_TEST_S3_ENDPOINT)")
		return &s3Server{endpoint: r.cfg.S3Endpoint, key: r.cfg.S3AccessKey, secret: r.cfg.S3SecretKey}, nil
	}
	if err := r.ensureVersitygw(ctx); err != nil {
		return nil, err
	}
	root := filepath.Join(r.work, "s3root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &s3Server{endpoint: fmt.Sprintf("http://127.0.0.1:%d", port), key: "lakepgbench", secret: fmt.Sprintf("bench-%d", rand.Int63())}
	argv := []string{r.tools.versitygw, "--access", s.key, "--secret", s.secret, "--region", s3Region, "--port", fmt.Sprintf("127.0.0.1:%d", port), "--quiet", "posix", root}
	r.rep.command(strings.Join([]string{argv[0], "--access", "…", "--secret", "…", "--region", s3Region, "--port", argv[8], "--quiet", "posix", root}, " "))
	s.p, err = startProc("versitygw", r.work, filepath.Join(r.work, "versitygw.log"), cleanEnv(), argv...)
	if err != nil {
		return nil, err
	}
	if err := waitPort(s.p, fmt.Sprintf("127.0.0.1:%d", port), 30*time.Second); err != nil {
		s.p.stop(5 * time.Second)
		return nil, err
	}
	r.rep.setting("S3 server", "versitygw "+versitygwVersion+" (posix backend on local disk) on loopback")
	return s, nil
}

func (s *s3Server) client() *s3.Client {
	return s3.New(s3.Options{
		Region:       s3Region,
		BaseEndpoint: aws.String(s.endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(s.key, s.secret, ""),
	})
}

// s3ReaderAt reads an object by ranged GETs (for footers: only a few small reads).
type s3ReaderAt struct {
	ctx         context.Context
	c           *s3.Client
	bucket, key string
}

func (r s3ReaderAt) ReadAt(p []byte, off int64) (int, error) {
	rng := fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1)
	out, err := r.c.GetObject(r.ctx, &s3.GetObjectInput{Bucket: &r.bucket, Key: &r.key, Range: &rng})
	if err != nil {
		return 0, err
	}
	defer out.Body.Close()
	n, err := io.ReadFull(out.Body, p)
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	return n, err
}

// tableLayout is what the Parquet footers of a table's files say.
type tableLayout struct {
	files, rowGroups int
	bytes            int64 // all objects
	needed           int64 // the column chunks of the queried columns
}

// s3Layout reads the footer of every Parquet object under prefix.
func s3Layout(ctx context.Context, c *s3.Client, bucket, prefix string, cols []string) (tableLayout, error) {
	var lay tableLayout
	want := map[string]bool{}
	for _, c := range cols {
		want[c] = true
	}
	pages := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return lay, err
		}
		for _, o := range page.Contents {
			key := aws.ToString(o.Key)
			if !strings.HasSuffix(key, ".parquet") || strings.HasSuffix(key, "-delete.parquet") {
				continue
			}
			size := aws.ToInt64(o.Size)
			f, err := parquet.OpenFile(s3ReaderAt{ctx, c, bucket, key}, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true), parquet.SkipMagicBytes(true))
			if err != nil {
				return lay, fmt.Errorf("footer of s3://%s/%s: %w", bucket, key, err)
			}
			lay.files++
			lay.bytes += size
			for _, rg := range f.Metadata().RowGroups {
				lay.rowGroups++
				for _, cc := range rg.Columns {
					md := cc.MetaData
					if len(md.PathInSchema) == 1 && want[md.PathInSchema[0]] {
						lay.needed += md.TotalCompressedSize
					}
				}
			}
		}
	}
	return lay, nil
}

// s3Measure is one system's cold and warm scans.
type s3Measure struct {
	system, storage string
	cold            time.Duration
	warm            []float64
	coldIO, warmIO  s3Counts // warmIO per query, averaged
	result          []string
	io              bool // the storage is S3: counts mean something
}

func firstRowText(ctx context.Context, dsn, sql string) ([]string, time.Duration, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, 0, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, 0, err
	}
	defer c.Close(context.Background())
	start := time.Now()
	rows, err := c.Query(ctx, sql)
	if err != nil {
		return nil, 0, err
	}
	var out []string
	for rows.Next() {
		if out == nil {
			for _, v := range rows.RawValues() {
				out = append(out, string(v))
			}
		}
	}
	rows.Close()
	return out, time.Since(start), rows.Err()
}

// measureLakepg restarts the server (a cold process: empty caches) and runs the scan once
// cold and Runs times warm.
func (r *Runner) measureLakepg(ctx context.Context, m *s3Measure, srv *lakepgServer, px *s3Proxy) error {
	if err := srv.restart(ctx); err != nil {
		return err
	}
	before := px.counts()
	res, el, err := firstRowText(ctx, srv.dsn(), s3Query)
	if err != nil {
		return fmt.Errorf("%s: %w", m.system, err)
	}
	m.cold, m.coldIO, m.result = el, px.counts().sub(before), res
	before = px.counts()
	for i := 0; i < r.cfg.Runs; i++ {
		_, el, err := firstRowText(ctx, srv.dsn(), s3Query)
		if err != nil {
			return fmt.Errorf("%s: %w", m.system, err)
		}
		m.warm = append(m.warm, el.Seconds())
	}
	m.warmIO = perRun(px.counts().sub(before), r.cfg.Runs)
	return nil
}

func perRun(c s3Counts, n int) s3Counts {
	d := int64(max(1, n))
	return s3Counts{Get: c.Get / d, Head: c.Head / d, List: c.List / d, Put: c.Put / d, Other: c.Other / d, Fetched: c.Fetched / d, Uploaded: c.Uploaded / d}
}

// measureDuck starts a fresh DuckDB (cold) attached to the lake and runs the scan once
// cold and Runs times warm in the same process.
func (r *Runner) measureDuck(ctx context.Context, m *s3Measure, catalog string, s3s *s3Server, px *s3Proxy) error {
	exts := []string{"ducklake", "sqlite"}
	if s3s != nil {
		exts = append(exts, "httpfs")
	}
	d, err := r.startDuck(ctx, "s3-"+m.storage, ":memory:", r.cfg.Threads, exts...)
	if err != nil {
		return err
	}
	defer d.close()
	var setup []string
	if s3s != nil {
		setup = append(setup, fmt.Sprintf("CREATE SECRET bench (TYPE s3, KEY_ID '%s', SECRET '%s', REGION '%s', ENDPOINT '%s', URL_STYLE 'path', USE_SSL false)",
			s3s.key, s3s.secret, s3Region, px.addr))
	}
	setup = append(setup, fmt.Sprintf("ATTACH 'ducklake:sqlite:%s' AS lk (READ_ONLY)", catalog), "USE lk.public")
	for _, st := range setup {
		shown := st
		if strings.HasPrefix(st, "CREATE SECRET") {
			shown = fmt.Sprintf("CREATE SECRET bench (TYPE s3, KEY_ID '…', SECRET '…', REGION '%s', ENDPOINT '<proxy>', URL_STYLE 'path', USE_SSL false)", s3Region)
		}
		r.rep.command("DuckDB: " + shown)
		if _, err := d.exec(st, 0, false); err != nil {
			return err
		}
	}
	var before s3Counts
	if px != nil {
		before = px.counts()
	}
	rep, err := d.exec(s3Query, r.cfg.Timeout, true)
	if err != nil {
		return fmt.Errorf("%s: %w", m.system, err)
	}
	m.cold, m.result = time.Duration(rep.Seconds*float64(time.Second)), rep.First
	if px != nil {
		m.coldIO = px.counts().sub(before)
		before = px.counts()
	}
	for i := 0; i < r.cfg.Runs; i++ {
		rep, err := d.exec(s3Query, r.cfg.Timeout, true)
		if err != nil {
			return fmt.Errorf("%s: %w", m.system, err)
		}
		m.warm = append(m.warm, rep.Seconds)
	}
	if px != nil {
		m.warmIO = perRun(px.counts().sub(before), r.cfg.Runs)
	}
	return nil
}

func (r *Runner) sectionS3(ctx context.Context, s *section) error {
	if err := r.ensureDuckDB(ctx); err != nil {
		return err
	}
	s3s, err := r.startS3(ctx)
	if err != nil {
		return err
	}
	if s3s.p != nil {
		defer s3s.p.stop(10 * time.Second)
	}
	px, err := startS3Proxy(s3s.endpoint)
	if err != nil {
		return err
	}
	defer px.close()
	bucket := fmt.Sprintf("lakepg-bench-%d-%d", os.Getpid(), time.Now().Unix()%100000)
	cl := s3s.client()
	if _, err := cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		return fmt.Errorf("creating bucket %s: %w", bucket, err)
	}
	defer removeBucket(cl, bucket)

	s3dir := filepath.Join(r.work, "lake-s3")
	awsEnv := []string{"AWS_ACCESS_KEY_ID=" + s3s.key, "AWS_SECRET_ACCESS_KEY=" + s3s.secret, "AWS_REGION=" + s3Region, "AWS_EC2_METADATA_DISABLED=true"}
	s3srv, err := r.startLakepg(ctx, "s3", s3dir, awsEnv, "--catalog", "sqlite:"+filepath.Join(s3dir, "catalog.sqlite"),
		"--data", "s3://"+bucket+"/lake", "--s3-endpoint", px.endpoint(), "--s3-path-style", "--s3-region", s3Region)
	if err != nil {
		return err
	}
	defer s3srv.stop()
	localDir := filepath.Join(r.work, "lake-local-wide")
	localSrv, err := r.startLakepg(ctx, "local-wide", localDir, nil, "--catalog", "sqlite:"+filepath.Join(localDir, "catalog.sqlite"),
		"--data", filepath.Join(localDir, "data"))
	if err != nil {
		return err
	}
	defer localSrv.stop()

	ctas := wideCTAS(r.cfg.S3Rows)
	r.rep.command("lakepg (S3 lake and local lake): " + ctas)
	r.logf("s3: writing %d rows × 20 columns to S3", r.cfg.S3Rows)
	before := px.counts()
	t := time.Now()
	if err := execSQL(ctx, s3srv.dsn(), ctas); err != nil {
		return fmt.Errorf("lakepg on S3: %w", err)
	}
	writeS3, writeIO := time.Since(t), px.counts().sub(before)
	r.logf("s3: writing the same table to local disk")
	t = time.Now()
	if err := execSQL(ctx, localSrv.dsn(), ctas); err != nil {
		return fmt.Errorf("lakepg on local disk: %w", err)
	}
	writeLocal := time.Since(t)

	lay, err := s3Layout(ctx, cl, bucket, "lake/", s3QueryColumns)
	if err != nil {
		return err
	}
	if lay.files == 0 {
		return fmt.Errorf("no Parquet objects under s3://%s/lake/ after CREATE TABLE", bucket)
	}

	ms := []*s3Measure{
		{system: "lakepg", storage: "S3", io: true},
		{system: "lakepg", storage: "local disk"},
		{system: "DuckDB (httpfs)", storage: "S3", io: true},
		{system: "DuckDB", storage: "local disk"},
	}
	r.logf("s3: scans")
	if err := r.measureLakepg(ctx, ms[0], s3srv, px); err != nil {
		return err
	}
	if err := r.measureLakepg(ctx, ms[1], localSrv, px); err != nil {
		return err
	}
	if err := r.measureDuck(ctx, ms[2], filepath.Join(s3dir, "catalog.sqlite"), s3s, px); err != nil {
		return err
	}
	if err := r.measureDuck(ctx, ms[3], filepath.Join(localDir, "catalog.sqlite"), nil, nil); err != nil {
		return err
	}

	s.printf("Table `wide`: %d rows, 20 columns (bigint, integer, double precision, numeric, text, date, boolean), written by "+
		"lakepg with `CREATE TABLE wide AS SELECT … FROM generate_series(1, %d)` once into a lake on S3 (in %s: %d PUT requests, %s uploaded) "+
		"and once into a lake on local disk (in %s). On S3 it is %d Parquet file(s), %d row group(s), %s; the column chunks of the two "+
		"queried columns (c03 bigint, c10 double precision) are %s. The query: `%s`.",
		r.cfg.S3Rows, r.cfg.S3Rows, fmtDur(writeS3), writeIO.Put, bytesHuman(writeIO.Uploaded), fmtDur(writeLocal),
		lay.files, lay.rowGroups, bytesHuman(lay.bytes), bytesHuman(lay.needed), s3Query)
	s.printf("")
	s.printf("Requests and bytes are counted by a proxy between the client and the S3 server (the same count for lakepg and DuckDB). "+
		"Cold: lakepg just restarted (its in-memory cache of footers and ranges empty, no disk cache), DuckDB a new process; "+
		"warm: the next %d runs in the same process (median time; requests and bytes per run). The S3 server and the local lake "+
		"read from the same disk through the operating system's page cache, which is warm in every case: the figures compare "+
		"what each system asks of storage, not a network.", r.cfg.Runs)
	var rows [][]string
	for _, m := range ms {
		ratioCold := ""
		reqC, byC, reqW, byW := "", "", "", ""
		if m.io {
			ratioCold = fmt.Sprintf("%.3f×", float64(m.coldIO.Fetched)/float64(max(1, lay.needed)))
			reqC = fmt.Sprintf("%d (%d GET, %d HEAD, %d LIST)", m.coldIO.requests(), m.coldIO.Get, m.coldIO.Head, m.coldIO.List)
			byC = bytesHuman(m.coldIO.Fetched)
			reqW = fmt.Sprintf("%d (%d GET, %d HEAD, %d LIST)", m.warmIO.requests(), m.warmIO.Get, m.warmIO.Head, m.warmIO.List)
			byW = bytesHuman(m.warmIO.Fetched)
		}
		rows = append(rows, []string{m.system, m.storage, fmtDur(m.cold), secs(median(m.warm)) + " s", reqC, byC, ratioCold, reqW, byW})
	}
	s.table([]string{"system", "storage", "cold", "warm", "requests, cold", "bytes fetched, cold", "fetched / needed, cold", "requests per warm run", "bytes per warm run"}, rows)
	var results []string
	same := true
	for _, m := range ms {
		results = append(results, m.system+" "+m.storage+": "+strings.Join(m.result, ", "))
		if len(m.result) == 0 || len(ms[0].result) == 0 || m.result[0] != ms[0].result[0] {
			same = false
		}
	}
	if same {
		s.printf("Every system returned sum(c03) = %s.", ms[0].result[0])
	} else {
		s.printf("**The results differ:** %s.", strings.Join(results, "; "))
	}
	r.logf("s3: lakepg cold fetched %d bytes for %d needed (%.3f×)", ms[0].coldIO.Fetched, lay.needed, float64(ms[0].coldIO.Fetched)/float64(max(1, lay.needed)))

	var cats []string
	cold, warm := series{name: "cold"}, series{name: "warm (median)"}
	for _, m := range ms {
		cats = append(cats, m.system+", "+m.storage)
		cold.values = append(cold.values, m.cold.Seconds())
		warm.values = append(warm.values, median(m.warm))
	}
	path, link := r.chartPath("s3-time")
	if err := barChart(path, "Scan of 2 of 20 columns: seconds (lower is better)", "seconds", cats, []series{cold, warm}, false); err != nil {
		return err
	}
	s.chart(link, "S3 scan times")
	path, link = r.chartPath("s3-bytes")
	mb := func(b int64) float64 { return float64(b) / (1 << 20) }
	if err := barChart(path, "Scan of 2 of 20 columns on S3: MiB fetched, cold", "MiB", []string{"needed column chunks", "lakepg", "DuckDB (httpfs)"},
		[]series{{name: "MiB", values: []float64{mb(lay.needed), mb(ms[0].coldIO.Fetched), mb(ms[2].coldIO.Fetched)}}}, false); err != nil {
		return err
	}
	s.chart(link, "S3 bytes fetched")
	return nil
}

// removeBucket empties and removes the benchmark's bucket (best effort).
func removeBucket(c *s3.Client, bucket string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pages := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: &bucket})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			break
		}
		for _, o := range page.Contents {
			c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: o.Key})
		}
	}
	c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &bucket})
}
