package storage

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestS3Retries drives the client against a stand-in server that throttles
// and fails before it answers: the SDK retryer must ride out 503 SlowDown
// and 500, and must not retry a 404.
func TestS3Retries(t *testing.T) {
	var calls atomic.Int32
	body := "0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		switch {
		case strings.HasSuffix(r.URL.Path, "/missing"):
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`<Error><Code>NoSuchKey</Code><Message>gone</Message></Error>`))
		case n == 1:
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`))
		case n == 2:
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`<Error><Code>InternalError</Code><Message>oops</Message></Error>`))
		default:
			w.Header().Set("Content-Range", "bytes 0-9/10")
			w.Header().Set("ETag", `"abc"`)
			w.WriteHeader(http.StatusPartialContent)
			w.Write([]byte(body))
		}
	}))
	defer srv.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", "k")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "s")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	b, err := newS3(context.Background(), Options{S3Endpoint: srv.URL, S3Region: "us-east-1", S3PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	before := ReadStats()
	f, err := b.Open(context.Background(), "s3://bkt/obj")
	if err != nil {
		t.Fatalf("open through a throttling server: %v", err)
	}
	p := make([]byte, 4)
	if _, err := f.ReadAt(p, 3); err != nil || string(p) != "3456" {
		t.Fatalf("read %q %v", p, err)
	}
	if st := ReadStats().Sub(before); st.GetRequests != 3 || st.Retries != 2 {
		t.Fatalf("%d GETs, %d retries; want 3 and 2", st.GetRequests, st.Retries)
	}
	before = ReadStats()
	_, err = b.Open(context.Background(), "s3://bkt/missing")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("open of a missing key: %v", err)
	}
	if st := ReadStats().Sub(before); st.GetRequests != 1 || st.Retries != 0 {
		t.Fatalf("404 took %d GETs, %d retries; want 1 and 0", st.GetRequests, st.Retries)
	}
}
