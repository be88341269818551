package exec

import (
	"context"
	"errors"

	"github.com/lakepg/lakepg/pgerr"
)

// ReadError is what a statement reports when reading the file at path
// fails: 58030 naming the file, or 57014 when the read was cut short by the
// statement's own cancellation (cancel request, statement_timeout), which
// storage reports as the context's error: the statement was cancelled, the
// storage did not fail. An error that already has a SQLSTATE is kept.
func ReadError(err error, path string) error {
	return fileError(err, "could not read file \"%s\"", path)
}

// WriteError is ReadError for writing the file at path: a user whose
// INSERT fails must not be told that a read failed.
func WriteError(err error, path string) error {
	return fileError(err, "could not write file \"%s\"", path)
}

func fileError(err error, format, path string) error {
	if _, ok := pgerr.As(err); ok {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
	}
	return pgerr.Wrap(pgerr.IOError, err, format, path)
}
