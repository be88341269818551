package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
)

// Sentinels for the S3 failures a caller may want to tell apart. A missing
// object matches fs.ErrNotExist, like a missing local file; so does a
// missing bucket, which also matches ErrNoSuchBucket.
var (
	ErrNoSuchBucket = &kindError{msg: "bucket does not exist", parent: fs.ErrNotExist}
	ErrAccessDenied = &kindError{msg: "access denied"}
	// ErrUnavailable: the server could not be reached, or kept failing
	// (5xx, throttling, timeouts) through every retry.
	ErrUnavailable = &kindError{msg: "object storage unavailable"}

	errNoSuchKey = &kindError{msg: "object not found", parent: fs.ErrNotExist}
)

type kindError struct {
	msg    string
	parent error
}

func (k *kindError) Error() string { return k.msg }
func (k *kindError) Unwrap() error { return k.parent }

// s3Error is a failed S3 operation on one object or prefix: it names both,
// says what kind of failure it was, and keeps the SDK's error for detail.
type s3Error struct {
	op   string
	path s3Path
	kind *kindError // nil for other failures
	err  error
}

func (e *s3Error) Error() string {
	switch e.kind {
	case ErrNoSuchBucket:
		return fmt.Sprintf("storage: %s %s: bucket %q does not exist", e.op, e.path, e.path.bucket)
	case errNoSuchKey:
		return fmt.Sprintf("storage: %s %s: no object with key %q in bucket %q", e.op, e.path, e.path.key, e.path.bucket)
	case ErrAccessDenied:
		return fmt.Sprintf("storage: %s %s: access denied to key %q in bucket %q (check the AWS credentials and the bucket policy): %v",
			e.op, e.path, e.path.key, e.path.bucket, rootCause(e.err))
	case ErrUnavailable:
		return fmt.Sprintf("storage: %s %s: object storage unavailable after %d attempts: %v", e.op, e.path, s3MaxAttempts, rootCause(e.err))
	}
	return fmt.Sprintf("storage: %s %s: %v", e.op, e.path, e.err)
}

func (e *s3Error) Unwrap() []error {
	if e.kind == nil {
		return []error{e.err}
	}
	return []error{e.kind, e.err}
}

// s3Err classifies an SDK error of a request made with ctx.
//
// When ctx is done, the failure is the cancellation the caller asked for (a
// cancel request, statement_timeout), whatever shape the SDK gave it: a
// RequestCanceledError, a connection closed mid-body, a retry loop cut
// short. It is reported as ctx's error, never as an outage, so the statement
// ends with 57014 and not 58030.
//
// When ctx is not done, an error that still matches context.Canceled or
// context.DeadlineExceeded is the transport's own timeout (net and net/http
// timeout errors match DeadlineExceeded): an unavailable server. Its chain
// is cut so that no caller mistakes it for a cancellation.
func s3Err(ctx context.Context, op string, p s3Path, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("storage: %s %s: %w", op, p, cerr)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &s3Error{op: op, path: p, kind: ErrUnavailable, err: opaqueError(rootCause(err).Error())}
	}
	return &s3Error{op: op, path: p, kind: classify(err), err: err}
}

// opaqueError keeps an error's text without its chain.
type opaqueError string

func (e opaqueError) Error() string { return string(e) }

func classify(err error) *kindError {
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "NoSuchBucket":
			return ErrNoSuchBucket
		case "NoSuchKey", "NotFound":
			return errNoSuchKey
		case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "Forbidden", "AllAccessDisabled":
			return ErrAccessDenied
		case "SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout":
			return ErrUnavailable
		}
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		switch code := re.HTTPStatusCode(); {
		case code == http.StatusNotFound:
			return errNoSuchKey
		case code == http.StatusForbidden:
			return ErrAccessDenied
		case code >= 500 || code == http.StatusTooManyRequests:
			return ErrUnavailable
		}
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return ErrUnavailable
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return ErrUnavailable
	}
	return nil
}

// rootCause is the innermost error, which for a network failure reads
// "dial tcp 127.0.0.1:9000: connect: connection refused" rather than the
// SDK's long chain.
func rootCause(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		return oe
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		return api
	}
	return err
}
