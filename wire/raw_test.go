package wire

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

func TestRawStartupSequence(t *testing.T) {
	ts := startServer(t, Options{ServerVersion: "16.6 (lakepg 9.9)"})
	_, got := ts.startRaw(t)
	if got[0] != "AuthenticationOk" || got[len(got)-2] != "BackendKeyData" || got[len(got)-1] != "ReadyForQuery I" {
		t.Fatalf("startup: %q", got)
	}
	for _, want := range []string{
		"ParameterStatus server_version=16.6 (lakepg 9.9)",
		"ParameterStatus TimeZone=UTC",
		"ParameterStatus application_name=",
		"ParameterStatus session_authorization=bob",
		"ParameterStatus client_encoding=UTF8",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
}

// startupBytes encodes a StartupMessage of any version by hand.
func startupBytes(version uint32, params ...string) []byte {
	body := binary.BigEndian.AppendUint32(nil, version)
	for _, p := range params {
		body = append(append(body, p...), 0)
	}
	body = append(body, 0)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body)+4)), body...)
}

func TestRawEncryptionRequestsAnsweredN(t *testing.T) {
	ts := startServer(t, Options{})
	rc := ts.dialRaw(t)
	for _, code := range []uint32{codeSSLRequest, codeGSSENCRequest} {
		req := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 8), code)
		if _, err := rc.nc.Write(req); err != nil {
			t.Fatal(err)
		}
		var b [1]byte
		rc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(rc.nc, b[:]); err != nil || b[0] != 'N' {
			t.Fatalf("answer to %d: %q %v", code, b, err)
		}
	}
	rc.nc.Write(startupBytes(pgproto3.ProtocolVersion30, "user", "u"))
	if got := rc.untilReady(); got[0] != "AuthenticationOk" {
		t.Fatalf("startup after SSLRequest: %q", got)
	}
}

func TestRawProtocolNegotiation(t *testing.T) {
	ts := startServer(t, Options{})

	// 3.2 with a protocol option: we offer 3.0 and no options, then go on.
	rc := ts.dialRaw(t)
	rc.nc.Write(startupBytes(pgproto3.ProtocolVersion32, "user", "u", "_pq_.fancy", "1"))
	got := rc.untilReady()
	if got[0] != "NegotiateProtocolVersion 0 [_pq_.fancy]" || got[1] != "AuthenticationOk" {
		t.Fatalf("3.2 startup: %q", got)
	}

	// 2.0: refused.
	rc = ts.dialRaw(t)
	rc.nc.Write(startupBytes(2<<16, "user", "u"))
	if got := rc.receiveN(1); got[0] != "ErrorResponse FATAL 0A000" {
		t.Fatalf("2.0 startup: %q", got)
	}
}

func TestRawStartupFailures(t *testing.T) {
	ts := startServer(t, Options{})
	for _, c := range []struct {
		params []string
		want   string
	}{
		{[]string{"database", "x"}, "ErrorResponse FATAL 28000"},
		{[]string{"user", "u", "database", "nodb"}, "ErrorResponse FATAL 3D000"},
		{[]string{"user", "u", "database", "panicdb"}, "ErrorResponse FATAL XX000"},
	} {
		rc := ts.dialRaw(t)
		rc.nc.Write(startupBytes(pgproto3.ProtocolVersion30, c.params...))
		got := rc.receiveN(1)
		if c.want == "ErrorResponse FATAL 3D000" || c.want == "ErrorResponse FATAL XX000" {
			// AuthenticationOk comes first: the session is refused after auth.
			got = rc.receiveN(1)
		}
		if got[0] != c.want {
			t.Errorf("%v: %q, want %q", c.params, got, c.want)
		}
		if _, err := rc.recv(); !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			t.Errorf("%v: connection not closed: %v", c.params, err)
		}
	}
	// The server survived the panic.
	ts.startRaw(t)
}

// remoteAddrListener makes accepted connections claim another peer address.
type remoteAddrListener struct {
	net.Listener
	addr net.Addr
}

type remoteAddrConn struct {
	net.Conn
	addr net.Addr
}

func (l remoteAddrListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return remoteAddrConn{c, l.addr}, nil
}

func (c remoteAddrConn) RemoteAddr() net.Addr { return c.addr }

func TestRawTrustOnlyFromLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	far := &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 40000}
	ts := serveOn(t, remoteAddrListener{ln, far}, Options{})
	rc := ts.dialRaw(t)
	rc.nc.Write(startupBytes(pgproto3.ProtocolVersion30, "user", "u"))
	rc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	m, err := rc.fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	e, ok := m.(*pgproto3.ErrorResponse)
	if !ok || e.Severity != "FATAL" || e.Code != "28000" ||
		e.Message != `no pg_hba.conf entry for host "192.0.2.7", user "u", database "u", no encryption` {
		t.Fatalf("got %#v", m)
	}
}

func TestRawMaxConnections(t *testing.T) {
	ts := startServer(t, Options{MaxConnections: 1})
	first, _ := ts.startRaw(t)
	rc := ts.dialRaw(t)
	rc.nc.Write(startupBytes(pgproto3.ProtocolVersion30, "user", "u"))
	if got := rc.receiveN(1); got[0] != "ErrorResponse FATAL 53300" {
		t.Fatalf("second connection: %q", got)
	}
	// Once the first leaves, there is room again.
	first.send(&pgproto3.Terminate{})
	deadline := time.Now().Add(5 * time.Second)
	for {
		rc := ts.dialRaw(t)
		rc.nc.Write(startupBytes(pgproto3.ProtocolVersion30, "user", "u"))
		got, _ := rc.recv()
		if got == "AuthenticationOk" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no room after the first session ended: %q", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRawCancelRequestWithWrongKeyIsIgnored(t *testing.T) {
	ts := startServer(t, Options{})
	rc := ts.dialRaw(t)
	rc.send(&pgproto3.CancelRequest{ProcessID: 1, SecretKey: []byte{1, 2, 3, 4}})
	if _, err := rc.recv(); err == nil {
		t.Fatal("cancel connection got an answer")
	}
}

func TestRawExecuteMaxRows(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)

	// Limits inside one sync group; batches of three do not line up with them.
	rc.send(&pgproto3.Parse{Query: "gen 7"}, &pgproto3.Bind{},
		&pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2},
		&pgproto3.Execute{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(),
		"ParseComplete", "BindComplete",
		"DataRow 1", "DataRow 2", "PortalSuspended",
		"DataRow 3", "DataRow 4", "PortalSuspended",
		"DataRow 5", "DataRow 6", "DataRow 7", "CommandComplete SELECT 3",
		"CommandComplete SELECT 0",
		"ReadyForQuery I")

	// An exact multiple suspends without looking ahead, as PostgreSQL does.
	rc.send(&pgproto3.Parse{Query: "gen 4"}, &pgproto3.Bind{},
		&pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(),
		"ParseComplete", "BindComplete",
		"DataRow 1", "DataRow 2", "PortalSuspended",
		"DataRow 3", "DataRow 4", "PortalSuspended",
		"CommandComplete SELECT 0",
		"ReadyForQuery I")

	// A limit above the row count: never suspended, the engine's tag.
	rc.send(&pgproto3.Parse{Query: "gen 3"}, &pgproto3.Bind{}, &pgproto3.Execute{MaxRows: 10}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(),
		"ParseComplete", "BindComplete", "DataRow 1", "DataRow 2", "DataRow 3", "CommandComplete SELECT 3", "ReadyForQuery I")

	// Flush delivers a suspended portal's rows without a Sync; the portal
	// then continues.
	rc.send(&pgproto3.Parse{Query: "gen 5"}, &pgproto3.Bind{}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Flush{})
	wantMessages(t, rc.receiveN(5), "ParseComplete", "BindComplete", "DataRow 1", "DataRow 2", "PortalSuspended")
	rc.send(&pgproto3.Execute{MaxRows: 2}, &pgproto3.Flush{})
	wantMessages(t, rc.receiveN(3), "DataRow 3", "DataRow 4", "PortalSuspended")
	// Sync outside a transaction block ends the portal (it belonged to the
	// implicit transaction)...
	rc.send(&pgproto3.Sync{})
	wantMessages(t, rc.untilReady(), "ReadyForQuery I")
	rc.send(&pgproto3.Execute{}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(), "ErrorResponse ERROR 34000", "ReadyForQuery I")

	// ...while inside one a named portal lives across Syncs until the end
	// of the transaction.
	rc.send(&pgproto3.Query{String: "begin"})
	wantMessages(t, rc.untilReady(), "CommandComplete BEGIN", "ReadyForQuery T")
	rc.send(&pgproto3.Parse{Name: "s", Query: "gen 5"}, &pgproto3.Bind{DestinationPortal: "cur", PreparedStatement: "s"},
		&pgproto3.Execute{Portal: "cur", MaxRows: 2}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(), "ParseComplete", "BindComplete", "DataRow 1", "DataRow 2", "PortalSuspended", "ReadyForQuery T")
	rc.send(&pgproto3.Execute{Portal: "cur", MaxRows: 2}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(), "DataRow 3", "DataRow 4", "PortalSuspended", "ReadyForQuery T")
	rc.send(&pgproto3.Execute{Portal: "cur"}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(), "DataRow 5", "CommandComplete SELECT 1", "ReadyForQuery T")
	rc.send(&pgproto3.Execute{Portal: "cur"}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(), "CommandComplete SELECT 0", "ReadyForQuery T")
	rc.send(&pgproto3.Bind{DestinationPortal: "cur2", PreparedStatement: "s"}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(), "BindComplete", "ReadyForQuery T")
	rc.send(&pgproto3.Query{String: "commit"})
	wantMessages(t, rc.untilReady(), "CommandComplete COMMIT", "ReadyForQuery I")
	rc.send(&pgproto3.Execute{Portal: "cur2"}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(), "ErrorResponse ERROR 34000", "ReadyForQuery I")
}

func TestRawErrorsDiscardUntilSync(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	for _, c := range []struct {
		name string
		msgs []pgproto3.FrontendMessage
		want []string
	}{
		{"prepare error", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "gen 1"}, &pgproto3.Bind{}, &pgproto3.Execute{},
			&pgproto3.Parse{Query: "error at 1"}, &pgproto3.Bind{}, &pgproto3.Execute{},
			&pgproto3.Parse{Query: "gen 2"}, &pgproto3.Query{String: "gen 3"}, &pgproto3.Flush{}, &pgproto3.Sync{},
		}, []string{"ParseComplete", "BindComplete", "DataRow 1", "CommandComplete SELECT 1",
			"ErrorResponse ERROR 42601", "ReadyForQuery I"}},
		{"duplicate statement", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Name: "dup", Query: "gen 1"}, &pgproto3.Parse{Name: "dup", Query: "gen 2"},
			&pgproto3.Bind{PreparedStatement: "dup"}, &pgproto3.Sync{},
		}, []string{"ParseComplete", "ErrorResponse ERROR 42P05", "ReadyForQuery I"}},
		{"unknown statement", []pgproto3.FrontendMessage{
			&pgproto3.Bind{PreparedStatement: "nope"}, &pgproto3.Execute{}, &pgproto3.Sync{},
		}, []string{"ErrorResponse ERROR 26000", "ReadyForQuery I"}},
		{"parameter count", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "echo int8 int8"}, &pgproto3.Bind{Parameters: [][]byte{[]byte("1")}}, &pgproto3.Sync{},
		}, []string{"ParseComplete", "ErrorResponse ERROR 08P01", "ReadyForQuery I"}},
		{"result format count", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "types"}, &pgproto3.Bind{ResultFormatCodes: []int16{1, 0}}, &pgproto3.Sync{},
		}, []string{"ParseComplete", "ErrorResponse ERROR 08P01", "ReadyForQuery I"}},
		{"bad format code", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "gen 1"}, &pgproto3.Bind{ResultFormatCodes: []int16{2}}, &pgproto3.Sync{},
		}, []string{"ParseComplete", "ErrorResponse ERROR 22023", "ReadyForQuery I"}},
		{"unknown portal", []pgproto3.FrontendMessage{
			&pgproto3.Execute{Portal: "nope"}, &pgproto3.Describe{ObjectType: 'P', Name: "nope"}, &pgproto3.Sync{},
		}, []string{"ErrorResponse ERROR 34000", "ReadyForQuery I"}},
		{"describe unknown statement", []pgproto3.FrontendMessage{
			&pgproto3.Describe{ObjectType: 'S', Name: "nope"}, &pgproto3.Sync{},
		}, []string{"ErrorResponse ERROR 26000", "ReadyForQuery I"}},
		{"multiple statements", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "gen 1; gen 2"}, &pgproto3.Sync{},
		}, []string{"ErrorResponse ERROR 42601", "ReadyForQuery I"}},
		{"runtime error", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "fail next"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Execute{}, &pgproto3.Sync{},
		}, []string{"ParseComplete", "BindComplete", "DataRow 1", "DataRow 2", "DataRow 3",
			"ErrorResponse ERROR 22012", "ReadyForQuery I"}},
		{"panic in execute", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "panic execute"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{},
		}, []string{"ParseComplete", "BindComplete", "ErrorResponse ERROR XX000", "ReadyForQuery I"}},
	} {
		rc.send(c.msgs...)
		if got := rc.untilReady(); !equalStrings(got, c.want) {
			t.Errorf("%s:\n got  %q\n want %q", c.name, got, c.want)
		}
	}
	// The session is fine afterwards.
	rc.send(&pgproto3.Query{String: "gen 1"})
	wantMessages(t, rc.untilReady(), "RowDescription n:20:0", "DataRow 1", "CommandComplete SELECT 1", "ReadyForQuery I")
}

// TestRawErrorIsFlushedAtOnce: a pipelining client learns of an error
// without sending Sync or Flush.
func TestRawErrorIsFlushedAtOnce(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	rc.send(&pgproto3.Parse{Query: "error at 1"}, &pgproto3.Bind{})
	wantMessages(t, rc.receiveN(1), "ErrorResponse ERROR 42601")
	rc.send(&pgproto3.Sync{})
	wantMessages(t, rc.untilReady(), "ReadyForQuery I")
}

func TestRawDescribeAndClose(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)

	// Declared parameter types win; undeclared ones are resolved.
	rc.send(&pgproto3.Parse{Name: "e", Query: "echo int8 text", ParameterOIDs: []uint32{0, 1043}},
		&pgproto3.Describe{ObjectType: 'S', Name: "e"},
		&pgproto3.Parse{Name: "i", Query: "insert"},
		&pgproto3.Describe{ObjectType: 'S', Name: "i"},
		&pgproto3.Bind{DestinationPortal: "pe", PreparedStatement: "e", Parameters: [][]byte{[]byte("1"), nil},
			ResultFormatCodes: []int16{1}},
		&pgproto3.Describe{ObjectType: 'P', Name: "pe"},
		&pgproto3.Bind{DestinationPortal: "pi", PreparedStatement: "i"},
		&pgproto3.Describe{ObjectType: 'P', Name: "pi"},
		// Closing a statement leaves its portals alone.
		&pgproto3.Close{ObjectType: 'S', Name: "e"},
		&pgproto3.Execute{Portal: "pe"},
		&pgproto3.Close{ObjectType: 'P', Name: "pe"},
		&pgproto3.Close{ObjectType: 'P', Name: "never-existed"},
		&pgproto3.Sync{})
	wantMessages(t, rc.untilReady(),
		"ParseComplete", "ParameterDescription [20 1043]", "RowDescription p1:25:0,p2:25:0",
		"ParseComplete", "ParameterDescription []", "NoData",
		"BindComplete", "RowDescription p1:25:1,p2:25:1",
		"BindComplete", "NoData",
		"CloseComplete",
		"DataRow txt:1,NULL", "CommandComplete SELECT 1",
		"CloseComplete", "CloseComplete",
		"ReadyForQuery I")

	rc.send(&pgproto3.Bind{PreparedStatement: "e"}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(), "ErrorResponse ERROR 26000", "ReadyForQuery I")

	// A statement that returns no rows cannot be run twice from one portal.
	rc.send(&pgproto3.Query{String: "begin"})
	rc.untilReady()
	rc.send(&pgproto3.Bind{DestinationPortal: "pi2", PreparedStatement: "i"}, &pgproto3.Execute{Portal: "pi2"},
		&pgproto3.Execute{Portal: "pi2"}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(), "BindComplete", "CommandComplete INSERT 0 2", "ErrorResponse ERROR 55000", "ReadyForQuery T")
}

func TestRawEmptyQueries(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	rc.send(&pgproto3.Query{String: "  ;; "})
	wantMessages(t, rc.untilReady(), "EmptyQueryResponse", "ReadyForQuery I")
	rc.send(&pgproto3.Parse{}, &pgproto3.Describe{ObjectType: 'S'}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(), "ParseComplete", "ParameterDescription []", "NoData", "BindComplete", "NoData",
		"EmptyQueryResponse", "ReadyForQuery I")
}

func TestRawBinaryDataRow(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	rc.send(&pgproto3.Parse{Query: "gen 2"}, &pgproto3.Bind{ResultFormatCodes: []int16{1}}, &pgproto3.Execute{}, &pgproto3.Sync{})
	one := string([]byte{0, 0, 0, 0, 0, 0, 0, 1})
	two := string([]byte{0, 0, 0, 0, 0, 0, 0, 2})
	wantMessages(t, rc.untilReady(), "ParseComplete", "BindComplete", "DataRow "+one, "DataRow "+two,
		"CommandComplete SELECT 2", "ReadyForQuery I")
}

func TestRawSyncEndsImplicitTransaction(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	s := ts.eng.session(0)
	rc.send(&pgproto3.Parse{Query: "gen 1"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	rc.untilReady()
	rc.send(&pgproto3.Query{String: "gen 1; gen 2"})
	rc.untilReady()
	if n := s.syncCount(); n != 2 {
		t.Errorf("Sync called %d times, want 2", n)
	}
}

func TestRawFunctionCallRefused(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	rc.send(&pgproto3.FunctionCall{Function: 1})
	wantMessages(t, rc.untilReady(), "ErrorResponse ERROR 0A000", "ReadyForQuery I")
}

func TestRawUnknownMessageIsFatal(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	rc.nc.Write([]byte{'z', 0, 0, 0, 4})
	wantMessages(t, rc.receiveN(1), "ErrorResponse FATAL 08P01")
	if _, err := rc.recv(); err == nil {
		t.Error("connection still open")
	}
}

func TestRawTerminateClosesSession(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	rc.send(&pgproto3.Terminate{})
	if _, err := rc.recv(); err == nil {
		t.Error("connection still open")
	}
	waitFor(t, "Session.Close", ts.eng.session(0).isClosed)
}

// TestRawDisconnectCancelsStatement: the statement of a client that goes
// away is cancelled, and its session closed.
func TestRawDisconnectCancelsStatement(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	rc.send(&pgproto3.Query{String: "sleep"})
	<-ts.eng.started
	rc.nc.Close()
	select {
	case <-ts.eng.canceled:
	case <-time.After(10 * time.Second):
		t.Fatal("statement not cancelled after the client left")
	}
	waitFor(t, "Session.Close", ts.eng.session(0).isClosed)
}

func TestRawLargeResultStreams(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	rc.send(&pgproto3.Query{String: "gen 50000"})
	rows := 0
	for {
		s, err := rc.recv()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(s, "DataRow") {
			rows++
			continue
		}
		if strings.HasPrefix(s, "ReadyForQuery") {
			break
		}
	}
	if rows != 50000 {
		t.Errorf("%d rows", rows)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestRawEmptyStringIsNotNull: an empty parameter value survives the copy
// out of the reader's buffers as empty, distinct from NULL.
func TestRawEmptyStringIsNotNull(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	rc.send(&pgproto3.Parse{Query: "echo text text text"},
		&pgproto3.Bind{Parameters: [][]byte{{}, nil, []byte("x")}}, &pgproto3.Execute{}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(), "ParseComplete", "BindComplete", "DataRow txt:,NULL,txt:x",
		"CommandComplete SELECT 1", "ReadyForQuery I")
}

// countingListener counts the writes the server makes on its connections.
type countingListener struct {
	net.Listener
	writes *atomic.Int64
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.writes}, nil
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// TestWritesAreBatched: rows are buffered, not written one by one.
func TestWritesAreBatched(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	writes := new(atomic.Int64)
	ts := serveOn(t, countingListener{ln, writes}, Options{})
	rc, _ := ts.startRaw(t)

	before := writes.Load()
	rc.send(&pgproto3.Query{String: "gen 2000"}) // about 40 KB of DataRows
	if got := rc.untilReady(); len(got) != 2003 {
		t.Fatalf("%d messages", len(got))
	}
	if n := writes.Load() - before; n != 1 {
		t.Errorf("2000 rows took %d writes, want 1", n)
	}

	before = writes.Load()
	rc.send(&pgproto3.Query{String: "gen 20000"}) // about 400 KB: flushed every 64 KiB
	rc.untilReady()
	if n := writes.Load() - before; n < 4 || n > 10 {
		t.Errorf("20000 rows took %d writes", n)
	}

	// A pipeline of several statements answers in one write at Sync.
	before = writes.Load()
	rc.send(&pgproto3.Parse{Query: "gen 1"}, &pgproto3.Bind{}, &pgproto3.Execute{},
		&pgproto3.Parse{Query: "gen 2"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	rc.untilReady()
	if n := writes.Load() - before; n != 1 {
		t.Errorf("pipeline took %d writes, want 1", n)
	}
}

// TestRawOversizedSmallMessageEndsSession: a message type other than
// Query, Parse, Bind, CopyData and FunctionCall whose header declares a
// body over 10,000 bytes ends the connection before anything is allocated
// for it (PostgreSQL's PQ_SMALL_MESSAGE_LIMIT); a Query that long is fine,
// and messages before the bad header are still answered.
func TestRawOversizedSmallMessageEndsSession(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	long := "SELECT 1 /*" + strings.Repeat("x", 20000) + "*/"
	rc.send(&pgproto3.Query{String: long})
	if got := rc.untilReady(); got[len(got)-1] != "ReadyForQuery I" {
		t.Fatalf("a long Query: %q", got)
	}
	for _, hdr := range [][]byte{
		{'S', 0x40, 0, 0, 0},    // a Sync claiming a gigabyte
		{'D', 0, 0, 0x27, 0x15}, // a Describe of 10,001 bytes
	} {
		rc, _ := ts.startRaw(t)
		sync, _ := (&pgproto3.Sync{}).Encode(nil)
		rc.nc.Write(append(sync, hdr...)) // the Sync before is answered
		wantMessages(t, rc.receiveN(1), "ReadyForQuery I")
		got, err := rc.recv()
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			t.Errorf("header %x: the connection waits for the body instead of closing", hdr)
		case err == nil && !strings.HasPrefix(got, "ErrorResponse FATAL 08P01"):
			t.Errorf("header %x: got %q, want the connection closed", hdr, got)
		}
	}
	// the server still serves
	rc, _ = ts.startRaw(t)
	rc.send(&pgproto3.Query{String: "SELECT 1"})
	if got := rc.untilReady(); got[len(got)-1] != "ReadyForQuery I" {
		t.Fatalf("after: %q", got)
	}
}
