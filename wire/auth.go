package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/lakepg/lakepg/pgerr"
)

// Authenticator is an optional Engine ability: an engine that has one decides
// how each user logs in. Without it every login is trusted, from loopback
// only.
type Authenticator interface {
	// Credentials says how user must log in. It is asked once per
	// connection, after the startup packet.
	Credentials(ctx context.Context, user string) (Credentials, error)
}

// Credentials is what the server needs to authenticate one user.
type Credentials struct {
	// Trust: no role has a password, so nobody is asked for one. Trusted
	// logins are accepted from loopback addresses only.
	Trust bool
	// Verifier is the role's SCRAM-SHA-256 secret in PostgreSQL's format,
	// SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>; "" when the
	// role does not exist or has no password. Such a user goes through a
	// pretend exchange that always fails, so a client learns nothing about
	// which roles exist.
	Verifier string
	// CanLogin is false for a NOLOGIN role: refused once authenticated.
	CanLogin bool
	// Superuser is reported as is_superuser.
	Superuser bool
}

// maxAuthMessage caps a SASL response, as PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH.
const maxAuthMessage = 65535

// authenticate runs the authentication exchange for the startup packet's
// user; false means the connection is finished (the client was told why).
func (c *conn) authenticate(user, database string) (creds Credentials, ok bool) {
	creds = Credentials{Trust: true, CanLogin: true, Superuser: true}
	if a, has := c.srv.engine.(Authenticator); has {
		err := c.guard("Credentials", func() error {
			var err error
			creds, err = a.Credentials(c.ctx, user)
			return err
		})
		if err != nil {
			c.sendFatal(err)
			return creds, false
		}
	}
	if creds.Trust {
		// Trust is only safe where the peer is this machine.
		if !isLocal(c.nc.RemoteAddr()) {
			c.sendFatal(&pgerr.Error{Code: codeInvalidAuthorization,
				Message: c.noHBAEntry(user, database),
				Detail:  "No role has a password, and lakepg trusts logins without a password only from loopback addresses.",
				Hint:    "Give a role a password (CREATE ROLE name LOGIN PASSWORD '...', or start with --bootstrap-password)."})
			return creds, false
		}
		return creds, true
	}

	secret, usable := parseSCRAMSecret(creds.Verifier)
	if creds.Verifier != "" && !usable {
		c.log.Warn("role has a password verifier lakepg cannot use; its logins fail", "user", user)
	}
	sc := &scramServer{secret: secret, mock: !usable}
	if !usable {
		sc.secret = mockSecret(c.srv.mockKey[:], user)
	}
	if c.tls {
		sc.cbData = c.srv.cbData
	}
	c.send(&pgproto3.AuthenticationSASL{AuthMechanisms: sc.mechanisms()})
	c.flush()

	body, ok := c.readAuthMessage()
	if !ok {
		return creds, false
	}
	var initial pgproto3.SASLInitialResponse
	if err := initial.Decode(body); err != nil {
		c.sendFatal(&pgerr.Error{Code: pgerr.ProtocolViolation, Message: "invalid SASLInitialResponse message: " + err.Error()})
		return creds, false
	}
	serverFirst, err := sc.first(initial.AuthMechanism, initial.Data)
	if err != nil {
		c.sendFatal(err)
		return creds, false
	}
	c.send(&pgproto3.AuthenticationSASLContinue{Data: serverFirst})
	c.flush()

	body, ok = c.readAuthMessage()
	if !ok {
		return creds, false
	}
	serverFinal, err := sc.final(body)
	if errors.Is(err, errAuthFailed) {
		c.log.Info("password authentication failed", "user", user)
		c.sendFatal(&pgerr.Error{Code: codeInvalidPassword, Message: fmt.Sprintf("password authentication failed for user \"%s\"", user)})
		return creds, false
	}
	if err != nil {
		c.sendFatal(err)
		return creds, false
	}
	c.send(&pgproto3.AuthenticationSASLFinal{Data: serverFinal})
	if !creds.CanLogin {
		c.sendFatal(&pgerr.Error{Code: codeInvalidAuthorization, Message: fmt.Sprintf("role \"%s\" is not permitted to log in", user)})
		return creds, false
	}
	return creds, true
}

// readAuthMessage reads one password-type ('p') message body during the
// handshake, byte-exact like the startup packets. A client that hangs up
// here is ordinary: libpq does when it has no password to give and psql
// then asks for one.
func (c *conn) readAuthMessage() ([]byte, bool) {
	var hdr [5]byte
	if _, err := io.ReadFull(c.nc, hdr[:]); err != nil {
		c.log.Debug("client left during authentication", "err", err)
		return nil, false
	}
	if hdr[0] != 'p' {
		c.sendFatal(&pgerr.Error{Code: pgerr.ProtocolViolation, Message: fmt.Sprintf("expected SASL response, got message type %d", hdr[0])})
		return nil, false
	}
	n := int(int32(binary.BigEndian.Uint32(hdr[1:])))
	if n < 4 || n-4 > maxAuthMessage {
		c.sendFatal(&pgerr.Error{Code: pgerr.ProtocolViolation, Message: fmt.Sprintf("invalid SASL response message length %d", n)})
		return nil, false
	}
	body := make([]byte, n-4)
	if _, err := io.ReadFull(c.nc, body); err != nil {
		c.log.Debug("client left during authentication", "err", err)
		return nil, false
	}
	return body, true
}

// noHBAEntry is PostgreSQL's wording for a connection no rule admits.
func (c *conn) noHBAEntry(user, database string) string {
	host := c.nc.RemoteAddr().String()
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	enc := "no encryption"
	if c.tls {
		enc = "SSL encryption"
	}
	return fmt.Sprintf("no pg_hba.conf entry for host \"%s\", user \"%s\", database \"%s\", %s", host, user, database, enc)
}
