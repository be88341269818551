package integration

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

// The security suite starts its servers itself: the shared harness checks
// readiness with a plain-text, password-less login, which a server that
// requires TLS or passwords rightly refuses.

// secServer is one lakepg process with its lake in dir.
type secServer struct {
	dir  string
	port int
	logs *testserver.LockedBuffer
	cmd  *exec.Cmd
	done chan struct{}
}

// startSecure starts lakepg on a free loopback port with a lake in dir and
// extra args and environment, and waits until ready (a login with user and
// password, "" for none, and params) succeeds.
func startSecure(t *testing.T, dir string, args, env []string, user, password, params string) *secServer {
	t.Helper()
	s := &secServer{dir: dir, logs: &testserver.LockedBuffer{}, done: make(chan struct{})}
	full := []string{"--catalog", "sqlite:" + filepath.Join(dir, "catalog.sqlite"), "--data", filepath.Join(dir, "data")}
	// A --listen in args (say 0.0.0.0:PORT) is reached on loopback.
	for i, a := range args {
		if a == "--listen" && i+1 < len(args) {
			_, p, _ := net.SplitHostPort(args[i+1])
			s.port, _ = strconv.Atoi(p)
		}
	}
	if s.port == 0 {
		s.port = freePort(t)
		full = append(full, "--listen", fmt.Sprintf("127.0.0.1:%d", s.port))
	}
	full = append(full, args...)
	s.cmd = exec.Command(lakepgBin, full...)
	s.cmd.Dir = dir
	s.cmd.Env = append(cleanEnv(), env...)
	s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("lakepg %s output:\n%s", strings.Join(full, " "), s.logs.Tail(32<<10))
		}
	})
	deadline := time.Now().Add(testserver.StartTimeout)
	for {
		select {
		case <-s.done:
			t.Fatalf("lakepg exited during start-up: %s", s.logs.Tail(8<<10))
		default:
		}
		c, err := s.pgconn(user, password, params)
		if err == nil {
			c.Close(context.Background())
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("lakepg not ready within %v: %v\n%s", testserver.StartTimeout, err, s.logs.Tail(8<<10))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *secServer) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(testserver.StopTimeout):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// url is a connection URL for user (and password) with params.
func (s *secServer) url(user, password, params string) string {
	u := url.URL{Scheme: "postgres", Host: fmt.Sprintf("127.0.0.1:%d", s.port), Path: "/lake", RawQuery: "connect_timeout=10"}
	if password != "" {
		u.User = url.UserPassword(user, password)
	} else {
		u.User = url.User(user)
	}
	if params != "" {
		u.RawQuery += "&" + params
	}
	return u.String()
}

func (s *secServer) pgconn(user, password, params string) (*pgconn.PgConn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg, err := pgconn.ParseConfig(s.url(user, password, params))
	if err != nil {
		return nil, err
	}
	cfg.Password = password // not PGPASSWORD or a passfile of the machine
	return pgconn.ConnectConfig(ctx, cfg)
}

// login connects with pgx; the connection closes at the end of the test.
func (s *secServer) login(t *testing.T, user, password, params string) (*pgx.Conn, error) {
	t.Helper()
	cfg, err := pgx.ParseConfig(s.url(user, password, params))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = password
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		t.Cleanup(func() { conn.Close(context.Background()) })
	}
	return conn, err
}

func (s *secServer) mustLogin(t *testing.T, user, password, params string) *pgx.Conn {
	t.Helper()
	conn, err := s.login(t, user, password, params)
	if err != nil {
		t.Fatalf("login %s (%s): %v", user, params, err)
	}
	return conn
}

// psql runs psql on a libpq conninfo with PGPASSWORD (when not "") and
// -c commands; it returns stdout, stderr and the exit code.
func (s *secServer) psql(t *testing.T, conninfo, password string, cmds ...string) (string, string, int) {
	t.Helper()
	args := []string{"-X", "-w", "-At", "-d", fmt.Sprintf("host=127.0.0.1 port=%d dbname=lake connect_timeout=10 %s", s.port, conninfo)}
	for _, c := range cmds {
		args = append(args, "-c", c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), psqlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, psqlPath(t), args...)
	cmd.Env = psqlEnv()
	if password != "" {
		cmd.Env = append(cmd.Env, "PGPASSWORD="+password)
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("psql: %v", err)
		}
		code = ee.ExitCode()
	}
	return stdout.String(), stderr.String(), code
}

func wantLoginError(t *testing.T, what string, err error, code, message string) {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != code || pe.Message != message || pe.Severity != "FATAL" {
		t.Errorf("%s: got %v, want FATAL %s %q", what, err, code, message)
	}
}

func queryText(t *testing.T, conn *pgx.Conn, sql string) string {
	t.Helper()
	var s string
	if err := conn.QueryRow(testCtx(t), sql).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

// certificates is a CA and a server certificate for localhost and 127.0.0.1
// it signed, as PEM files.
type certificates struct{ ca, cert, key string }

func makeCertificates(t *testing.T) certificates {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "security test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	c := certificates{ca: filepath.Join(dir, "ca.pem"), cert: filepath.Join(dir, "server.pem"), key: filepath.Join(dir, "server.key")}
	for path, block := range map[string]*pem.Block{
		c.ca: {Type: "CERTIFICATE", Bytes: caDER}, c.cert: {Type: "CERTIFICATE", Bytes: der}, c.key: {Type: "PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

var verifierPattern = regexp.MustCompile(`^SCRAM-SHA-256\$4096:[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=$`)

func TestSecurityTLSRolesAndNotices(t *testing.T) {
	certs := makeCertificates(t)
	dir := t.TempDir()
	tlsArgs := []string{"--tls-cert", certs.cert, "--tls-key", certs.key}
	srv := startSecure(t, dir, tlsArgs, nil, "test", "", "sslmode=disable")

	// TLS with pgx and psql, verifying the certificate.
	for _, params := range []string{"sslmode=require", "sslmode=verify-full&sslrootcert=" + url.QueryEscape(certs.ca),
		"sslmode=verify-full&sslnegotiation=direct&sslrootcert=" + url.QueryEscape(certs.ca)} {
		conn := srv.mustLogin(t, "test", "", params)
		if _, ok := conn.PgConn().Conn().(*tls.Conn); !ok {
			t.Errorf("%s: connection is %T, not TLS", params, conn.PgConn().Conn())
		}
	}
	out, errOut, code := srv.psql(t, "user=test sslmode=verify-full sslrootcert="+certs.ca, "", `\conninfo`, "SELECT 42")
	if code != 0 || !strings.Contains(out, "SSL connection (protocol: TLSv1.3") || !strings.HasSuffix(out, "\n42\n") {
		t.Errorf("psql verify-full: %q %q %d", out, errOut, code)
	}

	// Notices, with pgx and with psql, under client_min_messages.
	var mu sync.Mutex
	var notices []pgconn.Notice
	cfg, err := pgx.ParseConfig(srv.url("test", "", "sslmode=require"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		notices = append(notices, *n)
		mu.Unlock()
	}
	conn, err := pgx.ConnectConfig(testCtx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, mode := range pgxModes {
		mustExec(t, conn, "DROP TABLE IF EXISTS missing", mode)
	}
	mustExec(t, conn, "SET client_min_messages = warning")
	mustExec(t, conn, "DROP TABLE IF EXISTS missing")
	mu.Lock()
	if len(notices) != len(pgxModes) {
		t.Errorf("notices: %+v", notices)
	}
	for _, n := range notices {
		if n.Severity != "NOTICE" || n.Code != "00000" || n.Message != `table "missing" does not exist, skipping` {
			t.Errorf("notice %+v", n)
		}
	}
	mu.Unlock()
	_, errOut, code = srv.psql(t, "user=test", "", "DROP TABLE IF EXISTS missing", "DROP SCHEMA IF EXISTS nope")
	if code != 0 || errOut != "NOTICE:  table \"missing\" does not exist, skipping\nNOTICE:  schema \"nope\" does not exist, skipping\n" {
		t.Errorf("psql notices: %q %d", errOut, code)
	}

	// Trusted while no role has a password; current_user is the login name.
	if u := queryText(t, conn, "SELECT current_user || ',' || session_user"); u != "test,test" {
		t.Errorf("current_user, session_user = %s", u)
	}
	mustExec(t, conn, "CREATE ROLE admin WITH SUPERUSER LOGIN PASSWORD 'Admin pw 1'")

	// From now on every login needs a password.
	_, err = srv.login(t, "test", "", "sslmode=disable")
	wantLoginError(t, "test without a password", err, "28P01", `password authentication failed for user "test"`)
	_, err = srv.login(t, "admin", "wrong", "sslmode=disable")
	wantLoginError(t, "admin, wrong password", err, "28P01", `password authentication failed for user "admin"`)
	_, err = srv.login(t, "nobody", "Admin pw 1", "sslmode=disable")
	wantLoginError(t, "unknown user", err, "28P01", `password authentication failed for user "nobody"`)

	admin := srv.mustLogin(t, "admin", "Admin pw 1", "sslmode=verify-full&channel_binding=require&sslrootcert="+url.QueryEscape(certs.ca))
	if u := queryText(t, admin, "SELECT current_user || ',' || session_user"); u != "admin,admin" {
		t.Errorf("current_user, session_user = %s", u)
	}
	if v := queryText(t, admin, "SELECT rolpassword FROM pg_authid WHERE rolname = 'admin'"); !verifierPattern.MatchString(v) {
		t.Errorf("stored verifier %q", v)
	}
	if v := queryText(t, admin, "SELECT rolpassword FROM pg_roles WHERE rolname = 'admin'"); v != "********" {
		t.Errorf("pg_roles.rolpassword %q", v)
	}
	// The session that was trusted keeps going.
	if n := queryInt(t, conn, "SELECT 1"); n != 1 {
		t.Error("trusted session")
	}

	// A role created over SQL logs in; psql with PGPASSWORD too.
	mustExec(t, admin, "CREATE USER app PASSWORD 'app-pw'")
	app := srv.mustLogin(t, "app", "app-pw", "sslmode=disable")
	if u := queryText(t, app, "SELECT current_user"); u != "app" {
		t.Errorf("current_user %q", u)
	}
	if got := app.PgConn().ParameterStatus("is_superuser"); got != "off" {
		t.Errorf("app is_superuser %q", got)
	}
	out, errOut, code = srv.psql(t, "user=app sslmode=require", "app-pw", "SELECT current_user")
	if code != 0 || out != "app\n" {
		t.Errorf("psql app: %q %q %d", out, errOut, code)
	}
	_, errOut, code = srv.psql(t, "user=app sslmode=disable", "bad", "SELECT 1")
	if code == 0 || !strings.Contains(errOut, `FATAL:  password authentication failed for user "app"`) {
		t.Errorf("psql wrong password: %q %d", errOut, code)
	}
	_, err = app.Exec(testCtx(t), "CREATE ROLE sneaky SUPERUSER")
	if pe := pgError(t, "app creates a role", err); pe.Code != "42501" {
		t.Errorf("app creates a role: %v", pe)
	}

	// ALTER ROLE: the old password stops working, the new one works.
	mustExec(t, admin, "ALTER ROLE app WITH PASSWORD 'app-pw-2'")
	_, err = srv.login(t, "app", "app-pw", "sslmode=disable")
	wantLoginError(t, "old password", err, "28P01", `password authentication failed for user "app"`)
	app = srv.mustLogin(t, "app", "app-pw-2", "sslmode=disable")
	// Everyone may change their own password.
	mustExec(t, app, "ALTER ROLE app PASSWORD 'app-pw-3'")
	srv.mustLogin(t, "app", "app-pw-3", "sslmode=disable")
	// NOLOGIN and PASSWORD NULL.
	mustExec(t, admin, "ALTER ROLE app NOLOGIN")
	_, err = srv.login(t, "app", "app-pw-3", "sslmode=disable")
	wantLoginError(t, "NOLOGIN", err, "28000", `role "app" is not permitted to log in`)
	mustExec(t, admin, "ALTER ROLE app LOGIN PASSWORD NULL")
	_, err = srv.login(t, "app", "app-pw-3", "sslmode=disable")
	wantLoginError(t, "PASSWORD NULL", err, "28P01", `password authentication failed for user "app"`)

	// A second server on the same catalog knows the same roles.
	mustExec(t, admin, "CREATE USER shared PASSWORD 'shared pw'")
	other := startSecure(t, dir, nil, nil, "admin", "Admin pw 1", "sslmode=require")
	other2 := other.mustLogin(t, "shared", "shared pw", "sslmode=require")
	mustExec(t, other2, "SELECT 1")
	mustExec(t, other.mustLogin(t, "admin", "Admin pw 1", "sslmode=require"), "DROP ROLE shared")
	_, err = srv.login(t, "shared", "shared pw", "sslmode=disable")
	wantLoginError(t, "dropped on the other server", err, "28P01", `password authentication failed for user "shared"`)

	// DROP ROLE.
	mustExec(t, admin, "DROP ROLE app")
	_, err = srv.login(t, "app", "app-pw-3", "sslmode=disable")
	wantLoginError(t, "dropped role", err, "28P01", `password authentication failed for user "app"`)
	if got := queryText(t, admin, "SELECT string_agg(rolname, ',' ORDER BY rolname) FROM pg_roles"); got != "admin,pg_database_owner" {
		t.Errorf("pg_roles after DROP ROLE: %s", got)
	}
}

func TestSecurityRequireTLS(t *testing.T) {
	// No certificate given: the self-signed one serves sslmode=require.
	srv := startSecure(t, t.TempDir(), []string{"--require-tls"}, nil, "test", "", "sslmode=require")
	_, err := srv.login(t, "test", "", "sslmode=disable")
	wantLoginError(t, "plain text under --require-tls", err, "28000",
		`no pg_hba.conf entry for host "127.0.0.1", user "test", database "lake", no encryption`)
	_, errOut, code := srv.psql(t, "user=test sslmode=disable", "", "SELECT 1")
	if code == 0 || !strings.Contains(errOut, `no pg_hba.conf entry for host "127.0.0.1", user "test", database "lake", no encryption`) {
		t.Errorf("psql sslmode=disable: %q %d", errOut, code)
	}
	out, errOut, code := srv.psql(t, "user=test sslmode=require", "", `\conninfo`, "SELECT 7")
	if code != 0 || !strings.Contains(out, "SSL connection") || !strings.HasSuffix(out, "\n7\n") {
		t.Errorf("psql sslmode=require: %q %q %d", out, errOut, code)
	}
	conn := srv.mustLogin(t, "test", "", "sslmode=require")
	if _, ok := conn.PgConn().Conn().(*tls.Conn); !ok {
		t.Error("not TLS")
	}
	// The env spelling works as the flag does.
	srv2 := startSecure(t, t.TempDir(), nil, []string{"LAKEPG_REQUIRE_TLS=true"}, "test", "", "sslmode=require")
	_, err = srv2.login(t, "test", "", "sslmode=disable")
	wantLoginError(t, "LAKEPG_REQUIRE_TLS", err, "28000",
		`no pg_hba.conf entry for host "127.0.0.1", user "test", database "lake", no encryption`)
}

func TestSecurityListenBeyondLoopback(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	all := fmt.Sprintf("0.0.0.0:%d", port)
	base := []string{"--listen", all, "--catalog", "sqlite:" + filepath.Join(dir, "catalog.sqlite"), "--data", filepath.Join(dir, "data")}

	// No role with a password: refused, with the reason and the way out.
	ctx, cancel := context.WithTimeout(context.Background(), testserver.StartTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, lakepgBin, base...)
	cmd.Dir = dir
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "--listen "+all+": no role has a password") ||
		!strings.Contains(string(out), "--bootstrap-password (or LAKEPG_PASSWORD)") {
		t.Fatalf("listen on all interfaces without passwords: %v\n%s", err, out)
	}

	// LAKEPG_PASSWORD makes the first superuser, and then it starts.
	srv := startSecure(t, dir, []string{"--listen", all}, []string{"LAKEPG_PASSWORD=boot pw"}, "lakepg", "boot pw", "sslmode=require")
	if !strings.Contains(srv.logs.String(), `msg="created superuser role" role=lakepg`) {
		t.Errorf("log: %s", srv.logs.String())
	}
	conn := srv.mustLogin(t, "lakepg", "boot pw", "sslmode=require")
	if got := conn.PgConn().ParameterStatus("is_superuser"); got != "on" {
		t.Errorf("is_superuser %q", got)
	}
	_, err = srv.login(t, "lakepg", "", "sslmode=require")
	wantLoginError(t, "no password, even on loopback", err, "28P01", `password authentication failed for user "lakepg"`)
	srv.stop()

	// A restart with another LAKEPG_PASSWORD leaves the role as it is.
	srv = startSecure(t, dir, []string{"--listen", all}, []string{"LAKEPG_PASSWORD=other"}, "lakepg", "boot pw", "sslmode=require")
	_, err = srv.login(t, "lakepg", "other", "sslmode=require")
	wantLoginError(t, "second bootstrap password", err, "28P01", `password authentication failed for user "lakepg"`)
	srv.stop()

	// The roles already in the catalog are enough to listen everywhere;
	// --bootstrap-user names another first superuser.
	srv = startSecure(t, dir, []string{"--listen", all, "--bootstrap-user", "root2", "--bootstrap-password", "r2"}, nil, "root2", "r2", "sslmode=require")
	srv.mustLogin(t, "lakepg", "boot pw", "sslmode=require")
}

// TestSecurityVerifierInPostgres proves the stored verifier is PostgreSQL's:
// real PostgreSQL takes lakepg's verifier as a SCRAM secret (and, where its
// pg_hba.conf asks for passwords, logs the role in with the plaintext
// password), and lakepg logs a user in with a verifier real PostgreSQL made.
func TestSecurityVerifierInPostgres(t *testing.T) {
	pgDSN := testserver.PostgresDSN(t)
	srv := startSecure(t, t.TempDir(), nil, nil, "test", "", "sslmode=disable")
	lake := srv.mustLogin(t, "test", "", "sslmode=disable")

	ctx := testCtx(t)
	pgc, err := pgx.Connect(ctx, pgDSN)
	if err != nil {
		t.Fatalf("PostgreSQL: %v", err)
	}
	// Closed after the cleanups below (they run last-in first-out) have dropped the roles.
	t.Cleanup(func() { pgc.Close(context.Background()) })
	suffix := strconv.Itoa(os.Getpid())
	passwords := map[string]string{"ours_ascii_" + suffix: "Correct horse 1", "ours_utf8_" + suffix: "Pässwörd\u00a0ｘ"}

	for role, pw := range passwords {
		mustExec(t, lake, "CREATE ROLE "+role+" LOGIN PASSWORD '"+pw+"'")
		ours := queryText(t, lake, "SELECT rolpassword FROM pg_authid WHERE rolname = '"+role+"'")
		if !verifierPattern.MatchString(ours) {
			t.Fatalf("%s: verifier %q", role, ours)
		}
		if _, err := pgc.Exec(ctx, "DROP ROLE IF EXISTS "+role); err != nil {
			t.Fatal(err)
		}
		if _, err := pgc.Exec(ctx, "CREATE ROLE "+role+" LOGIN PASSWORD '"+ours+"'"); err != nil {
			t.Fatalf("PostgreSQL CREATE ROLE with our verifier: %v", err)
		}
		t.Cleanup(func() { pgc.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
		var stored string
		if err := pgc.QueryRow(ctx, "SELECT rolpassword FROM pg_authid WHERE rolname = $1", role).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if stored != ours {
			t.Errorf("%s: PostgreSQL stored %q for our verifier %q: it did not take it as a SCRAM secret", role, stored, ours)
		}
		// libpq prepares the password with SASLprep exactly as PostgreSQL.
		_, errOut, code := srv.psql(t, "user="+role+" sslmode=disable", pw, "SELECT current_user")
		if code != 0 {
			t.Errorf("psql as %s into lakepg: %s", role, errOut)
		}
		checkPostgresLogin(t, pgDSN, role, pw)
	}

	// The other way: PostgreSQL hashes the password, lakepg checks it.
	for i, pw := range []string{"Correct horse 1", "Pässwörd\u00a0ｘ"} {
		role := fmt.Sprintf("theirs_%d_%s", i, suffix)
		if _, err := pgc.Exec(ctx, "DROP ROLE IF EXISTS "+role); err != nil {
			t.Fatal(err)
		}
		if _, err := pgc.Exec(ctx, "SET password_encryption = 'scram-sha-256'; CREATE ROLE "+role+" LOGIN PASSWORD '"+pw+"'"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pgc.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
		var theirs string
		if err := pgc.QueryRow(ctx, "SELECT rolpassword FROM pg_authid WHERE rolname = $1", role).Scan(&theirs); err != nil {
			t.Fatal(err)
		}
		mustExec(t, lake, "CREATE ROLE "+role+" LOGIN PASSWORD '"+theirs+"'")
		if got := queryText(t, lake, "SELECT rolpassword FROM pg_authid WHERE rolname = '"+role+"'"); got != theirs {
			t.Errorf("lakepg stored %q for PostgreSQL's verifier %q", got, theirs)
		}
		out, errOut, code := srv.psql(t, "user="+role+" sslmode=disable", pw, "SELECT current_user")
		if code != 0 || out != role+"\n" {
			t.Errorf("psql as %s with PostgreSQL's verifier: %q %s", role, out, errOut)
		}
		if i == 0 {
			// pgx normalises passwords with PRECIS, not SASLprep: the same
			// only for ASCII, so pgx logs in with the ASCII one.
			c := srv.mustLogin(t, role, pw, "sslmode=disable")
			if u := queryText(t, c, "SELECT current_user"); u != role {
				t.Errorf("current_user %q", u)
			}
		}
	}
}

// checkPostgresLogin logs into the real PostgreSQL as role with password,
// with psql (libpq). A test cluster with trust authentication asks for no
// password at all; then the verifier comparison above is the proof, and the
// test log says so.
func checkPostgresLogin(t *testing.T, adminDSN, role, password string) {
	t.Helper()
	cfg, err := pgconn.ParseConfig(adminDSN)
	if err != nil {
		t.Fatal(err)
	}
	run := func(pw string) (string, int) {
		ctx, cancel := context.WithTimeout(context.Background(), psqlTimeout)
		defer cancel()
		conninfo := fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable connect_timeout=10", cfg.Host, cfg.Port, role, cfg.Database)
		cmd := exec.CommandContext(ctx, psqlPath(t), "-X", "-w", "-At", "-d", conninfo, "-c", "SELECT current_user")
		cmd.Env = append(psqlEnv(), "PGPASSWORD="+pw)
		out, err := cmd.CombinedOutput()
		if err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("psql: %v", err)
			}
			return string(out), ee.ExitCode()
		}
		return string(out), 0
	}
	out, code := run("definitely not " + password)
	if code == 0 {
		t.Logf("PostgreSQL at %s:%d does not ask %s for a password (trust in pg_hba.conf): login with the plaintext not checked there", cfg.Host, cfg.Port, role)
		return
	}
	if !strings.Contains(out, `password authentication failed for user "`+role+`"`) {
		t.Fatalf("PostgreSQL login with a wrong password: %s", out)
	}
	if out, code := run(password); code != 0 || out != role+"\n" {
		t.Errorf("PostgreSQL refused %s with the plaintext password behind lakepg's verifier: %s", role, out)
	}
}
