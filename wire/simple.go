package wire

import "github.com/jackc/pgx/v5/pgproto3"

// simpleQuery runs a Query message: every statement in the string in turn,
// each answered with RowDescription (text), DataRows and CommandComplete,
// stopping at the first error; then ReadyForQuery.
func (c *conn) simpleQuery(query string) {
	// PostgreSQL drops the unnamed statement and portal here.
	delete(c.stmts, "")
	c.dropPortal("")

	var stmts []Statement
	err := checkText(query)
	if err == nil {
		stmts, err = c.prepare(query, nil, true)
	}
	switch {
	case err != nil:
		c.sendError(err)
	case len(stmts) == 0:
		c.send(&pgproto3.EmptyQueryResponse{})
	default:
		pl, _ := c.sess.(Pipeliner)
		for _, st := range stmts {
			if pl != nil {
				pl.Pipelined(len(stmts) > 1)
			}
			p := &portal{stmt: st, simple: true}
			err := c.runPortal(p, 0)
			p.close(c)
			if c.werr != nil {
				return
			}
			if err != nil {
				c.sendError(err)
				break
			}
		}
	}
	c.endImplicit()
	c.endOfTransactionPortals()
	c.readyForQuery()
}
