package wire

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// testVerifier builds a SCRAM-SHA-256 verifier the way PostgreSQL does, for
// an ASCII password (which SASLprep leaves alone).
func testVerifier(t *testing.T, password string, salt []byte, iters int) string {
	t.Helper()
	salted, err := pbkdf2.Key(sha256.New, password, salt, iters, sha256.Size)
	if err != nil {
		t.Fatal(err)
	}
	clientKey := hmacSHA256(salted, []byte("Client Key"))
	stored := sha256.Sum256(clientKey)
	serverKey := hmacSHA256(salted, []byte("Server Key"))
	b := base64.StdEncoding.EncodeToString
	return "SCRAM-SHA-256$" + strconv.Itoa(iters) + ":" + b(salt) + "$" + b(stored[:]) + ":" + b(serverKey)
}

// authEngine is the fake engine with roles: users without an entry are
// unknown. With trust set, every login is trusted.
type authEngine struct {
	*fakeEngine
	mu    sync.Mutex
	trust bool
	roles map[string]Credentials
	asked []string
}

func (e *authEngine) Credentials(ctx context.Context, user string) (Credentials, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, user)
	if user == "panicky" {
		panic("credentials boom")
	}
	if e.trust {
		return Credentials{Trust: true, CanLogin: true, Superuser: true}, nil
	}
	return e.roles[user], nil
}

func startAuthServer(t *testing.T, opts Options, ae *authEngine) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveWith(t, ln, opts, func(f *fakeEngine) Engine {
		ae.fakeEngine = f
		return ae
	})
}

func testRoles(t *testing.T) *authEngine {
	return &authEngine{roles: map[string]Credentials{
		"alice": {Verifier: testVerifier(t, "s3cret pw", []byte("0123456789abcdef"), 4096), CanLogin: true, Superuser: true},
		"dave":  {Verifier: testVerifier(t, "davepw", []byte("fedcba9876543210"), 4096), CanLogin: true},
		"bob":   {Verifier: testVerifier(t, "bobpw", []byte("salt-of-bob....."), 4096), CanLogin: false},
		"carol": {CanLogin: true}, // a role without a password
		"eve":   {Verifier: "md5ffffffffffffffffffffffffffffffff", CanLogin: true},
	}}
}

func dsnFor(ts *testServer, user, password, params string) string {
	u := user
	if password != "" {
		u += ":" + password
	}
	return "postgres://" + u + "@" + ts.addr + "/lake?" + params
}

func wantPgError(t *testing.T, what string, err error, code, message string) {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != code || pe.Message != message || pe.Severity != "FATAL" {
		t.Errorf("%s: got %v, want FATAL %s %q", what, err, code, message)
	}
}

func TestSCRAMWithPgx(t *testing.T) {
	ae := testRoles(t)
	ts := startAuthServer(t, Options{}, ae)

	conn, err := pgxConnect(t, dsnFor(ts, "alice", "s3cret%20pw", "sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := conn.QueryRow(testCtx(t), "gen 1").Scan(&n); err != nil || n != 1 {
		t.Errorf("gen 1: %d %v", n, err)
	}
	if got := conn.PgConn().ParameterStatus("is_superuser"); got != "on" {
		t.Errorf("alice is_superuser = %q", got)
	}
	conn, err = pgxConnect(t, dsnFor(ts, "dave", "davepw", "sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	if got := conn.PgConn().ParameterStatus("is_superuser"); got != "off" {
		t.Errorf("dave is_superuser = %q", got)
	}

	// Wrong password, unknown user, a role without a password, a password
	// hash we cannot use, no password at all: the same answer for each.
	for _, c := range []struct{ user, password string }{
		{"alice", "wrong"}, {"mallory", "s3cret%20pw"}, {"carol", "anything"}, {"eve", "x"}, {"alice", ""},
	} {
		_, err := pgxConnect(t, dsnFor(ts, c.user, c.password, "sslmode=disable"))
		wantPgError(t, c.user+"/"+c.password, err, "28P01", `password authentication failed for user "`+c.user+`"`)
	}
	// NOLOGIN: authenticated, then refused.
	_, err = pgxConnect(t, dsnFor(ts, "bob", "bobpw", "sslmode=disable"))
	wantPgError(t, "bob", err, "28000", `role "bob" is not permitted to log in`)
	_, err = pgxConnect(t, dsnFor(ts, "bob", "nope", "sslmode=disable"))
	wantPgError(t, "bob wrong", err, "28P01", `password authentication failed for user "bob"`)

	// An engine that panics while looking up a user fails that login only.
	_, err = pgxConnect(t, dsnFor(ts, "panicky", "x", "sslmode=disable"))
	wantPgError(t, "panicky", err, "XX000", "internal error: credentials boom")
	if _, err := pgxConnect(t, dsnFor(ts, "alice", "s3cret%20pw", "sslmode=disable")); err != nil {
		t.Errorf("after a panic: %v", err)
	}
}

func TestSCRAMChannelBinding(t *testing.T) {
	pki := newTestPKI(t)
	ts := startAuthServer(t, Options{TLS: pki.config(t)}, testRoles(t))

	// pgx: channel_binding=require fails unless SCRAM-SHA-256-PLUS is
	// offered and the server's signature over the bound exchange verifies.
	conn, err := pgxConnect(t, dsnFor(ts, "alice", "s3cret%20pw", "sslmode=require&channel_binding=require"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := isTLS(conn); !ok {
		t.Error("not TLS")
	}
	_, err = pgxConnect(t, dsnFor(ts, "alice", "wrong", "sslmode=require&channel_binding=require"))
	wantPgError(t, "PLUS, wrong password", err, "28P01", `password authentication failed for user "alice"`)
	// Without binding over TLS ("y" flag would be a downgrade; pgx sends
	// "n" when told channel_binding=disable? No: it must still work).
	if _, err := pgxConnect(t, dsnFor(ts, "alice", "s3cret%20pw", "sslmode=require&channel_binding=disable")); err != nil {
		t.Errorf("channel_binding=disable over TLS: %v", err)
	}
	// Plain text: no PLUS offered, so channel_binding=require fails in the client.
	if _, err := pgxConnect(t, dsnFor(ts, "alice", "s3cret%20pw", "sslmode=disable&channel_binding=require")); err == nil {
		t.Error("channel_binding=require without TLS succeeded")
	}

	// psql (libpq 15) binds too.
	out, err := psqlEnv(t, "host=localhost port="+ts.port+" user=alice dbname=lake sslmode=verify-full sslrootcert="+pki.caFile+" channel_binding=require",
		[]string{"PGPASSWORD=s3cret pw"}, "-c", "gen 2")
	if err != nil || out != "1\n2\n" {
		t.Errorf("psql channel_binding=require: %q %v", out, err)
	}
}

func TestSCRAMWithPsql(t *testing.T) {
	ts := startAuthServer(t, Options{}, testRoles(t))
	conninfo := "host=127.0.0.1 port=" + ts.port + " user=alice dbname=lake sslmode=disable"
	out, err := psqlEnv(t, conninfo, []string{"PGPASSWORD=s3cret pw"}, "-c", "gen 3")
	if err != nil || out != "1\n2\n3\n" {
		t.Errorf("psql with PGPASSWORD: %q %v", out, err)
	}
	out, err = psqlEnv(t, conninfo, []string{"PGPASSWORD=wrong"}, "-c", "gen 1")
	if err == nil || !strings.Contains(out, `FATAL:  password authentication failed for user "alice"`) {
		t.Errorf("psql wrong password: %q %v", out, err)
	}
	// -w and no password: libpq gives up after AuthenticationSASL, the
	// server sees the client leave.
	out, err = psqlEnv(t, conninfo, nil, "-c", "gen 1")
	if err == nil || !strings.Contains(out, "no password supplied") {
		t.Errorf("psql without a password: %q %v", out, err)
	}
}

func TestTrustOnlyFromLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	far := &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 40000}
	ae := &authEngine{trust: true}
	ts := serveWith(t, remoteAddrListener{ln, far}, Options{}, func(f *fakeEngine) Engine { ae.fakeEngine = f; return ae })
	_, err = pgxConnect(t, ts.connString(""))
	wantPgError(t, "trust from afar", err, "28000", `no pg_hba.conf entry for host "192.0.2.7", user "alice", database "lake", no encryption`)

	// The same address with passwords configured: SCRAM admits it.
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ae2 := testRoles(t)
	ts2 := serveWith(t, remoteAddrListener{ln2, far}, Options{}, func(f *fakeEngine) Engine { ae2.fakeEngine = f; return ae2 })
	if _, err := pgxConnect(t, dsnFor(ts2, "alice", "s3cret%20pw", "sslmode=disable")); err != nil {
		t.Errorf("SCRAM from afar: %v", err)
	}

	// An engine without an Authenticator trusts loopback (the other tests
	// of this package) and nobody else.
	ln3, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts3 := serveOn(t, remoteAddrListener{ln3, far}, Options{})
	_, err = pgxConnect(t, ts3.connString(""))
	wantPgError(t, "no authenticator, from afar", err, "28000", `no pg_hba.conf entry for host "192.0.2.7", user "alice", database "lake", no encryption`)
}

// scramClient is a minimal client side of the exchange, for raw tests.
type scramClient struct {
	gs2, firstBare, nonce string
}

func (sc *scramClient) firstMessage(gs2 string) []byte {
	sc.gs2 = gs2
	sc.nonce = "rOprNGfwEbeRWgbNEkqO"
	sc.firstBare = "n=,r=" + sc.nonce
	return []byte(gs2 + sc.firstBare)
}

func (sc *scramClient) finalMessage(t *testing.T, serverFirst, password string, cbData []byte) []byte {
	t.Helper()
	attrs := map[string]string{}
	for _, a := range strings.Split(serverFirst, ",") {
		attrs[a[:1]] = a[2:]
	}
	salt, err := base64.StdEncoding.DecodeString(attrs["s"])
	if err != nil {
		t.Fatal(err)
	}
	iters, _ := strconv.Atoi(attrs["i"])
	salted, err := pbkdf2.Key(sha256.New, password, salt, iters, sha256.Size)
	if err != nil {
		t.Fatal(err)
	}
	clientKey := hmacSHA256(salted, []byte("Client Key"))
	stored := sha256.Sum256(clientKey)
	withoutProof := "c=" + base64.StdEncoding.EncodeToString(append([]byte(sc.gs2), cbData...)) + ",r=" + attrs["r"]
	auth := sc.firstBare + "," + serverFirst + "," + withoutProof
	sig := hmacSHA256(stored[:], []byte(auth))
	for i := range sig {
		sig[i] ^= clientKey[i]
	}
	return []byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(sig))
}

// rawSASLStart sends a startup packet for user and returns the mechanisms
// offered.
func rawSASLStart(t *testing.T, fe *pgproto3.Frontend, user string) []string {
	t.Helper()
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": user, "database": "lake"}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	msg, err := fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	sasl, ok := msg.(*pgproto3.AuthenticationSASL)
	if !ok {
		t.Fatalf("got %T, want AuthenticationSASL", msg)
	}
	return sasl.AuthMechanisms
}

func rawSASLSend(t *testing.T, fe *pgproto3.Frontend, msg pgproto3.FrontendMessage) pgproto3.BackendMessage {
	t.Helper()
	fe.Send(msg)
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	reply, err := fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	return reply
}

func TestSCRAMExchangeRaw(t *testing.T) {
	pki := newTestPKI(t)
	cfg := pki.config(t)
	ts := startAuthServer(t, Options{TLS: cfg}, testRoles(t))

	// Plain text: SCRAM-SHA-256 only; the whole exchange by hand, checking
	// the server's signature.
	rc := ts.dialRaw(t)
	if got := rawSASLStart(t, rc.fe, "alice"); !equalStrings(got, []string{"SCRAM-SHA-256"}) {
		t.Errorf("mechanisms without TLS: %q", got)
	}
	sc := &scramClient{}
	reply := rawSASLSend(t, rc.fe, &pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: sc.firstMessage("n,,")})
	cont, ok := reply.(*pgproto3.AuthenticationSASLContinue)
	if !ok {
		t.Fatalf("got %#v, want SASLContinue", reply)
	}
	serverFirst := string(cont.Data)
	if !strings.HasPrefix(serverFirst, "r="+sc.nonce) || !strings.Contains(serverFirst, ",s="+base64.StdEncoding.EncodeToString([]byte("0123456789abcdef"))+",i=4096") {
		t.Errorf("server-first %q", serverFirst)
	}
	reply = rawSASLSend(t, rc.fe, &pgproto3.SASLResponse{Data: sc.finalMessage(t, serverFirst, "s3cret pw", nil)})
	fin, ok := reply.(*pgproto3.AuthenticationSASLFinal)
	if !ok {
		t.Fatalf("got %#v, want SASLFinal", reply)
	}
	// v = HMAC(ServerKey, AuthMessage), recomputed here from the password.
	salted, _ := pbkdf2.Key(sha256.New, "s3cret pw", []byte("0123456789abcdef"), 4096, 32)
	m := hmac.New(sha256.New, hmacSHA256(salted, []byte("Server Key")))
	final := sc.finalMessage(t, serverFirst, "s3cret pw", nil)
	m.Write([]byte(sc.firstBare + "," + serverFirst + "," + string(final[:strings.LastIndex(string(final), ",p=")])))
	if string(fin.Data) != "v="+base64.StdEncoding.EncodeToString(m.Sum(nil)) {
		t.Errorf("server signature %q", fin.Data)
	}
	got := rc.untilReady()
	if got[0] != "AuthenticationOk" {
		t.Errorf("after SASLFinal: %q", got)
	}

	// An unknown user sees the same salt every time, and no different
	// from a real one in shape.
	salts := map[string]bool{}
	for range 2 {
		rc := ts.dialRaw(t)
		rawSASLStart(t, rc.fe, "nobody")
		sc := &scramClient{}
		reply := rawSASLSend(t, rc.fe, &pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: sc.firstMessage("n,,")})
		first := string(reply.(*pgproto3.AuthenticationSASLContinue).Data)
		salts[first[strings.Index(first, ",s="):]] = true
		reply = rawSASLSend(t, rc.fe, &pgproto3.SASLResponse{Data: sc.finalMessage(t, first, "guess", nil)})
		if e, ok := reply.(*pgproto3.ErrorResponse); !ok || e.Code != "28P01" {
			t.Errorf("unknown user: %#v", reply)
		}
	}
	if len(salts) != 1 {
		t.Errorf("unknown user's salt changes: %v", salts)
	}

	// Malformed and unsupported first messages.
	for _, c := range []struct {
		mech, msg, code, message string
	}{
		{"SCRAM-SHA-1", "n,,n=,r=abc", "08P01", "client selected an invalid SASL authentication mechanism"},
		{"SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,n=,r=abc", "08P01", "client selected an invalid SASL authentication mechanism"},
		{"SCRAM-SHA-256", "p=tls-server-end-point,,n=,r=abc", "08P01", "malformed SCRAM message"},
		{"SCRAM-SHA-256", "n,a=alice,n=,r=abc", "0A000", "client uses authorization identity, but it is not supported"},
		{"SCRAM-SHA-256", "n,,m=ext,n=,r=abc", "0A000", "client requires an unsupported SCRAM extension"},
		{"SCRAM-SHA-256", "x,,n=,r=abc", "08P01", "malformed SCRAM message"},
		{"SCRAM-SHA-256", "n,,n=,r=", "08P01", "malformed SCRAM message"},
		{"SCRAM-SHA-256", "", "08P01", "malformed SCRAM message"},
	} {
		rc := ts.dialRaw(t)
		rawSASLStart(t, rc.fe, "alice")
		reply := rawSASLSend(t, rc.fe, &pgproto3.SASLInitialResponse{AuthMechanism: c.mech, Data: []byte(c.msg)})
		if e, ok := reply.(*pgproto3.ErrorResponse); !ok || e.Code != c.code || e.Message != c.message || e.Severity != "FATAL" {
			t.Errorf("%s %q: %#v", c.mech, c.msg, reply)
		}
	}

	// Over TLS: PLUS first. A client that says "y" (I could bind, but you
	// cannot) is being downgraded by someone in the middle: refused.
	tlsFrontend := func() *pgproto3.Frontend {
		rc := ts.dialRaw(t)
		rc.nc.SetDeadline(time.Now().Add(10 * time.Second))
		if got := encryptionRequest(t, rc.nc, codeSSLRequest); got != 'S' {
			t.Fatalf("SSLRequest answered %q", got)
		}
		tc := tls.Client(rc.nc, &tls.Config{InsecureSkipVerify: true})
		if err := tc.Handshake(); err != nil {
			t.Fatal(err)
		}
		return pgproto3.NewFrontend(tc, tc)
	}
	fe := tlsFrontend()
	if got := rawSASLStart(t, fe, "alice"); !equalStrings(got, []string{"SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"}) {
		t.Errorf("mechanisms over TLS: %q", got)
	}
	reply = rawSASLSend(t, fe, &pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: (&scramClient{}).firstMessage("y,,")})
	if e, ok := reply.(*pgproto3.ErrorResponse); !ok || e.Code != "08P01" || e.Message != "SCRAM channel binding negotiation error" {
		t.Errorf("y flag over TLS: %#v", reply)
	}

	// PLUS with the wrong binding data: refused before the proof counts.
	fe = tlsFrontend()
	rawSASLStart(t, fe, "alice")
	sc = &scramClient{}
	reply = rawSASLSend(t, fe, &pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256-PLUS", Data: sc.firstMessage("p=tls-server-end-point,,")})
	first := string(reply.(*pgproto3.AuthenticationSASLContinue).Data)
	reply = rawSASLSend(t, fe, &pgproto3.SASLResponse{Data: sc.finalMessage(t, first, "s3cret pw", []byte("not the certificate hash"))})
	if e, ok := reply.(*pgproto3.ErrorResponse); !ok || e.Code != "08P01" || e.Message != "SCRAM channel binding check failed" {
		t.Errorf("wrong binding data: %#v", reply)
	}
	// And with the right data (the hash of our certificate) it verifies.
	fe = tlsFrontend()
	rawSASLStart(t, fe, "alice")
	sc = &scramClient{}
	reply = rawSASLSend(t, fe, &pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256-PLUS", Data: sc.firstMessage("p=tls-server-end-point,,")})
	first = string(reply.(*pgproto3.AuthenticationSASLContinue).Data)
	certHash := sha256.Sum256(cfg.Certificates[0].Certificate[0])
	reply = rawSASLSend(t, fe, &pgproto3.SASLResponse{Data: sc.finalMessage(t, first, "s3cret pw", certHash[:])})
	if _, ok := reply.(*pgproto3.AuthenticationSASLFinal); !ok {
		t.Errorf("right binding data: %#v", reply)
	}
}

func TestParseSCRAMSecret(t *testing.T) {
	v := testVerifier(t, "pw", []byte("0123456789abcdef"), 4096)
	s, ok := parseSCRAMSecret(v)
	if !ok || s.iters != 4096 || string(s.salt) != "0123456789abcdef" || len(s.storedKey) != 32 || len(s.serverKey) != 32 {
		t.Errorf("parse %q: %+v %v", v, s, ok)
	}
	for _, bad := range []string{"", "md5abc", "SCRAM-SHA-256$", "SCRAM-SHA-256$x:c2FsdA==$a:b",
		"SCRAM-SHA-256$4096:c2FsdA==$AAAA:AAAA", "SCRAM-SHA-256$0:c2FsdA==$" + strings.Repeat("A", 43) + "=:" + strings.Repeat("A", 43) + "="} {
		if _, ok := parseSCRAMSecret(bad); ok {
			t.Errorf("parsed %q", bad)
		}
	}
}

// TestSCRAMRFC7677 replays the exchange of RFC 7677 section 3 (user
// "user", password "pencil") against the server side.
func TestSCRAMRFC7677(t *testing.T) {
	secret, ok := parseSCRAMSecret("SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=")
	if !ok {
		t.Fatal("parse")
	}
	s := &scramServer{secret: secret}
	if _, err := s.first(mechSCRAM, []byte("n,,n=user,r=rOprNGfwEbeRWgbNEkqO")); err != nil {
		t.Fatal(err)
	}
	// The RFC's server nonce instead of our random one.
	s.nonce = "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
	s.serverFirst = "r=" + s.nonce + ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
	final, err := s.final([]byte("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
	if err != nil || string(final) != "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=" {
		t.Errorf("server-final %q %v", final, err)
	}
	// One bit of the proof flipped: refused.
	s2 := *s
	_, err = s2.final([]byte("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVU="))
	if !errors.Is(err, errAuthFailed) {
		t.Errorf("flipped proof: %v", err)
	}
}
