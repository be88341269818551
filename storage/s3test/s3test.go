// Package s3test gives tests a real S3-compatible server: versitygw
// (github.com/versity/versitygw, v1.8.0) serving a local directory through
// its posix backend. scripts/test.sh starts one for the whole run and
// exports its endpoint and credentials; a test that must stop and restart
// the server (outage tests) starts a private one from the same binary.
// It is test support only: nothing but tests imports it.
package s3test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// The variables scripts/test.sh exports.
const (
	EndpointEnv  = "LAKEPG_TEST_S3_ENDPOINT"   // http://127.0.0.1:PORT of the shared server
	AccessKeyEnv = "LAKEPG_TEST_S3_ACCESS_KEY" // its root access key
	SecretKeyEnv = "LAKEPG_TEST_S3_SECRET_KEY" // and secret
	BinaryEnv    = "LAKEPG_TEST_VERSITYGW"     // the versitygw binary, for private servers
	// RequireEnv=1 makes a missing server an error of the set-up, reported
	// as such.
	RequireEnv = "LAKEPG_TEST_REQUIRE_S3"
)

// Region is the region every test server and client uses.
const Region = "us-east-1"

// Server is a running S3-compatible server.
type Server struct {
	Endpoint  string // http://127.0.0.1:PORT
	AccessKey string
	SecretKey string

	// Set for a private server only.
	bin, dir string
	port     int
	cmd      *exec.Cmd
	exited   chan struct{}
	logs     *os.File
}

const howTo = "run `make test` (scripts/test.sh installs versitygw with `go install github.com/versity/versitygw/cmd/versitygw@v1.8.0` and starts it), " +
	"or install it and set " + BinaryEnv + " to its path"

// Shared returns the server scripts/test.sh started, or, without one, a
// private server for this test. It fails the test when there is neither.
func Shared(t testing.TB) *Server {
	t.Helper()
	if ep := os.Getenv(EndpointEnv); ep != "" {
		s := &Server{Endpoint: ep, AccessKey: os.Getenv(AccessKeyEnv), SecretKey: os.Getenv(SecretKeyEnv)}
		if s.AccessKey == "" || s.SecretKey == "" {
			t.Fatalf("%s is set but %s or %s is not", EndpointEnv, AccessKeyEnv, SecretKeyEnv)
		}
		return s
	}
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s=1 but %s is not set: scripts/test.sh failed to start versitygw", RequireEnv, EndpointEnv)
	}
	return Start(t)
}

// Binary finds versitygw: $LAKEPG_TEST_VERSITYGW, then PATH, then the Go
// bin directory `go install` puts it in.
func Binary() (string, error) {
	if b := os.Getenv(BinaryEnv); b != "" {
		if _, err := os.Stat(b); err != nil {
			return "", fmt.Errorf("%s: %w", BinaryEnv, err)
		}
		return b, nil
	}
	if b, err := exec.LookPath("versitygw"); err == nil {
		return b, nil
	}
	var dirs []string
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, p := range filepath.SplitList(strings.TrimSpace(string(out))) {
			dirs = append(dirs, filepath.Join(p, "bin"))
		}
	}
	for _, d := range dirs {
		b := filepath.Join(d, "versitygw")
		if _, err := os.Stat(b); err == nil {
			return b, nil
		}
	}
	return "", errors.New("versitygw not found")
}

// Start starts a private versitygw on a free loopback port, serving a
// temporary directory, stopped at the end of the test.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatalf("this test needs a real S3 server: %v: %s", err, howTo)
	}
	s := &Server{bin: bin, dir: t.TempDir(), AccessKey: "lakepgtest", SecretKey: "lakepgtestsecret"}
	if err := os.MkdirAll(filepath.Join(s.dir, "root"), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	s.Endpoint = fmt.Sprintf("http://127.0.0.1:%d", s.port)
	s.start(t)
	t.Cleanup(func() {
		s.kill()
		if t.Failed() {
			if b, err := os.ReadFile(filepath.Join(s.dir, "versitygw.log")); err == nil && len(b) > 0 {
				t.Logf("versitygw output:\n%s", tail(b, 8<<10))
			}
		}
	})
	return s
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func (s *Server) start(t testing.TB) {
	t.Helper()
	logs, err := os.OpenFile(filepath.Join(s.dir, "versitygw.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(s.bin, "--access", s.AccessKey, "--secret", s.SecretKey, "--region", Region,
		"--port", fmt.Sprintf("127.0.0.1:%d", s.port), "--quiet", "posix", filepath.Join(s.dir, "root"))
	cmd.Stdout, cmd.Stderr = logs, logs
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		logs.Close()
		t.Fatalf("starting versitygw: %v", err)
	}
	s.cmd, s.logs, s.exited = cmd, logs, make(chan struct{})
	go func(ch chan struct{}) { cmd.Wait(); close(ch) }(s.exited)
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := s.Client().ListBuckets(ctx, &s3.ListBucketsInput{})
		cancel()
		if err == nil {
			return
		}
		select {
		case <-s.exited:
			b, _ := os.ReadFile(filepath.Join(s.dir, "versitygw.log"))
			t.Fatalf("versitygw exited during start-up: %s", tail(b, 4<<10))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not answer on %s within 30s: %v", s.Endpoint, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop kills a private server (the data directory stays); Restart starts
// it again on the same port and directory.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if s.cmd == nil {
		t.Fatalf("Stop: the shared S3 server belongs to scripts/test.sh; use Start for a private one")
	}
	s.kill()
}

func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop(t)
	s.start(t)
}

func (s *Server) kill() {
	if s.cmd == nil {
		return
	}
	select {
	case <-s.exited:
	default:
		s.cmd.Process.Kill()
		<-s.exited
	}
	s.logs.Close()
}

// Env is the environment that points lakepg (or any AWS SDK) at the server.
func (s *Server) Env() []string {
	return []string{
		"AWS_ACCESS_KEY_ID=" + s.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s.SecretKey,
		"AWS_REGION=" + Region, "AWS_EC2_METADATA_DISABLED=true",
		"LAKEPG_S3_ENDPOINT=" + s.Endpoint, "LAKEPG_S3_PATH_STYLE=true", "LAKEPG_S3_REGION=" + Region,
	}
}

// SetEnv sets Env in the test process for the rest of the test.
func (s *Server) SetEnv(t testing.TB) {
	t.Helper()
	for _, kv := range s.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	// A developer's profile must not override the test credentials.
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_SESSION_TOKEN", "")
}

// Client is a plain SDK client for the server, for set-up and checks that
// must not go through the code under test.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       Region,
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
	})
}

var bucketSeq atomic.Int64

// Bucket creates a fresh bucket named after the test and removes it, with
// its objects, at the end of the test.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	var b strings.Builder
	for _, r := range strings.ToLower(t.Name()) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
		if b.Len() >= 30 {
			break
		}
	}
	name := fmt.Sprintf("t-%s-%d-%d", b.String(), os.Getpid(), bucketSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &name}); err != nil {
		t.Fatalf("creating bucket %s on %s: %v", name, s.Endpoint, err)
	}
	t.Cleanup(func() { s.removeBucket(name) })
	return name
}

// removeBucket is best effort: a private server's directory goes with the
// test anyway, and the shared one's with the test run.
func (s *Server) removeBucket(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := s.Client()
	pages := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: &name})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return
		}
		for _, o := range page.Contents {
			c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &name, Key: o.Key})
		}
	}
	ups, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &name})
	if err == nil {
		for _, u := range ups.Uploads {
			c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &name, Key: u.Key, UploadId: u.UploadId})
		}
	}
	c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &name})
}

// Uploads lists the multipart uploads in progress in a bucket.
func (s *Server) Uploads(t testing.TB, bucket string) []types.MultipartUpload {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := s.Client().ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &bucket})
	if err != nil {
		t.Fatalf("listing multipart uploads of %s: %v", bucket, err)
	}
	return out.Uploads
}
