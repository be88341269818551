package bind

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/pgerr"
)

// BindUnnestZip binds unnest(a1, a2, …) with more than one array, which PostgreSQL allows in
// FROM only and runs as ROWS FROM (unnest(a1), unnest(a2), …): the arrays side by side, the
// shorter ones padded with NULLs, one column per array, each named unnest. Django's
// bulk_create writes INSERT … SELECT * FROM UNNEST(%s::t1[], %s::t2[], …). ok is false for
// any other call.
func (b *Binder) BindUnnestZip(fc *pg.FuncCall, sc *Scope, ordinality bool) (calls []*Srf, ok bool, err error) {
	if name := FuncName(fc); (name != "unnest" && name != "pg_catalog.unnest") || len(fc.Args) < 2 || fc.AggStar || fc.Over != nil {
		return nil, false, nil
	}
	if ordinality {
		return nil, true, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "unnest of several arrays WITH ORDINALITY is not supported yet"), fc.Location)
	}
	for _, a := range fc.Args {
		one := &pg.FuncCall{Funcname: fc.Funcname, Args: []*pg.Node{a}, Location: fc.Location, Funcformat: fc.Funcformat}
		call, _, err := b.BindSRF(one, sc)
		if err != nil {
			return nil, true, err
		}
		call.strict = false // a NULL array gives no elements; the others go on
		calls = append(calls, call)
	}
	return calls, true, nil
}
