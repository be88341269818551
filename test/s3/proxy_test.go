package s3

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slowProxy is a TCP proxy in front of an S3 server that can hold back
// what the server sends: each chunk waits delay, and the stream is paced
// to rate bytes per second. It works below HTTP, so signatures stay valid
// and a server killed behind it breaks connections as a dead server does.
type slowProxy struct {
	ln     net.Listener
	target string
	delay  atomic.Int64 // nanoseconds each server→client chunk waits
	rate   atomic.Int64 // server→client bytes per second; 0: unlimited
	down   atomic.Int64 // server→client bytes forwarded
	done   chan struct{}

	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// chunk is what the proxy forwards at a time: small, so pacing is smooth
// and a delay stalls the response, not just its end.
const chunk = 16 << 10

// startProxy listens on a free loopback port and forwards to target
// (host:port) until the end of the test.
func startProxy(t *testing.T, target string) *slowProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &slowProxy{ln: ln, target: target, done: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// Endpoint is the proxy's URL for --s3-endpoint.
func (p *slowProxy) Endpoint() string { return "http://" + p.ln.Addr().String() }

func (p *slowProxy) setDelay(d time.Duration) { p.delay.Store(int64(d)) }
func (p *slowProxy) setRate(bps int64)        { p.rate.Store(bps) }

func (p *slowProxy) close() {
	close(p.done)
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
}

func (p *slowProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
		c.Close()
		return false
	default:
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *slowProxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *slowProxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.serve(client)
	}
}

func (p *slowProxy) serve(client net.Conn) {
	if !p.track(client) {
		return
	}
	defer p.untrack(client)
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return // the client sees its connection closed, as with a server gone mid-request
	}
	if !p.track(server) {
		return
	}
	defer p.untrack(server)
	// A small receive buffer keeps the kernel from reading far ahead of
	// the pacing: the server's writes block as a slow network's would.
	if tc, ok := server.(*net.TCPConn); ok {
		tc.SetReadBuffer(64 << 10)
	}
	go func() {
		io.Copy(server, client)
		server.Close()
	}()
	buf := make([]byte, chunk)
	for {
		n, err := server.Read(buf)
		if n > 0 {
			wait := time.Duration(p.delay.Load())
			if r := p.rate.Load(); r > 0 {
				wait += time.Duration(int64(n) * int64(time.Second) / r)
			}
			if wait > 0 {
				select {
				case <-time.After(wait):
				case <-p.done:
					return
				}
			}
			if _, werr := client.Write(buf[:n]); werr != nil {
				return
			}
			p.down.Add(int64(n))
		}
		if err != nil {
			return
		}
	}
}
