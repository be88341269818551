package bench

import (
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
)

// s3Proxy sits between a client and the S3 server and counts what crosses: requests by
// kind and the body bytes of GET answers. It counts the same way for lakepg and DuckDB,
// which lakepg's own counters (storage.ReadStats, inside the server process) cannot.
// It forwards the Host header unchanged, so SigV4 signatures made for the proxy's
// address stay valid.
type s3Proxy struct {
	srv      *http.Server
	addr     string
	get      atomic.Int64 // GET of an object (ranged or whole)
	head     atomic.Int64
	list     atomic.Int64 // GET on a bucket: ListObjects
	put      atomic.Int64 // PUT and POST: objects, parts, multipart create/complete
	other    atomic.Int64
	fetched  atomic.Int64 // body bytes of object GETs
	uploaded atomic.Int64 // body bytes of PUTs
}

type s3Counts struct {
	Get, Head, List, Put, Other int64
	Fetched, Uploaded           int64
}

func (c s3Counts) requests() int64 { return c.Get + c.Head + c.List + c.Put + c.Other }

func startS3Proxy(target string) (*s3Proxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &s3Proxy{addr: l.Addr().String()}
	rp := &httputil.ReverseProxy{
		Director: func(r *http.Request) {
			r.URL.Scheme = u.Scheme
			r.URL.Host = u.Host
		},
		ModifyResponse: func(resp *http.Response) error {
			if resp.Request.Method == http.MethodGet && isObjectPath(resp.Request.URL.Path) {
				resp.Body = &countingBody{ReadCloser: resp.Body, n: &p.fetched}
			}
			return nil
		},
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && isObjectPath(r.URL.Path):
			p.get.Add(1)
		case r.Method == http.MethodGet:
			p.list.Add(1)
		case r.Method == http.MethodHead:
			p.head.Add(1)
		case r.Method == http.MethodPut || r.Method == http.MethodPost:
			p.put.Add(1)
			if r.ContentLength > 0 {
				p.uploaded.Add(r.ContentLength)
			}
		default:
			p.other.Add(1)
		}
		rp.ServeHTTP(w, r)
	})}
	go p.srv.Serve(l)
	return p, nil
}

// isObjectPath tells a path-style object key (/bucket/key) from a bucket (/bucket).
func isObjectPath(path string) bool {
	return strings.Contains(strings.Trim(path, "/"), "/")
}

func (p *s3Proxy) endpoint() string { return "http://" + p.addr }

func (p *s3Proxy) counts() s3Counts {
	return s3Counts{Get: p.get.Load(), Head: p.head.Load(), List: p.list.Load(), Put: p.put.Load(), Other: p.other.Load(),
		Fetched: p.fetched.Load(), Uploaded: p.uploaded.Load()}
}

func (c s3Counts) sub(o s3Counts) s3Counts {
	return s3Counts{Get: c.Get - o.Get, Head: c.Head - o.Head, List: c.List - o.List, Put: c.Put - o.Put, Other: c.Other - o.Other,
		Fetched: c.Fetched - o.Fetched, Uploaded: c.Uploaded - o.Uploaded}
}

func (p *s3Proxy) close() { p.srv.Close() }

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}
