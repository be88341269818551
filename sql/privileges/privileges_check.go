package privileges

import (
	"context"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/lakepg/lakepg/pgerr"
)

// Privilege checks of reads and writes (hooks in planner/from.go, views.go, dml.go,
// package sql's truncate.go and copy.go).

// EnterView makes the tables a view reads checked with its owner's
// privileges, until the returned function runs.
func (s *State) EnterView(ctx context.Context, id int64) func() {
	was, wasIn := s.priv.asRole, s.priv.inView
	owner := ""
	if st, err := s.privileges(ctx); err == nil {
		owner = st.relPriv(id).owner
	}
	s.priv.asRole, s.priv.inView = owner, true
	return func() { s.priv.asRole, s.priv.inView = was, wasIn }
}

// WriteLetters are the privileges UPDATE or DELETE needs: the write's own,
// SELECT too when it reads the table's columns (WHERE, RETURNING, FROM or
// an expression in SET), TRUNCATE alone for TRUNCATE.
func (s *State) WriteLetters(update, reads bool) string {
	switch {
	case s.priv.truncating:
		return "D"
	case update && reads:
		return "wr"
	case update:
		return "w"
	case reads:
		return "dr"
	}
	return "d"
}

// ReadsColumns reports whether an UPDATE's SET expressions name a column.
func ReadsColumns(set []*pg.Node) bool {
	found := false
	for _, n := range set {
		if v := n.GetResTarget().GetVal(); v != nil {
			planner.EachMessage(v.ProtoReflect(), func(m protoreflect.Message) {
				if _, ok := m.Interface().(*pg.ColumnRef); ok {
					found = true
				}
			})
		}
	}
	return found
}

// CheckMaintenance: maintenance procedures (CALL lakepg.…, ducklake_…)
// are for superusers.
func (s *State) CheckMaintenance(ctx context.Context, name string) error {
	if super, err := s.roleSuper(ctx, nil, s.CurrentRole()); err != nil || super {
		return err
	}
	e := pgerr.New(codeRolePrivilege, "permission denied for procedure %s", name)
	e.Hint = "Only superusers run lakepg's maintenance procedures."
	return e
}

// ReplacingView: CREATE OR REPLACE VIEW is for the view's owner, and the
// new view (a new id, as DuckDB replaces views) keeps the old one's owner
// and grants (recordOwners).
func (s *State) ReplacingView(ctx context.Context, oldID int64, name string) error {
	if err := s.CheckRelOwner(ctx, oldID, "view", name); err != nil {
		return err
	}
	s.priv.replacedView = oldID
	return nil
}
