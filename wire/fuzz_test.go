package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/test/testserver"
	"github.com/lakepg/lakepg/types"
)

// The wire fuzz targets drive a real Server on a loopback port with the
// fake engine, so every byte goes through the same reader goroutine,
// pgproto3 decoding and session loop a client reaches. The server turns a
// panic into a log line and an XX000 error, so a crash would not stop the
// process: the targets watch the log for panics instead.

// fuzzEngine is the fake engine minus what is dangerous by design: the
// fake's own panic commands, statements that block until cancelled, and
// arguments the fake trusts (it is scripted by tests, not by strangers).
// Anything else is refused with 42601 before the fake sees it.
type fuzzEngine struct{ *fakeEngine }

func (e fuzzEngine) NewSession(ctx context.Context, info StartupInfo) (Session, error) {
	if info.Database == "panicdb" {
		return nil, pgerr.New(pgerr.InvalidCatalogName, "database \"panicdb\" does not exist")
	}
	s, err := e.fakeEngine.NewSession(ctx, info)
	if err != nil {
		return nil, err
	}
	return fuzzSession{s.(*fakeSession)}, nil
}

type fuzzSession struct{ *fakeSession }

func (s fuzzSession) Prepare(ctx context.Context, query string, paramOIDs []uint32) ([]Statement, error) {
	for _, part := range strings.Split(query, ";") {
		if !fuzzSafe(strings.Fields(part)) {
			return nil, pgerr.New(pgerr.SyntaxError, "not a command the fuzz engine runs")
		}
	}
	stmts, err := s.fakeSession.Prepare(ctx, query, paramOIDs)
	for i, st := range stmts {
		stmts[i] = fuzzStmt{st.(*fakeStmt)}
	}
	return stmts, err
}

// fuzzStmt refuses a parameter count the fake would index past: a simple
// Query may name an echo statement without sending its parameters.
type fuzzStmt struct{ *fakeStmt }

func (st fuzzStmt) Execute(ctx context.Context, params [][]byte, formats []int16) (Result, error) {
	if st.words[0] == "echo" && len(params) != len(st.params) {
		return nil, pgerr.New(pgerr.ProtocolViolation, "echo needs %d parameters, got %d", len(st.params), len(params))
	}
	return st.fakeStmt.Execute(ctx, params, formats)
}

// fuzzSafe reports whether the fake may run the statement of words w as
// a stranger sends it.
func fuzzSafe(w []string) bool {
	if len(w) == 0 || strings.HasPrefix(w[0], "--") {
		return true
	}
	num := func(s string, hi int) bool {
		n, err := strconv.Atoi(s)
		return err == nil && n >= 0 && n <= hi
	}
	switch w[0] {
	case "gen":
		return len(w) == 2 && num(w[1], 100)
	case "error":
		return len(w) >= 3 && num(w[2], 1<<20)
	case "empty", "types", "tz", "insert", "begin", "commit", "rollback", "fail", "plain", "rows", "notice", "echo":
		return true
	case "set":
		return len(w) == 3 && (w[2] == "UTC" || w[2] == "Europe/Paris")
	}
	return false
}

// fuzzServer is one server for every input of a fuzz target.
type fuzzServer struct {
	ts    *testServer
	watch *testserver.PanicLog
}

func startFuzzServer(f *testing.F) *fuzzServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	fs := &fuzzServer{watch: &testserver.PanicLog{}}
	eng := newFakeEngine()
	srv := New(fuzzEngine{eng}, Options{Logger: slog.New(fs.watch), ServerVersion: "16.6 (lakepg fuzz)"})
	fs.ts = &testServer{srv: srv, eng: eng, addr: ln.Addr().String(), served: make(chan error, 1)}
	go func() { fs.ts.served <- srv.Serve(ln) }()
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			f.Errorf("Shutdown: %v", err)
		}
		<-fs.ts.served
	})
	return fs
}

// fuzzDeadline bounds one input: the fake answers everything it accepts
// at once, so a server that neither answers nor closes by then is stuck.
// (The fuzzing engine itself gives up on an input after 10 s.)
const fuzzDeadline = 5 * time.Second

// endMarker follows an input that ends on a message boundary. The server
// cancels what runs once the client has gone (half-closed), so closing
// right after the input would turn most statements into 57014; waiting
// for the marker's answer lets every statement of the input run.
var endMarker = frontend(&pgproto3.Sync{}, &pgproto3.Query{String: "gen 37"})

// maxPad is how many zero bytes may complete an input's last message, so
// that the marker can follow it; a longer message is left incomplete.
const maxPad = 1 << 16

// completeFrames returns data (a copy) padded with zeros to end on a
// message boundary, and whether it does. huge reports a message the
// server would accept but that is longer than what is sent: pgproto3
// allocates a message's declared length before its body arrives, so each
// such input costs up to a GiB of memory and a second of time.
func completeFrames(data []byte) (_ []byte, framed, huge bool) {
	data = slices.Clone(data)
	for i := 0; i < len(data); {
		if len(data)-i < 5 {
			data = append(data, make([]byte, 5-(len(data)-i))...)
		}
		n := int64(int32(binary.BigEndian.Uint32(data[i+1:])))
		if n < 4 || n > maxPad {
			huge = n > maxPad && n-4 <= maxMessageLen && int64(len(data)-i-1) < n
			return data, false, huge // refused, or more than we pad
		}
		end := i + 1 + int(n)
		if end > len(data) {
			data = append(data, make([]byte, end-len(data))...)
		}
		i = end
	}
	return data, true, false
}

// exchange sends prefix and data as the client, then (when data ends on a
// message boundary and decode is set) the end marker, half-closes the
// connection after the marker's answer and reads what the server answers
// until it closes its side. With decode the answer must be well-formed
// protocol messages (before the startup packet the server may answer with
// single bytes, which are not).
func (fs *fuzzServer) exchange(t *testing.T, prefix, data []byte, decode bool) []string {
	t.Helper()
	nc, err := net.Dial("tcp", fs.ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(fuzzDeadline))
	raw := append(slices.Clone(prefix), data...)
	marked := false
	if decode {
		framed, ok, huge := completeFrames(data)
		if huge {
			t.Skip("a message the server allocates a huge buffer for before its body comes")
		}
		if ok {
			raw = append(append(slices.Clone(prefix), framed...), endMarker...)
			marked = true
		}
	}
	// Read while writing: a server blocked on a full socket while the
	// client is too would be our deadlock, not the server's.
	type answer struct {
		msgs []string
		err  error
	}
	done := make(chan answer, 1)
	sawMarker := make(chan struct{})
	waiting := marked // the reader's own copy
	go func() {
		var a answer
		defer func() { done <- a }()
		if !decode {
			if _, a.err = io.Copy(io.Discard, nc); a.err == nil {
				a.err = io.EOF
			}
			return
		}
		fe := pgproto3.NewFrontend(nc, nil)
		for {
			m, err := fe.Receive()
			if err != nil {
				a.err = err
				return
			}
			a.msgs = append(a.msgs, summarize(m))
			if k := len(a.msgs); waiting && k >= 3 && a.msgs[k-3] == "DataRow 37" && a.msgs[k-2] == "CommandComplete SELECT 37" &&
				strings.HasPrefix(a.msgs[k-1], "ReadyForQuery") {
				close(sawMarker)
				waiting = false
			}
		}
	}()
	nc.Write(raw) // the server may close early, on a FATAL: not an error
	if !marked {
		nc.(*net.TCPConn).CloseWrite()
	}
	var a answer
	select {
	case <-sawMarker:
		nc.(*net.TCPConn).CloseWrite()
		a = <-done
	case a = <-done:
	}
	switch {
	case errors.Is(a.err, os.ErrDeadlineExceeded):
		t.Fatalf("the server neither answered nor closed within %v; got %q", fuzzDeadline, a.msgs)
	case !isDisconnect(a.err) && !isReset(a.err):
		t.Fatalf("undecodable answer after %q: %v", a.msgs, a.err)
	}
	return a.msgs
}

func isReset(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && (strings.Contains(oe.Err.Error(), "reset") || strings.Contains(oe.Err.Error(), "broken pipe"))
}

// checkAlive opens a fresh session and runs a query on it.
func (fs *fuzzServer) checkAlive(t *testing.T) {
	t.Helper()
	rc, _ := fs.ts.startRaw(t)
	rc.send(&pgproto3.Query{String: "gen 2"})
	wantMessages(t, rc.untilReady(), "RowDescription n:20:0", "DataRow 1", "DataRow 2", "CommandComplete SELECT 2", "ReadyForQuery I")
	rc.send(&pgproto3.Terminate{})
	rc.nc.Close()
}

func (fs *fuzzServer) checkPanics(t *testing.T) {
	t.Helper()
	if p := fs.watch.Take(); len(p) > 0 {
		t.Fatalf("the server panicked:\n%s", strings.Join(p, "\n---\n"))
	}
}

// frontend encodes client messages into one byte string.
func frontend(msgs ...pgproto3.FrontendMessage) []byte {
	var b []byte
	for _, m := range msgs {
		var err error
		if b, err = m.Encode(b); err != nil {
			panic(err)
		}
	}
	return b
}

// rawMessage frames a body under a type byte, with the length given (-1:
// the true one).
func rawMessage(typ byte, length int32, body []byte) []byte {
	if length < 0 {
		length = int32(len(body) + 4)
	}
	b := append([]byte{typ}, binary.BigEndian.AppendUint32(nil, uint32(length))...)
	return append(b, body...)
}

func wireSeeds() [][]byte {
	be := binary.BigEndian
	i4 := func(v int32) []byte { return be.AppendUint32(nil, uint32(v)) }
	i8 := func(v int64) []byte { return be.AppendUint64(nil, uint64(v)) }
	numeric := []byte{0, 2, 0, 0, 0x40, 0, 0, 3, 0, 12, 0x0d, 0x80} // -12.3456 as numeric_send writes it
	arr := append(append(append(i4(1), i4(0)...), i4(int32(types.OIDInt4))...), append(append(i4(2), i4(1)...), append(append(i4(4), i4(7)...), i4(-1)...)...)...)
	seeds := [][]byte{
		frontend(&pgproto3.Query{String: "gen 3"}),
		frontend(&pgproto3.Query{String: "types; tz; empty; insert"}),
		frontend(&pgproto3.Query{String: ""}, &pgproto3.Query{String: "begin"}, &pgproto3.Query{String: "fail next"}, &pgproto3.Query{String: "gen 1"}, &pgproto3.Query{String: "rollback"}),
		frontend(&pgproto3.Query{String: "error at 3"}, &pgproto3.Query{String: "plain error"}, &pgproto3.Query{String: "notice hello there"}),
		frontend(&pgproto3.Query{String: "set timezone Europe/Paris; tz"}),
		frontend(&pgproto3.Parse{Name: "s", Query: "gen 5"}, &pgproto3.Describe{ObjectType: 'S', Name: "s"},
			&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s", ResultFormatCodes: []int16{1}},
			&pgproto3.Describe{ObjectType: 'P', Name: "p"}, &pgproto3.Execute{Portal: "p", MaxRows: 2},
			&pgproto3.Execute{Portal: "p", MaxRows: 2}, &pgproto3.Flush{}, &pgproto3.Execute{Portal: "p"},
			&pgproto3.Close{ObjectType: 'P', Name: "p"}, &pgproto3.Close{ObjectType: 'S', Name: "s"}, &pgproto3.Sync{}),
		frontend(&pgproto3.Parse{Query: "types"}, &pgproto3.Bind{ResultFormatCodes: []int16{1}}, &pgproto3.Execute{}, &pgproto3.Sync{}),
		frontend(&pgproto3.Parse{Query: "echo int2 int4 int8 float4 float8 bool numeric date timestamp timestamptz uuid bytea text"},
			&pgproto3.Describe{ObjectType: 'S'},
			&pgproto3.Bind{ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{0, 7}, i4(-9), i8(1 << 40), i4(0x3fc00000), i8(0x4002000000000000), {1},
				numeric, i4(-3), i8(86400e6), i8(1), make([]byte, 16), {0xde, 0xad}, []byte("héllo")}},
			&pgproto3.Execute{}, &pgproto3.Sync{}),
		frontend(&pgproto3.Parse{Query: "echo int4 text", ParameterOIDs: []uint32{types.OIDInterval, 1007}},
			&pgproto3.Bind{ParameterFormatCodes: []int16{1, 1}, Parameters: [][]byte{append(i8(5), i8(3)...), arr}},
			&pgproto3.Execute{}, &pgproto3.Sync{}),
		frontend(&pgproto3.Parse{Query: "echo int8"}, &pgproto3.Bind{Parameters: [][]byte{nil}}, &pgproto3.Execute{}, &pgproto3.Sync{}),
		// errors in the extended protocol: skip to Sync
		frontend(&pgproto3.Bind{PreparedStatement: "nope"}, &pgproto3.Execute{}, &pgproto3.Sync{}, &pgproto3.Query{String: "gen 1"}),
		frontend(&pgproto3.Parse{Query: "gen 1; gen 2"}, &pgproto3.Sync{}, &pgproto3.Parse{Name: "a", Query: "gen 1"}, &pgproto3.Parse{Name: "a", Query: "gen 1"}, &pgproto3.Sync{}),
		frontend(&pgproto3.Parse{Query: "gen 1"}, &pgproto3.Bind{ParameterFormatCodes: []int16{0, 1, 0}, ResultFormatCodes: []int16{7}}, &pgproto3.Sync{}),
		frontend(&pgproto3.Describe{ObjectType: 'X', Name: "z"}, &pgproto3.Close{ObjectType: 'Q'}, &pgproto3.Sync{}),
		// messages out of place
		frontend(&pgproto3.CopyData{Data: []byte("1\t2\n")}, &pgproto3.CopyDone{}, &pgproto3.CopyFail{Message: "x"}, &pgproto3.Query{String: "gen 1"}),
		frontend(&pgproto3.FunctionCall{Function: 42, ArgFormatCodes: []uint16{1}, Arguments: [][]byte{{1}}, ResultFormatCode: 1}),
		frontend(&pgproto3.PasswordMessage{Password: "secret"}),
		frontend(&pgproto3.Terminate{}, &pgproto3.Query{String: "gen 1"}),
		// malformed frames and bodies
		rawMessage('Q', -1, []byte("gen 1")),                                    // no terminator
		rawMessage('B', -1, []byte("\x00\x00\x00\x01\x00\x01\x00\x01\x00\x00")), // short parameter
		rawMessage('P', 6, nil),
		rawMessage('Q', 3, []byte("\x00")),
		rawMessage('Q', 0x7fffffff, nil),
		rawMessage('z', -1, []byte("what")),
		rawMessage('S', 8, []byte("\x00\x00\x00\x00")),
		append(rawMessage('Q', -1, []byte("gen\xff 1\x00")), frontend(&pgproto3.Query{String: "gen 1"})...),
		append(rawMessage('E', -1, []byte("\x00\x00\x00\x00\x00")), frontend(&pgproto3.Sync{})...),
		{},
	}
	// a long pipeline, more than the inbox holds
	var pipe []pgproto3.FrontendMessage
	for range 80 {
		pipe = append(pipe, &pgproto3.Parse{Query: "gen 2"}, &pgproto3.Bind{}, &pgproto3.Execute{})
	}
	seeds = append(seeds, frontend(append(pipe, &pgproto3.Sync{})...))
	return seeds
}

// FuzzWireMessages sends arbitrary bytes after a valid startup. The server
// must not panic, must answer or close the connection, and must still
// serve a new connection afterwards.
func FuzzWireMessages(f *testing.F) {
	for _, s := range wireSeeds() {
		f.Add(s)
	}
	fs := startFuzzServer(f)
	startup := startupBytes(pgproto3.ProtocolVersion30, "user", "fuzz", "database", "lake")
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs := fs.exchange(t, startup, data, true)
		if len(msgs) == 0 || msgs[0] != "AuthenticationOk" {
			t.Fatalf("startup answered %q", msgs)
		}
		fs.checkPanics(t)
		fs.checkAlive(t)
		fs.checkPanics(t)
	})
}

// FuzzWireStartup sends arbitrary bytes as the first thing on a
// connection: startup packets, SSL and GSS requests, cancel requests.
func FuzzWireStartup(f *testing.F) {
	be := binary.BigEndian
	for _, s := range [][]byte{
		startupBytes(pgproto3.ProtocolVersion30, "user", "u"),
		startupBytes(pgproto3.ProtocolVersion30, "user", "u", "database", "lake", "options", `-c TimeZone=UTC --DateStyle=ISO\ ,MDY -c`, "application_name", "x"),
		startupBytes(pgproto3.ProtocolVersion32, "user", "u", "_pq_.x", "1"),
		startupBytes(2<<16, "user", "u"),
		startupBytes(pgproto3.ProtocolVersion30, "user", "u", "database", "nodb"),
		startupBytes(pgproto3.ProtocolVersion30, "database", "x"),
		startupBytes(pgproto3.ProtocolVersion30, "user"),
		append(be.AppendUint32(be.AppendUint32(nil, 8), codeSSLRequest), startupBytes(pgproto3.ProtocolVersion30, "user", "u")...),
		append(be.AppendUint32(be.AppendUint32(nil, 8), codeGSSENCRequest), startupBytes(pgproto3.ProtocolVersion30, "user", "u")...),
		be.AppendUint32(be.AppendUint32(be.AppendUint32(be.AppendUint32(nil, 16), 80877102), 1), 2), // CancelRequest
		be.AppendUint32(nil, 4),
		be.AppendUint32(nil, 0xffffffff),
		{0x16, 0x03, 0x01, 0x00, 0x05}, // a TLS ClientHello where a startup packet belongs
		{},
	} {
		f.Add(s)
	}
	fs := startFuzzServer(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fs.exchange(t, nil, data, false)
		fs.checkPanics(t)
		fs.checkAlive(t)
		fs.checkPanics(t)
	})
}
