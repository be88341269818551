// Package sequences owns sequences: CREATE/ALTER/DROP SEQUENCE, nextval,
// currval, setval, lastval and pg_get_serial_sequence, SERIAL and identity
// columns with the sequences they own, and the session's sequence state
// (currval, lastval, cached values). Package sql's Session embeds State and
// serves it as its Host.
package sequences

import (
	"context"
	"log/slog"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/sql/planner"
)

// State is a session's sequence state, with the sequence statements and
// functions run on it. Host is the rest of the session (package sql); the
// embedded planner.Session its settings and the lake.
type State struct {
	Host
	*planner.Session
	seq seqSession
}

// Host is what sequences asks of the session it belongs to.
type Host interface {
	ReadSnapshot(ctx context.Context) (catalog.Snapshot, error)
	Metadata(ctx context.Context, snap catalog.Snapshot) (*catalog.Metadata, error)
	TargetSchema(meta *catalog.Metadata, name string, loc int32) (*catalog.Schema, error)
	SearchPath() []string
	CatalogContext(meta *catalog.Metadata) *pgcatalog.Context
	// the open block: whether there is one, the sequences it changed (nil
	// while it has no state yet), the same made when needed
	InTx() bool
	BlockItems() *[]*Item
	TxnItems(ctx context.Context) (*[]*Item, error)
	Noticef(format string, args ...any) // NOTICE 00000
	Log() *slog.Logger
}

// Init makes st the sequence state of a new session.
func (st *State) Init(h Host, ps *planner.Session) {
	st.Host, st.Session = h, ps
	st.seq.curr, st.seq.cache = map[int64]int64{}, map[int64][]int64{}
}
