package wire

import (
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/lakepg/lakepg/pgerr"
)

// deallocate runs DEALLOCATE [PREPARE] name | ALL: prepared statements
// belong to the protocol layer, so the server drops them itself. Portals
// bound from a dropped statement live on, as after a Close message.
func (c *conn) deallocate(p *portal, name string, all bool) error {
	if all {
		clear(c.stmts)
	} else {
		if _, ok := c.stmts[name]; !ok || name == "" {
			return pgerr.New(pgerr.InvalidSQLStatementName, "prepared statement \"%s\" does not exist", name)
		}
		delete(c.stmts, name)
	}
	tag := "DEALLOCATE"
	if all {
		tag = "DEALLOCATE ALL"
	}
	p.done, p.tag = true, tag
	c.send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
	return nil
}

// describeCursor asks a CursorDescriber session for the columns of the SQL
// cursor name, which a client may Describe as a portal.
func (c *conn) describeCursor(name string) (cols []Column, ok bool) {
	d, isDescriber := c.sess.(CursorDescriber)
	if !isDescriber {
		return nil, false
	}
	_ = c.guard("DescribeCursor", func() error { cols, ok = d.DescribeCursor(name); return nil })
	return cols, ok
}
