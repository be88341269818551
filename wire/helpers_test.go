package wire

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// testLogWriter sends server logs to the test log (shown with -v or on failure).
type testLogWriter struct{ t *testing.T }

func (w testLogWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

type testServer struct {
	srv  *Server
	eng  *fakeEngine
	addr string
	port string
	// served receives Serve's return value.
	served chan error
}

// startServer serves a fake engine on a loopback port; the server is shut
// down (and every connection waited for) when the test ends.
func startServer(t *testing.T, opts Options) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, ln, opts)
}

func serveOn(t *testing.T, ln net.Listener, opts Options) *testServer {
	t.Helper()
	return serveWith(t, ln, opts, nil)
}

// serveWith serves the fake engine, or what wrap makes of it (an engine
// with extra abilities, such as an Authenticator).
func serveWith(t *testing.T, ln net.Listener, opts Options, wrap func(*fakeEngine) Engine) *testServer {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(testLogWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if opts.ServerVersion == "" {
		opts.ServerVersion = "16.6 (lakepg test)"
	}
	ts := &testServer{eng: newFakeEngine(), addr: ln.Addr().String(), served: make(chan error, 1)}
	_, ts.port, _ = net.SplitHostPort(ts.addr)
	var eng Engine = ts.eng
	if wrap != nil {
		eng = wrap(ts.eng)
	}
	ts.srv = New(eng, opts)
	go func() { ts.served <- ts.srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ts.srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		select {
		case err := <-ts.served:
			if !errors.Is(err, ErrServerClosed) {
				t.Errorf("Serve returned %v, want ErrServerClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Serve did not return after Shutdown")
		}
	})
	return ts
}

func (ts *testServer) connString(extra string) string {
	s := fmt.Sprintf("postgres://alice@%s/lake?sslmode=disable&application_name=wiretest", ts.addr)
	if extra != "" {
		s += "&" + extra
	}
	return s
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// connect opens a pgx connection in the given mode, closed at test end.
func (ts *testServer) connect(t *testing.T, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(ts.connString(""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	conn, err := pgx.ConnectConfig(testCtx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// pgCode returns the SQLSTATE of a *pgconn.PgError, "" otherwise.
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// rawClient speaks the protocol message by message, for exact sequences.
type rawClient struct {
	t  *testing.T
	nc net.Conn
	fe *pgproto3.Frontend
}

// dialRaw connects and sends nothing yet.
func (ts *testServer) dialRaw(t *testing.T) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawClient{t: t, nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
}

// startRaw connects and completes the startup, returning the messages up to
// and including the first ReadyForQuery.
func (ts *testServer) startRaw(t *testing.T) (*rawClient, []string) {
	t.Helper()
	rc := ts.dialRaw(t)
	rc.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "bob", "database": "lake"}})
	return rc, rc.untilReady()
}

func (rc *rawClient) send(msgs ...pgproto3.FrontendMessage) {
	rc.t.Helper()
	for _, m := range msgs {
		rc.fe.Send(m)
	}
	if err := rc.fe.Flush(); err != nil {
		rc.t.Fatalf("send: %v", err)
	}
}

// recv returns the next message in summary form (see summarize).
func (rc *rawClient) recv() (string, error) {
	rc.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	m, err := rc.fe.Receive()
	if err != nil {
		return "", err
	}
	return summarize(m), nil
}

// untilReady receives messages up to and including ReadyForQuery.
func (rc *rawClient) untilReady() []string {
	rc.t.Helper()
	var got []string
	for {
		s, err := rc.recv()
		if err != nil {
			rc.t.Fatalf("receive after %q: %v", got, err)
		}
		got = append(got, s)
		if strings.HasPrefix(s, "ReadyForQuery") {
			return got
		}
	}
}

// receiveN receives exactly n messages.
func (rc *rawClient) receiveN(n int) []string {
	rc.t.Helper()
	var got []string
	for range n {
		s, err := rc.recv()
		if err != nil {
			rc.t.Fatalf("receive after %q: %v", got, err)
		}
		got = append(got, s)
	}
	return got
}

// summarize renders a backend message compactly for comparisons.
func summarize(m pgproto3.BackendMessage) string {
	switch m := m.(type) {
	case *pgproto3.DataRow:
		vals := make([]string, len(m.Values))
		for i, v := range m.Values {
			if v == nil {
				vals[i] = "NULL"
			} else {
				vals[i] = string(v)
			}
		}
		return "DataRow " + strings.Join(vals, ",")
	case *pgproto3.CommandComplete:
		return "CommandComplete " + string(m.CommandTag)
	case *pgproto3.ErrorResponse:
		return fmt.Sprintf("ErrorResponse %s %s", m.Severity, m.Code)
	case *pgproto3.ReadyForQuery:
		return "ReadyForQuery " + string(m.TxStatus)
	case *pgproto3.RowDescription:
		var parts []string
		for _, f := range m.Fields {
			parts = append(parts, fmt.Sprintf("%s:%d:%d", f.Name, f.DataTypeOID, f.Format))
		}
		return "RowDescription " + strings.Join(parts, ",")
	case *pgproto3.ParameterDescription:
		return fmt.Sprintf("ParameterDescription %v", m.ParameterOIDs)
	case *pgproto3.ParameterStatus:
		return "ParameterStatus " + m.Name + "=" + m.Value
	case *pgproto3.BackendKeyData:
		return "BackendKeyData"
	case *pgproto3.NegotiateProtocolVersion:
		return fmt.Sprintf("NegotiateProtocolVersion %d %v", m.NewestMinorProtocol, m.UnrecognizedOptions)
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3.")
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func wantMessages(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !equalStrings(got, want) {
		t.Errorf("messages:\n got  %q\n want %q", got, want)
	}
}
