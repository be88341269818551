// Package wire is lakepg's PostgreSQL v3 protocol server: it accepts
// connections, runs the startup handshake and authentication, keeps the
// per-connection protocol state (prepared statements, portals, the
// skip-to-Sync state after an extended-protocol error), and encodes result
// values in PostgreSQL's text and binary formats. It speaks to the SQL layer
// only through the Engine/Session/Statement/Result interfaces declared here,
// and knows nothing about Parquet, catalogs or how a statement runs.
// Messages are encoded and decoded with github.com/jackc/pgx/v5/pgproto3.
//
// # Layers
//
//	server.go   Server: accept loop, connection registry, cancel keys,
//	            MaxConnections, graceful Shutdown
//	cancelrelay.go  CancelRequests for keys of no session here, relayed
//	            to Options.CancelPeers (servers behind one balancer)
//	startup.go  startup packets (SSLRequest answered 'S' when Options.TLS
//	            is set, else 'N'; GSSENCRequest 'N'; CancelRequest; protocol
//	            negotiation), ParameterStatus, BackendKeyData
//	tls.go      the TLS switch, direct TLS (PostgreSQL 17, ALPN
//	            "postgresql"), certificates: loaded or self-signed
//	auth.go     the Authenticator an Engine may have; trust (loopback only)
//	            or SCRAM-SHA-256
//	scram.go    the server side of SCRAM-SHA-256(-PLUS), no I/O
//	notice.go   NoticeResponse: the Noticer a Session may have
//	conn.go     the session loop, the message reader, output buffering,
//	            error reporting and panic containment
//	simple.go   the simple query protocol
//	extended.go Parse/Bind/Describe/Execute/Close/Sync/Flush and portals
//	encode.go   RowDescription and DataRow encoding, text and binary
//	binary.go   binary value formats (numeric) and DecodeBinaryParam
//	copy*.go    COPY FROM STDIN / TO STDOUT: the CopyResult ability, the
//	            text, csv and binary data formats (copyparse.go reads them,
//	            copyencode.go writes them), the sub-protocol (copyconn.go)
//	binarycursor.go  binary rows of FETCH from a BINARY cursor
//
// # Lifecycle of a connection
//
// One goroutine per connection runs the startup handshake with a deadline,
// then the session loop. Once the session is established a second, small
// goroutine reads messages (pgproto3's Backend reuses its message objects, so
// every message is copied before it crosses over) and hands them to the
// session loop through a channel. Reading ahead is what lets the server
// notice a client that disconnects while a statement runs: the reader sees
// EOF and cancels the connection context, which every statement context
// derives from. It also lets an idle session wait on the message channel and
// the server's shutdown channel at once.
//
// Messages are written into one output buffer and sent when a ReadyForQuery
// goes out, on Flush, after an ErrorResponse, and whenever the buffer passes
// 64 KiB while rows stream, never once per row.
//
// # Encryption and authentication
//
// Startup packets are read byte-exact, without a read-ahead buffer, because
// the bytes after an SSLRequest belong to the TLS handshake; a first byte
// 0x16 is a ClientHello (direct TLS), which must negotiate ALPN
// "postgresql". Once TLS is on, conn.nc is the TLS connection; conn.raw
// stays the socket, for the deadlines other goroutines set.
//
// The engine's Authenticator (when it has one) says per user whether logins
// are trusted (no role has a password; only loopback peers) or need SCRAM
// against a verifier. An unknown user, or one without a usable verifier,
// goes through the same exchange against a pretend secret whose salt is
// derived from the name and a per-server key, and fails with the same
// 28P01 as a wrong password. Over TLS SCRAM-SHA-256-PLUS is offered first,
// bound to the hash of the server certificate (tls-server-end-point); a
// client that says it could bind but thinks we cannot ("y") is refused, as
// PostgreSQL refuses a downgrade.
//
// # Notices
//
// A Noticer session queues notices from any goroutine; they go out ahead of
// the next message the connection sends (and before the rows of the batch
// during which they were raised), so their order with the statement's
// results is the order they happened in.
//
// # Protocol invariants
//
//   - After an error in an extended-protocol message every message up to the
//     next Sync is discarded; the error itself is flushed at once.
//   - A simple Query drops the unnamed statement and portal, as PostgreSQL
//     does. Sync drops the unnamed portal, and every portal when the session
//     is outside a transaction block (TxStatus 'I'), because non-holdable
//     portals die with the implicit transaction.
//   - Execute with a row limit sends at most that many DataRows and then
//     PortalSuspended, keeping the Result open for the next Execute; nothing
//     is ever dropped silently. As in PostgreSQL, a SELECT portal that was
//     suspended reports "SELECT n" with n the rows of the final Execute, and
//     an exhausted SELECT portal answers "SELECT 0" when executed again.
//   - Statement.Execute is called at the first Execute message of a portal,
//     not at Bind, so a bound portal that is closed unexecuted has no effect.
//   - COPY: a Result that is a CopyResult switches the portal to the COPY
//     sub-protocol. COPY TO sends one CopyData per row, as PostgreSQL does.
//     COPY FROM reads CopyData, CopyDone and CopyFail from the same inbox
//     as every message, ignoring Flush and Sync; the statement gets the
//     rows as text fields (binary fields through DecodeBinaryParam) and
//     stores them as they arrive. After an error, what the client still
//     sends of the COPY is dropped by the session loop. An error carrying
//     a CONTEXT line (Contexter) reports it in ErrorResponse's W field.
//   - A panic in engine code becomes ErrorResponse XX000 for that statement
//     and an error log line with the stack; the session continues. Errors that
//     carry no *pgerr.Error become XX000 with their message, except context
//     cancellation, which is reported as 57014.
//
// # Shutdown
//
// Server.Shutdown stops accepting, lets each session reach its next idle
// point (waiting for a message with nothing queued, or just after
// ReadyForQuery) and ends it there with FATAL 57P01. Statements that are
// still running when the Shutdown context expires have their contexts
// cancelled; their connections then end the same way.
package wire
