package wire

import (
	"time"

	"github.com/lakepg/lakepg/pgerr"
)

// IdleTimeouter is an optional Session ability: PostgreSQL's
// idle_in_transaction_session_timeout (inTx) and idle_session_timeout. A
// client that keeps the server waiting for its next message longer than
// that, inside a transaction block or outside one, loses its connection
// (FATAL 25P03 or 57P05), which rolls an open block back. Zero means none.
type IdleTimeouter interface {
	IdleTimeout(inTx bool) time.Duration
}

// idleTimeout is the error next returns when the client stayed idle too long.
type idleTimeout struct{ inTx bool }

func (e idleTimeout) Error() string { return "idle timeout" }

// fatal is what the client is told.
func (e idleTimeout) fatal() *pgerr.Error {
	if e.inTx {
		return &pgerr.Error{Code: "25P03", Message: "terminating connection due to idle-in-transaction timeout"}
	}
	return &pgerr.Error{Code: "57P05", Message: "terminating connection due to idle-session timeout"}
}

// idleTimer starts the timer for the wait at an idle point (nil channel
// when there is no timeout to keep).
func (c *conn) idleTimer() (<-chan time.Time, func(), idleTimeout) {
	it, ok := c.sess.(IdleTimeouter)
	if !c.idle || !ok {
		return nil, func() {}, idleTimeout{}
	}
	inTx := c.sess.TxStatus() != 'I'
	d := it.IdleTimeout(inTx)
	if d <= 0 {
		return nil, func() {}, idleTimeout{}
	}
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }, idleTimeout{inTx: inTx}
}
