package sql

import (
	"context"
	"testing"
	"time"

	"github.com/lakepg/lakepg/sql/planner"

	"github.com/lakepg/lakepg/pgerr"
)

// A statement that reads lake files waits while the slots are taken, runs
// when one frees, and a cancel reaches it while it waits.
func TestAdmissionQueuesLakeScans(t *testing.T) {
	s := setupFiles(t)
	adm := planner.NewAdmission(1)
	adm.MinScanBytes = 0 // the test table is tiny
	s.eng.Admission = adm
	ctx := context.Background()

	// hold the only slot as a running statement would
	if err := adm.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		rows, _, err := run(t, s, `SELECT count(*), sum(x) FROM t WHERE x > 0`)
		if err == nil && (len(rows) != 1 || rows[0] != "3|6") {
			err = pgerr.New(pgerr.Internal, "rows %q", rows)
		}
		done <- err
	}()
	waitFor(t, func() bool { return adm.Waiting() == 1 })
	select {
	case err := <-done:
		t.Fatalf("statement ran while the only slot was taken: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	adm.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if adm.Waiting() != 0 || adm.Running() != 0 {
		t.Fatalf("waiting %d running %d after the statement", adm.Waiting(), adm.Running())
	}

	// catalog queries and constant selects never wait
	if err := adm.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	must(t, s, `SELECT count(*) FROM pg_class WHERE relname = 't'`, "1")
	must(t, s, `SELECT 1 + 1`, "2")

	// a waiting statement is cancelled with 57014
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	stmts, err := s.Prepare(cctx, `SELECT sum(x) FROM t`, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := stmts[0].Execute(cctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = res.Next(cctx)
	res.Close()
	if pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("cancelled while waiting: got %v, want 57014", err)
	}
	adm.Release()
	must(t, s, `SELECT sum(x) FROM t`, "6")
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
}
