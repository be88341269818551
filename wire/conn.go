package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/lakepg/lakepg/pgerr"
)

const (
	// flushThreshold is how much output is buffered while rows stream.
	flushThreshold = 64 << 10
	// maxMessageLen caps a client message body, as PostgreSQL's
	// PQ_LARGE_MESSAGE_LIMIT does; beyond it the connection is dropped.
	maxMessageLen = 1<<30 - 1
	// inboxDepth is how many messages the reader may run ahead of the
	// session loop; beyond it TCP backpressure reaches the client.
	inboxDepth = 64
)

// inbound is one message (a private copy) or the error that ended reading.
type inbound struct {
	msg pgproto3.FrontendMessage
	err error
}

// conn is one client connection. Everything except the fields under mu is
// owned by the connection's goroutine.
type conn struct {
	srv *Server
	// nc is the connection messages travel on: raw, or TLS over raw once
	// the handshake switched. Only the connection's goroutine changes it;
	// other goroutines use raw, for deadlines.
	nc  net.Conn
	raw net.Conn
	tls bool
	log *slog.Logger

	pid    uint32 // 0 until admitted
	secret uint32

	// ctx is cancelled when the client goes away, when the server stops
	// hard, and when the connection ends. Every statement context derives
	// from it.
	ctx    context.Context
	cancel context.CancelFunc

	sess Session
	in   chan inbound
	done chan struct{} // closed when the session loop ends; releases the reader

	out  []byte // pending output
	werr error  // first write error: the client is gone, stop producing

	stmts      map[string]*prepared
	portals    map[string]*portal
	skipToSync bool // an extended-protocol message failed: discard until Sync
	idle       bool // just sent ReadyForQuery: a point where Shutdown may end us
	// ahead are messages taken from in early, to look past an Execute
	// (lookahead.go); they come before anything still in in
	ahead []inbound

	mu        sync.Mutex
	inStartup bool
	running   context.CancelFunc // the statement running now, for CancelRequest
	notices   []Notice           // raised by the session, not yet in out

	noticeCount atomic.Int32 // len(notices), read without the lock on every send

	// terminated is set by pg_terminate_backend (BackendControl.Terminate);
	// terminateCh is closed then, waking an idle session loop.
	terminated  atomic.Bool
	terminateCh chan struct{}
	termOnce    sync.Once
}

func newConn(s *Server, nc net.Conn) *conn {
	ctx, cancel := context.WithCancel(s.base)
	c := &conn{
		srv:         s,
		nc:          nc,
		raw:         nc,
		log:         s.log.With("remote", nc.RemoteAddr().String()),
		ctx:         ctx,
		cancel:      cancel,
		stmts:       map[string]*prepared{},
		portals:     map[string]*portal{},
		inStartup:   true,
		terminateCh: make(chan struct{}),
	}
	// The handshake has a deadline from the start, before Shutdown can see
	// the connection and shorten it (see interruptStartup).
	nc.SetDeadline(time.Now().Add(startupTimeout))
	// A client that stops reading must not hold a cancelled statement (or
	// Shutdown) forever in a blocked write.
	context.AfterFunc(ctx, func() { nc.SetWriteDeadline(time.Now().Add(2 * time.Second)) })
	return c
}

// run serves the connection from accept to close.
func (c *conn) run() {
	defer c.srv.forget(c)
	defer func() { c.log.Debug("connection closed") }() // c.log gains the pid during startup
	defer func() { c.nc.Close() }()                     // the TLS connection once there is one: close_notify
	defer c.cancel()
	defer func() {
		// Last line of defence: nothing a connection does may kill the server.
		if r := recover(); r != nil {
			c.log.Error("panic in connection", "panic", r, "stack", string(debug.Stack()))
			c.sendFatal(internalError(r))
		}
	}()

	ok := c.startup()
	if c.sess != nil {
		defer c.closeSession()
	}
	if ok {
		c.serve()
	}
}

// interruptStartup unblocks a connection still in its handshake so that it
// notices Shutdown; established sessions notice through the quit channel.
func (c *conn) interruptStartup() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inStartup {
		c.raw.SetReadDeadline(time.Now())
	}
}

func (c *conn) endStartup() {
	c.mu.Lock()
	c.inStartup = false
	c.raw.SetDeadline(time.Time{})
	c.mu.Unlock()
}

// setRunning records (or clears, with nil) the cancel function of the
// statement now running, for CancelRequest.
func (c *conn) setRunning(cancel context.CancelFunc) {
	c.mu.Lock()
	c.running = cancel
	c.mu.Unlock()
}

// terminate ends the session as pg_terminate_backend does: the running
// statement is cancelled and the connection closes with FATAL 57P01.
func (c *conn) terminate() {
	c.termOnce.Do(func() {
		c.terminated.Store(true)
		close(c.terminateCh)
	})
	c.cancelRunning()
}

func (c *conn) cancelRunning() {
	c.mu.Lock()
	cancel := c.running
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

var errShutdown = errors.New("server shutting down")

// serve is the session loop.
func (c *conn) serve() {
	c.in = make(chan inbound, inboxDepth)
	c.done = make(chan struct{})
	defer close(c.done)
	be := pgproto3.NewBackend(&frameGuard{r: c.nc}, c.nc)
	be.SetMaxBodyLen(maxMessageLen)
	go c.read(be)

	for c.werr == nil {
		msg, err := c.next()
		if err != nil {
			var idle idleTimeout
			switch {
			case errors.Is(err, errShutdown):
				c.sendFatal(&pgerr.Error{Code: pgerr.AdminShutdown, Message: "terminating connection due to administrator command"})
			case errors.As(err, &idle):
				c.sendFatal(idle.fatal())
			case isDisconnect(err):
				c.log.Debug("client disconnected", "err", err)
			default:
				c.sendFatal(&pgerr.Error{Code: pgerr.ProtocolViolation, Message: "invalid frontend message: " + err.Error()})
			}
			return
		}
		c.idle = false
		if c.skipToSync {
			switch msg.(type) {
			case *pgproto3.Sync, *pgproto3.Terminate:
			default:
				continue
			}
		}
		if !c.dispatch(msg) {
			return
		}
	}
}

// dispatch handles one message; false ends the connection.
func (c *conn) dispatch(msg pgproto3.FrontendMessage) bool {
	switch m := msg.(type) {
	case *pgproto3.Query:
		c.simpleQuery(m.String)
	case *pgproto3.Parse:
		c.parse(m)
	case *pgproto3.Bind:
		c.bind(m)
	case *pgproto3.Describe:
		c.describe(m)
	case *pgproto3.Execute:
		c.execute(m)
	case *pgproto3.Close:
		c.closeMsg(m)
	case *pgproto3.Sync:
		c.sync()
	case *pgproto3.Flush:
		c.flush()
	case *pgproto3.Terminate:
		return false
	case *malformedMessage:
		c.rejectMalformed(m) // malformed.go
	case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
		// Outside COPY these are leftovers of a COPY that failed; PostgreSQL
		// ignores them too.
	case *pgproto3.FunctionCall:
		c.sendError(pgerr.New(pgerr.FeatureNotSupported, "the function call protocol is not supported"))
		c.readyForQuery()
	default:
		// Authentication responses and the like, outside the handshake.
		name := strings.TrimPrefix(fmt.Sprintf("%T", msg), "*pgproto3.")
		c.sendFatal(&pgerr.Error{Code: pgerr.ProtocolViolation, Message: "unexpected " + name + " message"})
		return false
	}
	return true
}

// next returns the next client message, or errShutdown when the server is
// stopping and this session is at an idle point.
func (c *conn) next() (pgproto3.FrontendMessage, error) {
	if c.terminated.Load() {
		return nil, errShutdown
	}
	if in, ok := c.receiveAhead(); ok {
		return in.msg, in.err
	}
	if c.srv.quitting() {
		if c.idle || c.srv.hardStopped() {
			return nil, errShutdown
		}
		// Mid-pipeline: finish what the client already sent, stop when it waits.
		select {
		case in := <-c.in:
			return in.msg, in.err
		default:
			return nil, errShutdown
		}
	}
	idle, stop, timeout := c.idleTimer() // idle.go
	defer stop()
	select {
	case in := <-c.in:
		return in.msg, in.err
	case <-c.srv.quit:
		return c.next()
	case <-c.terminateCh:
		return nil, errShutdown
	case <-idle:
		return nil, timeout
	}
}

// read is the reader goroutine: it copies each message out of the Backend's
// reused buffers and hands it to the session loop.
func (c *conn) read(be *pgproto3.Backend) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("panic decoding a client message", "panic", r, "stack", string(debug.Stack()))
			c.cancel()
			select {
			case c.in <- inbound{err: fmt.Errorf("undecodable message: %v", r)}:
			case <-c.done:
			}
		}
	}()
	for {
		msg, err := be.Receive()
		if kind, ok := malformedBody(err); ok {
			select {
			case c.in <- inbound{msg: &malformedMessage{kind: kind}}:
				continue
			case <-c.done:
				return
			}
		}
		if err != nil {
			// The client is gone (or speaks garbage): whatever runs for it
			// now is wasted work.
			c.cancel()
			select {
			case c.in <- inbound{err: err}:
			case <-c.done:
			}
			return
		}
		select {
		case c.in <- inbound{msg: copyMessage(msg)}:
		case <-c.done:
			return
		}
		if _, ok := msg.(*pgproto3.Terminate); ok {
			return
		}
	}
}

// copyMessage detaches msg from the Backend's buffers, which the next
// Receive overwrites.
func copyMessage(msg pgproto3.FrontendMessage) pgproto3.FrontendMessage {
	switch m := msg.(type) {
	case *pgproto3.Query:
		cp := *m
		return &cp
	case *pgproto3.Parse:
		cp := *m
		cp.ParameterOIDs = slices.Clone(m.ParameterOIDs)
		return &cp
	case *pgproto3.Bind:
		cp := *m
		cp.ParameterFormatCodes = slices.Clone(m.ParameterFormatCodes)
		cp.ResultFormatCodes = slices.Clone(m.ResultFormatCodes)
		cp.Parameters = cloneValues(m.Parameters)
		return &cp
	case *pgproto3.Describe:
		cp := *m
		return &cp
	case *pgproto3.Execute:
		cp := *m
		return &cp
	case *pgproto3.Close:
		cp := *m
		return &cp
	case *pgproto3.Sync:
		return &pgproto3.Sync{}
	case *pgproto3.Flush:
		return &pgproto3.Flush{}
	case *pgproto3.Terminate:
		return &pgproto3.Terminate{}
	case *pgproto3.CopyData:
		return &pgproto3.CopyData{Data: slices.Clone(m.Data)}
	case *pgproto3.CopyDone:
		return &pgproto3.CopyDone{}
	case *pgproto3.CopyFail:
		cp := *m
		return &cp
	case *pgproto3.FunctionCall:
		return &pgproto3.FunctionCall{Function: m.Function}
	}
	// Authentication responses arrive only during the handshake; here they
	// are a protocol violation and only their type matters.
	return msg
}

// cloneValues copies parameter values into one allocation, keeping NULLs nil.
func cloneValues(vals [][]byte) [][]byte {
	if vals == nil {
		return nil
	}
	n := 0
	for _, v := range vals {
		n += len(v)
	}
	buf := make([]byte, 0, n)
	out := make([][]byte, len(vals))
	for i, v := range vals {
		if v == nil {
			continue
		}
		start := len(buf)
		buf = append(buf, v...)
		out[i] = buf[start:len(buf):len(buf)]
	}
	return out
}

func isDisconnect(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.As(err, &ne)
}

// ---- output ----

// send buffers one message.
func (c *conn) send(msg pgproto3.BackendMessage) {
	if c.werr != nil {
		return
	}
	if c.noticeCount.Load() > 0 {
		c.sendNotices()
	}
	out, err := msg.Encode(c.out)
	if err != nil {
		// Only an oversized message fails to encode; the stream is unusable.
		c.log.Error("encoding a message failed", "type", fmt.Sprintf("%T", msg), "err", err)
		c.werr = err
		c.cancel()
		return
	}
	c.out = out
}

// flush writes the buffered output.
func (c *conn) flush() {
	if c.noticeCount.Load() > 0 {
		c.sendNotices()
	}
	if c.werr != nil || len(c.out) == 0 {
		return
	}
	_, err := c.nc.Write(c.out)
	if cap(c.out) > 4*flushThreshold {
		c.out = nil // a large result grew it; an idle session should not keep it
	} else {
		c.out = c.out[:0]
	}
	if err != nil {
		c.log.Debug("write failed; client gone", "err", err)
		c.werr = err
		c.cancel()
	}
}

// sendError reports a statement error (severity ERROR) and flushes at once,
// so a pipelining client learns of it before it sends more.
func (c *conn) sendError(err error) {
	if c.terminated.Load() {
		// pg_terminate_backend cancelled the statement: the session ends
		// here, and nothing more goes out.
		c.sendFatal(&pgerr.Error{Code: pgerr.AdminShutdown, Message: "terminating connection due to administrator command"})
		if c.werr == nil {
			c.werr = errShutdown
		}
		return
	}
	c.send(c.errorResponse(err, "ERROR"))
	c.flush()
}

// sendFatal reports an error that ends the connection.
func (c *conn) sendFatal(err error) {
	c.send(c.errorResponse(err, "FATAL"))
	c.flush()
}

// errorResponse converts err into an ErrorResponse: *pgerr.Error keeps its
// fields, context cancellation becomes 57014, anything else XX000.
func (c *conn) errorResponse(err error, severity string) *pgproto3.ErrorResponse {
	e, ok := pgerr.As(err)
	if !ok {
		switch {
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			msg := "canceling statement due to user request"
			if c.srv.hardStopped() {
				msg = "canceling statement due to administrator command"
			}
			e = &pgerr.Error{Code: pgerr.QueryCanceled, Message: msg}
		default:
			c.log.Error("internal error", "err", err)
			e = &pgerr.Error{Code: pgerr.Internal, Message: err.Error()}
		}
	}
	code := e.Code
	if code == "" {
		code = pgerr.Internal
	}
	return &pgproto3.ErrorResponse{
		Severity:            severity,
		SeverityUnlocalized: severity,
		Code:                code,
		Message:             e.Message,
		Detail:              e.Detail,
		Hint:                e.Hint,
		Position:            int32(e.Position),
		Where:               whereOf(err),
	}
}

// internalError turns a recovered panic value into an XX000 error.
func internalError(r any) *pgerr.Error {
	return &pgerr.Error{Code: pgerr.Internal, Message: fmt.Sprintf("internal error: %v", r)}
}

// guard runs engine code, turning a panic into an XX000 error (logged with
// its stack) so that one bad statement cannot take down the session.
func (c *conn) guard(what string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("panic in "+what, "panic", r, "stack", string(debug.Stack()))
			err = internalError(r)
		}
	}()
	return f()
}

// ---- session helpers ----

// readyForQuery reports changed settings and the transaction status, then flushes.
func (c *conn) readyForQuery() {
	c.sendParameterChanges()
	status := c.txStatus()
	c.send(&pgproto3.ReadyForQuery{TxStatus: status})
	c.flush()
	c.idle = true
}

func (c *conn) sendParameterChanges() {
	var changes map[string]string
	_ = c.guard("ParameterChanges", func() error {
		changes = c.sess.ParameterChanges()
		return nil
	})
	for _, k := range sortedKeys(changes) {
		c.send(&pgproto3.ParameterStatus{Name: k, Value: changes[k]})
	}
}

// endImplicit tells a Syncer session that an implicit transaction ends here.
func (c *conn) endImplicit() {
	s, ok := c.sess.(Syncer)
	if !ok {
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	c.setRunning(cancel)
	defer c.setRunning(nil)
	if err := c.guard("Sync", func() error { return s.Sync(ctx) }); err != nil {
		c.sendError(err)
	}
}

// closeSession releases every portal and the session itself.
func (c *conn) closeSession() {
	c.dropAllPortals()
	_ = c.guard("Session.Close", func() error {
		c.sess.Close()
		return nil
	})
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
