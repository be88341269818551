package cli

import (
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/sql"
)

// Notice is a message of a statement that is not an error (PostgreSQL's
// NoticeResponse): maintenance calls report what they did, or in a dry run
// would do, this way.
type Notice struct {
	Severity, Code, Message, Detail string
}

// noticer is the optional ability of a Conn to pass the notices of the
// statements it runs to f (nil: drop them). Both connections have it.
type noticer interface {
	OnNotice(f func(Notice))
}

func (e *embedded) OnNotice(f func(Notice)) {
	if f == nil {
		e.sess.SetNoticeHandler(nil)
		return
	}
	e.sess.SetNoticeHandler(func(n sql.Notice) {
		f(Notice{Severity: n.Severity, Code: n.Code, Message: n.Message, Detail: n.Detail})
	})
}

func (c *client) OnNotice(f func(Notice)) { c.onNotice = f }

// notice is the pgconn hook; it runs on the goroutine reading the
// statement's results, the one that called Run.
func (c *client) notice(_ *pgconn.PgConn, n *pgconn.Notice) {
	if c.onNotice != nil {
		c.onNotice(Notice{Severity: n.Severity, Code: n.Code, Message: n.Message, Detail: n.Detail})
	}
}
