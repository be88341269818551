package sql

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/pgerr"
)

// truncate runs TRUNCATE: every row of the tables goes, as a DELETE without
// WHERE would remove them (whole files end, inlined rows are deleted; no
// data is read), all tables in one snapshot. PostgreSQL's options that ask
// for what a lake has no use for are accepted: ONLY and `*` (no
// inheritance), CASCADE and RESTRICT (no foreign keys).
func (s *Session) truncate(ctx context.Context, st *pg.TruncateStmt) (*Result, error) {
	if st.RestartSeqs {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "TRUNCATE … RESTART IDENTITY is not supported yet")
	}
	// several tables go in one snapshot: outside a block, open one for them
	own := !s.inTx && len(st.Relations) > 1
	if own {
		s.inTx = true
	}
	var err error
	for _, r := range st.Relations {
		rv := r.GetRangeVar()
		if _, err = s.modify(ctx, rv, nil, nil, nil, nil, &params{values: [][]byte{}, bound: true}, false); err != nil {
			break
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
