package compose

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/storage/s3test"
	"github.com/lakepg/lakepg/test/testserver"
)

// TestComposeServes runs the services of docker-compose.yml as the file
// and the Dockerfile configure them, with only host names, ports and
// container paths rewritten, and uses the lake as the file's header says:
//
//   - s3: the suite's versitygw binary (the version the Dockerfile's
//     versitygw-build stage installs), run with the versitygw stage's
//     ENTRYPOINT and CMD and the s3 service's environment, so its root
//     keys are the compose file's;
//   - bucket: the bucket service's own script, run by /bin/sh with the AWS
//     CLI as the service's entrypoint and command say, started with the
//     server as Compose starts it (not waiting for it to answer);
//   - catalog: a fresh database and role named as the catalog service's
//     POSTGRES_DB and POSTGRES_USER, in the test PostgreSQL;
//   - lakepg: the binary of the Dockerfile's build stage, with exactly the
//     lakepg service's command line and environment (the image's ENV
//     under the service's).
//
// A client then connects with the header's connection string and the
// default password, creates a table, inserts and reads rows; the Parquet
// file must be in the compose bucket under the compose prefix, as the
// catalog records it. lakepg is stopped as `docker compose stop` does, and
// a new one started from an empty working directory (the lakepg service
// has no volume) reads the same rows.
func TestComposeServes(t *testing.T) {
	pgAdmin := testserver.PostgresDSN(t)
	vgw := versitygwBinary(t)
	cf := loadCompose(t, nil)
	df, bin := lakepgImage(t)
	w := wire(t, cf, df)

	// s3: versitygw on a free loopback port instead of every interface's
	// 7070, its directory in a temporary one.
	s3Port := freePort(t)
	s3Root := t.TempDir()
	s3Args := make([]string, len(w.s3Args))
	for i, a := range w.s3Args {
		switch {
		case i > 0 && w.s3Args[i-1] == "--port":
			a = fmt.Sprintf("127.0.0.1:%d", s3Port)
		case strings.HasPrefix(a, "/"):
			a = inRoot(s3Root, a)
			if err := os.MkdirAll(a, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		s3Args[i] = a
	}
	if s3Args[0] != "versitygw" {
		t.Fatalf("the s3 service runs %q, not versitygw", w.s3Args)
	}
	s3Args[0] = vgw
	startProc(t, "versitygw", s3Root, envList(baseEnv(s3Root), w.s3Env), s3Args...)
	t.Logf("s3: %s", strings.Join(s3Args, " "))

	// Host names and ports of the compose network, as they are here.
	catalogAt := postgresAddr(t, pgAdmin)
	rewrite := strings.NewReplacer(
		w.endpoint.Host, fmt.Sprintf("127.0.0.1:%d", s3Port),
		w.catalogDSN.Host, catalogAt,
	)

	// bucket: the job's own script, started at once, as Compose starts it
	// once s3 has started.
	if _, err := exec.LookPath("aws"); err != nil {
		t.Fatalf("the bucket service's job needs the AWS CLI (`aws`), which is not on PATH: install it (pip install awscli): %v", err)
	}
	bucketArgs := make([]string, len(w.bucketArgs))
	for i, a := range w.bucketArgs {
		bucketArgs[i] = rewrite.Replace(a)
	}
	bucketEnv := map[string]string{}
	for k, v := range w.service(t, w.bucketName).Environment {
		bucketEnv[k] = rewrite.Replace(v)
	}
	job := startProc(t, "the bucket job", t.TempDir(), envList(baseEnv(t.TempDir()), bucketEnv), bucketArgs...)
	select {
	case <-job.exited:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the bucket job did not finish within 2 minutes:\n%s", job.out.Tail(4<<10))
	}
	if code := job.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("the bucket job exited with status %d:\n%s", code, job.out.Tail(4<<10))
	}
	t.Logf("bucket: %s: exit status 0, output %q", strings.Join(bucketArgs[:2], " "), job.out.String())
	// The server with the compose file's root keys.
	srv := &s3test.Server{
		Endpoint:  fmt.Sprintf("http://127.0.0.1:%d", s3Port),
		AccessKey: w.s3Env["ROOT_ACCESS_KEY"], SecretKey: w.s3Env["ROOT_SECRET_KEY"],
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := srv.Client().HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &w.bucket}); err != nil {
		t.Fatalf("after the bucket job, bucket %q: %v", w.bucket, err)
	}

	// catalog: the role and database of the catalog service, fresh.
	catalogDB := freshCatalog(t, pgAdmin, w)

	// lakepg: the service's command line and environment, rewritten.
	lakepgPort := freePort(t)
	_, listenPort, _ := net.SplitHostPort(w.setting("listen"))
	published := publishedPort(t, w.service(t, w.lakepgName), listenPort)
	args := make([]string, len(w.lakepgArgs))
	for i, a := range w.lakepgArgs {
		args[i] = rewrite.Replace(a)
	}
	env := map[string]string{}
	for k, v := range w.lakepgEnv {
		env[k] = rewrite.Replace(v)
	}
	// The listen address keeps its host (every interface, as in the
	// container, which lakepg allows only with a password); the port is ours.
	setListen(t, args, env, strconv.Itoa(lakepgPort))
	start := func() *proc {
		t.Helper()
		home := inRoot(t.TempDir(), w.workdir)
		if err := os.MkdirAll(home, 0o755); err != nil {
			t.Fatal(err)
		}
		return startProc(t, "lakepg", home, envList(baseEnv(home), env), append([]string{bin}, args...)...)
	}
	lakepg := start()
	t.Logf("lakepg: %s %s", strings.Join(envList(nil, env), " "), strings.Join(append([]string{bin}, args...), " "))

	// The client: the header's connection string, the default password,
	// the published port as it is here.
	info := headerConninfo(t, cf)
	if info["port"] != published {
		t.Fatalf("the header connects to port %s, lakepg is published on %s", info["port"], published)
	}
	info["port"] = strconv.Itoa(lakepgPort)
	info["password"] = strings.ReplaceAll(info["password"], "$LAKEPG_PASSWORD", w.lakepgEnv["LAKEPG_PASSWORD"])
	var parts []string
	for _, k := range []string{"host", "port", "user", "dbname", "password"} {
		parts = append(parts, k+"="+info[k])
	}
	conninfo := strings.Join(parts, " ") + " connect_timeout=10"
	connect := func(p *proc) *pgx.Conn {
		t.Helper()
		var c *pgx.Conn
		p.waitFor(t, "login with the header's connection string", func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			var err error
			c, err = pgx.Connect(ctx, conninfo)
			return err
		})
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	c := connect(lakepg)
	t.Logf("client: %s", strings.ReplaceAll(conninfo, "password="+info["password"], "password=…"))
	want(t, c, "SELECT current_user", info["user"])
	// The password is what lets the client in, not trust.
	wrong := strings.Replace(conninfo, "password="+info["password"], "password=not-"+info["password"], 1)
	bctx, bcancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer bcancel()
	if bc, err := pgx.Connect(bctx, wrong); err == nil {
		bc.Close(context.Background())
		t.Fatal("lakepg let the client in with a wrong password")
	} else if pe := (*pgconn.PgError)(nil); !errors.As(err, &pe) || pe.Code != "28P01" {
		t.Fatalf("a wrong password: %v, want 28P01", err)
	}

	// A table with more rows than lakepg inlines into the catalog: the
	// INSERT writes a Parquet file to the bucket.
	exec1(t, c, "CREATE TABLE trips (id integer, city text, fare double precision)")
	exec1(t, c, "INSERT INTO trips SELECT g, 'city ' || (g % 7)::text, g * 0.25 FROM generate_series(1, 1000) g")
	const q = "SELECT count(*), sum(id), count(DISTINCT city), sum(fare) FROM trips"
	const rows = "1000|500500|7|125125"
	want(t, c, q, rows)

	// The Parquet file: in the compose bucket under the compose prefix,
	// where the catalog says it is.
	prefix := strings.Trim(w.dataURL.Path, "/") + "/"
	var dataPath string
	if err := catalogDB.QueryRow(context.Background(), "SELECT value FROM ducklake_metadata WHERE key = 'data_path'").Scan(&dataPath); err != nil {
		t.Fatalf("the catalog's data_path: %v", err)
	}
	if want := "s3://" + w.bucket + "/" + prefix; dataPath != want {
		t.Errorf("the catalog records data_path %q, want %q", dataPath, want)
	}
	var files []string
	r, err := catalogDB.Query(context.Background(), "SELECT path FROM ducklake_data_file")
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var p string
		if err := r.Scan(&p); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	keys := objectKeys(t, srv, w.bucket, prefix)
	if len(files) != 1 || len(keys) != 1 || !strings.HasSuffix(keys[0], files[0]) || !strings.HasSuffix(keys[0], ".parquet") {
		t.Fatalf("the catalog lists data files %q; bucket %s holds %q under %s", files, w.bucket, keys, prefix)
	}
	checkParquet(t, srv, w.bucket, keys[0])
	t.Logf("s3://%s/%s: the Parquet file of trips", w.bucket, keys[0])

	// docker compose stop, then up: a new container, an empty working
	// directory, the same lake.
	c.Close(context.Background())
	if code := lakepg.stop(t); code != 0 {
		t.Fatalf("lakepg exited with status %d after SIGTERM", code)
	}
	lakepg = start()
	c = connect(lakepg)
	want(t, c, q, rows)
	exec1(t, c, "INSERT INTO trips VALUES (1001, 'new', 1)")
	want(t, c, "SELECT count(*), max(id) FROM trips", "1001|1001")
}

// versitygwBinary is the suite's versitygw, which must be the version the
// Dockerfile installs.
func versitygwBinary(t *testing.T) string {
	t.Helper()
	if os.Getenv(s3test.RequireEnv) == "1" && os.Getenv(s3test.BinaryEnv) == "" {
		t.Fatalf("%s=1 but %s is not set: scripts/test.sh failed to install versitygw", s3test.RequireEnv, s3test.BinaryEnv)
	}
	bin, err := s3test.Binary()
	if err != nil {
		t.Fatalf("this test runs versitygw as the compose file does: %v: run `make test` (scripts/test.sh installs it) or set %s", err, s3test.BinaryEnv)
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	module, version := testShPin(t)
	if info.Main.Path != module || info.Main.Version != version {
		t.Fatalf("%s is %s@%s, the Dockerfile installs %s@%s", bin, info.Main.Path, info.Main.Version, module, version)
	}
	return bin
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// postgresAddr is host:port of the test PostgreSQL, which must take TCP
// connections: lakepg reaches its catalog by host name and port.
func postgresAddr(t *testing.T, dsn string) string {
	t.Helper()
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("%s: %v", testserver.PGDSNEnv, err)
	}
	if strings.HasPrefix(cfg.Host, "/") {
		t.Fatalf("%s connects through a socket (%s); this test needs a TCP host and port", testserver.PGDSNEnv, cfg.Host)
	}
	return net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
}

// freshCatalog creates, in the test PostgreSQL, the role and database the
// catalog service's image creates (dropping leftovers of an earlier run),
// drops them at the end of the test, and returns a connection to the
// database for checks.
func freshCatalog(t *testing.T, admin string, w *wiring) *pgx.Conn {
	t.Helper()
	user := w.catalogDSN.User.Username()
	pass, _ := w.catalogDSN.User.Password()
	db := strings.TrimPrefix(w.catalogDSN.Path, "/")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connecting to the test PostgreSQL: %v", err)
	}
	defer a.Close(context.Background())
	drop := []string{
		"DROP DATABASE IF EXISTS " + pgx.Identifier{db}.Sanitize() + " WITH (FORCE)",
		"DROP ROLE IF EXISTS " + pgx.Identifier{user}.Sanitize(),
	}
	for _, s := range append(drop,
		"CREATE ROLE "+pgx.Identifier{user}.Sanitize()+" LOGIN PASSWORD "+quote(pass),
		"CREATE DATABASE "+pgx.Identifier{db}.Sanitize()+" OWNER "+pgx.Identifier{user}.Sanitize(),
	) {
		if _, err := a.Exec(ctx, s); err != nil {
			t.Fatalf("test PostgreSQL: %s: %v", s, err)
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		a, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Logf("dropping the catalog database: %v", err)
			return
		}
		defer a.Close(context.Background())
		for _, s := range drop {
			if _, err := a.Exec(ctx, s); err != nil {
				t.Logf("test PostgreSQL: %s: %v", s, err)
			}
		}
	})
	cfg, err := pgx.ParseConfig(admin)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = db
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connecting to database %s: %v", db, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// setListen puts port into lakepg's listen address, where the service sets
// it: on the command line or in the environment.
func setListen(t *testing.T, args []string, env map[string]string, port string) {
	t.Helper()
	re := func(addr string) string {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatalf("lakepg's listen address %q: %v", addr, err)
		}
		return net.JoinHostPort(host, port)
	}
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--listen="); ok {
			args[i] = "--listen=" + re(v)
			return
		}
		if a == "--listen" && i+1 < len(args) {
			args[i+1] = re(args[i+1])
			return
		}
	}
	if v, ok := env["LAKEPG_LISTEN"]; ok {
		env["LAKEPG_LISTEN"] = re(v)
		return
	}
	t.Fatal("the lakepg service sets no listen address: lakepg would listen on loopback only, out of reach of the published port")
}

func objectKeys(t *testing.T, srv *s3test.Server, bucket, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var keys []string
	pages := s3.NewListObjectsV2Paginator(srv.Client(), &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix})
	for pages.HasMorePages() {
		p, err := pages.NextPage(ctx)
		if err != nil {
			t.Fatalf("listing s3://%s/%s: %v", bucket, prefix, err)
		}
		for _, o := range p.Contents {
			keys = append(keys, *o.Key)
		}
	}
	return keys
}

// checkParquet checks that an object starts and ends with Parquet's magic.
func checkParquet(t *testing.T, srv *s3test.Server, bucket, key string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := srv.Client().GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatalf("s3://%s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 12 || !bytes.HasPrefix(b, []byte("PAR1")) || !bytes.HasSuffix(b, []byte("PAR1")) {
		t.Fatalf("s3://%s/%s (%d bytes) is not a Parquet file", bucket, key, len(b))
	}
}

func exec1(t *testing.T, c *pgx.Conn, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// want runs a query and compares its rows, as text joined by '|', with rows.
func want(t *testing.T, c *pgx.Conn, sql string, rows ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := c.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer r.Close()
	var got []string
	for r.Next() {
		var cells []string
		for _, v := range r.RawValues() {
			cells = append(cells, string(v))
		}
		got = append(got, strings.Join(cells, "|"))
	}
	if err := r.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if strings.Join(got, "\n") != strings.Join(rows, "\n") {
		t.Fatalf("%s: got %q, want %q", sql, got, rows)
	}
}
