package sql

import (
	"context"
	"fmt"
	"time"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// DECLARE's option bits (PostgreSQL's CURSOR_OPT_*).
const (
	cursorBinary = 0x0001
	cursorScroll = 0x0002
	cursorHold   = 0x0020
)

// SQLSTATEs of cursors that pgerr does not name.
const (
	codeCursorNoTx      = "25P01"
	codeCursorDuplicate = "42P03"
	codeCursorState     = "55000"
)

// cursor is an open DECLAREd cursor: the operator tree of its query, pulled
// a FETCH at a time. Nothing is materialised: a FETCH takes rows from the
// batch the tree returned last and pulls the next batch only when that one
// is used up, so memory is what the tree itself holds. The tree runs under
// the cursor's own context, because it outlives the statement that declared
// it (parallel scans keep the context they started with); each FETCH's
// context is linked to it while the FETCH runs, so cancelling a FETCH stops
// the tree.
type cursor struct {
	name   string
	cols   []Column
	op     exec.Operator
	ctx    context.Context
	cancel context.CancelFunc
	hold   bool
	binary bool
	scroll bool
	inTx   bool // declared in the current transaction block

	stmt    string    // the DECLARE statement's text, for pg_cursors
	created time.Time // for pg_cursors

	b      *vec.Batch // the batch being read; rows before off are taken
	off    int
	pos    int64 // rows taken (fetched or skipped) so far
	atEnd  bool
	failed error // a FETCH failed: the cursor cannot run again
}

func (c *cursor) close() {
	c.cancel()
	if c.op != nil {
		c.op.Close()
		c.op = nil
	}
}

// peek returns the batch holding the next row and that row's index in it,
// nil at the end.
func (c *cursor) peek(ctx context.Context) (*vec.Batch, int, error) {
	for c.b == nil || c.off >= c.b.N {
		if c.failed != nil {
			return nil, 0, c.failed
		}
		if c.atEnd {
			return nil, 0, nil
		}
		stop := context.AfterFunc(ctx, c.cancel)
		b, err := c.op.Next(c.ctx)
		stop()
		if err == nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		if err != nil {
			c.failed = pgerr.New(codeCursorState, "portal \"%s\" cannot be run", c.name)
			c.b = nil
			return nil, 0, err
		}
		if b == nil {
			c.atEnd, c.b = true, nil
			return nil, 0, nil
		}
		c.b, c.off = b, 0
	}
	return c.b, c.off, nil
}

// skip moves over up to n rows without returning them.
func (c *cursor) skip(ctx context.Context, n int64) (int64, error) {
	var moved int64
	for moved < n {
		b, off, err := c.peek(ctx)
		if err != nil || b == nil {
			return moved, err
		}
		k := min(n-moved, int64(b.N-off))
		c.off += int(k)
		c.pos += k
		moved += k
	}
	return moved, nil
}

// declareCursor runs DECLARE: it plans the query and keeps its operator
// tree, unstarted, for FETCH.
func (s *Session) declareCursor(ctx context.Context, st *pg.DeclareCursorStmt, p *planner.Params) (*Result, error) {
	hold := st.Options&cursorHold != 0
	if !hold && !s.inTx {
		return nil, pgerr.New(codeCursorNoTx, "DECLARE CURSOR can only be used in transaction blocks")
	}
	if _, dup := s.cursors[st.Portalname]; dup {
		return nil, pgerr.New(codeCursorDuplicate, "cursor \"%s\" already exists", st.Portalname)
	}
	sel := st.Query.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DECLARE CURSOR must be for a SELECT query")
	}
	if sel.IntoClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DECLARE CURSOR ... SELECT INTO is not supported")
	}
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel) // planning may run subqueries
	q, err := s.PlanQuery(cctx, sel, p, false)
	stop()
	if err == nil && ctx.Err() != nil {
		q.Op.Close()
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, err
	}
	c := &cursor{
		name: st.Portalname, cols: q.Cols, op: q.Op, ctx: cctx, cancel: cancel,
		hold: hold, binary: st.Options&cursorBinary != 0, scroll: st.Options&cursorScroll != 0,
		inTx: s.inTx, stmt: s.runningQuery(), created: time.Now(),
	}
	if s.cursors == nil {
		s.cursors = map[string]*cursor{}
	}
	s.cursors[c.name] = c
	return tagResult("DECLARE CURSOR"), nil
}

func (s *Session) lookupCursor(name string) (*cursor, error) {
	c := s.cursors[name]
	if c == nil {
		return nil, pgerr.New(pgerr.InvalidCursorName, "cursor \"%s\" does not exist", name)
	}
	return c, nil
}

// describeFetch gives FETCH the columns of its cursor (nil for MOVE, or
// when there is no such cursor yet: executing it will say so).
func (s *Session) describeFetch(st *pg.FetchStmt) []Column {
	if st.Ismove {
		return nil
	}
	if c := s.cursors[st.Portalname]; c != nil {
		return c.cols
	}
	return nil
}

// fetch runs FETCH and MOVE. Cursors only move forward; the forms that
// would move backward fail as they do on a NO SCROLL cursor in PostgreSQL.
func (s *Session) fetch(ctx context.Context, st *pg.FetchStmt) (*Result, error) {
	c, err := s.lookupCursor(st.Portalname)
	if err != nil {
		return nil, err
	}
	if c.failed != nil {
		return nil, c.failed
	}
	backward := func() error {
		if c.scroll {
			return pgerr.New(pgerr.FeatureNotSupported, "lakepg cursors can only scan forward")
		}
		e := pgerr.New(codeCursorState, "cursor can only scan forward")
		e.Hint = "Declare it with SCROLL option to enable backward scan."
		return e
	}
	// Reduce every direction to: skip some rows, then take some.
	var skip, take int64
	n := st.HowMany
	switch st.Direction {
	case pg.FetchDirection_FETCH_FORWARD:
		switch {
		case n < 0:
			return nil, backward()
		case n == 0:
			// The current row again: only possible when there is none.
			if c.pos > 0 && !c.atEnd {
				return nil, backward()
			}
		default:
			take = n
		}
	case pg.FetchDirection_FETCH_BACKWARD:
		if n == 0 && (c.pos == 0 || c.atEnd) {
			break
		}
		return nil, backward()
	case pg.FetchDirection_FETCH_ABSOLUTE:
		if n <= 0 || n <= c.pos {
			return nil, backward()
		}
		skip, take = n-c.pos-1, 1
	case pg.FetchDirection_FETCH_RELATIVE:
		switch {
		case n < 0:
			return nil, backward()
		case n == 0:
			if c.pos > 0 && !c.atEnd {
				return nil, backward()
			}
		default:
			skip, take = n-1, 1
		}
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "FETCH direction %v is not supported", st.Direction)
	}
	if skip > 0 {
		moved, err := c.skip(ctx, skip)
		if err != nil {
			return nil, err
		}
		if moved < skip {
			take = 0 // ran off the end
		}
	}
	if st.Ismove {
		moved, err := c.skip(ctx, take)
		if err != nil {
			return nil, err
		}
		if st.Direction != pg.FetchDirection_FETCH_FORWARD && moved > 0 {
			moved = 1
		}
		return tagResult(fmt.Sprintf("MOVE %d", moved)), nil
	}
	r := &Result{cols: c.cols, op: &fetchOp{c: c, left: take}, verb: "FETCH"}
	if c.binary {
		r.ext = &resultExt{binary: true}
	}
	return r, nil
}

// fetchOp hands out up to left rows of a cursor, as views of the batches
// the cursor's tree returns. Closing it leaves the cursor open.
type fetchOp struct {
	c    *cursor
	left int64
	out  vec.Batch
}

func (f *fetchOp) Types() []types.T {
	ts := make([]types.T, len(f.c.cols))
	for i, col := range f.c.cols {
		ts[i] = col.Type
	}
	return ts
}

func (f *fetchOp) Close() error { return nil }

func (f *fetchOp) Next(ctx context.Context) (*vec.Batch, error) {
	if f.left <= 0 {
		return nil, nil
	}
	b, off, err := f.c.peek(ctx)
	if err != nil || b == nil {
		return nil, err
	}
	k := int(min(f.left, int64(b.N-off)))
	f.out.Vecs = f.out.Vecs[:0]
	for _, v := range b.Vecs {
		f.out.Vecs = append(f.out.Vecs, v.Slice(off, off+k))
	}
	f.out.N = k
	f.c.off += k
	f.c.pos += int64(k)
	f.left -= int64(k)
	return &f.out, nil
}

// closeCursor runs CLOSE name and CLOSE ALL.
func (s *Session) closeCursor(st *pg.ClosePortalStmt) (*Result, error) {
	if st.Portalname == "" {
		s.closeCursors(func(*cursor) bool { return true })
		return tagResult("CLOSE CURSOR ALL"), nil
	}
	c, err := s.lookupCursor(st.Portalname)
	if err != nil {
		return nil, err
	}
	c.close()
	delete(s.cursors, c.name)
	return tagResult("CLOSE CURSOR"), nil
}

// closeCursors closes the cursors for which drop says so.
func (s *Session) closeCursors(drop func(*cursor) bool) {
	for name, c := range s.cursors {
		if drop(c) {
			c.close()
			delete(s.cursors, name)
		}
	}
}

// endCursors applies the end of a transaction block to the cursors: a
// COMMIT closes those without HOLD and keeps the rest; a ROLLBACK also
// closes the WITH HOLD cursors declared in the block.
func (s *Session) endCursors(commit bool) {
	s.closeCursors(func(c *cursor) bool { return !c.hold || !commit && c.inTx })
	for _, c := range s.cursors {
		c.inTx = false
	}
}
