package clients

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// idleTranscript keeps a session idle past idle_in_transaction_session_timeout inside a
// block, and past idle_session_timeout outside one, and writes what the next statement
// gets and whether the block's row was kept.
func idleTranscript(t *testing.T, dsn string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	exec1(t, dsn, `CREATE TABLE idle_t (x integer)`)
	var out []string
	for _, setup := range []string{
		`SET idle_in_transaction_session_timeout = 200; BEGIN; INSERT INTO idle_t VALUES (1)`,
		`SET idle_session_timeout = 200; INSERT INTO idle_t VALUES (2)`,
		`SET idle_in_transaction_session_timeout = 200; SELECT 1`,
	} {
		c, err := pgconn.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, setup).ReadAll(); err != nil {
			t.Fatalf("%s: %v", setup, err)
		}
		time.Sleep(700 * time.Millisecond)
		_, err = c.Exec(ctx, `SELECT 1`).ReadAll()
		out = append(out, setup+" → "+strings.TrimSpace(errSuffix(err)))
		c.Close(ctx)
	}
	out = append(out, "rows "+rowsOf(t, ctx, dsn, "idle_t"))
	return out
}

// TestIdleTimeoutsMatchPostgres: a session idle too long in a block loses its connection
// (FATAL 25P03) and its block; one idle too long outside a block too (57P05).
func TestIdleTimeoutsMatchPostgres(t *testing.T) {
	sameAsPostgres(t, "idle", idleTranscript)
}
