package main

import (
	"github.com/lakepg/lakepg/sql"
	"github.com/lakepg/lakepg/wire"
)

// Copy describes a COPY FROM STDIN or TO STDOUT for the wire layer (nil for
// any other statement).
func (w *wireResult) Copy() *wire.CopySpec {
	s := w.r.Copy()
	if s == nil {
		return nil
	}
	cols := make([]wire.Column, len(s.Columns))
	for i, c := range s.Columns {
		cols[i] = wire.Column{Name: c.Name, Type: c.Type, TableOID: c.TableOID, Attnum: c.Attnum}
	}
	return &wire.CopySpec{
		In:           s.In,
		Format:       copyFormats[s.Format],
		Delimiter:    s.Delimiter,
		Null:         s.Null,
		Quote:        s.Quote,
		Escape:       s.Escape,
		Header:       s.Header,
		HeaderMatch:  s.HeaderMatch,
		ForceQuote:   s.ForceQuote,
		ForceNotNull: s.ForceNotNull,
		ForceNull:    s.ForceNull,
		Relation:     s.Relation,
		Columns:      cols,
	}
}

var copyFormats = map[sql.CopyFormat]wire.CopyFormat{
	sql.CopyText: wire.CopyText, sql.CopyCSV: wire.CopyCSV, sql.CopyBinary: wire.CopyBinary,
}

// CopyIn hands the client's COPY data to the SQL layer.
func (w *wireResult) CopyIn(rows wire.CopyRows) error {
	err := w.r.CopyIn(w.ctx, rows)
	if err != nil {
		w.err = err
	}
	return err
}

// BinaryRows reports a FETCH from a BINARY cursor.
func (w *wireResult) BinaryRows() bool { return w.r.Binary() }
