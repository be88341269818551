package wire

import (
	"encoding/binary"
	"net"
	"time"
)

// Behind a TCP balancer (HAProxy, or PgBouncer's list of hosts) a client's
// CancelRequest opens a new connection, which may well reach another lakepg
// than the one running the client's statement: that server knows no session
// with the key and, as PostgreSQL would, drops it. With Options.CancelPeers
// a server passes such a request on to its peers, under a request code of
// lakepg's own, so that the peer looks only at its own sessions and never
// passes it on again (no loops, at most one hop).

// codeRelayedCancel is a CancelRequest relayed by a peer. PostgreSQL's
// request codes are 1234/5678 (cancel), 1234/5679 (SSL) and 1234/5680
// (GSS encryption); this one is unused by PostgreSQL and its clients.
const codeRelayedCancel = 1234<<16 | 5699

// relayTimeout bounds the dial and write of one relayed request.
const relayTimeout = 2 * time.Second

// maxRelays caps relays in flight: a flood of unknown keys must not turn
// into an unbounded number of connections to the peers.
const maxRelays = 64

// relayCancel passes a request that matched no session here on to every
// peer, without waiting: like a CancelRequest, a relay is answered by
// nothing.
func (s *Server) relayCancel(pid uint32, secret []byte) {
	if len(s.opts.CancelPeers) == 0 {
		return
	}
	pkt := make([]byte, 12+len(secret))
	binary.BigEndian.PutUint32(pkt[0:], uint32(len(pkt)))
	binary.BigEndian.PutUint32(pkt[4:], codeRelayedCancel)
	binary.BigEndian.PutUint32(pkt[8:], pid)
	copy(pkt[12:], secret)
	for _, peer := range s.opts.CancelPeers {
		select {
		case s.relays <- struct{}{}:
		default:
			s.log.Warn("cancel request not relayed: too many relays in flight", "peer", peer)
			continue
		}
		go func() {
			defer func() { <-s.relays }()
			nc, err := net.DialTimeout("tcp", peer, relayTimeout)
			if err != nil {
				s.log.Debug("relaying a cancel request", "peer", peer, "err", err)
				return
			}
			defer nc.Close()
			_ = nc.SetWriteDeadline(time.Now().Add(relayTimeout))
			if _, err := nc.Write(pkt); err != nil {
				s.log.Debug("relaying a cancel request", "peer", peer, "err", err)
			}
		}()
	}
}

// decodeCancel reads the process id and secret of a CancelRequest body of
// either code (the code checked by the caller).
func decodeCancel(body []byte) (pid uint32, secret []byte, ok bool) {
	// a 4-byte code and pid, then the secret: 4 bytes up to protocol 3.0,
	// up to 256 from 3.2 on
	if len(body) < 12 || len(body) > 264 {
		return 0, nil, false
	}
	return binary.BigEndian.Uint32(body[4:]), body[8:], true
}
