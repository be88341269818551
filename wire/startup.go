package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/lakepg/lakepg/pgerr"
)

// Startup packet codes (the first int32 after the length).
const (
	codeCancelRequest = 80877102
	codeSSLRequest    = 80877103
	codeGSSENCRequest = 80877104
	protocolMajor3    = 3
	maxStartupPacket  = 10000 // PostgreSQL's MAX_STARTUP_PACKET_LENGTH
)

// SQLSTATEs pgerr does not name.
const (
	codeInvalidAuthorization = "28000"
	codeInvalidPassword      = "28P01"
	codeCannotConnectNow     = "57P03"
)

// startupPacket is a parsed StartupMessage.
type startupPacket struct {
	major, minor uint16
	params       map[string]string
	keys         []string // parameter names in the order sent
}

// startup runs the handshake; false means the connection is finished.
func (c *conn) startup() bool {
	sp, ok := c.readStartup()
	if !ok {
		return false
	}
	if c.srv.quitting() {
		c.sendFatal(&pgerr.Error{Code: codeCannotConnectNow, Message: "the database system is shutting down"})
		return false
	}
	if sp.major != protocolMajor3 {
		c.sendFatal(pgerr.New(pgerr.FeatureNotSupported, "unsupported frontend protocol %d.%d: server supports 3.0 to 3.0", sp.major, sp.minor))
		return false
	}
	// A newer minor version or _pq_ protocol options: say what we speak
	// (3.0, no options) and carry on, as PostgreSQL does.
	var unknownOpts []string
	for _, k := range sp.keys {
		if strings.HasPrefix(k, "_pq_.") {
			unknownOpts = append(unknownOpts, k)
		}
	}
	if sp.minor > 0 || len(unknownOpts) > 0 {
		c.send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 0, UnrecognizedOptions: unknownOpts})
	}

	applyStartupOptions(sp.params)
	user := sp.params["user"]
	if user == "" {
		c.sendFatal(&pgerr.Error{Code: codeInvalidAuthorization, Message: "no PostgreSQL user name specified in startup packet"})
		return false
	}
	db := sp.params["database"]
	if db == "" {
		db = user
	}
	if c.srv.opts.RequireTLS && !c.tls {
		c.sendFatal(&pgerr.Error{Code: codeInvalidAuthorization, Message: c.noHBAEntry(user, db),
			Detail: "This server accepts only TLS connections (--require-tls).", Hint: "Connect with sslmode=require."})
		return false
	}
	creds, ok := c.authenticate(user, db)
	if !ok {
		return false
	}
	if !c.srv.admit(c) {
		c.sendFatal(&pgerr.Error{Code: pgerr.TooManyConnections, Message: "sorry, too many clients already"})
		return false
	}
	c.log = c.log.With("pid", c.pid, "user", user, "database", db)
	c.send(&pgproto3.AuthenticationOk{})

	info := StartupInfo{
		User:            user,
		Database:        db,
		ApplicationName: sp.params["application_name"],
		Params:          sp.params,
		RemoteAddr:      c.nc.RemoteAddr(),
		PID:             int32(c.pid),
		Superuser:       creds.Superuser,
		Control:         BackendControl{Cancel: c.cancelRunning, Terminate: c.terminate},
	}
	err := c.guard("NewSession", func() error {
		s, err := c.srv.engine.NewSession(c.ctx, info)
		if err == nil && s == nil {
			err = errors.New("engine returned no session")
		}
		c.sess = s
		if n, ok := s.(Noticer); ok && err == nil {
			n.SetNoticeSink(c.queueNotice)
		}
		return err
	})
	if err != nil {
		c.sendFatal(err)
		return false
	}

	// PostgreSQL reports these settings at startup; clients key behaviour
	// off them (pgx and JDBC check standard_conforming_strings and
	// integer_datetimes, psql shows server_version).
	tz := sp.params["TimeZone"]
	if tz == "" {
		tz = "UTC"
	}
	status := map[string]string{
		"server_version":                c.srv.opts.ServerVersion,
		"server_encoding":               "UTF8",
		"client_encoding":               "UTF8",
		"DateStyle":                     "ISO, MDY",
		"TimeZone":                      tz,
		"integer_datetimes":             "on",
		"standard_conforming_strings":   "on",
		"application_name":              info.ApplicationName,
		"IntervalStyle":                 "postgres",
		"is_superuser":                  onOff(creds.Superuser),
		"session_authorization":         user,
		"default_transaction_read_only": "off",
		"in_hot_standby":                "off",
	}
	// The session may correct any of these (say, a canonical TimeZone name).
	_ = c.guard("ParameterChanges", func() error {
		for k, v := range c.sess.ParameterChanges() {
			status[k] = v
		}
		return nil
	})
	for _, k := range sortedKeys(status) {
		c.send(&pgproto3.ParameterStatus{Name: k, Value: status[k]})
	}
	var secret [4]byte
	binary.BigEndian.PutUint32(secret[:], c.secret)
	c.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: secret[:]})
	c.endStartup()
	c.log.Debug("session started")
	c.readyForQuery()
	return c.werr == nil
}

// readStartup reads startup packets until the StartupMessage, answering
// SSLRequest 'S' and switching to TLS when the server has a certificate
// ('N' otherwise) and GSSENCRequest 'N'. Packets are read with exact-length
// reads and no read-ahead buffer: after an SSLRequest the next bytes are a
// TLS handshake that must reach the TLS layer untouched.
func (c *conn) readStartup() (*startupPacket, bool) {
	// A client with sslnegotiation=direct opens with a TLS ClientHello.
	var first [1]byte
	if _, err := io.ReadFull(c.nc, first[:]); err != nil {
		c.log.Debug("startup failed", "err", err)
		return nil, false
	}
	var pending []byte
	if first[0] == tlsRecordHandshake {
		if c.srv.tls == nil {
			// Nothing we could say would reach a client that waits for a
			// ServerHello.
			c.log.Debug("direct TLS connection attempted, but TLS is not enabled")
			return nil, false
		}
		if !c.startTLS(first[:], true) {
			return nil, false
		}
	} else {
		pending = first[:]
	}
	gssAsked := false
	for negotiations := 0; ; negotiations++ {
		body, err := c.readPacket(pending)
		pending = nil
		if err != nil {
			if !isDisconnect(err) && !c.srv.quitting() {
				c.sendFatal(&pgerr.Error{Code: pgerr.ProtocolViolation, Message: err.Error()})
			}
			c.log.Debug("startup failed", "err", err)
			return nil, false
		}
		code := binary.BigEndian.Uint32(body)
		switch code {
		case codeSSLRequest, codeGSSENCRequest:
			// Each may be asked once, and neither inside TLS; a client
			// loops only on our mistake.
			if c.tls || len(body) != 4 || negotiations >= 2 || (code == codeGSSENCRequest && gssAsked) {
				c.sendFatal(&pgerr.Error{Code: pgerr.ProtocolViolation, Message: "unexpected encryption request"})
				return nil, false
			}
			if code == codeGSSENCRequest || c.srv.tls == nil {
				// 'N': the client continues in plain text, or gives up if
				// it requires encryption.
				gssAsked = gssAsked || code == codeGSSENCRequest
				if _, err := c.nc.Write([]byte{'N'}); err != nil {
					return nil, false
				}
				continue
			}
			if _, err := c.nc.Write([]byte{'S'}); err != nil {
				return nil, false
			}
			if !c.startTLS(nil, false) {
				return nil, false
			}
		case codeCancelRequest, codeRelayedCancel:
			if pid, secret, ok := decodeCancel(body); ok && !c.srv.cancel(pid, secret) && code == codeCancelRequest {
				c.srv.relayCancel(pid, secret) // cancelrelay.go
			}
			return nil, false
		default:
			sp, err := parseStartup(body)
			if err != nil {
				c.sendFatal(&pgerr.Error{Code: pgerr.ProtocolViolation, Message: err.Error()})
				return nil, false
			}
			return sp, true
		}
	}
}

// readPacket reads one length-prefixed startup packet body; pending holds
// its first bytes when they were already read.
func (c *conn) readPacket(pending []byte) ([]byte, error) {
	var hdr [4]byte
	n := copy(hdr[:], pending)
	if _, err := io.ReadFull(c.nc, hdr[n:]); err != nil {
		return nil, err
	}
	size := int(int32(binary.BigEndian.Uint32(hdr[:])))
	if size < 8 || size > maxStartupPacket {
		return nil, fmt.Errorf("invalid length of startup packet: %d", size)
	}
	body := make([]byte, size-4)
	if _, err := io.ReadFull(c.nc, body); err != nil {
		return nil, err
	}
	return body, nil
}

// parseStartup decodes a StartupMessage body of any protocol version:
// version, then name/value pairs of NUL-terminated strings, then a NUL.
func parseStartup(body []byte) (*startupPacket, error) {
	v := binary.BigEndian.Uint32(body)
	sp := &startupPacket{major: uint16(v >> 16), minor: uint16(v), params: map[string]string{}}
	if sp.major != protocolMajor3 {
		return sp, nil // reported by the caller with PostgreSQL's wording
	}
	rest := body[4:]
	for {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return nil, errors.New("invalid startup packet layout: expected terminator as last byte")
		}
		if i == 0 {
			if len(rest) != 1 {
				return nil, errors.New("invalid startup packet layout: expected terminator as last byte")
			}
			return sp, nil
		}
		name := settingName(string(rest[:i]))
		rest = rest[i+1:]
		j := bytes.IndexByte(rest, 0)
		if j < 0 {
			return nil, errors.New("invalid startup packet layout: expected terminator as last byte")
		}
		if _, dup := sp.params[name]; !dup {
			sp.keys = append(sp.keys, name)
		}
		sp.params[name] = string(rest[:j])
		rest = rest[j+1:]
	}
}

// settingName spells a startup parameter the way PostgreSQL spells the
// setting: setting names are case-insensitive (libpq sends PGTZ as
// "timezone"), so names are folded to lower case, except the three settings
// PostgreSQL names in mixed case.
func settingName(name string) string {
	switch n := strings.ToLower(name); n {
	case "timezone":
		return "TimeZone"
	case "datestyle":
		return "DateStyle"
	case "intervalstyle":
		return "IntervalStyle"
	default:
		return n
	}
}

// isLocal reports whether addr is this machine: a loopback IP or a Unix socket.
func isLocal(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	return false
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
