package main

import (
	"context"
	"time"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql"
	"github.com/lakepg/lakepg/wire"
)

// wireEngine adapts the SQL engine to the wire layer's interfaces, keeping
// sql/ free of any knowledge of the protocol.
type wireEngine struct {
	eng *sql.Engine
	obs *observer // metrics and the query log; nil: none
}

func (w wireEngine) NewSession(ctx context.Context, info wire.StartupInfo) (wire.Session, error) {
	s, err := w.eng.NewSession(info.User, info.Database, info.Params)
	if err != nil {
		return nil, err
	}
	s.SetBackendPID(info.PID)
	s.SetSuperuser(info.Superuser)
	s.SetBackendControl(info.Control.Cancel, info.Control.Terminate)
	w.obs.connOpened()
	return wireSession{Session: s, obs: w.obs, user: info.User}, nil
}

type wireSession struct {
	*sql.Session
	obs  *observer
	user string
}

// Close ends the session and takes it out of pg_stat_activity.
func (s wireSession) Close() {
	s.Session.Close()
	s.Session.SetBackendPID(0)
	s.obs.connClosed()
}

func (s wireSession) Prepare(ctx context.Context, query string, oids []uint32) ([]wire.Statement, error) {
	prepare := s.Session.Prepare
	if wire.IsSimpleQuery(ctx) {
		prepare = func(ctx context.Context, query string, _ []uint32) ([]*sql.Stmt, error) {
			return s.Session.PrepareSimple(ctx, query)
		}
	}
	stmts, err := prepare(ctx, query, oids)
	if err != nil {
		return nil, err
	}
	out := make([]wire.Statement, len(stmts))
	for i, st := range stmts {
		out[i] = wireStmt{st: st, obs: s.obs, user: s.user, text: sql.RedactPasswords(query)}
	}
	return out, nil
}

type wireStmt struct {
	st         *sql.Stmt
	obs        *observer
	user, text string // for the query log
}

func (w wireStmt) ParamTypes() []uint32 { return w.st.ParamTypes() }

func (w wireStmt) Deallocation() (string, bool, bool) { return w.st.Deallocation() }

// DescribeCursor lets clients Describe a DECLAREd cursor as a portal.
func (s wireSession) DescribeCursor(name string) ([]wire.Column, bool) {
	cols, ok := s.Session.CursorColumns(name)
	if !ok || cols == nil {
		return nil, ok
	}
	out := make([]wire.Column, len(cols))
	for i, c := range cols {
		out[i] = wire.Column{Name: c.Name, Type: c.Type, TableOID: c.TableOID, Attnum: c.Attnum}
	}
	return out, true
}

func (w wireStmt) Columns() []wire.Column {
	cols := w.st.Columns()
	if cols == nil {
		return nil
	}
	out := make([]wire.Column, len(cols))
	for i, c := range cols {
		out[i] = wire.Column{Name: c.Name, Type: c.Type, TableOID: c.TableOID, Attnum: c.Attnum}
	}
	return out
}

func (w wireStmt) Execute(ctx context.Context, params [][]byte, formats []int16) (wire.Result, error) {
	text := make([][]byte, len(params))
	for i, p := range params {
		if p == nil {
			continue
		}
		f := int16(0)
		switch {
		case len(formats) == 1:
			f = formats[0]
		case i < len(formats):
			f = formats[i]
		}
		if f == 1 {
			oids := w.st.ParamTypes()
			var oid uint32
			if i < len(oids) {
				oid = oids[i]
			}
			s, err := wire.DecodeBinaryParam(oid, p)
			if err != nil {
				return nil, pgerr.Wrap(pgerr.InvalidTextRepr, err, "invalid binary parameter $%d", i+1)
			}
			text[i] = []byte(s)
		} else {
			text[i] = p
		}
	}
	start := time.Now()
	var scans scanStats
	if w.obs != nil {
		qs := new(exec.QueryStats)
		ctx, scans = exec.WithQueryStats(ctx, qs), qs
	}
	r, err := w.st.Execute(ctx, text)
	if err != nil {
		w.obs.statement(w.user, w.text, start, 0, scans, "", err)
		return nil, err
	}
	return &wireResult{ctx: ctx, r: r, stmt: w, start: start, scans: scans}, nil
}

type wireResult struct {
	ctx context.Context
	r   *sql.Result

	// what the observer is told when the result closes
	stmt  wireStmt
	start time.Time
	rows  int64
	scans scanStats
	err   error
}

func (w *wireResult) Next() (*vec.Batch, error) {
	b, err := w.r.Next(w.ctx)
	if b != nil {
		w.rows += int64(b.N)
	}
	if err != nil {
		w.err = err
	}
	return b, err
}

func (w *wireResult) Tag() string { return w.r.Tag() }

func (w *wireResult) Close() error {
	err := w.r.Close()
	if w.stmt.obs != nil {
		w.stmt.obs.statement(w.stmt.user, w.stmt.text, w.start, w.rows, w.scans, w.r.Tag(), w.err)
	}
	return err
}
