package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// tailSize is how much of an object's end Open reads speculatively. A
// Parquet footer (metadata + 8-byte trailer) almost always fits, so opening
// a file and parsing its footer costs one request, and small files (delete
// files, a few rows) are read whole by it; a larger footer costs one more.
const tailSize = 64 << 10

// bodyAttempts bounds our own retries of a GET whose body broke off
// mid-transfer; the SDK retries only failures before the body.
const bodyAttempts = 3

// s3File is an object opened for ranged reads. Size and ETag come from the
// speculative tail read, so Open costs one request and the footer reads
// that follow are served from memory.
type s3File struct {
	b    *s3Backend
	ctx  context.Context
	p    s3Path
	size int64
	etag string
	obj  string // cache identity: path, ETag and size

	tail    []byte // [tailOff, size)
	tailOff int64

	mu      sync.Mutex
	pending []piece // ranges fetched by PrefetchRanges, not yet read
	pendN   int64
}

// piece is a prefetched range; data aliases the buffer of one coalesced GET.
type piece struct {
	off  int64
	data []byte
}

func (b *s3Backend) Open(ctx context.Context, path string) (File, error) {
	p, err := parseS3(path)
	if err != nil {
		return nil, err
	}
	if p.key == "" || strings.HasSuffix(p.key, "/") {
		return nil, fmt.Errorf("storage: open %s: not an object", p)
	}
	f := &s3File{b: b, ctx: ctx, p: p}
	cached, haveCached := b.footers.get(path)
	in := &s3.GetObjectInput{Bucket: &p.bucket, Key: &p.key, Range: aws.String("bytes=-" + strconv.Itoa(tailSize))}
	if haveCached {
		in.IfNoneMatch = aws.String(cached.etag)
	}
	var data []byte
	var out *s3.GetObjectOutput
	for attempt := 1; ; attempt++ {
		out, err = b.client.GetObject(ctx, in)
		if err == nil {
			data, err = readBody(out.Body, tailSize)
			if err == nil {
				break
			}
		}
		switch {
		case haveCached && statusOf(err) == http.StatusNotModified:
			f.size, f.etag, f.tail = cached.size, cached.etag, cached.data
			f.tailOff = f.size - int64(len(f.tail))
			f.obj = objID(path, f.etag, f.size)
			stats.memHits.Add(1)
			return f, nil
		case statusOf(err) == http.StatusRequestedRangeNotSatisfiable:
			// Only an empty object has no suffix to return.
			return b.openEmpty(ctx, f, path)
		case out != nil && attempt < bodyAttempts && ctx.Err() == nil:
			continue // the body broke off: ask again
		}
		return nil, b.notFound(ctx, "open", p, s3Err(ctx, "open", p, err))
	}
	total, ok := contentRangeTotal(aws.ToString(out.ContentRange))
	if !ok {
		// A server that ignores the range sends the whole object.
		total = int64(len(data))
	}
	if int64(len(data)) > total {
		return nil, fmt.Errorf("storage: open %s: server sent %d bytes of a %d-byte object", p, len(data), total)
	}
	f.size, f.etag, f.tail = total, aws.ToString(out.ETag), data
	f.tailOff = total - int64(len(data))
	f.obj = objID(path, f.etag, f.size)
	b.footers.put(&footer{path: path, etag: f.etag, size: f.size, data: data})
	return f, nil
}

// OpenSized opens an object whose size the caller knows from the catalog
// (DuckLake's file_size_bytes). A tail cached for the same path and size is
// used without asking the server: a lake's files are written once under a
// fresh uuid and never replaced, so the conditional request Open would send
// to revalidate it can only answer "unchanged". Should an object be
// replaced all the same, one of another size is not taken for the cached
// one, and one of the same size fails the If-Match of the first range read
// the caches cannot serve. Without such a tail it is Open: the speculative
// tail read learns size and ETag in the request that fetches the footer
// anyway.
func (b *s3Backend) OpenSized(ctx context.Context, path string, size int64) (File, error) {
	if cached, ok := b.footers.get(path); ok && cached.size == size {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, err := parseS3(path)
		if err != nil {
			return nil, err
		}
		f := &s3File{b: b, ctx: ctx, p: p, size: cached.size, etag: cached.etag, tail: cached.data}
		f.tailOff = f.size - int64(len(f.tail))
		f.obj = objID(path, f.etag, f.size)
		stats.memHits.Add(1)
		return f, nil
	}
	return b.Open(ctx, path)
}

func (b *s3Backend) openEmpty(ctx context.Context, f *s3File, path string) (File, error) {
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &f.p.bucket, Key: &f.p.key})
	if err != nil {
		return nil, b.notFound(ctx, "open", f.p, s3Err(ctx, "open", f.p, err))
	}
	f.size, f.etag = aws.ToInt64(out.ContentLength), aws.ToString(out.ETag)
	if f.size != 0 {
		return nil, fmt.Errorf("storage: open %s: server refused a suffix range of a %d-byte object", f.p, f.size)
	}
	f.obj = objID(path, f.etag, 0)
	return f, nil
}

func objID(path, etag string, size int64) string {
	return path + "\x00" + etag + "\x00" + strconv.FormatInt(size, 10)
}

// contentRangeTotal reads the total of "bytes 100-199/4096".
func contentRangeTotal(cr string) (int64, bool) {
	i := strings.LastIndexByte(cr, '/')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(cr[i+1:], 10, 64)
	return n, err == nil && n >= 0
}

func statusOf(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// readBody reads a whole response body of at most limit bytes.
func readBody(body io.ReadCloser, limit int) ([]byte, error) {
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, int64(limit)+1))
	stats.fetched.Add(int64(len(data)))
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		return nil, fmt.Errorf("response body longer than the %d bytes asked for", limit)
	}
	return data, nil
}

func (f *s3File) Size() int64 { return f.size }

func (f *s3File) Close() error {
	f.mu.Lock()
	f.pending, f.pendN = nil, 0
	f.mu.Unlock()
	return nil
}

// ReadAt serves a read from, in order: the tail read at open, a prefetched
// range, the memory cache, the disk cache, and else one ranged GET. Safe
// for concurrent use.
func (f *s3File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("storage: read %s: negative offset %d", f.p, off)
	}
	if off >= f.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := len(p)
	var eof error
	if off+int64(n) > f.size {
		n, eof = int(f.size-off), io.EOF
	}
	if err := f.read(p[:n], off); err != nil {
		return 0, err
	}
	return n, eof
}

func (f *s3File) read(p []byte, off int64) error {
	end := off + int64(len(p))
	if len(p) == 0 {
		return nil
	}
	if off >= f.tailOff && f.tail != nil {
		copy(p, f.tail[off-f.tailOff:])
		stats.memHits.Add(1)
		return nil
	}
	if end > f.tailOff && f.tail != nil {
		// The head of a footer longer than the speculative tail: fetch only
		// what the tail lacks.
		split := f.tailOff - off
		copy(p[split:], f.tail)
		p, end = p[:split], f.tailOff
	}
	if f.takePending(p, off) {
		stats.memHits.Add(1)
		return nil
	}
	if data, ok := f.b.mem.get(f.obj, off, len(p)); ok {
		copy(p, data)
		stats.memHits.Add(1)
		return nil
	}
	if f.b.disk.get(f.obj, off, p) {
		stats.diskHits.Add(1)
		f.b.mem.put(f.obj, off, append([]byte(nil), p...))
		return nil
	}
	stats.misses.Add(1)
	data, err := f.fetch(off, end)
	if err != nil {
		return err
	}
	copy(p, data)
	f.b.mem.put(f.obj, off, data)
	f.b.disk.put(f.obj, off, data)
	return nil
}

// fetch GETs [off, end) into a new buffer. The If-Match on the ETag makes a
// replaced object fail loudly instead of mixing versions in one read.
func (f *s3File) fetch(off, end int64) ([]byte, error) {
	in := &s3.GetObjectInput{
		Bucket: &f.p.bucket, Key: &f.p.key,
		Range: aws.String(fmt.Sprintf("bytes=%d-%d", off, end-1)),
	}
	if f.etag != "" {
		in.IfMatch = aws.String(f.etag)
	}
	for attempt := 1; ; attempt++ {
		out, err := f.b.client.GetObject(f.ctx, in)
		if err != nil {
			if statusOf(err) == http.StatusPreconditionFailed {
				return nil, fmt.Errorf("storage: read %s: the object changed while it was being read", f.p)
			}
			return nil, s3Err(f.ctx, "read", f.p, err)
		}
		data, err := readBody(out.Body, int(end-off))
		if err == nil && int64(len(data)) != end-off {
			err = fmt.Errorf("short response: %d of %d bytes", len(data), end-off)
		}
		if err == nil {
			return data, nil
		}
		if attempt >= bodyAttempts || f.ctx.Err() != nil {
			return nil, s3Err(f.ctx, "read", f.p, err)
		}
	}
}

// takePending copies a prefetched range holding [off, off+len(p)); a piece
// read exactly as announced is dropped, since the scanner reads each
// column chunk once.
func (f *s3File) takePending(p []byte, off int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, pc := range f.pending {
		if off >= pc.off && off+int64(len(p)) <= pc.off+int64(len(pc.data)) {
			copy(p, pc.data[off-pc.off:])
			if off == pc.off && len(p) == len(pc.data) {
				f.pendN -= int64(len(pc.data))
				f.pending = append(f.pending[:i], f.pending[i+1:]...)
			}
			return true
		}
	}
	return false
}

// notFound tells a missing bucket from a missing key when the server could
// not (a HEAD's 404 has no body to say which).
func (b *s3Backend) notFound(ctx context.Context, op string, p s3Path, err error) error {
	var se *s3Error
	if !errors.As(err, &se) || se.kind != errNoSuchKey {
		return err
	}
	if api, ok := errors.AsType[smithy.APIError](err); ok && api.ErrorCode() == "NoSuchKey" {
		return err // the server said which
	}
	if _, herr := b.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &p.bucket}); herr != nil && classify(herr) == errNoSuchKey {
		return &s3Error{op: op, path: p, kind: ErrNoSuchBucket, err: herr}
	}
	return err
}
