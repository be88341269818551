package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/storage/s3test"
)

// TestS3CancelledRead cancels reads blocked on a server that stops
// answering, before the headers and in the middle of a body: the error is
// the caller's cancellation, not an outage, and it comes at once.
func TestS3CancelledRead(t *testing.T) {
	const size = 200 << 10
	data := randomBytes(size, 9)
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var from, to int64
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &from, &to); err != nil {
			// The suffix range of Open: answered at once.
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", size-tailSize, size-1, size))
			w.Header().Set("ETag", `"e"`)
			w.WriteHeader(http.StatusPartialContent)
			w.Write(data[size-tailSize:])
			return
		}
		if strings.HasSuffix(r.URL.Path, "/midbody") {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, to, size))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(data[from : from+10])
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", "k")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "s")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	b, err := newS3(context.Background(), Options{S3Endpoint: srv.URL, S3Region: "us-east-1", S3PathStyle: true, MemoryCacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"noheaders", "midbody"} {
		ctx, cancel := context.WithCancel(context.Background())
		f, err := b.Open(ctx, "s3://bkt/"+key)
		if err != nil {
			t.Fatalf("%s: open: %v", key, err)
		}
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		_, err = f.ReadAt(make([]byte, 1000), 1000)
		took := time.Since(start)
		cancel()
		t.Logf("%s: read cancelled after %v: %v", key, took.Round(time.Millisecond), err)
		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnavailable) {
			t.Errorf("%s: read cancelled by its caller: %v, want context.Canceled and not ErrUnavailable", key, err)
		}
		if !strings.Contains(err.Error(), "s3://bkt/"+key) {
			t.Errorf("%s: %q does not name the object", key, err)
		}
		// Not a timing assertion: an uncancelled read would wait for release.
		if took > 20*time.Second {
			t.Errorf("%s: the cancelled read returned after %v", key, took)
		}
	}
}

// TestS3ErrTimeoutIsNotCancel: a transport timeout matches
// context.DeadlineExceeded (as net and net/http timeouts do), but when the
// caller's context is live it is an unavailable server, and must not pass
// for a cancellation upstream.
func TestS3ErrTimeoutIsNotCancel(t *testing.T) {
	p := s3Path{bucket: "bkt", key: "k.parquet"}
	timeout := fmt.Errorf("request send failed: Get \"http://s3/bkt/k.parquet\": %w", context.DeadlineExceeded)
	err := s3Err(context.Background(), "read", p, timeout)
	if !errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Fatalf("transport timeout with a live context: %v (unavailable %v, deadline %v)",
			err, errors.Is(err, ErrUnavailable), errors.Is(err, context.DeadlineExceeded))
	}
	if !strings.Contains(err.Error(), "s3://bkt/k.parquet") || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("message %q", err)
	}
	// The same error when the caller's deadline passed is the caller's.
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	if err := s3Err(ctx, "read", p, timeout); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrUnavailable) {
		t.Fatalf("with the caller's deadline passed: %v", err)
	}
	// Whatever the SDK made of a cancellation, the caller's is reported.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if err := s3Err(ctx, "open", p, errors.New("read tcp: use of closed network connection")); !errors.Is(err, context.Canceled) {
		t.Fatalf("with the caller's context cancelled: %v", err)
	}
}

// TestS3OpenSized: with the size the catalog recorded, a file whose tail is
// cached opens without a request; a different size (another object at the
// path) falls back to asking the server.
func TestS3OpenSized(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	b := newTestS3(t, srv, Options{})
	ctx := context.Background()
	data := randomBytes(300<<10, 11)
	path := "s3://" + bucket + "/sized.parquet"
	put(t, b, path, data)
	// A Router of its own: its caches start empty.
	r := NewRouter(Options{S3Endpoint: srv.Endpoint, S3Region: s3test.Region, S3PathStyle: true})

	open := func(size int64) (File, Stats) {
		t.Helper()
		before := ReadStats()
		f, err := OpenSized(ctx, r, path, size)
		if err != nil {
			t.Fatalf("OpenSized(%d): %v", size, err)
		}
		return f, ReadStats().Sub(before)
	}
	f, first := open(int64(len(data)))
	f.Close()
	if first.GetRequests != 1 {
		t.Fatalf("first open: %d GETs, want 1 (the tail)", first.GetRequests)
	}
	f, second := open(int64(len(data)))
	if second.Requests() != 0 || f.Size() != int64(len(data)) {
		t.Fatalf("open of a cached tail with the catalog's size: %d requests, size %d; want 0 and %d", second.Requests(), f.Size(), len(data))
	}
	p := make([]byte, 5000)
	for _, off := range []int64{0, int64(len(data)) - 5000, 123456} {
		if _, err := f.ReadAt(p, off); err != nil || !bytes.Equal(p, data[off:off+5000]) {
			t.Fatalf("read at %d after a sized open: %v", off, err)
		}
	}
	f.Close()
	_, other := open(int64(len(data)) + 1)
	if other.GetRequests != 1 {
		t.Fatalf("open with a size unlike the cached tail's: %d GETs, want 1", other.GetRequests)
	}
	// Local files and unknown sizes take the plain Open.
	local := t.TempDir() + "/f"
	put(t, r, local, data[:100])
	if f, err := OpenSized(ctx, r, local, 100); err != nil || f.Size() != 100 {
		t.Fatalf("local OpenSized: %v", err)
	}
	if _, err := OpenSized(ctx, r, "s3://"+bucket+"/missing.parquet", 0); !errors.Is(err, errNoSuchKey) {
		t.Fatalf("OpenSized of a missing object with no size: %v", err)
	}
}
