package wire

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// testPKI is a CA and a server certificate it signed for localhost and
// 127.0.0.1, written as PEM files.
type testPKI struct {
	caFile, certFile, keyFile string
	otherCAFile               string // a CA that did not sign the server certificate
}

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey, caDER := makeCA(t, "lakepg test CA")
	_, otherDER := makeCA(t, "someone else's CA")
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	p := testPKI{
		caFile:      filepath.Join(dir, "ca.pem"),
		otherCAFile: filepath.Join(dir, "other-ca.pem"),
		certFile:    filepath.Join(dir, "server.pem"),
		keyFile:     filepath.Join(dir, "server.key"),
	}
	writePEM(t, p.caFile, "CERTIFICATE", caDER)
	writePEM(t, p.otherCAFile, "CERTIFICATE", otherDER)
	writePEM(t, p.certFile, "CERTIFICATE", der)
	writePEM(t, p.keyFile, "EC PRIVATE KEY", keyDER)
	return p
}

func makeCA(t *testing.T, name string) (*ecdsa.PrivateKey, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return key, der
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (p testPKI) config(t *testing.T) *tls.Config {
	t.Helper()
	cfg, err := LoadTLSConfig(p.certFile, p.keyFile)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// pgxConnect connects with a full connection string, closed at test end.
func pgxConnect(t *testing.T, dsn string) (*pgx.Conn, error) {
	t.Helper()
	conn, err := pgx.Connect(testCtx(t), dsn)
	if err == nil {
		t.Cleanup(func() { conn.Close(context.Background()) })
	}
	return conn, err
}

func isTLS(c *pgx.Conn) (*tls.Conn, bool) {
	tc, ok := c.PgConn().Conn().(*tls.Conn)
	return tc, ok
}

func TestTLSWithPgx(t *testing.T) {
	pki := newTestPKI(t)
	ts := startServer(t, Options{TLS: pki.config(t)})

	for _, tc := range []struct {
		name, params string
		alpn         string
	}{
		// pgx sends ALPN only for direct TLS, libpq 17 always.
		{"require", "sslmode=require", ""},
		{"verify-full by IP", "sslmode=verify-full&sslrootcert=" + pki.caFile, ""},
		{"direct", "sslmode=require&sslnegotiation=direct", "postgresql"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := pgxConnect(t, "postgres://alice@"+ts.addr+"/lake?"+tc.params)
			if err != nil {
				t.Fatal(err)
			}
			tlsConn, ok := isTLS(conn)
			if !ok {
				t.Fatalf("connection is %T, want TLS", conn.PgConn().Conn())
			}
			if got := tlsConn.ConnectionState().NegotiatedProtocol; got != tc.alpn {
				t.Errorf("ALPN %q, want %q", got, tc.alpn)
			}
			var n int64
			if err := conn.QueryRow(testCtx(t), "gen 1").Scan(&n); err != nil || n != 1 {
				t.Errorf("gen 1 over TLS: %d %v", n, err)
			}
		})
	}

	// verify-full by name, from the port on localhost.
	conn, err := pgxConnect(t, "postgres://alice@localhost:"+ts.port+"/lake?sslmode=verify-full&sslrootcert="+pki.caFile)
	if err != nil {
		t.Fatalf("verify-full localhost: %v", err)
	}
	if _, ok := isTLS(conn); !ok {
		t.Error("verify-full localhost: not TLS")
	}

	// A CA that did not sign the certificate: the client refuses.
	if _, err := pgxConnect(t, "postgres://alice@"+ts.addr+"/lake?sslmode=verify-full&sslrootcert="+pki.otherCAFile); err == nil ||
		!strings.Contains(err.Error(), "certificate") {
		t.Errorf("verify-full with the wrong CA: %v", err)
	}

	// sslmode=disable still works when TLS is not required.
	conn, err = pgxConnect(t, ts.connString(""))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := isTLS(conn); ok {
		t.Error("sslmode=disable connection uses TLS")
	}
}

func TestSelfSignedTLS(t *testing.T) {
	cfg, err := SelfSignedTLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	leaf := cfg.Certificates[0].Leaf
	if leaf.Subject.CommonName != "localhost" || leaf.PublicKeyAlgorithm != x509.ECDSA ||
		leaf.PublicKey.(*ecdsa.PublicKey).Curve != elliptic.P256() {
		t.Errorf("certificate: CN %q, key %v", leaf.Subject.CommonName, leaf.PublicKeyAlgorithm)
	}
	if err := leaf.VerifyHostname("127.0.0.1"); err != nil {
		t.Error(err)
	}
	if err := leaf.VerifyHostname("localhost"); err != nil {
		t.Error(err)
	}
	if fp := CertificateFingerprint(cfg); len(fp) != 64 {
		t.Errorf("fingerprint %q", fp)
	}
	ts := startServer(t, Options{TLS: cfg})

	conn, err := pgxConnect(t, "postgres://alice@"+ts.addr+"/lake?sslmode=require")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := isTLS(conn); !ok {
		t.Fatal("not TLS")
	}
	// The certificate itself as the trusted root: verify-full passes.
	certFile := filepath.Join(t.TempDir(), "self.pem")
	writePEM(t, certFile, "CERTIFICATE", cfg.Certificates[0].Certificate[0])
	if _, err := pgxConnect(t, "postgres://alice@localhost:"+ts.port+"/lake?sslmode=verify-full&sslrootcert="+certFile); err != nil {
		t.Errorf("verify-full against the self-signed certificate: %v", err)
	}
	// Without it, verify-ca fails: the default gives encryption, not identity.
	if _, err := pgxConnect(t, "postgres://alice@"+ts.addr+"/lake?sslmode=verify-ca&sslrootcert="+newTestPKI(t).caFile); err == nil {
		t.Error("verify-ca with an unrelated CA succeeded")
	}
}

func TestRequireTLS(t *testing.T) {
	pki := newTestPKI(t)
	ts := startServer(t, Options{TLS: pki.config(t), RequireTLS: true})

	_, err := pgxConnect(t, ts.connString(""))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "28000" || pe.Severity != "FATAL" ||
		pe.Message != `no pg_hba.conf entry for host "127.0.0.1", user "alice", database "lake", no encryption` {
		t.Fatalf("plaintext under RequireTLS: %v", err)
	}
	conn, err := pgxConnect(t, "postgres://alice@"+ts.addr+"/lake?sslmode=require")
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := conn.QueryRow(testCtx(t), "gen 1").Scan(&n); err != nil || n != 1 {
		t.Errorf("gen 1: %d %v", n, err)
	}
	// sslmode=prefer upgrades, so it is admitted too.
	if _, err := pgxConnect(t, "postgres://alice@"+ts.addr+"/lake?sslmode=prefer"); err != nil {
		t.Errorf("prefer: %v", err)
	}

	out, err := psqlConn(t, "host=127.0.0.1 port="+ts.port+" user=carol dbname=lake sslmode=disable", "-c", "gen 1")
	if err == nil || !strings.Contains(out, `no pg_hba.conf entry for host "127.0.0.1", user "carol", database "lake", no encryption`) {
		t.Errorf("psql sslmode=disable: %q %v", out, err)
	}
	out, err = psqlConn(t, "host=127.0.0.1 port="+ts.port+" user=carol dbname=lake sslmode=require", "-c", "gen 2")
	if err != nil || out != "1\n2\n" {
		t.Errorf("psql sslmode=require: %q %v", out, err)
	}
}

func TestTLSWithPsql(t *testing.T) {
	pki := newTestPKI(t)
	ts := startServer(t, Options{TLS: pki.config(t)})
	for _, conninfo := range []string{
		"host=127.0.0.1 port=" + ts.port + " user=carol dbname=lake sslmode=require",
		"host=localhost port=" + ts.port + " user=carol dbname=lake sslmode=verify-full sslrootcert=" + pki.caFile,
	} {
		out, err := psqlConn(t, conninfo, "-c", `\conninfo`, "-c", "gen 1")
		if err != nil || !strings.Contains(out, "SSL connection (protocol: TLSv1.3") || !strings.HasSuffix(out, "\n1\n") {
			t.Errorf("%s: %q %v", conninfo, out, err)
		}
	}
	out, err := psqlConn(t, "host=localhost port="+ts.port+" user=carol dbname=lake sslmode=verify-full sslrootcert="+pki.otherCAFile, "-c", "gen 1")
	if err == nil || !strings.Contains(out, "certificate verify failed") {
		t.Errorf("psql verify-full with the wrong CA: %q %v", out, err)
	}
}

// psqlConn runs psql on a libpq connection string with -c commands.
func psqlConn(t *testing.T, conninfo string, args ...string) (string, error) {
	t.Helper()
	return psqlEnv(t, conninfo, nil, args...)
}

func psqlEnv(t *testing.T, conninfo string, env []string, args ...string) (string, error) {
	t.Helper()
	path, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql is not installed: run make test, which installs Debian's postgresql-client")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append([]string{"-X", "-w", "-A", "-t", "-F", "|", "-d", conninfo}, args...)...)
	var clean []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			clean = append(clean, kv)
		}
	}
	cmd.Env = append(append(clean, "PGCONNECT_TIMEOUT=10"), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestEncryptionRequests(t *testing.T) {
	pki := newTestPKI(t)
	ts := startServer(t, Options{TLS: pki.config(t)})

	// GSSENCRequest: 'N'; then SSLRequest: 'S' and a TLS handshake;
	// then the startup inside TLS.
	rc := ts.dialRaw(t)
	rc.nc.SetDeadline(time.Now().Add(10 * time.Second))
	if got := encryptionRequest(t, rc.nc, codeGSSENCRequest); got != 'N' {
		t.Fatalf("GSSENCRequest answered %q", got)
	}
	if got := encryptionRequest(t, rc.nc, codeSSLRequest); got != 'S' {
		t.Fatalf("SSLRequest answered %q", got)
	}
	tc := tls.Client(rc.nc, &tls.Config{InsecureSkipVerify: true})
	if err := tc.Handshake(); err != nil {
		t.Fatal(err)
	}
	// A second SSLRequest inside TLS is a protocol violation.
	encryptionRequestNoReply(t, tc, codeSSLRequest)
	fe := pgproto3.NewFrontend(tc, tc)
	msg, err := fe.Receive()
	if e, ok := msg.(*pgproto3.ErrorResponse); err != nil || !ok || e.Code != "08P01" {
		t.Errorf("SSLRequest inside TLS: %#v %v", msg, err)
	}

	// Direct TLS without ALPN is refused, as PostgreSQL 17 refuses it.
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	tc = tls.Client(nc, &tls.Config{InsecureSkipVerify: true})
	if err := tc.Handshake(); err != nil {
		t.Fatal(err)
	}
	fe = pgproto3.NewFrontend(tc, tc)
	msg, err = fe.Receive()
	if e, ok := msg.(*pgproto3.ErrorResponse); err != nil || !ok || e.Code != "08P01" ||
		e.Message != "received direct SSL connection request without ALPN protocol negotiation extension" {
		t.Errorf("direct TLS without ALPN: %#v %v", msg, err)
	}

	// A server without TLS answers 'N'.
	plain := startServer(t, Options{})
	rc = plain.dialRaw(t)
	rc.nc.SetDeadline(time.Now().Add(10 * time.Second))
	if got := encryptionRequest(t, rc.nc, codeSSLRequest); got != 'N' {
		t.Fatalf("SSLRequest without TLS answered %q", got)
	}
}

func encryptionRequestNoReply(t *testing.T, nc net.Conn, code uint32) {
	t.Helper()
	var b [8]byte
	binary.BigEndian.PutUint32(b[:4], 8)
	binary.BigEndian.PutUint32(b[4:], code)
	if _, err := nc.Write(b[:]); err != nil {
		t.Fatal(err)
	}
}

func encryptionRequest(t *testing.T, nc net.Conn, code uint32) byte {
	t.Helper()
	encryptionRequestNoReply(t, nc, code)
	var r [1]byte
	if _, err := nc.Read(r[:]); err != nil {
		t.Fatal(err)
	}
	return r[0]
}
