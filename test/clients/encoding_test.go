package clients

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

// encodingTranscript sends text that is not valid UTF-8, or holds a NUL, as a query, as a
// text parameter and as a binary text parameter, and writes what each answers; the session
// must go on after each.
func encodingTranscript(t *testing.T, dsn string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var out []string
	note := func(what string, err error) {
		out = append(out, what+": "+strings.TrimSpace(errSuffix(err)))
		if _, err := c.Exec(ctx, "SELECT 1").ReadAll(); err != nil {
			t.Fatalf("after %s the session is gone: %v", what, err)
		}
	}
	_, err = c.Exec(ctx, "SELECT 'a\xffb'").ReadAll()
	note("query with 0xff", err)
	_, err = c.Exec(ctx, "SELECT 'caf\xc3'").ReadAll()
	note("query with a cut sequence", err)
	_, err = c.ExecParams(ctx, "SELECT $1::text", [][]byte{[]byte("a\x00b")}, nil, []int16{0}, nil).Close()
	note("text parameter with NUL", err)
	_, err = c.ExecParams(ctx, "SELECT $1::text", [][]byte{[]byte("\xe2\x82")}, nil, []int16{0}, nil).Close()
	note("text parameter cut short", err)
	_, err = c.ExecParams(ctx, "SELECT $1::text", [][]byte{[]byte("x\xfe")}, []uint32{25}, []int16{1}, nil).Close()
	note("binary text parameter with 0xfe", err)
	_, err = c.ExecParams(ctx, "SELECT length($1::bytea)", [][]byte{[]byte("\x00\xff")}, []uint32{17}, []int16{1}, nil).Close()
	note("binary bytea parameter with NUL and 0xff", err)
	return out
}

// TestInvalidTextMatchesPostgres: 22021 with PostgreSQL's message for every way text enters.
func TestInvalidTextMatchesPostgres(t *testing.T) {
	want := encodingTranscript(t, testserver.PostgresDatabase(t, "encoding"))
	s := testserver.Start(t, testserver.Binary(t), t.TempDir())
	got := encodingTranscript(t, s.DSN())
	if !slices.Equal(got, want) {
		t.Errorf("lakepg and PostgreSQL differ:\nlakepg:\n  %s\nPostgreSQL:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
