// Package pgerr is the error type every layer returns when a client must see a
// PostgreSQL SQLSTATE. It is a leaf: wire/ turns it into an ErrorResponse, and
// any other error reaching a client is reported as internal (XX000).
package pgerr

import (
	"errors"
	"fmt"
)

// SQLSTATE codes used across lakepg.
const (
	SuccessfulCompletion    = "00000"
	Warning                 = "01000"
	FeatureNotSupported     = "0A000"
	InvalidCatalogName      = "3D000"
	InvalidSchemaName       = "3F000"
	UndefinedTable          = "42P01"
	UndefinedColumn         = "42703"
	UndefinedFunction       = "42883"
	UndefinedObject         = "42704"
	DuplicateTable          = "42P07"
	DuplicateSchema         = "42P06"
	DuplicateColumn         = "42701"
	DuplicateAlias          = "42712"
	AmbiguousColumn         = "42702"
	DatatypeMismatch        = "42804"
	CannotCoerce            = "42846"
	GroupingError           = "42803"
	WindowingError          = "42P20"
	InvalidRecursion        = "42P19"
	SyntaxError             = "42601"
	InvalidColumnReference  = "42P10"
	DependentObjectsExist   = "2BP01"
	InvalidForeignKey       = "42830"
	WrongObjectType         = "42809"
	InvalidTableDefinition  = "42P16"
	InvalidObjectDefinition = "42P17"
	InvalidTextRepr         = "22P02"
	InvalidDatetimeFormat   = "22007"
	DatetimeFieldOverflow   = "22008"
	NumericValueOutOfRange  = "22003"
	DivisionByZero          = "22012"
	StringDataRightTrunc    = "22001"
	NotNullViolation        = "23502"
	UniqueViolation         = "23505"
	InvalidParameterValue   = "22023"
	ReadOnlyTransaction     = "25006"
	InFailedTransaction     = "25P02"
	ProtocolViolation       = "08P01"
	InvalidSQLStatementName = "26000"
	InvalidCursorName       = "34000"
	SerializationFailure    = "40001"
	QueryCanceled           = "57014"
	AdminShutdown           = "57P01"
	UndefinedParameter      = "42704"
	CantChangeRuntimeParam  = "55P02"
	InsufficientResources   = "53000"
	TooManyConnections      = "53300"
	ProgramLimitExceeded    = "54000"
	Internal                = "XX000"
	DataCorrupted           = "XX001"
	IOError                 = "58030"
	UndefinedFile           = "58P01"
	InvalidRowCountInLimit  = "2201W"
	CardinalityViolation    = "21000"
)

// Error is a PostgreSQL-style error. Position is 1-based in the statement
// text, 0 when unknown.
type Error struct {
	Code     string
	Message  string
	Detail   string
	Hint     string
	Position int
	Err      error // wrapped cause, if any
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// New builds an Error with a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap gives err a SQLSTATE, keeping it reachable through errors.Is/As.
func Wrap(code string, err error, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if msg == "" {
		msg = err.Error()
	} else {
		msg += ": " + err.Error()
	}
	return &Error{Code: code, Message: msg, Err: err}
}

// WithPosition returns a copy of e carrying a cursor position.
func (e *Error) WithPosition(pos int) *Error {
	c := *e
	c.Position = pos
	return &c
}

// As finds the first *Error in err's chain.
func As(err error) (*Error, bool) {
	var pe *Error
	if errors.As(err, &pe) {
		return pe, true
	}
	return nil, false
}

// Code returns err's SQLSTATE, XX000 when it carries none.
func Code(err error) string {
	if pe, ok := As(err); ok {
		return pe.Code
	}
	return Internal
}
