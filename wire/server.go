package wire

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"
)

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("wire: server closed")

// DefaultServerVersion is reported as server_version when Options leaves it empty.
const DefaultServerVersion = "16.6 (lakepg)"

// Options configures a Server.
type Options struct {
	Logger *slog.Logger // nil = slog.Default()
	// ServerVersion is reported as server_version, e.g. "16.6 (lakepg 0.1.0)".
	// Clients parse the leading number, so it must start with a PostgreSQL
	// version.
	ServerVersion string
	// MaxConnections caps established sessions; beyond it a client gets
	// FATAL 53300. 0 means no limit.
	MaxConnections int
	// TLS, when set, lets clients switch to TLS: SSLRequest is answered 'S',
	// and PostgreSQL 17's direct TLS (ALPN "postgresql") is accepted. nil
	// answers 'N'.
	TLS *tls.Config
	// RequireTLS refuses a startup that did not switch to TLS (FATAL 28000).
	RequireTLS bool
	// CancelPeers are the PostgreSQL addresses (host:port) of the other
	// servers of the lake: a CancelRequest for a key of none of this
	// server's sessions is relayed to them (cancelrelay.go), since behind a
	// balancer it may have reached the wrong server. An address of this
	// server itself among them is harmless.
	CancelPeers []string
}

// startupTimeout bounds the handshake, like PostgreSQL's authentication_timeout.
const startupTimeout = time.Minute

// Server serves the PostgreSQL protocol over any number of listeners.
type Server struct {
	engine Engine
	opts   Options
	log    *slog.Logger

	tls     *tls.Config // Options.TLS with PostgreSQL's ALPN; nil without TLS
	cbData  []byte      // tls-server-end-point channel binding data, nil if none
	mockKey [32]byte    // derives the pretend salts of unknown users

	// base is the parent of every connection context; Shutdown cancels it
	// when its own context expires, cancelling every running statement.
	base       context.Context
	hardCancel context.CancelFunc

	quit     chan struct{} // closed when Shutdown starts
	quitOnce sync.Once

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	sessions  int              // established sessions, for MaxConnections
	keys      map[uint32]*conn // BackendKeyData process id → session, for CancelRequest
	relays    chan struct{}    // a token per relayed cancel in flight, at most maxRelays
	wg        sync.WaitGroup   // one per accepted connection
}

// New returns a Server that opens sessions on engine.
func New(engine Engine, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ServerVersion == "" {
		opts.ServerVersion = DefaultServerVersion
	}
	base, cancel := context.WithCancel(context.Background())
	s := &Server{
		engine:     engine,
		opts:       opts,
		log:        opts.Logger,
		base:       base,
		hardCancel: cancel,
		quit:       make(chan struct{}),
		listeners:  map[net.Listener]struct{}{},
		conns:      map[*conn]struct{}{},
		keys:       map[uint32]*conn{},
		relays:     make(chan struct{}, maxRelays),
	}
	if opts.TLS != nil {
		s.tls = serverTLSConfig(opts.TLS)
		s.cbData = endpointHash(opts.TLS)
	}
	if _, err := rand.Read(s.mockKey[:]); err != nil {
		panic("wire: crypto/rand failed: " + err.Error())
	}
	return s
}

func (s *Server) quitting() bool {
	select {
	case <-s.quit:
		return true
	default:
		return false
	}
}

// hardStopped reports whether Shutdown's deadline passed.
func (s *Server) hardStopped() bool { return s.base.Err() != nil }

// Serve accepts connections on ln until Shutdown, when it returns
// ErrServerClosed. Each connection is served by its own goroutine.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.quitting() {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
	}()

	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.quitting() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				// Out of file descriptors and the like: wait instead of spinning.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.log.Warn("accept failed; retrying", "err", err, "delay", backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		s.mu.Lock()
		if s.quitting() {
			s.mu.Unlock()
			nc.Close()
			return ErrServerClosed
		}
		c := newConn(s, nc)
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go c.run()
	}
}

// Shutdown stops accepting connections and ends every session at its next
// idle point with FATAL 57P01. Statements still running when ctx expires are
// cancelled. Shutdown returns when every connection is gone: nil if they all
// ended on their own, ctx.Err() if statements had to be cancelled.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.quitOnce.Do(func() { close(s.quit) })
	for ln := range s.listeners {
		ln.Close()
	}
	for c := range s.conns {
		c.interruptStartup()
	}
	s.mu.Unlock()

	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	s.log.Warn("shutdown deadline passed; cancelling running statements")
	s.hardCancel()
	<-done
	return ctx.Err()
}

// forget removes c from the registries once its goroutine ends.
func (s *Server) forget(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	if c.pid != 0 {
		delete(s.keys, c.pid)
		s.sessions--
	}
	s.mu.Unlock()
	s.wg.Done()
}

// admit counts c as an established session and gives it a unique process
// id and secret; ok is false when MaxConnections is reached.
func (s *Server) admit(c *conn) (ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.MaxConnections > 0 && s.sessions >= s.opts.MaxConnections {
		return false
	}
	for {
		// Random, positive as a signed int32 (some clients store it so), unique.
		pid := randomUint32() & 0x7fffffff
		if pid == 0 || s.keys[pid] != nil {
			continue
		}
		c.pid = pid
		break
	}
	c.secret = randomUint32()
	s.keys[c.pid] = c
	s.sessions++
	return true
}

// cancel handles a CancelRequest: the session with that key has its running
// statement cancelled. As in PostgreSQL, nothing is answered either way. It
// reports whether the key is one of this server's sessions.
func (s *Server) cancel(pid uint32, secret []byte) bool {
	s.mu.Lock()
	c := s.keys[pid]
	s.mu.Unlock()
	if c == nil || len(secret) != 4 {
		return false
	}
	var want [4]byte
	binary.BigEndian.PutUint32(want[:], c.secret)
	if subtle.ConstantTimeCompare(want[:], secret) != 1 {
		return false
	}
	c.cancelRunning()
	return true
}

func randomUint32() uint32 {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("wire: crypto/rand failed: " + err.Error())
	}
	return binary.BigEndian.Uint32(b[:])
}
