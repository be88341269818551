package clients

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
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
	sameAsPostgres(t, "encoding", encodingTranscript)
}

// malformedTranscript sends messages whose length field is sound but whose body is not,
// and writes what comes back up to each ReadyForQuery; the session must go on.
func malformedTranscript(t *testing.T, dsn string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	msg := func(typ byte, body []byte) []byte {
		n := len(body) + 4
		return append([]byte{typ, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, body...)
	}
	parse := msg('P', []byte("\x00SELECT $1::text\x00\x00\x00"))
	// one parameter of 100 bytes, of which the message holds 3
	bind := msg('B', []byte("\x00\x00\x00\x00\x00\x01\x00\x00\x00\x64abc\x00\x00"))
	sync := msg('S', nil)
	query := msg('Q', []byte("SELECT 42\x00"))
	var out []string
	for _, step := range []struct {
		name string
		raw  []byte
	}{
		{"Parse, Bind with a parameter past its end, Sync", append(append(parse, bind...), sync...)},
		{"then a query", query},
		{"Query without its terminator", msg('Q', []byte("SELECT 1"))},
		{"then a query", query},
	} {
		if _, err := c.Conn().Write(step.raw); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		var got []string
		for {
			m, err := c.Frontend().Receive()
			if err != nil {
				t.Fatalf("%s: %v (got %q)", step.name, err, got)
			}
			switch m := m.(type) {
			case *pgproto3.ErrorResponse:
				got = append(got, "Error "+m.Code+" "+m.Message)
			case *pgproto3.DataRow:
				got = append(got, "Row "+string(m.Values[0]))
			case *pgproto3.ReadyForQuery:
				got = append(got, "Ready "+string(m.TxStatus))
			default:
				got = append(got, strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3."))
			}
			if _, ok := m.(*pgproto3.ReadyForQuery); ok {
				break
			}
		}
		out = append(out, step.name+": "+strings.Join(got, ", "))
	}
	return out
}

// TestMalformedMessagesMatchPostgres: a message body that runs past its own length is an
// error of that message (08P01), answered as PostgreSQL answers it, and the session goes on.
func TestMalformedMessagesMatchPostgres(t *testing.T) {
	sameAsPostgres(t, "malformed", malformedTranscript)
}
