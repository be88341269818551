package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lakepg/lakepg/storage/s3test"
)

// These tests run against a real versitygw (see package s3test). They do
// not run in parallel: they measure the process-wide request counters.

func newTestS3(t *testing.T, srv *s3test.Server, opts Options) *s3Backend {
	t.Helper()
	srv.SetEnv(t)
	opts.S3Endpoint, opts.S3Region, opts.S3PathStyle = srv.Endpoint, s3test.Region, true
	b, err := newS3(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func randomBytes(n int, seed int64) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(b)
	return b
}

// put writes data through the backend in uneven chunks.
func put(t *testing.T, b Backend, path string, data []byte) {
	t.Helper()
	w, err := b.Create(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	for rest, k := data, 1; len(rest) > 0; k = k*3 + 1 {
		n := min(len(rest), k%(3<<20)+1)
		if _, err := w.Write(rest[:n]); err != nil {
			t.Fatalf("write: %v", err)
		}
		rest = rest[n:]
	}
	if err := w.Commit(); err != nil {
		t.Fatalf("commit %s: %v", path, err)
	}
}

func TestS3RangedReads(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	b := newTestS3(t, srv, Options{MemoryCacheSize: -1})
	ctx := context.Background()
	data := randomBytes(300<<10, 1) // larger than the speculative tail
	path := "s3://" + bucket + "/dir/obj.bin"
	put(t, b, path, data)

	before := ReadStats()
	f, err := b.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := ReadStats().Sub(before); got.GetRequests != 1 || got.HeadRequests != 0 {
		t.Fatalf("Open cost %+v, want exactly one GET", got)
	}
	if f.Size() != int64(len(data)) {
		t.Fatalf("size %d, want %d", f.Size(), len(data))
	}
	// Reads inside the tail (a Parquet trailer and footer) cost nothing.
	before = ReadStats()
	buf := make([]byte, 8)
	if n, err := f.ReadAt(buf, int64(len(data)-8)); n != 8 || err != nil || !bytes.Equal(buf, data[len(data)-8:]) {
		t.Fatalf("trailer read: %d %v", n, err)
	}
	buf = make([]byte, 40<<10)
	if _, err := f.ReadAt(buf, int64(len(data)-8-len(buf))); err != nil || !bytes.Equal(buf, data[len(data)-8-len(buf):len(data)-8]) {
		t.Fatalf("footer read: %v", err)
	}
	if got := ReadStats().Sub(before); got.GetRequests != 0 {
		t.Fatalf("reads in the tail cost %d GETs", got.GetRequests)
	}
	// A read reaching into the tail fetches only the part before it.
	before = ReadStats()
	buf = make([]byte, 100<<10)
	off := int64(len(data) - 8 - len(buf))
	if _, err := f.ReadAt(buf, off); err != nil || !bytes.Equal(buf, data[off:off+int64(len(buf))]) {
		t.Fatalf("long footer read: %v", err)
	}
	if got := ReadStats().Sub(before); got.GetRequests != 1 || got.BytesFetched != int64(len(buf))-(tailSize-8) {
		t.Fatalf("long footer read cost %d GETs, %d bytes; want 1 GET of %d bytes", got.GetRequests, got.BytesFetched, int64(len(buf))-(tailSize-8))
	}
	// Ranged reads anywhere, concurrently.
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(g)))
			for k := 0; k < 10; k++ {
				off := r.Int63n(int64(len(data)))
				n := r.Intn(20<<10) + 1
				p := make([]byte, n)
				got, err := f.ReadAt(p, off)
				want := min(n, len(data)-int(off))
				if got != want || (err != nil && err != io.EOF) || (got < n) != (err == io.EOF) {
					t.Errorf("ReadAt(%d, %d) = %d, %v", n, off, got, err)
					return
				}
				if !bytes.Equal(p[:got], data[off:off+int64(got)]) {
					t.Errorf("ReadAt(%d, %d): wrong bytes", n, off)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	if n, err := f.ReadAt(make([]byte, 4), int64(len(data))); n != 0 || err != io.EOF {
		t.Fatalf("read at end: %d %v", n, err)
	}

	// A small object comes whole with Open.
	small := "s3://" + bucket + "/small"
	put(t, b, small, []byte("hello, lake"))
	f2, err := b.Open(ctx, small)
	if err != nil {
		t.Fatal(err)
	}
	before = ReadStats()
	p := make([]byte, 4)
	if n, err := f2.ReadAt(p, 7); n != 4 || err != nil || string(p) != "lake" {
		t.Fatalf("small read: %d %v %q", n, err, p)
	}
	if got := ReadStats().Sub(before); got.Requests() != 0 {
		t.Fatalf("read of a small object after Open cost %d requests", got.Requests())
	}
	// An empty object opens with size 0.
	empty := "s3://" + bucket + "/empty"
	put(t, b, empty, nil)
	f3, err := b.Open(ctx, empty)
	if err != nil {
		t.Fatalf("open empty object: %v", err)
	}
	if f3.Size() != 0 {
		t.Fatalf("empty object size %d", f3.Size())
	}
}

func TestS3MultipartWrite(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	b := newTestS3(t, srv, Options{})
	ctx := context.Background()
	data := randomBytes(17<<20+12345, 2) // three parts: 8 MiB, 8 MiB, the rest
	path := "s3://" + bucket + "/big/data.parquet"

	before := ReadStats()
	w, err := b.Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 1<<20+7)
		if _, err := w.Write(rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	// Parts are uploaded, but nothing is visible before Commit.
	if _, err := b.Stat(ctx, path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("stat before commit: %v, want ErrNotExist", err)
	}
	if objs, err := b.List(ctx, "s3://"+bucket+"/big/"); err != nil || len(objs) != 0 {
		t.Fatalf("list before commit: %v %v", objs, err)
	}
	if ups := srv.Uploads(t, bucket); len(ups) != 1 {
		t.Fatalf("%d multipart uploads in progress, want 1", len(ups))
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatalf("abort after commit: %v", err)
	}
	st := ReadStats().Sub(before)
	// create + 3 parts + complete
	if st.PutRequests != 5 || st.BytesUploaded != int64(len(data)) {
		t.Fatalf("multipart write: %d PUT-class requests, %d bytes; want 5 and %d", st.PutRequests, st.BytesUploaded, len(data))
	}
	if ups := srv.Uploads(t, bucket); len(ups) != 0 {
		t.Fatalf("%d multipart uploads left after commit", len(ups))
	}
	size, err := b.Stat(ctx, path)
	if err != nil || size != int64(len(data)) {
		t.Fatalf("stat = %d, %v", size, err)
	}
	f, err := b.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(data))
	for off := 0; off < len(data); off += 5 << 20 {
		end := min(off+5<<20, len(data))
		if _, err := f.ReadAt(got[off:end], int64(off)); err != nil && err != io.EOF {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, data) {
		t.Fatal("read back differs")
	}
}

func TestS3AbortLeavesNothing(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	b := newTestS3(t, srv, Options{})
	ctx := context.Background()
	for _, size := range []int{1000, 9 << 20} { // a single PUT and a multipart upload
		path := fmt.Sprintf("s3://%s/aborted-%d", bucket, size)
		w, err := b.Create(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(randomBytes(size, 3)); err != nil {
			t.Fatal(err)
		}
		if err := w.Abort(); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err == nil {
			t.Fatal("commit after abort succeeded")
		}
		if _, err := w.Write([]byte("x")); err == nil {
			t.Fatal("write after abort succeeded")
		}
		if _, err := b.Stat(ctx, path); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("stat after abort of %d bytes: %v", size, err)
		}
	}
	if objs, err := b.List(ctx, "s3://"+bucket+"/"); err != nil || len(objs) != 0 {
		t.Fatalf("objects after abort: %v %v", objs, err)
	}
	if ups := srv.Uploads(t, bucket); len(ups) != 0 {
		t.Fatalf("%d multipart uploads left after abort", len(ups))
	}
}

func TestS3ListStatDelete(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	b := newTestS3(t, srv, Options{})
	ctx := context.Background()
	root := "s3://" + bucket + "/"
	files := map[string]string{
		"main/t/a.parquet":           "aa",
		"main/t/year=2024/b.parquet": "bbb",
		"main/t/c.parquet":           "cccc",
		"main/tx/c.parquet":          "c",
		"main/u/d.parquet":           "dddd",
		"other/e.parquet":            "e",
	}
	for k, v := range files {
		put(t, b, root+k, []byte(v))
	}
	defer func(n int32) { listPageSize = n }(listPageSize)
	listPageSize = 2
	before := ReadStats()
	got, err := b.List(ctx, root+"main/t/")
	if err != nil {
		t.Fatal(err)
	}
	if n := ReadStats().Sub(before).ListRequests; n != 2 {
		t.Fatalf("listing 3 objects 2 a page took %d requests, want 2", n)
	}
	var names []string
	for _, o := range got {
		names = append(names, strings.TrimPrefix(o.Path, root))
		if o.ModTime.IsZero() || time.Since(o.ModTime) > time.Hour {
			t.Errorf("mod time %v", o.ModTime)
		}
	}
	if want := "main/t/a.parquet,main/t/c.parquet,main/t/year=2024/b.parquet"; strings.Join(names, ",") != want {
		t.Fatalf("list = %v, want %s", names, want)
	}
	if got[2].Size != 3 {
		t.Fatalf("size %d", got[2].Size)
	}
	// A prefix that is not a folder boundary matches by string prefix.
	if got, _ := b.List(ctx, root+"main/t"); len(got) != 4 {
		t.Fatalf("prefix list: %v", got)
	}
	if got, err := b.List(ctx, root+"nothing/"); err != nil || len(got) != 0 {
		t.Fatalf("missing prefix: %v %v", got, err)
	}
	if size, err := b.Stat(ctx, root+"main/u/d.parquet"); err != nil || size != 4 {
		t.Fatalf("stat = %d, %v", size, err)
	}
	if err := b.Delete(ctx, root+"main/u/d.parquet"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Stat(ctx, root+"main/u/d.parquet"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("stat after delete: %v", err)
	}
	// Deleting a missing key is not an error, so clean-up can be retried.
	if err := b.Delete(ctx, root+"main/u/d.parquet"); err != nil {
		t.Fatalf("delete of a missing key: %v", err)
	}
	// Commit replaces an existing object.
	put(t, b, root+"other/e.parquet", []byte("second"))
	if size, _ := b.Stat(ctx, root+"other/e.parquet"); size != 6 {
		t.Fatalf("size after replace %d", size)
	}
}

func TestS3MissingKeyAndBucket(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	b := newTestS3(t, srv, Options{})
	ctx := context.Background()
	missing := "s3://" + bucket + "/no/such.parquet"
	if _, err := b.Open(ctx, missing); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), bucket) || !strings.Contains(err.Error(), "no/such.parquet") {
		t.Fatalf("open missing key: %v", err)
	}
	if _, err := b.Stat(ctx, missing); !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNoSuchBucket) || !strings.Contains(err.Error(), "no/such.parquet") {
		t.Fatalf("stat missing key: %v", err)
	}

	wrong := "lakepg-no-such-bucket-" + fmt.Sprint(time.Now().UnixNano())
	p := "s3://" + wrong + "/x.parquet"
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrNoSuchBucket) || !strings.Contains(err.Error(), fmt.Sprintf("bucket %q does not exist", wrong)) {
			t.Errorf("%s in a missing bucket: %v", what, err)
		}
	}
	_, err := b.Open(ctx, p)
	check("open", err)
	t.Logf("open in a missing bucket: %v", err)
	_, err = b.Stat(ctx, p)
	check("stat", err)
	_, err = b.List(ctx, "s3://"+wrong+"/")
	check("list", err)
	w, err := b.Create(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("x"))
	check("commit", w.Commit())
}

func TestS3AccessDenied(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	b := newTestS3(t, srv, Options{})
	put(t, b, "s3://"+bucket+"/k", []byte("v"))
	t.Setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
	bad, err := newS3(context.Background(), Options{S3Endpoint: srv.Endpoint, S3PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.Open(context.Background(), "s3://"+bucket+"/k")
	t.Logf("open with a wrong secret: %v", err)
	if !errors.Is(err, ErrAccessDenied) || !strings.Contains(err.Error(), bucket) || !strings.Contains(err.Error(), `key "k"`) {
		t.Fatalf("open with a wrong secret: %v", err)
	}
}

func TestS3Unavailable(t *testing.T) {
	srv := s3test.Shared(t)
	srv.SetEnv(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	b, err := newS3(context.Background(), Options{S3Endpoint: dead, S3PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	before := ReadStats()
	start := time.Now()
	_, err = b.Open(context.Background(), "s3://bucket/key.parquet")
	t.Logf("open on a dead endpoint: %v", err)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "s3://bucket/key.parquet") {
		t.Fatalf("open on a dead endpoint: %v", err)
	}
	st := ReadStats().Sub(before)
	if st.GetRequests != s3MaxAttempts || st.Retries != s3MaxAttempts-1 {
		t.Fatalf("dead endpoint: %d GET attempts, %d retries; want %d and %d", st.GetRequests, st.Retries, s3MaxAttempts, s3MaxAttempts-1)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("giving up took %v", d)
	}
	// Cancellation is reported as such, not as an outage.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Open(ctx, "s3://bucket/key.parquet"); !errors.Is(err, context.Canceled) {
		t.Fatalf("open with a cancelled context: %v", err)
	}
}

func TestS3PrefetchCoalesces(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	b := newTestS3(t, srv, Options{MemoryCacheSize: -1})
	ctx := context.Background()
	data := randomBytes(3<<20, 4)
	path := "s3://" + bucket + "/chunks"
	put(t, b, path, data)
	f, err := b.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	pf := f.(interface{ PrefetchRanges([][2]int64) error })
	// Three column chunks, one with a small gap, and one far away.
	ranges := [][2]int64{{1000, 5000}, {6000, 20000}, {26500, 3000}, {2500000, 1000}}
	before := ReadStats()
	if err := pf.PrefetchRanges(ranges); err != nil {
		t.Fatal(err)
	}
	if got := ReadStats().Sub(before).GetRequests; got != 1 {
		t.Fatalf("prefetch of 3 adjacent ranges + 1 alone took %d GETs, want 1", got)
	}
	before = ReadStats()
	for _, r := range ranges {
		p := make([]byte, r[1])
		if _, err := f.ReadAt(p, r[0]); err != nil || !bytes.Equal(p, data[r[0]:r[0]+r[1]]) {
			t.Fatalf("read %v: %v", r, err)
		}
	}
	if got := ReadStats().Sub(before).GetRequests; got != 1 {
		t.Fatalf("reads after prefetch took %d GETs, want 1 (the range that was alone)", got)
	}
	if ff := f.(*s3File); len(ff.pending) != 0 || ff.pendN != 0 {
		t.Fatalf("prefetched pieces left after reading them: %d (%d bytes)", len(ff.pending), ff.pendN)
	}
}

func TestS3Caches(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	dir := t.TempDir()
	b := newTestS3(t, srv, Options{CacheDir: dir})
	ctx := context.Background()
	data := randomBytes(512<<10, 5)
	path := "s3://" + bucket + "/cached"
	put(t, b, path, data)
	read := func(b *s3Backend) Stats {
		t.Helper()
		before := ReadStats()
		f, err := b.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		p := make([]byte, 100<<10)
		if _, err := f.ReadAt(p, 1000); err != nil || !bytes.Equal(p, data[1000:1000+len(p)]) {
			t.Fatalf("read: %v", err)
		}
		return ReadStats().Sub(before)
	}
	first := read(b)
	if first.GetRequests != 2 || first.Misses != 1 {
		t.Fatalf("first read: %+v, want 2 GETs (tail, range) and 1 miss", first)
	}
	// Second time: the footer is revalidated (304, no body) and the range
	// comes from memory.
	second := read(b)
	if second.GetRequests != 1 || second.BytesFetched != 0 || second.MemoryHits != 2 {
		t.Fatalf("second read: %+v, want 1 GET with no body and 2 memory hits", second)
	}
	// A new process (fresh memory) with the same cache directory reads the
	// range from disk.
	b2 := newTestS3(t, srv, Options{CacheDir: dir})
	third := read(b2)
	if third.GetRequests != 1 || third.DiskHits != 1 || third.Misses != 0 {
		t.Fatalf("read with a warm disk cache: %+v, want 1 GET (tail) and 1 disk hit", third)
	}
	// A replaced object is never served from the caches.
	data = randomBytes(512<<10, 6)
	put(t, b, path, data)
	if st := read(b2); st.Misses != 1 {
		t.Fatalf("read after replace: %+v, want a miss", st)
	}
}

func TestS3DiskCacheLimit(t *testing.T) {
	dir := t.TempDir()
	c, err := openDiskCache(dir, 100<<10)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		c.put("obj", int64(i)*10000, randomBytes(10000, int64(i)))
	}
	if c.used > 100<<10 {
		t.Fatalf("disk cache holds %d bytes over its limit", c.used)
	}
	p := make([]byte, 100)
	if c.get("obj", 0, p) {
		t.Fatal("oldest entry survived eviction")
	}
	if !c.get("obj", 19*10000+50, p) || !bytes.Equal(p, randomBytes(10000, 19)[50:150]) {
		t.Fatal("newest entry missing or wrong")
	}
	// Reopening rebuilds the index from the files.
	c2, err := openDiskCache(dir, 100<<10)
	if err != nil {
		t.Fatal(err)
	}
	if c2.used != c.used || !c2.get("obj", 19*10000, p) {
		t.Fatalf("reopened cache holds %d bytes, want %d", c2.used, c.used)
	}
}
