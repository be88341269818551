package wire

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// shutdownAsync starts Shutdown with the given grace period.
func shutdownAsync(ts *testServer, grace time.Duration) chan error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		done <- ts.srv.Shutdown(ctx)
	}()
	return done
}

func TestShutdownIdleSessions(t *testing.T) {
	ts := startServer(t, Options{})
	a, _ := ts.startRaw(t)
	b, _ := ts.startRaw(t)
	// One idle after a query, one mid-pipeline (Parse sent, no Sync).
	b.send(&pgproto3.Parse{Query: "gen 1"}, &pgproto3.Flush{})
	wantMessages(t, b.receiveN(1), "ParseComplete")

	done := shutdownAsync(ts, 10*time.Second)
	for _, rc := range []*rawClient{a, b} {
		rc.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		m, err := rc.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		e, ok := m.(*pgproto3.ErrorResponse)
		if !ok || e.Severity != "FATAL" || e.Code != "57P01" || e.Message != "terminating connection due to administrator command" {
			t.Fatalf("got %#v", m)
		}
		if _, err := rc.recv(); err == nil {
			t.Error("connection still open after FATAL")
		}
	}
	if err := <-done; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := <-ts.served; !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
	ts.served <- ErrServerClosed // for the cleanup check
	if _, err := net.DialTimeout("tcp", ts.addr, time.Second); err == nil {
		t.Error("still accepting after Shutdown")
	}
	waitFor(t, "Session.Close", ts.eng.session(0).isClosed)
	waitFor(t, "Session.Close", ts.eng.session(1).isClosed)
}

func TestShutdownLetsRunningStatementFinish(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	rc.send(&pgproto3.Query{String: "sleep 300ms"})
	<-ts.eng.started
	done := shutdownAsync(ts, 10*time.Second)
	wantMessages(t, rc.untilReady(), "RowDescription slept:25:0", "DataRow done", "CommandComplete SELECT 1", "ReadyForQuery I")
	wantMessages(t, rc.receiveN(1), "ErrorResponse FATAL 57P01")
	if err := <-done; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

func TestShutdownDeadlineCancelsStatement(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	rc.send(&pgproto3.Query{String: "sleep"})
	<-ts.eng.started
	done := shutdownAsync(ts, 200*time.Millisecond)
	wantMessages(t, rc.untilReady(), "ErrorResponse ERROR 57014", "ReadyForQuery I")
	wantMessages(t, rc.receiveN(1), "ErrorResponse FATAL 57P01")
	if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v, want DeadlineExceeded", err)
	}
}

// TestShutdownDuringStartup: a client that connected but never sent its
// startup packet does not hold Shutdown up.
func TestShutdownDuringStartup(t *testing.T) {
	ts := startServer(t, Options{})
	rc := ts.dialRaw(t)
	time.Sleep(50 * time.Millisecond) // let the server accept it
	start := time.Now()
	if err := <-shutdownAsync(ts, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
	if _, err := rc.recv(); err == nil {
		t.Error("connection still open")
	}
}
