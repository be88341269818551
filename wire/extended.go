package wire

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
)

// SQLSTATEs pgerr does not name.
const (
	codeDuplicatePreparedStatement = "42P05"
	codeDuplicateCursor            = "42P03"
	codeObjectNotInState           = "55000"
)

// prepared is a statement created by Parse.
type prepared struct {
	stmt   Statement // nil for an empty query string
	params []uint32
	cols   []Column
}

// portal is a bound statement, possibly part-way through its rows.
type portal struct {
	name     string
	stmt     Statement // nil for an empty query string
	params   [][]byte
	pformats []int16

	cols      []Column
	formats   []int16    // per column; nil = all text
	encs      []encoding // per column, from formats
	simple    bool       // simple protocol: columns come after Execute, RowDescription is sent by run
	ctx       context.Context
	cancel    context.CancelFunc
	stop      context.CancelCauseFunc // cancels ctx with a reason (errStatementTimeout)
	res       Result                  // open from the first Execute until done or closed
	rows      rowBuf                  // encoded rows not yet sent
	suspended bool                    // an Execute stopped at its row limit
	done      bool
	tag       string
}

// close releases the portal's result and context.
func (p *portal) close(c *conn) {
	if p.res != nil {
		res := p.res
		p.res = nil
		if err := c.guard("Result.Close", res.Close); err != nil {
			c.log.Debug("closing a result failed", "err", err)
		}
	}
	if p.cancel != nil {
		p.cancel()
	}
}

func (c *conn) dropPortal(name string) {
	if p := c.portals[name]; p != nil {
		p.close(c)
		delete(c.portals, name)
	}
}

func (c *conn) dropAllPortals() {
	for name := range c.portals {
		c.dropPortal(name)
	}
}

// failExtended reports an extended-protocol error and discards what
// follows until Sync, so the client's pipeline resynchronises there.
func (c *conn) failExtended(err error) {
	c.sendError(err)
	c.skipToSync = true
}

// prepare calls Session.Prepare under a cancellable context.
func (c *conn) prepare(query string, paramOIDs []uint32, simple bool) ([]Statement, error) {
	ctx, cancel := context.WithCancel(c.ctx)
	if simple {
		ctx = context.WithValue(ctx, simpleKey{}, true)
	}
	defer cancel()
	c.setRunning(cancel)
	defer c.setRunning(nil)
	var stmts []Statement
	err := c.guard("Prepare", func() (err error) {
		stmts, err = c.sess.Prepare(ctx, query, paramOIDs)
		return err
	})
	return stmts, err
}

func (c *conn) parse(m *pgproto3.Parse) {
	if m.Name != "" {
		if _, dup := c.stmts[m.Name]; dup {
			c.failExtended(pgerr.New(codeDuplicatePreparedStatement, "prepared statement \"%s\" already exists", m.Name))
			return
		}
	}
	if err := checkText(m.Query); err != nil {
		c.failExtended(err)
		return
	}
	stmts, err := c.prepare(m.Query, m.ParameterOIDs, false)
	if err != nil {
		c.failExtended(err)
		return
	}
	if len(stmts) > 1 {
		c.failExtended(pgerr.New(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement"))
		return
	}
	ps := &prepared{}
	if len(stmts) == 1 {
		ps.stmt = stmts[0]
		err := c.guard("describing a statement", func() error {
			ps.params = ps.stmt.ParamTypes()
			ps.cols = ps.stmt.Columns()
			return nil
		})
		if err != nil {
			c.failExtended(err)
			return
		}
	}
	// An unnamed statement is simply replaced; portals keep what they bound.
	c.stmts[m.Name] = ps
	c.send(&pgproto3.ParseComplete{})
}

func (c *conn) bind(m *pgproto3.Bind) {
	ps := c.stmts[m.PreparedStatement]
	if ps == nil {
		c.failExtended(undefinedStatement(m.PreparedStatement))
		return
	}
	if m.DestinationPortal != "" {
		if _, dup := c.portals[m.DestinationPortal]; dup {
			c.failExtended(pgerr.New(codeDuplicateCursor, "portal \"%s\" already exists", m.DestinationPortal))
			return
		}
	}
	if len(m.Parameters) != len(ps.params) {
		c.failExtended(pgerr.New(pgerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement \"%s\" requires %d",
			len(m.Parameters), m.PreparedStatement, len(ps.params)))
		return
	}
	pformats, err := expandFormats(m.ParameterFormatCodes, len(m.Parameters), "parameter")
	if err != nil {
		c.failExtended(err)
		return
	}
	for i, f := range pformats {
		if f != textFormat && f != binaryFormat {
			c.failExtended(pgerr.New(pgerr.InvalidParameterValue, "unsupported format code: %d", f))
			return
		}
		if m.Parameters[i] != nil && (f == textFormat || textualOID(ps.params[i])) {
			if err := checkText(string(m.Parameters[i])); err != nil {
				c.failExtended(err)
				return
			}
		}
	}
	p := &portal{
		name:     m.DestinationPortal,
		stmt:     ps.stmt,
		params:   m.Parameters, // already a private copy (see copyMessage)
		pformats: pformats,
		cols:     ps.cols,
	}
	// Result formats matter only for statements that return rows, as in
	// PostgreSQL; an encoder is chosen once per column here.
	if ps.cols != nil {
		if p.formats, err = expandFormats(m.ResultFormatCodes, len(ps.cols), "result"); err != nil {
			c.failExtended(err)
			return
		}
		p.encs = make([]encoding, len(ps.cols))
		for i, col := range ps.cols {
			if p.encs[i], err = chooseEncoding(col.Type, p.formats[i]); err != nil {
				c.failExtended(err)
				return
			}
		}
	}
	c.dropPortal(m.DestinationPortal) // the unnamed portal is replaced
	c.portals[m.DestinationPortal] = p
	c.send(&pgproto3.BindComplete{})
}

func undefinedStatement(name string) error {
	if name == "" {
		return pgerr.New(pgerr.InvalidSQLStatementName, "unnamed prepared statement does not exist")
	}
	return pgerr.New(pgerr.InvalidSQLStatementName, "prepared statement \"%s\" does not exist", name)
}

func undefinedPortal(name string) error {
	return pgerr.New(pgerr.InvalidCursorName, "portal \"%s\" does not exist", name)
}

func (c *conn) describe(m *pgproto3.Describe) {
	switch m.ObjectType {
	case 'S':
		ps := c.stmts[m.Name]
		if ps == nil {
			c.failExtended(undefinedStatement(m.Name))
			return
		}
		c.send(&pgproto3.ParameterDescription{ParameterOIDs: ps.params})
		if ps.cols == nil {
			c.send(&pgproto3.NoData{})
		} else {
			// Formats are not known before Bind; PostgreSQL reports text.
			c.send(rowDescription(ps.cols, nil))
		}
	case 'P':
		p := c.portals[m.Name]
		if p == nil {
			if cols, ok := c.describeCursor(m.Name); ok {
				if cols == nil {
					c.send(&pgproto3.NoData{})
				} else {
					c.send(rowDescription(cols, nil))
				}
				return
			}
			c.failExtended(undefinedPortal(m.Name))
			return
		}
		if p.cols == nil {
			c.send(&pgproto3.NoData{})
		} else {
			c.send(rowDescription(p.cols, p.formats))
		}
	default:
		c.failExtended(pgerr.New(pgerr.ProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType))
	}
}

func (c *conn) execute(m *pgproto3.Execute) {
	p := c.portals[m.Portal]
	if p == nil {
		c.failExtended(undefinedPortal(m.Portal))
		return
	}
	maxRows := int(m.MaxRows)
	if int32(m.MaxRows) <= 0 {
		maxRows = 0 // PostgreSQL reads the limit as int32; zero or less is no limit
	}
	if pl, ok := c.sess.(Pipeliner); ok {
		pl.Pipelined(c.moreBeforeSync())
	}
	if err := c.runPortal(p, maxRows); err != nil {
		// The statement failed: its portal cannot be resumed.
		c.dropPortal(m.Portal)
		if c.werr == nil {
			c.failExtended(err)
		}
	}
}

func (c *conn) closeMsg(m *pgproto3.Close) {
	switch m.ObjectType {
	case 'S':
		// Portals bound from it live on, as in PostgreSQL.
		delete(c.stmts, m.Name)
	case 'P':
		c.dropPortal(m.Name)
	default:
		c.failExtended(pgerr.New(pgerr.ProtocolViolation, "invalid CLOSE message subtype %d", m.ObjectType))
		return
	}
	// Closing something that does not exist is not an error.
	c.send(&pgproto3.CloseComplete{})
}

func (c *conn) sync() {
	c.skipToSync = false
	c.endImplicit()
	c.endOfTransactionPortals()
	c.readyForQuery()
}

// endOfTransactionPortals drops the unnamed portal and, outside a
// transaction block, every portal: they belonged to the implicit
// transaction that just ended.
func (c *conn) endOfTransactionPortals() {
	c.dropPortal("")
	if c.txStatus() == 'I' {
		c.dropAllPortals()
	}
}

// runPortal executes portal p, sending at most maxRows rows (0 = all). It ends
// with CommandComplete, PortalSuspended, or an error for the caller to report.
func (c *conn) runPortal(p *portal, maxRows int) (err error) {
	if p.stmt == nil {
		c.send(&pgproto3.EmptyQueryResponse{})
		return nil
	}
	if p.done {
		// PostgreSQL: a finished portal that returns rows has none left;
		// one that does not cannot run twice.
		if p.cols == nil {
			return pgerr.New(codeObjectNotInState, "portal \"%s\" cannot be run", p.name)
		}
		tag := p.tag
		if isSelectTag(tag) {
			tag = "SELECT 0"
		}
		c.send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
		return nil
	}
	if p.ctx == nil {
		p.ctx, p.stop = context.WithCancelCause(c.ctx)
		p.cancel = func() { p.stop(nil) }
	}
	c.setRunning(p.cancel)
	defer c.setRunning(nil)
	if d := c.statementTimeout(); d > 0 {
		// Each Execute gets the whole timeout, so a client paging through a
		// portal is timed per page, as PostgreSQL times each message.
		timer := time.AfterFunc(d, func() { p.stop(errStatementTimeout) })
		defer timer.Stop()
	}
	defer func() {
		if err != nil && context.Cause(p.ctx) == errStatementTimeout && isCancel(err) {
			err = &pgerr.Error{Code: pgerr.QueryCanceled, Message: "canceling statement due to statement timeout"}
		}
	}()

	if p.res == nil {
		if d, ok := p.stmt.(Deallocator); ok {
			if name, all, ok := d.Deallocation(); ok {
				return c.deallocate(p, name, all)
			}
		}
		var res Result
		err = c.guard("Execute", func() (err error) {
			res, err = p.stmt.Execute(p.ctx, p.params, p.pformats)
			if err == nil && res == nil {
				err = errors.New("statement returned no result")
			}
			return err
		})
		if err != nil {
			return err
		}
		p.res = res
		if cr, spec, err := c.copyResult(res); err != nil || spec != nil {
			if err != nil {
				return err
			}
			return c.runCopy(p, cr, spec)
		}
		if p.simple {
			// Columns after Execute: a statement in a multi-statement string
			// may depend on what the ones before it created.
			if err := c.guard("Columns", func() error { p.cols = p.stmt.Columns(); return nil }); err != nil {
				return err
			}
			if p.cols != nil {
				p.formats = c.simpleFormats(res, len(p.cols))
				if p.encs, err = chooseEncodings(p.cols, p.formats); err != nil {
					return err
				}
				c.send(rowDescription(p.cols, p.formats))
			}
		}
	}

	loc := c.location()
	sent := 0
	for {
		for p.rows.pending() > 0 && (maxRows == 0 || sent < maxRows) {
			c.out = p.rows.appendDataRow(c.out, p.rows.next)
			p.rows.next++
			sent++
			if len(c.out) >= flushThreshold {
				c.flush()
				if c.werr != nil {
					return c.werr
				}
			}
		}
		if maxRows > 0 && sent >= maxRows {
			// Stop at the limit without looking further, as PostgreSQL does:
			// the next Execute continues (or finds the end).
			p.suspended = true
			c.send(&pgproto3.PortalSuspended{})
			return nil
		}
		var b *vec.Batch
		err := c.guard("Result.Next", func() (err error) {
			if b, err = p.res.Next(); err != nil || b == nil || b.N == 0 {
				return err
			}
			if p.cols == nil {
				return pgerr.New(pgerr.Internal, "statement without result columns returned %d rows", b.N)
			}
			return p.rows.fill(b, p.cols, p.encs, loc)
		})
		if c.noticeCount.Load() > 0 {
			c.sendNotices() // raised while these rows were made: they go first
		}
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
	}

	var tag string
	if err := c.guard("Result.Tag", func() error { tag = p.res.Tag(); return nil }); err != nil {
		return err
	}
	res := p.res
	p.res = nil
	if err := c.guard("Result.Close", res.Close); err != nil {
		return err
	}
	p.cancel()
	p.done, p.tag = true, tag
	if tag == "DISCARD ALL" {
		// the session reset its state; prepared statements are ours to drop
		clear(c.stmts)
	}
	if p.suspended && isSelectTag(tag) {
		// PostgreSQL counts the rows of this Execute, not of the portal.
		tag = "SELECT " + strconv.Itoa(sent)
	}
	c.send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
	return nil
}

// isSelectTag reports a "SELECT n" tag.
func isSelectTag(tag string) bool {
	n, ok := strings.CutPrefix(tag, "SELECT ")
	if !ok || n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		if n[i] < '0' || n[i] > '9' {
			return false
		}
	}
	return true
}

func (c *conn) txStatus() byte {
	status := byte('I')
	_ = c.guard("TxStatus", func() error {
		switch s := c.sess.TxStatus(); s {
		case 'I', 'T', 'E':
			status = s
		default:
			c.log.Error("session reported an invalid transaction status", "status", s)
		}
		return nil
	})
	return status
}

func (c *conn) location() *time.Location {
	loc := time.UTC
	_ = c.guard("Location", func() error {
		if l := c.sess.Location(); l != nil {
			loc = l
		}
		return nil
	})
	return loc
}

// errStatementTimeout is the cause a portal's context is cancelled with
// when statement_timeout expires.
var errStatementTimeout = errors.New("statement timeout")

// isCancel reports an error that a cancelled context caused: the context's
// own error, or the 57014 the engine reports for it.
func isCancel(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	e, ok := pgerr.As(err)
	return ok && e.Code == pgerr.QueryCanceled
}

// statementTimeout is the session's statement_timeout, zero when it has none.
func (c *conn) statementTimeout() time.Duration {
	st, ok := c.sess.(StatementTimeouter)
	if !ok {
		return 0
	}
	var d time.Duration
	_ = c.guard("StatementTimeout", func() error { d = st.StatementTimeout(); return nil })
	return d
}
