package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/pgerr"
)

// discard runs DISCARD. ALL returns the session to its state at connect,
// as connection poolers rely on between clients: settings reset (RESET
// ALL), cursors closed, and the protocol layer drops the prepared
// statements when it sees the DISCARD ALL tag; like PostgreSQL it refuses
// to run inside a transaction block. ALL and TEMP drop the session's
// temporary tables (temp.go). PLANS and SEQUENCES have nothing to drop in
// lakepg (no cached plans kept across statements, no sequences).
func (s *Session) discard(d *pg.DiscardStmt) (*Result, error) {
	switch d.Target {
	case pg.DiscardMode_DISCARD_ALL:
		if s.inTx {
			return nil, pgerr.New(activeSQLTransaction, "DISCARD ALL cannot run inside a transaction block")
		}
		s.closeCursors(func(*cursor) bool { return true })
		s.tempDropAll()  // temp.go
		s.DiscardRoles() // sql/privileges/privileges_stmt.go
		if _, err := s.set(&pg.VariableSetStmt{Kind: pg.VariableSetKind_VAR_RESET_ALL}); err != nil {
			return nil, err
		}
		return tagResult("DISCARD ALL"), nil
	case pg.DiscardMode_DISCARD_PLANS:
		return tagResult("DISCARD PLANS"), nil
	case pg.DiscardMode_DISCARD_SEQUENCES:
		return tagResult("DISCARD SEQUENCES"), nil
	}
	s.tempDropAll()
	return tagResult("DISCARD TEMP"), nil
}
