package wire

import (
	"github.com/jackc/pgx/v5/pgproto3"
)

// Notice is a message to the client that is not an error: PostgreSQL's
// NoticeResponse, e.g. NOTICE 00000 `table "t" does not exist, skipping`.
type Notice struct {
	// Severity is NOTICE, WARNING, INFO, LOG or DEBUG.
	Severity string
	// Code is the SQLSTATE: 00000 for a plain notice, 01xxx for warnings.
	Code                  string
	Message, Detail, Hint string
}

// Noticer is an optional Session ability. Right after NewSession the server
// calls SetNoticeSink once; the session then calls send for every notice, from
// any goroutine, while it prepares, executes or syncs. A notice reaches the
// client ahead of whatever the server sends next (a row, CommandComplete,
// an error, ReadyForQuery). Whether a notice is wanted at all
// (client_min_messages) is the session's business.
type Noticer interface {
	SetNoticeSink(send func(Notice))
}

// queueNotice is the sink given to a Noticer.
func (c *conn) queueNotice(n Notice) {
	c.mu.Lock()
	c.notices = append(c.notices, n)
	c.noticeCount.Store(int32(len(c.notices)))
	c.mu.Unlock()
}

// sendNotices moves queued notices into the output, in the order raised.
func (c *conn) sendNotices() {
	c.mu.Lock()
	pending := c.notices
	c.notices = nil
	c.noticeCount.Store(0)
	c.mu.Unlock()
	for _, n := range pending {
		sev := n.Severity
		if sev == "" {
			sev = "NOTICE"
		}
		code := n.Code
		if code == "" {
			code = "00000"
		}
		c.send(&pgproto3.NoticeResponse{Severity: sev, SeverityUnlocalized: sev, Code: code,
			Message: n.Message, Detail: n.Detail, Hint: n.Hint})
	}
}
