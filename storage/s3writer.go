package storage

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Writes stream: bytes collect in a part buffer; an object that ends within
// the first part is one PUT at Commit, a larger one becomes a multipart
// upload whose parts are sent while the next one fills (at most two part
// buffers exist). S3 shows a multipart object only when the upload
// completes, so nothing is visible before Commit either way, and Abort
// aborts the upload so its parts do not linger (and cost).
const (
	// partSize is the first parts' size. Parts must be at least 5 MiB
	// (except the last) and an upload has at most 10,000 of them, so the
	// size doubles every 1,000 parts to reach multi-terabyte objects.
	partSize    = 8 << 20
	maxPartSize = 512 << 20
	// abortTimeout bounds the clean-up of a failed upload, which runs even
	// when the statement's context has ended.
	abortTimeout = 30 * time.Second
)

func partSizeFor(partNumber int32) int {
	return min(partSize<<min((partNumber-1)/1000, 6), maxPartSize)
}

type s3Writer struct {
	b   *s3Backend
	ctx context.Context
	p   s3Path

	buf      []byte
	spare    []byte // the other part buffer, while not uploading
	uploadID string
	parts    []types.CompletedPart
	next     int32           // number of the part being filled
	inflight chan partResult // the part being uploaded, if any
	err      error           // first failure; the writer is dead after it
	done     bool
}

type partResult struct {
	part types.CompletedPart
	buf  []byte
	err  error
}

func (b *s3Backend) Create(ctx context.Context, path string) (Writer, error) {
	p, err := parseS3(path)
	if err != nil {
		return nil, err
	}
	if p.key == "" || strings.HasSuffix(p.key, "/") {
		return nil, fmt.Errorf("storage: create %s: not an object key", p)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &s3Writer{b: b, ctx: ctx, p: p, next: 1}, nil
}

func (w *s3Writer) Write(p []byte) (int, error) {
	if w.done {
		return 0, fmt.Errorf("storage: write %s: writer already committed or aborted", w.p)
	}
	if w.err != nil {
		return 0, w.err
	}
	written := 0
	for len(p) > 0 {
		size := partSizeFor(w.next)
		if w.buf == nil {
			w.buf = w.newBuf(size)
		}
		k := min(len(p), size-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p, written = p[k:], written+k
		if len(w.buf) == size {
			if err := w.sendPart(); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

func (w *s3Writer) newBuf(size int) []byte {
	if b := w.spare; b != nil && cap(b) >= size {
		w.spare = nil
		return b[:0]
	}
	return make([]byte, 0, size)
}

// sendPart starts uploading the full part buffer in the background, after
// the previous part has finished.
func (w *s3Writer) sendPart() error {
	if err := w.wait(); err != nil {
		return err
	}
	if w.uploadID == "" {
		out, err := w.b.client.CreateMultipartUpload(w.ctx, &s3.CreateMultipartUploadInput{Bucket: &w.p.bucket, Key: &w.p.key})
		if err != nil {
			w.err = s3Err(w.ctx, "write", w.p, err)
			return w.err
		}
		w.uploadID = aws.ToString(out.UploadId)
	}
	buf, num := w.buf, w.next
	w.buf, w.next = nil, w.next+1
	ch := make(chan partResult, 1)
	w.inflight = ch
	go func() {
		out, err := w.b.client.UploadPart(w.ctx, &s3.UploadPartInput{
			Bucket: &w.p.bucket, Key: &w.p.key, UploadId: &w.uploadID,
			PartNumber: aws.Int32(num), Body: bytes.NewReader(buf), ContentLength: aws.Int64(int64(len(buf))),
		})
		r := partResult{buf: buf}
		if err != nil {
			r.err = s3Err(w.ctx, "write", w.p, err)
		} else {
			stats.uploaded.Add(int64(len(buf)))
			r.part = types.CompletedPart{PartNumber: aws.Int32(num), ETag: out.ETag}
		}
		ch <- r
	}()
	return nil
}

// wait collects the part in flight, if any.
func (w *s3Writer) wait() error {
	if w.inflight == nil {
		return w.err
	}
	r := <-w.inflight
	w.inflight = nil
	w.spare = r.buf
	if r.err != nil && w.err == nil {
		w.err = r.err
	}
	if r.err == nil {
		w.parts = append(w.parts, r.part)
	}
	return w.err
}

func (w *s3Writer) Commit() error {
	if w.done {
		return fmt.Errorf("storage: commit %s: writer already committed or aborted", w.p)
	}
	if w.err != nil {
		w.abort()
		return fmt.Errorf("storage: commit %s: earlier write failed: %w", w.p, w.err)
	}
	if w.uploadID == "" {
		w.done = true
		body := w.buf
		_, err := w.b.client.PutObject(w.ctx, &s3.PutObjectInput{
			Bucket: &w.p.bucket, Key: &w.p.key, Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))),
		})
		w.buf, w.spare = nil, nil
		if err != nil {
			return s3Err(w.ctx, "write", w.p, err)
		}
		stats.uploaded.Add(int64(len(body)))
		return nil
	}
	if len(w.buf) > 0 {
		if err := w.sendPart(); err != nil {
			w.abort()
			return err
		}
	}
	if err := w.wait(); err != nil {
		w.abort()
		return err
	}
	w.done = true
	sort.Slice(w.parts, func(i, j int) bool { return *w.parts[i].PartNumber < *w.parts[j].PartNumber })
	_, err := w.b.client.CompleteMultipartUpload(w.ctx, &s3.CompleteMultipartUploadInput{
		Bucket: &w.p.bucket, Key: &w.p.key, UploadId: &w.uploadID,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: w.parts},
	})
	w.buf, w.spare = nil, nil
	if err != nil {
		w.done = false
		w.abort()
		return s3Err(w.ctx, "write", w.p, err)
	}
	return nil
}

func (w *s3Writer) Abort() error {
	if w.done {
		return nil
	}
	return w.abort()
}

func (w *s3Writer) abort() error {
	w.done = true
	w.wait()
	w.buf, w.spare = nil, nil
	if w.uploadID == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), abortTimeout)
	defer cancel()
	id := w.uploadID
	w.uploadID = ""
	_, err := w.b.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &w.p.bucket, Key: &w.p.key, UploadId: &id})
	if err != nil && classify(err) != errNoSuchKey {
		return s3Err(ctx, "abort upload of", w.p, err)
	}
	return nil
}
