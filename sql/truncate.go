package sql

import (
	"context"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// truncate runs TRUNCATE: every row of the tables goes, as a DELETE without
// WHERE would remove them (whole files end, inlined rows are deleted; no
// data is read), all tables in one snapshot; RESTART IDENTITY restarts the
// sequences the tables own, in the same transaction. PostgreSQL's options
// that ask for what a lake has no use for are accepted: ONLY and `*` (no
// inheritance), CASCADE and RESTRICT (no foreign keys).
func (s *Session) truncate(ctx context.Context, st *pg.TruncateStmt) (*Result, error) {
	// several tables, or tables and sequences, change together: outside a
	// block, open one for them
	own := !s.inTx && (len(st.Relations) > 1 || st.RestartSeqs)
	if own {
		s.inTx = true
	}
	var err error
	s.SetTruncating(true) // modify checks TRUNCATE (sql/privileges)
	defer s.SetTruncating(false)
	for _, r := range st.Relations {
		rv := r.GetRangeVar()
		if _, err = s.modify(ctx, rv, nil, nil, nil, nil, &planner.Params{Values: [][]byte{}, Bound: true}, false); err != nil {
			break
		}
		if st.RestartSeqs {
			if err = s.restartOwnedSequences(ctx, rv); err != nil {
				break
			}
		}
	}
	if own {
		s.inTx = false
		if cerr := s.endTxn(ctx, err == nil); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return nil, err
	}
	return tagResult("TRUNCATE TABLE"), nil
}

// restartOwnedSequences stages ALTER SEQUENCE … RESTART for every sequence
// the table rv names owns (its serial and identity columns).
func (s *Session) restartOwnedSequences(ctx context.Context, rv *pg.RangeVar) error {
	meta, _, t, err := s.tableAtHead(ctx, rv) // dml.go
	if err != nil {
		return err
	}
	seqs, err := s.seq.Sequences(ctx)
	if err != nil {
		return err
	}
	for _, q := range seqs {
		if q.OwnerTable != t.ID {
			continue
		}
		sch, ok := meta.SchemaByID(q.SchemaID)
		if !ok {
			continue
		}
		restart := &pg.Node{Node: &pg.Node_AlterSeqStmt{AlterSeqStmt: &pg.AlterSeqStmt{
			Sequence: &pg.RangeVar{Schemaname: sch.Name, Relname: q.Name, Inh: true, Relpersistence: "p", Location: -1},
			Options:  []*pg.Node{{Node: &pg.Node_DefElem{DefElem: &pg.DefElem{Defname: "restart", Location: -1}}}},
		}}}
		if _, err := s.ddl(ctx, restart); err != nil {
			return err
		}
	}
	return nil
}
