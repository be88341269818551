package wire

import (
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// Whether a statement is alone in its implicit transaction decides how the
// session runs it (Pipeliner): alone it commits at once, as it always has;
// followed by more statements before Sync it must wait for Sync, so that a
// later failure, or a client that leaves before Sync, rolls it back. The
// session loop therefore looks past an Execute at the messages the client
// already sent. Clients send Parse/Bind/Execute/Sync in one write, so the
// Sync is normally there already; the loop waits lookaheadWait for it
// before it assumes that more may come.

// lookaheadWait is how long to wait for the message after an Execute when
// none has arrived yet.
const lookaheadWait = time.Millisecond

// moreBeforeSync reports whether another statement (or the end of the
// connection) may come before the next Sync.
func (c *conn) moreBeforeSync() bool {
	waited := false
	for seen := 0; ; {
		for ; seen < len(c.ahead); seen++ {
			if c.ahead[seen].err != nil {
				return true
			}
			switch c.ahead[seen].msg.(type) {
			case *pgproto3.Sync:
				return false
			case *pgproto3.Execute, *pgproto3.Query, *pgproto3.Terminate:
				return true
			}
		}
		if len(c.ahead) >= inboxDepth {
			return true
		}
		select {
		case in := <-c.in:
			c.ahead = append(c.ahead, in)
			continue
		default:
		}
		if waited {
			return true
		}
		waited = true
		t := time.NewTimer(lookaheadWait)
		select {
		case in := <-c.in:
			c.ahead = append(c.ahead, in)
		case <-t.C:
		}
		t.Stop()
	}
}

// receiveAhead returns the first message looked at early, if any.
func (c *conn) receiveAhead() (inbound, bool) {
	if len(c.ahead) == 0 {
		return inbound{}, false
	}
	in := c.ahead[0]
	c.ahead = c.ahead[1:]
	return in, true
}
