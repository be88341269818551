package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestFrameGuardFollowsFraming: however the bytes arrive (one at a time,
// headers split across reads), valid messages pass unchanged, a long
// Query included, and an oversized small message stops the stream before
// its header is complete.
func TestFrameGuardFollowsFraming(t *testing.T) {
	var stream []byte
	for _, m := range []pgproto3.FrontendMessage{
		&pgproto3.Query{String: strings.Repeat("y", 30000)},
		&pgproto3.Parse{Name: "s", Query: "SELECT 1"},
		&pgproto3.Sync{},
		&pgproto3.CopyData{Data: bytes.Repeat([]byte("z"), 20000)},
		&pgproto3.Describe{ObjectType: 'S', Name: "s"},
	} {
		var err error
		if stream, err = m.Encode(stream); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"whole", "one byte at a time"} {
		var r io.Reader = &frameGuard{r: bytes.NewReader(stream)}
		if name != "whole" {
			r = &frameGuard{r: iotest.OneByteReader(bytes.NewReader(stream))}
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, stream) {
			t.Fatalf("%s: %d of %d bytes, %v", name, len(got), len(stream), err)
		}
		bad := append(append([]byte{}, stream...), 'E', 0, 0, 0x30, 0, 'x')
		r = &frameGuard{r: iotest.OneByteReader(bytes.NewReader(bad))}
		if name == "whole" {
			r = &frameGuard{r: bytes.NewReader(bad)}
		}
		got, err = io.ReadAll(r)
		var tooLong errMessageTooLong
		if !errors.As(err, &tooLong) || tooLong.typ != 'E' {
			t.Fatalf("%s: oversized Execute: %v", name, err)
		}
		// the good messages pass, and never the whole bad header (bytes
		// of it that came in earlier reads may have gone ahead)
		if len(got) < len(stream) || len(got) > len(stream)+4 || !bytes.Equal(got, bad[:len(got)]) {
			t.Fatalf("%s: passed %d bytes, want the %d of the good messages and at most 4 of the bad header", name, len(got), len(stream))
		}
	}
}
