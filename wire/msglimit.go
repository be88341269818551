package wire

import (
	"encoding/binary"
	"fmt"
	"io"
)

// smallMessageLimit caps the body of every client message but the ones
// that carry statements or data, as PostgreSQL's PQ_SMALL_MESSAGE_LIMIT
// does. pgproto3 allocates a message's declared length before reading it:
// without the cap one 5-byte header (a Sync claiming a gigabyte) made the
// server allocate up to maxMessageLen for a logged-in client.
const smallMessageLimit = 10000

// largeMessage are the message types PostgreSQL allows up to
// PQ_LARGE_MESSAGE_LIMIT: Query, Parse, Bind, CopyData, FunctionCall.
var largeMessage = [256]bool{'Q': true, 'P': true, 'B': true, 'd': true, 'F': true}

// errMessageTooLong ends the connection, as PostgreSQL ends it ("invalid
// message length").
type errMessageTooLong struct {
	typ byte
	n   uint32
}

func (e errMessageTooLong) Error() string {
	return fmt.Sprintf("invalid message length: %d bytes for message type %q, at most %d", e.n, e.typ, smallMessageLimit)
}

// frameGuard follows the message framing of the bytes the protocol reader
// pulls from the connection (type byte, 4-byte length, body) and refuses a
// small message type whose header declares a body over smallMessageLimit,
// before the reader sees that header.
type frameGuard struct {
	r      io.Reader
	body   int64   // body bytes of the current message still to pass
	hdr    [5]byte // the header being read
	nhdr   int
	failed error
}

func (g *frameGuard) Read(p []byte) (int, error) {
	if g.failed != nil {
		return 0, g.failed
	}
	n, err := g.r.Read(p)
	for i := 0; i < n; {
		if g.body > 0 {
			step := min(int64(n-i), g.body)
			g.body -= step
			i += int(step)
			continue
		}
		g.hdr[g.nhdr] = p[i]
		g.nhdr++
		i++
		if g.nhdr < len(g.hdr) {
			continue
		}
		g.nhdr = 0
		length := binary.BigEndian.Uint32(g.hdr[1:])
		if length < 4 {
			continue // pgproto3 reports a malformed length itself
		}
		if !largeMessage[g.hdr[0]] && length-4 > smallMessageLimit {
			// pass what came before this header; fail the next read
			g.failed = errMessageTooLong{typ: g.hdr[0], n: length - 4}
			start := i - len(g.hdr)
			if start < 0 {
				start = 0 // part of the header went out in an earlier read
			}
			return start, nil
		}
		g.body = int64(length) - 4
	}
	return n, err
}
