package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/sequences"
)

const (
	codeNoActiveTx       = "25P01" // no_active_sql_transaction
	codeInvalidSavepoint = "3B001" // invalid_savepoint_specification
)

// savepoint is what a transaction block had staged when SAVEPOINT ran, so
// that ROLLBACK TO can go back to exactly that: the staged catalog changes
// (a copy, the block's own Commit keeps changing), the schema the block's
// statements saw, and how many undo actions and superseded files the block
// had collected — those added later belong to the work being discarded.
type savepoint struct {
	name string
	// staged is nil when the block had not begun its snapshot yet: going
	// back means nothing staged at all.
	staged     *snapshot.Commit
	meta       *catalog.Metadata
	undo       int
	superseded int
	// cursors are the cursors open at SAVEPOINT; the ones declared after it
	// are closed by ROLLBACK TO, as PostgreSQL drops a subtransaction's
	// portals.
	cursors map[*cursor]bool
	// seqs are copies of the block's sequence changes at SAVEPOINT.
	seqs []sequences.Item
	// temp are the session's temporary tables at SAVEPOINT (temp.go)
	temp tempTables
	// privs is how many privilege rows the block had written (sql/privileges/privileges.go)
	privs int
	// settings are the session's settings at SAVEPOINT (settings_txn.go)
	settings *settingsMark
}

// savepointStmt runs SAVEPOINT, RELEASE [SAVEPOINT] and ROLLBACK TO
// [SAVEPOINT]. Savepoints are a stack searched from the top, so a name used
// twice finds the newer one until that is released, as in PostgreSQL.
func (s *Session) savepointStmt(t *pg.TransactionStmt) (*Result, error) {
	switch t.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		if !s.inTx || s.implicit {
			return nil, pgerr.New(codeNoActiveTx, "SAVEPOINT can only be used in transaction blocks")
		}
		s.savepoints = append(s.savepoints, s.markSavepoint(t.SavepointName))
		return tagResult("SAVEPOINT"), nil
	case pg.TransactionStmtKind_TRANS_STMT_RELEASE:
		if !s.inTx || s.implicit {
			return nil, pgerr.New(codeNoActiveTx, "RELEASE SAVEPOINT can only be used in transaction blocks")
		}
		i, err := s.findSavepoint(t.SavepointName)
		if err != nil {
			return nil, err
		}
		// the work since it stays staged: it is now the enclosing level's
		s.savepoints = s.savepoints[:i]
		return tagResult("RELEASE"), nil
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		if !s.inTx || s.implicit {
			return nil, pgerr.New(codeNoActiveTx, "ROLLBACK TO SAVEPOINT can only be used in transaction blocks")
		}
		i, err := s.findSavepoint(t.SavepointName)
		if err != nil {
			return nil, err
		}
		s.savepoints = s.savepoints[:i+1] // the savepoint itself stays
		s.rollbackTo(s.savepoints[i])
		s.failed = false
		return tagResult("ROLLBACK"), nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "statement %s is not supported yet", t.Kind)
}

func (s *Session) findSavepoint(name string) (int, error) {
	for i := len(s.savepoints) - 1; i >= 0; i-- {
		if s.savepoints[i].name == name {
			return i, nil
		}
	}
	return 0, pgerr.New(codeInvalidSavepoint, "savepoint \"%s\" does not exist", name)
}

func (s *Session) markSavepoint(name string) *savepoint {
	sp := &savepoint{name: name, cursors: map[*cursor]bool{}, temp: s.tempMark(), privs: s.PendingRows(), settings: s.markSettings()}
	for _, c := range s.cursors {
		sp.cursors[c] = true
	}
	if t := s.txn; t != nil {
		sp.staged, sp.meta = t.c.Clone(), t.meta
		sp.undo, sp.superseded = len(t.undo), len(t.superseded)
		sp.seqs = sequences.MarkItems(t.seqs)
	}
	return sp
}

// rollbackTo discards the block's work since sp: the files written since
// are deleted, the staged changes and the schema the block sees are those
// of sp again, and files superseded since are kept (sp's staged changes
// may name them).
func (s *Session) rollbackTo(sp *savepoint) {
	s.closeCursors(func(c *cursor) bool { return !sp.cursors[c] })
	s.tempRollbackTo(sp.temp)
	s.restoreSettings(sp.settings)
	s.DropPendingRows(sp.privs) // sql/privileges
	t := s.txn
	if t == nil {
		return // nothing was staged since: the block had not even begun
	}
	for i := len(t.undo) - 1; i >= sp.undo; i-- {
		t.undo[i]()
	}
	t.undo = t.undo[:sp.undo]
	t.superseded = t.superseded[:sp.superseded]
	if sp.staged == nil {
		t.c, t.meta = snapshot.Begin(s.eng.DB, t.base, t.baseMeta), t.baseMeta
		t.seqs = nil
		return
	}
	// a copy again: the savepoint stays and may be rolled back to once more
	t.c, t.meta = sp.staged.Clone(), sp.meta
	// the restored commit's extras write the items they were queued with
	t.seqs = sequences.RollbackItems(t.seqs, sp.seqs)
}
