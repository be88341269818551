package integration

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestDiscardAll: DISCARD ALL returns a connection to its state at
// connect, as poolers (pgbouncer's server_reset_query) expect: settings
// back to their defaults with ParameterStatus for the tracked ones,
// prepared statements and cursors gone; inside a transaction block it is
// refused with 25001 and changes nothing.
func TestDiscardAll(t *testing.T) {
	srv := startServer(t, t.TempDir())
	conn := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	pc := conn.PgConn()
	code := func(err error) string {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pe.Code
		}
		return ""
	}

	mustExec(t, conn, "SET TimeZone = 'Asia/Tokyo'")
	mustExec(t, conn, "SET application_name = 'client-a'")
	mustExec(t, conn, "SET extra_float_digits = 0")
	mustExec(t, conn, "SET my.custom = 'x'")
	if _, err := pc.Prepare(ctx, "stmt_a", "SELECT 1", nil); err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, "BEGIN")
	mustExec(t, conn, "DECLARE c CURSOR WITH HOLD FOR SELECT 1")
	if _, err := conn.Exec(ctx, "DISCARD ALL"); code(err) != "25001" {
		t.Fatalf("DISCARD ALL in a transaction block: %v, want 25001", err)
	}
	mustExec(t, conn, "ROLLBACK")
	mustExec(t, conn, "DECLARE c CURSOR WITH HOLD FOR SELECT 1")
	if got := pc.ParameterStatus("TimeZone"); got != "Asia/Tokyo" {
		t.Fatalf("TimeZone before DISCARD ALL = %q", got)
	}

	if tag := mustExec(t, conn, "DISCARD ALL"); tag.String() != "DISCARD ALL" {
		t.Errorf("tag %q", tag)
	}
	for setting, want := range map[string]string{"TimeZone": "UTC", "application_name": "lakepg-integration", "extra_float_digits": "1"} {
		var got string
		if err := conn.QueryRow(ctx, "SHOW "+setting).Scan(&got); err != nil || got != want {
			t.Errorf("SHOW %s after DISCARD ALL = %q (%v), want %q", setting, got, err, want)
		}
	}
	if got := pc.ParameterStatus("TimeZone"); got != "UTC" {
		t.Errorf("ParameterStatus TimeZone after DISCARD ALL = %q, want UTC", got)
	}
	var custom string
	if err := conn.QueryRow(ctx, "SELECT current_setting('my.custom', true)").Scan(&custom); err == nil && custom == "x" {
		t.Errorf("custom setting survived DISCARD ALL")
	}
	if _, err := pc.ExecPrepared(ctx, "stmt_a", nil, nil, nil).Close(); code(err) != "26000" {
		t.Errorf("prepared statement after DISCARD ALL: %v, want 26000", err)
	}
	if _, err := conn.Exec(ctx, "FETCH c"); code(err) != "34000" {
		t.Errorf("cursor after DISCARD ALL: %v, want 34000", err)
	}
	for _, stmt := range []string{"DISCARD PLANS", "DISCARD SEQUENCES", "DISCARD TEMP"} {
		if tag := mustExec(t, conn, stmt); tag.String() != stmt {
			t.Errorf("%s: tag %q", stmt, tag)
		}
	}
}
