package wire

import (
	"context"
	"net"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Engine opens sessions; implemented by the SQL layer.
type Engine interface {
	NewSession(ctx context.Context, info StartupInfo) (Session, error)
}

// StartupInfo is what the client said in its startup packet, plus where it
// connects from.
type StartupInfo struct {
	User, Database, ApplicationName string
	// Params holds every startup parameter, including TimeZone, DateStyle,
	// client_encoding and options. Names are case-folded as PostgreSQL
	// folds setting names: lower case, except TimeZone, DateStyle and
	// IntervalStyle, which keep PostgreSQL's spelling whatever the client sent.
	Params     map[string]string
	RemoteAddr net.Addr
	// PID is the process id sent in BackendKeyData, what pg_backend_pid()
	// and pg_stat_activity report for this session.
	PID int32
	// Superuser is what authentication found (every trusted login is one).
	Superuser bool
	// Control cancels or ends this connection from another session.
	Control BackendControl
}

// Session is one client connection's SQL state. The wire layer calls it from
// a single goroutine, never concurrently.
type Session interface {
	// Prepare parses query text into its statements (the simple protocol may
	// carry several; an extended-protocol Parse must yield at most one, else
	// 42601 "cannot insert multiple commands into a prepared statement").
	// paramOIDs are the client-declared types (0 = infer).
	Prepare(ctx context.Context, query string, paramOIDs []uint32) ([]Statement, error)
	// TxStatus is 'I', 'T' or 'E' for ReadyForQuery.
	TxStatus() byte
	// Location is the session TimeZone, for timestamptz text.
	Location() *time.Location
	// ParameterChanges returns the reportable settings changed since the last
	// call; they are sent as ParameterStatus before the next ReadyForQuery.
	// Called once right after NewSession too, so a session can correct the
	// defaults the server reports at startup.
	ParameterChanges() map[string]string
	// Close is called when the connection is gone: roll back anything open.
	Close()
}

// Statement is one parsed statement, ready to run any number of times.
type Statement interface {
	// ParamTypes are the resolved parameter OIDs (ParameterDescription).
	ParamTypes() []uint32
	// Columns are the result columns; nil when the statement returns no
	// rows (NoData).
	Columns() []Column
	// Execute runs with text or binary parameter values (nil element =
	// NULL). paramFormats follows Bind's rules: 0 entries means all text, 1
	// entry applies to all, else one per parameter. DecodeBinaryParam turns
	// a binary value into its text form.
	Execute(ctx context.Context, params [][]byte, paramFormats []int16) (Result, error)
}

// Column describes one result column.
type Column struct {
	Name     string
	Type     types.T
	TableOID uint32
	Attnum   int16
}

// Result streams the rows of one execution. The ctx given to Execute governs
// it until Close: a portal suspended by a row limit keeps its Result open
// across protocol messages.
type Result interface {
	// Next returns the next batch of rows, (nil, nil) at the end; the batch
	// is only valid until the next call.
	Next() (*vec.Batch, error)
	// Tag is the command tag, valid after Next returned nil (e.g.
	// "SELECT 2", "INSERT 0 2", "CREATE TABLE", "DELETE 1").
	Tag() string
	Close() error
}

// Syncer is an optional Session ability. The server calls Sync wherever
// PostgreSQL ends an implicit transaction: at the end of every simple Query
// message and at every Sync message of the extended protocol. A session
// inside an explicit transaction block ignores it; otherwise it commits (or,
// after an error, rolls back) what the statements since the last call did.
// An error is reported to the client before ReadyForQuery.
type Syncer interface {
	Sync(ctx context.Context) error
}

type simpleKey struct{}

// IsSimpleQuery reports whether ctx is a Prepare's for a simple-protocol
// Query message: its statements run at once and their columns are asked for
// only after they ran, so the session need not plan a query ahead of
// running it just to describe it (each planning reads the catalog).
func IsSimpleQuery(ctx context.Context) bool {
	v, _ := ctx.Value(simpleKey{}).(bool)
	return v
}

// Pipeliner is an optional Session ability. Before each statement the
// server says whether more statements may follow it before the implicit
// transaction ends (at the end of the Query message, or at Sync): several
// statements in one Query message, or an Execute that the client did not
// follow with Sync. A session then keeps what the statements write until
// Sync (Syncer), so that a later error or a client leaving before Sync
// rolls them back, as in PostgreSQL.
type Pipeliner interface {
	Pipelined(more bool)
}

// StatementTimeouter is an optional Session ability: the session's
// statement_timeout, read before each Execute. Zero or less means none. A
// statement still running when it expires is cancelled with 57014
// "canceling statement due to statement timeout".
type StatementTimeouter interface {
	StatementTimeout() time.Duration
}

// CursorDescriber is an optional Session ability. SQL cursors (DECLARE)
// and protocol portals share one namespace in PostgreSQL, so a client may
// Describe a cursor as a portal (psycopg does, for named cursors); the
// server asks the session for a name that is no portal of its own.
type CursorDescriber interface {
	// DescribeCursor returns the columns of the open cursor name; ok is
	// false when there is none.
	DescribeCursor(name string) (cols []Column, ok bool)
}

// Deallocator is an optional Statement ability: DEALLOCATE, which drops
// prepared statements of the protocol, the server's business. When
// Deallocation says ok, the server executes the statement itself instead
// of calling Execute: it drops the named statement (or all with all set).
type Deallocator interface {
	Deallocation() (name string, all bool, ok bool)
}

// BackendControl is what StartupInfo hands a session for
// pg_cancel_backend and pg_terminate_backend on it: Cancel cancels the
// statement it runs (as a CancelRequest does), Terminate ends the
// connection with FATAL 57P01. Both may be called from any goroutine.
type BackendControl struct {
	Cancel    func()
	Terminate func()
}
