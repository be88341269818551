package sql

import (
	"fmt"
	"strings"
)

// SetNoticeHandler sets where the session's notices go; nil drops them. The
// handler may be called from any goroutine the session runs work on.
func (s *Session) SetNoticeHandler(f func(Notice)) { s.notify = f }

// notice raises NOTICE 00000, PostgreSQL's level for "skipping" messages.
func (s *Session) notice(format string, args ...any) {
	s.Raise(Notice{Severity: "NOTICE", Code: "00000", Message: fmt.Sprintf(format, args...)})
}

// Raise sends n unless client_min_messages asks for less.
func (s *Session) Raise(n Notice) {
	if s.notify == nil || !wanted(n.Severity, s.Settings["client_min_messages"]) {
		return
	}
	s.notify(n)
}

// messageLevels ranks severities as PostgreSQL's elog levels do.
var messageLevels = map[string]int{
	"debug5": 10, "debug4": 11, "debug3": 12, "debug2": 13, "debug": 13, "debug1": 14,
	"log": 15, "notice": 18, "warning": 19, "error": 21,
}

// wanted reports whether a message of severity reaches a client whose
// client_min_messages is min. INFO always does.
func wanted(severity, min string) bool {
	sev := strings.ToLower(severity)
	if sev == "info" {
		return true
	}
	lv, ok := messageLevels[sev]
	if !ok {
		return true
	}
	m, ok := messageLevels[strings.ToLower(strings.TrimSpace(min))]
	if !ok {
		m = messageLevels["notice"]
	}
	return lv >= m
}
