package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
)

// rowValue binds a row constructor (a, b) as a record value: its text
// form, which is never NULL (a row of NULLs is a value) and tells rows
// apart as record equality does for the fields' own text forms. count()
// over DISTINCT rows needs no more.
func (b *binder) rowValue(row *pg.RowExpr, sc *scope) (exec.Expr, error) {
	r := &recordExpr{}
	for i, a := range row.Args {
		e, err := b.bind(a, sc)
		if err != nil {
			return nil, err
		}
		r.args = append(r.args, e)
		r.fields = append(r.fields, Column{Name: "f" + itoa(i+1), Type: e.Type()})
	}
	return r, nil
}
