package wire

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/lakepg/lakepg/pgerr"
)

// A message whose frame is sound (type byte and length) but whose body is
// not (a parameter length running past the end, a string without its
// terminator) is an error of that message in PostgreSQL, not of the
// connection: it answers 08P01 "insufficient data left in message", and the
// extended protocol skips to the next Sync. The frame says where the next
// message begins, so the reader goes on.

// malformedMessage stands in the inbox for such a message.
type malformedMessage struct {
	pgproto3.FrontendMessage        // nil: only the type is ever looked at
	kind                     string // the message's name: "Bind", "Query", …
}

// malformedBody reports whether Receive failed on a message body, and for
// which message. pgproto3 keeps the error types to itself, so they are
// told by their names.
func malformedBody(err error) (kind string, ok bool) {
	switch fmt.Sprintf("%T", err) {
	case "*pgproto3.invalidMessageFormatErr", "*pgproto3.invalidMessageLenErr":
		kind, _, _ = strings.Cut(err.Error(), " ")
		return kind, true
	}
	return "", false
}

// rejectMalformed answers a malformedMessage message: an extended-protocol one
// fails until Sync, a Query one is answered at once.
func (c *conn) rejectMalformed(m *malformedMessage) {
	if m.kind == "Query" {
		// all a Query holds is one string, and that lacked its terminator
		c.sendError(pgerr.New(pgerr.ProtocolViolation, "invalid string in message"))
		c.readyForQuery()
		return
	}
	c.failExtended(pgerr.New(pgerr.ProtocolViolation, "insufficient data left in message"))
}
