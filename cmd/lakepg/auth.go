package main

import (
	"context"

	"github.com/lakepg/lakepg/sql"
	"github.com/lakepg/lakepg/wire"
)

// Credentials makes the engine a wire.Authenticator: roles and their
// password verifiers come from the catalog, so every server sharing it
// knows the same users.
func (w wireEngine) Credentials(ctx context.Context, user string) (wire.Credentials, error) {
	l, err := w.eng.Login(ctx, user)
	return wire.Credentials{Trust: l.Trust, Verifier: l.Verifier, CanLogin: l.CanLogin, Superuser: l.Superuser}, err
}

// SetNoticeSink makes the session a wire.Noticer.
func (s wireSession) SetNoticeSink(send func(wire.Notice)) {
	s.Session.SetNoticeHandler(func(n sql.Notice) {
		send(wire.Notice{Severity: n.Severity, Code: n.Code, Message: n.Message, Detail: n.Detail, Hint: n.Hint})
	})
}
