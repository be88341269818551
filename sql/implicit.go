package sql

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Implicit transactions. PostgreSQL runs the statements of one simple Query
// message, and those of the extended protocol up to a Sync, as one
// transaction: when a later one fails, or the client goes away before
// Sync, the earlier ones are rolled back. pgx batches and JDBC batch
// execution rely on it.
//
// lakepg runs a single statement as it always has (autocommit, which keeps
// small inserts inlined); the server says through Pipelined when more
// statements may follow before the transaction ends, and then the first
// statement that writes opens a block (the same machinery as BEGIN) that
// Sync commits, or rolls back after an error. BEGIN inside it makes it an
// explicit block; COMMIT and ROLLBACK end it with PostgreSQL's warning that
// no transaction is in progress; SAVEPOINT is refused (25P01) as there.

// Pipelined tells the session whether more statements of the current
// implicit transaction may follow the next one (wire.Pipeliner).
func (s *Session) Pipelined(more bool) { s.pipelined = more }

// Sync ends the implicit transaction (wire.Syncer): what its statements
// wrote is committed, or rolled back when one of them failed. An explicit
// block is left alone.
func (s *Session) Sync(ctx context.Context) error {
	s.pipelined = false
	if !s.implicit {
		return nil
	}
	commit := !s.failed
	s.implicit, s.inTx, s.failed = false, false, false
	s.endCursors(commit)
	return s.endTxn(ctx, commit)
}

// beginImplicit opens the implicit block before a statement that writes,
// when more statements may follow it before Sync.
func (s *Session) beginImplicit(n *pg.Node) {
	if s.pipelined && !s.inTx && needsImplicit(n) {
		s.inTx, s.implicit = true, true
	}
}

// needsImplicit reports whether a statement needs the implicit block: those
// that change the lake, and DECLARE (a cursor lives until the transaction
// ends). Reads and settings keep their autocommit paths.
func needsImplicit(n *pg.Node) bool {
	switch x := n.Node.(type) {
	case *pg.Node_DeclareCursorStmt:
		return true
	case *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_MergeStmt, *pg.Node_CreateTableAsStmt,
		*pg.Node_CreateSchemaStmt, *pg.Node_CreateStmt, *pg.Node_DropStmt, *pg.Node_AlterTableStmt, *pg.Node_RenameStmt,
		*pg.Node_ViewStmt, *pg.Node_TruncateStmt, *pg.Node_CommentStmt, *pg.Node_RefreshMatViewStmt, *pg.Node_CreateSeqStmt, *pg.Node_AlterSeqStmt:
		return true
	case *pg.Node_CopyStmt:
		return x.CopyStmt.IsFrom
	case *pg.Node_SelectStmt:
		return x.SelectStmt.IntoClause != nil
	}
	return false
}
