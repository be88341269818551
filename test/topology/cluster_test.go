//go:build linux

package topology

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/catalog/catalogtest"
	"github.com/lakepg/lakepg/test/testserver"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testserver.RemoveBinary()
	os.Exit(code)
}

// The roles of the cluster. adminUser is lakepg's bootstrap superuser, whose
// password PgBouncer's auth file holds in plain text; appUser is an ordinary
// role whose entry there is lakepg's SCRAM verifier, so PgBouncer logs in to
// lakepg with the keys the client proved it has (SCRAM pass-through).
const (
	adminUser     = "lake"
	adminPassword = "lake admin pw"
	appUser       = "app"
	appPassword   = "app pw"
)

// The PgBouncer databases of the cluster, each a pool onto the lake.
const (
	poolSession     = "lake"    // session pooling, round robin over both servers
	poolTransaction = "lake_tx" // transaction pooling, round robin over both servers
	poolServer1     = "lake_1"  // session pooling, server 1 only
	poolServer2     = "lake_2"  // transaction pooling, server 2 only
	poolHAProxy     = "lake_ha" // transaction pooling through HAProxy's health-checked balancing
	// poolSingle is session pooling onto one server connection of server 1,
	// so that consecutive clients are sure to share a lakepg session.
	poolSingle = "lake_single"
)

// proc is a process the test started: lakepg, pgbouncer or haproxy.
type proc struct {
	name string
	argv []string
	cmd  *exec.Cmd
	logs *testserver.LockedBuffer
	done chan struct{}
}

// startProc starts argv in dir as cred (nil: as ourselves), with env on top of
// the test's clean environment; it is stopped at the end of the test, and its
// output logged when the test failed.
func startProc(t *testing.T, name, dir string, cred *syscall.Credential, env []string, argv ...string) *proc {
	t.Helper()
	p := &proc{name: name, argv: argv, logs: &testserver.LockedBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Dir = dir
	p.cmd.Env = append(testserver.CleanEnv(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	// the kernel kills it should the test process die without its cleanups
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Credential: cred}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("%s (%s) output:\n%s", name, strings.Join(argv, " "), p.logs.Tail(32<<10))
		}
	})
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM and, after testserver.StopTimeout, SIGKILL.
func (p *proc) stop() {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(testserver.StopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// waitFor retries ready until it succeeds, the process exits or the start
// timeout passes.
func (p *proc) waitFor(t *testing.T, what string, ready func() error) {
	t.Helper()
	deadline := time.Now().Add(testserver.StartTimeout)
	for {
		if p.exited() {
			t.Fatalf("%s exited before %s: %s", p.name, what, p.logs.Tail(8<<10))
		}
		err := ready()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no %s within %v: %v\n%s", p.name, what, testserver.StartTimeout, err, p.logs.Tail(8<<10))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cluster is two lakepg servers on one catalog and one data directory, with
// PgBouncer (and HAProxy behind one of its pools) in front.
type cluster struct {
	catalog string   // DSN of the catalog database
	data    string   // the shared data directory
	port    int      // the port of both lakepg servers, each on its own loopback address
	hosts   []string // the servers' addresses
	lakepgs []*proc
	bouncer int // PgBouncer's port
	haproxy int // HAProxy's port
}

// newCluster starts everything; the first lakepg creates the catalog and the
// bootstrap role, the second opens them.
func newCluster(t *testing.T) *cluster {
	t.Helper()
	pgbouncer := tool(t, "pgbouncer")
	haproxy := tool(t, "haproxy")
	admin := testserver.PostgresDSN(t) // fails, never skips, without LAKEPG_TEST_PG_DSN
	dir := t.TempDir()
	c := &cluster{
		catalog: catalogtest.NewDatabase(t, admin),
		data:    filepath.Join(dir, "data"),
		port:    sharedPort(t, "127.0.0.2", "127.0.0.3"),
		hosts:   []string{"127.0.0.2", "127.0.0.3"},
	}
	bin := testserver.Binary(t)
	for i, host := range c.hosts {
		sdir := filepath.Join(dir, fmt.Sprintf("lakepg%d", i+1))
		if err := os.MkdirAll(sdir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := startProc(t, fmt.Sprintf("lakepg %d", i+1), sdir, nil,
			[]string{"LAKEPG_BOOTSTRAP_PASSWORD=" + adminPassword},
			bin, "--listen", net.JoinHostPort(host, strconv.Itoa(c.port)), "--catalog", c.catalog,
			"--data", c.data, "--log-level", "warn", "--bootstrap-user", adminUser,
			// every server, itself included: one list for the whole cluster
			"--peers", c.peerList())
		p.waitFor(t, "login", func() error {
			conn, err := connect(context.Background(), c.direct(i, adminUser, adminPassword), nil)
			if err == nil {
				conn.Close(context.Background())
			}
			return err
		})
		c.lakepgs = append(c.lakepgs, p)
	}
	// the application's role: may create tables in public and owns what it creates
	exec1(t, c.direct(0, adminUser, adminPassword),
		fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", appUser, appPassword),
		"GRANT CREATE ON SCHEMA public TO "+appUser)
	verifier := query1(t, c.direct(1, adminUser, adminPassword),
		"SELECT rolpassword FROM pg_authid WHERE rolname = '"+appUser+"'")
	if !strings.HasPrefix(verifier, "SCRAM-SHA-256$") {
		t.Fatalf("pg_authid.rolpassword of %s is %q, want a SCRAM verifier", appUser, verifier)
	}

	c.haproxy = testserver.FreePort(t)
	c.startHAProxy(t, haproxy, dir)
	c.bouncer = testserver.FreePort(t)
	c.startPgBouncer(t, pgbouncer, verifier)
	return c
}

// peerList is the --peers of every server: the address of each.
func (c *cluster) peerList() string {
	var l []string
	for _, h := range c.hosts {
		l = append(l, net.JoinHostPort(h, strconv.Itoa(c.port)))
	}
	return strings.Join(l, ",")
}

// tool finds a program that scripts/test.sh installs from Debian (both live
// in /usr/sbin, which a non-root PATH may lack).
func tool(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if p := "/usr/sbin/" + name; fileExists(p) {
		return p
	}
	t.Fatalf("%s not found: scripts/test.sh installs it (apt-get install %s)", name, name)
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// sharedPort is a port free on every one of hosts.
func sharedPort(t *testing.T, hosts ...string) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		port := testserver.FreePort(t)
		free := true
		for _, h := range hosts {
			l, err := net.Listen("tcp", net.JoinHostPort(h, strconv.Itoa(port)))
			if err != nil {
				free = false
				break
			}
			l.Close()
		}
		if free {
			return port
		}
	}
	t.Fatalf("no port free on all of %v", hosts)
	return 0
}

// direct is a DSN of lakepg server i itself, bypassing the pooler.
func (c *cluster) direct(i int, user, password string) string {
	return fmt.Sprintf("host=%s port=%d user=%s password='%s' dbname=lake sslmode=disable connect_timeout=10",
		c.hosts[i], c.port, user, password)
}

// pool is a DSN of one of PgBouncer's databases.
func (c *cluster) pool(db, user, password string) string {
	return fmt.Sprintf("host=127.0.0.1 port=%d user=%s password='%s' dbname=%s sslmode=disable connect_timeout=10",
		c.bouncer, user, password, db)
}

// startHAProxy balances TCP connections round robin over the lakepg
// servers, checking each with a PostgreSQL start-up (option pgsql-check:
// any authentication request or error in reply means up) every 200 ms. A
// refused connection takes a server out at once; a slow answer (a loaded
// test machine) only after 3 s, and not at all if the next check passes.
func (c *cluster) startHAProxy(t *testing.T, bin, dir string) {
	t.Helper()
	var servers strings.Builder
	for i, h := range c.hosts {
		fmt.Fprintf(&servers, "  server lakepg%d %s:%d check\n", i+1, h, c.port)
	}
	cfg := fmt.Sprintf(`global
  maxconn 512
defaults
  mode tcp
  timeout connect 5s
  timeout client 1h
  timeout server 1h
frontend lake
  bind 127.0.0.1:%d
  default_backend lakepg
backend lakepg
  balance roundrobin
  option pgsql-check user %s
  timeout check 3s
  default-server inter 200ms fall 1 rise 2
%s`, c.haproxy, adminUser, servers.String())
	path := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, "haproxy", dir, nil, nil, bin, "-db", "-f", path)
	p.waitFor(t, "login through it", func() error {
		conn, err := connect(context.Background(),
			fmt.Sprintf("host=127.0.0.1 port=%d user=%s password='%s' dbname=lake sslmode=disable connect_timeout=10",
				c.haproxy, adminUser, adminPassword), nil)
		if err == nil {
			conn.Close(context.Background())
		}
		return err
	})
}

// startPgBouncer writes PgBouncer's configuration and auth file and starts
// it. PgBouncer refuses to run as root: then it runs as the postgres user
// (which scripts/test.sh's PostgreSQL needs anyway) or nobody, and owns its
// directory.
func (c *cluster) startPgBouncer(t *testing.T, bin, appVerifier string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "lakepg-pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		cred = unprivileged(t)
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	both := strings.Join(c.hosts, ",")
	cfg := fmt.Sprintf(`[databases]
%s = host=%s port=%d dbname=lake
%s = host=%s port=%d dbname=lake pool_mode=transaction
%s = host=%s port=%d dbname=lake
%s = host=%s port=%d dbname=lake pool_mode=transaction
%s = host=127.0.0.1 port=%d dbname=lake pool_mode=transaction
%s = host=%s port=%d dbname=lake pool_size=1

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = scram-sha-256
auth_file = %s
pool_mode = session
default_pool_size = 4
max_client_conn = 200
server_round_robin = 1
server_reset_query = DISCARD ALL
ignore_startup_parameters = extra_float_digits
admin_users = %s
`,
		poolSession, both, c.port,
		poolTransaction, both, c.port,
		poolServer1, c.hosts[0], c.port,
		poolServer2, c.hosts[1], c.port,
		poolHAProxy, c.haproxy,
		poolSingle, c.hosts[0], c.port,
		c.bouncer, filepath.Join(dir, "userlist.txt"), adminUser)
	users := fmt.Sprintf("%q %q\n%q %q\n", adminUser, adminPassword, appUser, appVerifier)
	for name, text := range map[string]string{"pgbouncer.ini": cfg, "userlist.txt": users} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if cred != nil {
			if err := os.Chown(path, int(cred.Uid), int(cred.Gid)); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := startProc(t, "pgbouncer", dir, cred, nil, bin, filepath.Join(dir, "pgbouncer.ini"))
	p.waitFor(t, "login through it", func() error {
		conn, err := connect(context.Background(), c.pool(poolServer1, adminUser, adminPassword), nil)
		if err == nil {
			conn.Close(context.Background())
		}
		return err
	})
}

// unprivileged is the user PgBouncer runs as when the test runs as root.
func unprivileged(t *testing.T) *syscall.Credential {
	t.Helper()
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 == nil && err2 == nil {
			return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		}
	}
	t.Fatal("running as root, and neither a postgres nor a nobody user to run PgBouncer as")
	return nil
}

// connect opens a pgx connection; mode, when not nil, sets how it sends
// queries.
func connect(ctx context.Context, dsn string, mode *pgx.QueryExecMode) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	if mode != nil {
		cfg.DefaultQueryExecMode = *mode
	}
	return pgx.ConnectConfig(ctx, cfg)
}

// exec1 runs statements, each on its own, over the simple protocol.
func exec1(t *testing.T, dsn string, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(context.Background())
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s).ReadAll(); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// query1 is the one value of a one-row, one-column query, as text.
func query1(t *testing.T, dsn, sql string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(context.Background())
	res, err := conn.Exec(ctx, sql).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if len(res) != 1 || len(res[0].Rows) != 1 || len(res[0].Rows[0]) != 1 {
		t.Fatalf("%s: want one value, got %v", sql, res)
	}
	return string(res[0].Rows[0][0])
}
