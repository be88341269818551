package wire

import (
	"encoding/binary"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// sendCancel writes a cancel packet with code to addr, as a client or a
// peer would, and closes the connection.
func sendCancel(t *testing.T, addr string, code, pid uint32, secret []byte) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	pkt := make([]byte, 12+len(secret))
	binary.BigEndian.PutUint32(pkt[0:], uint32(len(pkt)))
	binary.BigEndian.PutUint32(pkt[4:], code)
	binary.BigEndian.PutUint32(pkt[8:], pid)
	copy(pkt[12:], secret)
	if _, err := nc.Write(pkt); err != nil {
		t.Fatal(err)
	}
}

// TestCancelRelayedToPeer: a CancelRequest that reaches server a for a
// session of server b (as behind a balancer) is relayed to b, which cancels
// the statement; the session goes on.
func TestCancelRelayedToPeer(t *testing.T) {
	b := startServer(t, Options{})
	a := startServer(t, Options{CancelPeers: []string{"127.0.0.1:1", b.addr}}) // a dead peer does not stop the others
	conn := b.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := testCtx(t)
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Exec(ctx, "sleep")
		errc <- err
	}()
	<-b.eng.started
	sendCancel(t, a.addr, codeCancelRequest, conn.PgConn().PID(), conn.PgConn().SecretKey())
	select {
	case err := <-errc:
		if pgCode(err) != "57014" {
			t.Fatalf("relayed cancel: %v, want 57014", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the statement on the peer was not cancelled")
	}
	if err := conn.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestCancelRelayedOnce: a relayed request is only looked up, never relayed
// again (two servers that list each other do not bounce it), and a wrong
// secret cancels nothing anywhere.
func TestCancelRelayedOnce(t *testing.T) {
	lb, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	la, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := serveOn(t, lb, Options{CancelPeers: []string{la.Addr().String()}})
	a := serveOn(t, la, Options{CancelPeers: []string{lb.Addr().String()}})
	conn := b.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := testCtx(t)
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Exec(ctx, "sleep")
		errc <- err
	}()
	<-b.eng.started
	wrong := append([]byte(nil), conn.PgConn().SecretKey()...)
	wrong[0] ^= 0xff
	sendCancel(t, a.addr, codeCancelRequest, conn.PgConn().PID(), wrong)
	sendCancel(t, b.addr, codeRelayedCancel, conn.PgConn().PID(), wrong)
	select {
	case err := <-errc:
		t.Fatalf("a wrong secret ended the statement: %v", err)
	case <-time.After(500 * time.Millisecond):
	}
	if n := len(a.srv.relays) + len(b.srv.relays); n > 1 {
		t.Fatalf("%d relays in flight, want at most a's one", n)
	}
	// a relayed request with the right key to the server that has the session
	sendCancel(t, b.addr, codeRelayedCancel, conn.PgConn().PID(), conn.PgConn().SecretKey())
	select {
	case err := <-errc:
		if pgCode(err) != "57014" {
			t.Fatalf("relayed cancel: %v, want 57014", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a relayed cancel with the right key did not cancel")
	}
}
