package sequences

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/types"
)

// Sequences (CREATE/ALTER/DROP SEQUENCE, nextval, currval, setval, lastval,
// serial and identity columns). Their rows live in lakepg_sequence
// (catalog/sequences.go), outside DuckLake's snapshots:
//   - CREATE, ALTER and DROP are staged with the statement or block as an
//     extra of its snapshot.Commit and written in the same catalog
//     transaction; a block sees its own (seqOverlay) and nobody else does
//     before COMMIT;
//   - nextval and setval of a committed sequence are a compare-and-set of
//     the row at once, whatever block is open (PostgreSQL's nextval is not
//     transactional either); of a sequence the block created, a change of
//     the block's copy, written at COMMIT.

// SQLSTATEs pgerr does not name.
const (
	codeWrongObjectType     = "42809"
	codeNotInPrerequisite   = "55000"
	codeSequenceLimit       = "2200H"
	CodeGeneratedAlways     = "428C9"
	codeDependentObjects    = "2BP01"
	pendingSequenceIDOffset = 1 << 27 // ids of sequences a block created, until COMMIT
)

// Item is a sequence the open block created, altered or dropped.
type Item struct {
	seq     catalog.Sequence
	isNew   bool // created by the block: written whole at COMMIT
	dropped bool
	restart bool // last_value/is_called are written too (ALTER … RESTART)
}

// MarkItems are copies of the block's items at SAVEPOINT.
func MarkItems(items []*Item) []Item {
	var out []Item
	for _, it := range items {
		out = append(out, *it)
	}
	return out
}

// RollbackItems gives the block's items queued at SAVEPOINT (marked, from
// MarkItems) back their state then and forgets the later ones.
func RollbackItems(items []*Item, marked []Item) []*Item {
	kept := items[:0]
	for _, it := range items {
		for _, old := range marked {
			if old.seq.ID == it.seq.ID {
				// values handed out are never given back, as in PostgreSQL
				last, called := it.seq.LastValue, it.seq.IsCalled
				*it = old
				if it.isNew {
					it.seq.LastValue, it.seq.IsCalled = last, called
				}
				kept = append(kept, it)
			}
		}
	}
	return kept
}

// seqSession is a session's sequence state: currval, lastval and the
// values of its CACHE not handed out yet.
type seqSession struct {
	mu       sync.Mutex
	curr     map[int64]int64
	last     int64 // sequence id of lastval; 0: none yet
	lastName string
	cache    map[int64][]int64
	pending  int64 // pending ids handed out
}

func (ss *seqSession) forget(id int64) {
	delete(ss.cache, id)
}

// Sequences is every sequence as the session sees it: the committed rows
// with the open block's own changes.
func (s *State) Sequences(ctx context.Context) ([]catalog.Sequence, error) {
	rows, err := s.DB.Sequences(ctx)
	if err != nil {
		return nil, err
	}
	items := s.BlockItems()
	if items == nil || len(*items) == 0 {
		return rows, nil
	}
	byID := map[int64]*Item{}
	for _, it := range *items {
		byID[it.seq.ID] = it
	}
	out := rows[:0:0]
	for _, r := range rows {
		if it, ok := byID[r.ID]; ok {
			if it.dropped {
				continue
			}
			last, called := r.LastValue, r.IsCalled
			r = it.seq
			if !it.restart {
				r.LastValue, r.IsCalled = last, called
			}
		}
		out = append(out, r)
	}
	for _, it := range *items {
		if it.isNew && !it.dropped {
			out = append(out, it.seq)
		}
	}
	return out, nil
}

// CatalogSequences loads the sequences once for a pgcatalog.Context.
func (s *State) CatalogSequences() func() []catalog.Sequence {
	var once sync.Once
	var seqs []catalog.Sequence
	return func() []catalog.Sequence {
		once.Do(func() {
			var err error
			if seqs, err = s.Sequences(context.Background()); err != nil {
				s.Log().Warn("reading sequences for the catalog views", "err", err)
			}
		})
		return seqs
	}
}

// findSequence resolves a sequence name as a relation name: qualified, or
// along the search path. ok is false when there is none.
func (s *State) findSequence(seqs []catalog.Sequence, meta *catalog.Metadata, schemaName, name string) (*catalog.Sequence, bool) {
	var schemas []string
	if schemaName != "" {
		schemas = []string{schemaName}
	} else {
		schemas = s.SearchPath()
	}
	for _, sp := range schemas {
		sch, ok := meta.SchemaByName(sp)
		if !ok {
			continue
		}
		if _, ok := meta.TableByName(sch.ID, name); ok && schemaName == "" {
			return nil, false // a table of that name comes first
		}
		for i := range seqs {
			if seqs[i].SchemaID == sch.ID && seqs[i].Name == name {
				return &seqs[i], true
			}
		}
	}
	return nil, false
}

// RelationTaken reports whether schema schemaID of meta has a table, view or
// sequence (as the session sees them) named name.
func (s *State) RelationTaken(ctx context.Context, meta *catalog.Metadata, schemaID int64, name string) (bool, error) {
	seqs, err := s.Sequences(ctx)
	if err != nil {
		return false, err
	}
	return RelationExists(seqs, meta, schemaID, name), nil
}

// RelationExists reports whether schema id has a table, view, sequence or
// constraint index (a relation in PostgreSQL) named name.
func RelationExists(seqs []catalog.Sequence, meta *catalog.Metadata, schemaID int64, name string) bool {
	if planner.TableOrView(meta, schemaID, name) || indexNameTaken(meta, schemaID, name) {
		return true
	}
	for _, q := range seqs {
		if q.SchemaID == schemaID && q.Name == name {
			return true
		}
	}
	return false
}

// stageSequence records a created, altered or dropped sequence with the
// statement's commit (and the open block's view of sequences).
func (s *State) stageSequence(ctx context.Context, c *snapshot.Commit, it *Item) error {
	if err := s.DB.EnsureSequenceTable(ctx); err != nil {
		return err
	}
	if s.InTx() {
		items, err := s.TxnItems(ctx)
		if err != nil {
			return err
		}
		for _, old := range *items {
			if old.seq.ID == it.seq.ID {
				// changed again: the item already queued writes the last state
				old.seq, old.dropped, old.restart = it.seq, it.dropped, old.restart || it.restart
				return nil
			}
		}
		*items = append(*items, it)
	}
	c.AddExtra(func(ctx context.Context, tx *catalog.Tx, finalID func(int64) int64) error {
		q := it.seq
		switch {
		case it.isNew && it.dropped:
			return nil
		case it.isNew:
			q.SchemaID = finalID(q.SchemaID)
			if q.OwnerTable != 0 {
				q.OwnerTable = finalID(q.OwnerTable)
			}
			if _, err := tx.CreateSequence(ctx, q); err != nil {
				if errors.Is(err, catalog.ErrSequenceExists) {
					return pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", q.Name)
				}
				return err
			}
			return nil
		case it.dropped:
			return tx.DropSequence(ctx, q.ID)
		}
		if err := tx.UpdateSequence(ctx, q); err != nil {
			if errors.Is(err, catalog.ErrSequenceNotFound) {
				return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", q.Name)
			}
			return err
		}
		if it.restart {
			return tx.RestartSequence(ctx, q.ID, q.LastValue, q.IsCalled)
		}
		return nil
	})
	return nil
}

// newSequenceID hands out a provisional id for a sequence the statement
// creates; the catalog gives it its real id at COMMIT.
func (s *State) newSequenceID() int64 {
	s.seq.mu.Lock()
	defer s.seq.mu.Unlock()
	s.seq.pending++
	return pendingSequenceIDOffset + s.seq.pending
}

// seqTypeRange is the range of a sequence data type.
func seqTypeRange(typ string) (int64, int64) {
	switch typ {
	case "smallint":
		return math.MinInt16, math.MaxInt16
	case "integer":
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

func SeqTypeName(t types.T) (string, bool) {
	switch t.ID {
	case types.Int16:
		return "smallint", true
	case types.Int32:
		return "integer", true
	case types.Int64:
		return "bigint", true
	}
	return "", false
}

func defInt(d *pg.DefElem) (int64, error) {
	switch a := d.Arg.GetNode().(type) {
	case *pg.Node_Integer:
		return int64(a.Integer.Ival), nil
	case *pg.Node_Float:
		n, err := strconv.ParseInt(a.Float.Fval, 10, 64)
		if err != nil {
			return 0, pgerr.New(pgerr.NumericValueOutOfRange, "value \"%s\" is out of range for type bigint", a.Float.Fval)
		}
		return n, nil
	}
	return 0, pgerr.New(pgerr.SyntaxError, "%s requires a numeric value", d.Defname)
}

// seqOptions applies CREATE/ALTER SEQUENCE options to q as PostgreSQL's
// init_params does. It returns the OWNED BY name list (nil when absent;
// an empty list for OWNED BY NONE) and whether RESTART was given.
func seqOptions(q *catalog.Sequence, opts []*pg.Node, isInit bool, colType string) (owned []string, hasOwned, restarted bool, err error) {
	var asType, inc, minV, maxV, start, restart, cache, cycle *pg.DefElem
	for _, o := range opts {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "as":
			asType = d
		case "increment":
			inc = d
		case "minvalue":
			minV = d
		case "maxvalue":
			maxV = d
		case "start":
			start = d
		case "restart":
			restart = d
		case "cache":
			cache = d
		case "cycle":
			cycle = d
		case "owned_by":
			hasOwned = true
			owned = planner.StrNodes(d.Arg.GetList().Items)
		case "sequence_name", "generated":
		default:
			return nil, false, false, pgerr.New(pgerr.SyntaxError, "option \"%s\" not recognized", d.Defname)
		}
	}
	bad := func(format string, args ...any) error { return pgerr.New(pgerr.InvalidParameterValue, format, args...) }
	resetMax, resetMin := false, false
	if isInit {
		q.DataType = "bigint"
		if colType != "" {
			q.DataType = colType
		}
	}
	if asType != nil {
		t, err := planner.ResolveTypeName(asType.Arg.GetTypeName())
		if err != nil {
			return nil, false, false, err
		}
		name, ok := SeqTypeName(t)
		if !ok {
			return nil, false, false, bad("sequence type must be smallint, integer, or bigint")
		}
		if !isInit {
			lo, hi := seqTypeRange(q.DataType)
			resetMax = (q.Inc > 0 && q.Max == hi) || (q.Inc < 0 && q.Max == -1)
			resetMin = (q.Inc > 0 && q.Min == 1) || (q.Inc < 0 && q.Min == lo)
		}
		q.DataType = name
	}
	if inc != nil {
		if q.Inc, err = defInt(inc); err != nil {
			return nil, false, false, err
		}
		if q.Inc == 0 {
			return nil, false, false, bad("INCREMENT must not be zero")
		}
	} else if isInit {
		q.Inc = 1
	}
	if cycle != nil {
		q.Cycle = cycle.Arg.GetBoolean().GetBoolval()
	} else if isInit {
		q.Cycle = false
	}
	lo, hi := seqTypeRange(q.DataType)
	if maxV != nil && maxV.Arg != nil {
		if q.Max, err = defInt(maxV); err != nil {
			return nil, false, false, err
		}
	} else if isInit || maxV != nil || resetMax {
		if q.Inc > 0 {
			q.Max = hi
		} else {
			q.Max = -1
		}
	}
	if q.Max < lo || q.Max > hi {
		return nil, false, false, bad("MAXVALUE (%d) is out of range for sequence data type %s", q.Max, q.DataType)
	}
	if minV != nil && minV.Arg != nil {
		if q.Min, err = defInt(minV); err != nil {
			return nil, false, false, err
		}
	} else if isInit || minV != nil || resetMin {
		if q.Inc > 0 {
			q.Min = 1
		} else {
			q.Min = lo
		}
	}
	if q.Min < lo || q.Min > hi {
		return nil, false, false, bad("MINVALUE (%d) is out of range for sequence data type %s", q.Min, q.DataType)
	}
	if q.Min >= q.Max {
		return nil, false, false, bad("MINVALUE (%d) must be less than MAXVALUE (%d)", q.Min, q.Max)
	}
	if start != nil {
		if q.Start, err = defInt(start); err != nil {
			return nil, false, false, err
		}
	} else if isInit {
		if q.Inc > 0 {
			q.Start = q.Min
		} else {
			q.Start = q.Max
		}
	}
	if q.Start < q.Min {
		return nil, false, false, bad("START value (%d) cannot be less than MINVALUE (%d)", q.Start, q.Min)
	}
	if q.Start > q.Max {
		return nil, false, false, bad("START value (%d) cannot be greater than MAXVALUE (%d)", q.Start, q.Max)
	}
	if restart != nil {
		v := q.Start
		if restart.Arg != nil {
			if v, err = defInt(restart); err != nil {
				return nil, false, false, err
			}
		}
		q.LastValue, q.IsCalled, restarted = v, false, true
	} else if isInit {
		q.LastValue, q.IsCalled = q.Start, false
	}
	if q.LastValue < q.Min {
		return nil, false, false, bad("RESTART value (%d) cannot be less than MINVALUE (%d)", q.LastValue, q.Min)
	}
	if q.LastValue > q.Max {
		return nil, false, false, bad("RESTART value (%d) cannot be greater than MAXVALUE (%d)", q.LastValue, q.Max)
	}
	if cache != nil {
		if q.Cache, err = defInt(cache); err != nil {
			return nil, false, false, err
		}
		if q.Cache <= 0 {
			return nil, false, false, bad("CACHE (%d) must be greater than zero", q.Cache)
		}
	} else if isInit {
		q.Cache = 1
	}
	return owned, hasOwned, restarted, nil
}

// ownedBy resolves OWNED BY table.column (or NONE) for sequence q.
func (s *State) ownedBy(meta *catalog.Metadata, q *catalog.Sequence, names []string) error {
	if len(names) == 1 && names[0] == "none" {
		q.OwnerTable, q.OwnerColumn = 0, 0
		return nil
	}
	if len(names) < 2 {
		return pgerr.New(pgerr.SyntaxError, "invalid OWNED BY option")
	}
	tschema := ""
	if len(names) > 2 {
		tschema = names[len(names)-3]
	}
	sch, t, err := s.ResolveTable(meta, tschema, names[len(names)-2], -1)
	if err != nil {
		return err
	}
	if sch.ID != q.SchemaID {
		return pgerr.New(pgerr.FeatureNotSupported, "sequence must be in same schema as table it is linked to")
	}
	col, ok := t.ColumnByName(names[len(names)-1])
	if !ok {
		return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", names[len(names)-1], t.Name)
	}
	q.OwnerTable, q.OwnerColumn = t.ID, col.ID
	return nil
}

func (s *State) CreateSequence(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, st *pg.CreateSeqStmt) (string, error) {
	rv := st.Sequence
	if rv.Relpersistence == "t" {
		return "", pgerr.New(pgerr.FeatureNotSupported, "temporary sequences are not supported")
	}
	sch, err := s.TargetSchema(meta, rv.Schemaname, rv.Location)
	if err != nil {
		return "", err
	}
	seqs, err := s.Sequences(ctx)
	if err != nil {
		return "", err
	}
	if RelationExists(seqs, meta, sch.ID, rv.Relname) {
		if st.IfNotExists {
			s.Noticef("relation \"%s\" already exists, skipping", rv.Relname)
			return "CREATE SEQUENCE", nil
		}
		return "", planner.ErrAt(pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", rv.Relname), rv.Location)
	}
	q := catalog.Sequence{ID: s.newSequenceID(), SchemaID: sch.ID, Name: rv.Relname}
	owned, hasOwned, _, err := seqOptions(&q, st.Options, true, "")
	if err != nil {
		return "", err
	}
	if hasOwned {
		if err := s.ownedBy(meta, &q, owned); err != nil {
			return "", err
		}
	}
	return "CREATE SEQUENCE", s.stageSequence(ctx, c, &Item{seq: q, isNew: true})
}

// sequenceNamed finds the sequence rv names, with the session's sequences.
// A missing one is 42P01, or with missingOk a notice and a nil sequence.
func (s *State) sequenceNamed(ctx context.Context, meta *catalog.Metadata, rv *pg.RangeVar, missingOk bool) ([]catalog.Sequence, *catalog.Sequence, error) {
	seqs, err := s.Sequences(ctx)
	if err != nil {
		return nil, nil, err
	}
	q, ok := s.findSequence(seqs, meta, rv.Schemaname, rv.Relname)
	if !ok {
		if missingOk {
			s.Noticef("relation \"%s\" does not exist, skipping", rv.Relname)
			return seqs, nil, nil
		}
		return nil, nil, planner.ErrAt(pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", rv.Relname), rv.Location)
	}
	return seqs, q, nil
}

func (s *State) AlterSequence(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, st *pg.AlterSeqStmt) (string, error) {
	_, q, err := s.sequenceNamed(ctx, meta, st.Sequence, st.MissingOk)
	if q == nil || err != nil {
		return "ALTER SEQUENCE", err
	}
	nq := *q
	owned, hasOwned, restarted, err := seqOptions(&nq, st.Options, false, "")
	if err != nil {
		return "", err
	}
	if hasOwned {
		if err := s.ownedBy(meta, &nq, owned); err != nil {
			return "", err
		}
	}
	s.seq.mu.Lock()
	s.seq.forget(q.ID)
	s.seq.mu.Unlock()
	return "ALTER SEQUENCE", s.stageSequence(ctx, c, &Item{seq: nq, isNew: q.ID > pendingSequenceIDOffset, restart: restarted})
}

func (s *State) RenameSequence(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, st *pg.RenameStmt) (string, error) {
	seqs, q, err := s.sequenceNamed(ctx, meta, st.Relation, st.MissingOk)
	if q == nil || err != nil {
		return "ALTER SEQUENCE", err
	}
	if RelationExists(seqs, meta, q.SchemaID, st.Newname) {
		return "", pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", st.Newname)
	}
	if deps := seqDependents(meta, q); len(deps) > 0 {
		// column defaults name sequences by their text (defaultText), not an OID
		return "", pgerr.New(pgerr.FeatureNotSupported, "cannot rename sequence \"%s\": the default of column \"%s\" of table \"%s\" names it", q.Name, deps[0].col, deps[0].table.Name)
	}
	nq := *q
	nq.Name = st.Newname
	return "ALTER SEQUENCE", s.stageSequence(ctx, c, &Item{seq: nq, isNew: q.ID > pendingSequenceIDOffset})
}

type seqDependent struct {
	table *catalog.Table
	col   string
	colID int64
}

// seqDependents are the columns whose DEFAULT calls nextval of q.
func seqDependents(meta *catalog.Metadata, q *catalog.Sequence) []seqDependent {
	var out []seqDependent
	for i := range meta.Tables {
		t := &meta.Tables[i]
		for _, col := range t.Columns {
			if col.DefaultValue == nil || col.DefaultValueType != "expression" {
				continue
			}
			if name, ok := nextvalTarget(*col.DefaultValue); ok && (name == q.Name || strings.HasSuffix(name, "."+q.Name)) {
				out = append(out, seqDependent{table: t, col: col.Name, colID: col.ID})
			}
		}
	}
	return out
}

// nextvalTarget is the sequence name of a default nextval('name'::regclass).
func nextvalTarget(def string) (string, bool) {
	const pre = "nextval('"
	if !strings.HasPrefix(def, pre) {
		return "", false
	}
	rest := def[len(pre):]
	i := strings.IndexByte(rest, '\'')
	if i < 0 {
		return "", false
	}
	return strings.ReplaceAll(rest[:i], `"`, ""), true
}

// DropSequences runs DROP SEQUENCE.
func (s *State) DropSequences(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, st *pg.DropStmt) (string, error) {
	seqs, err := s.Sequences(ctx)
	if err != nil {
		return "", err
	}
	for _, o := range st.Objects {
		names := planner.StrNodes(o.GetList().Items)
		schemaName, name := "", names[len(names)-1]
		if len(names) > 1 {
			schemaName = names[len(names)-2]
		}
		q, ok := s.findSequence(seqs, meta, schemaName, name)
		if !ok {
			if st.MissingOk {
				s.Noticef("sequence \"%s\" does not exist, skipping", name)
				continue
			}
			return "", pgerr.New(pgerr.UndefinedTable, "sequence \"%s\" does not exist", name)
		}
		deps := seqDependents(meta, q)
		if len(deps) > 0 && st.Behavior != pg.DropBehavior_DROP_CASCADE {
			e := pgerr.New(codeDependentObjects, "cannot drop sequence %s because other objects depend on it", q.Name)
			e.Detail = "default value for column " + deps[0].col + " of table " + deps[0].table.Name + " depends on sequence " + q.Name
			e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
			return "", e
		}
		for _, d := range deps {
			s.Noticef("drop cascades to default value for column %s of table %s", d.col, d.table.Name)
			c.SetColumnDefault(*d.table, d.colID, nil)
		}
		if err := s.DropSequence(ctx, c, q); err != nil {
			return "", err
		}
	}
	return "DROP SEQUENCE", nil
}

func (s *State) DropSequence(ctx context.Context, c *snapshot.Commit, q *catalog.Sequence) error {
	s.seq.mu.Lock()
	s.seq.forget(q.ID)
	s.seq.mu.Unlock()
	return s.stageSequence(ctx, c, &Item{seq: *q, isNew: q.ID > pendingSequenceIDOffset, dropped: true})
}

// DropOwnedSequences drops the sequences owned by table t (column col, or
// every column when col is 0), as DROP TABLE and DROP COLUMN do.
func (s *State) DropOwnedSequences(ctx context.Context, c *snapshot.Commit, tableID, col int64) error {
	seqs, err := s.Sequences(ctx)
	if err != nil {
		return err
	}
	for i := range seqs {
		if seqs[i].OwnerTable == tableID && (col == 0 || seqs[i].OwnerColumn == col) {
			if err := s.DropSequence(ctx, c, &seqs[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// nextValues hands out n values of sequence id: from the session's cache,
// then from the catalog in one compare-and-set (of at least CACHE values),
// or from the open block's copy of a sequence it created.
func (s *State) nextValues(ctx context.Context, id int64, n int) ([]int64, error) {
	s.seq.mu.Lock()
	defer s.seq.mu.Unlock()
	var out []int64
	if id > pendingSequenceIDOffset {
		it := s.pendingSequence(id)
		if it == nil {
			return nil, pgerr.New(pgerr.UndefinedTable, "could not open relation with OID %d", pgcatalog.SequenceOID(id))
		}
		vals, last, err := seqAdvance(it.seq, n, false)
		if err != nil {
			return nil, err
		}
		it.seq.LastValue, it.seq.IsCalled = last, true
		out = vals
	} else {
		cached := s.seq.cache[id]
		take := min(n, len(cached))
		out = append(out, cached[:take]...)
		s.seq.cache[id] = cached[take:]
		if need := n - take; need > 0 {
			// the committed definition, or the one this block's ALTER gave it
			var altered *catalog.Sequence
			if it := s.blockSequence(id); it != nil {
				if it.dropped {
					return nil, pgerr.New(pgerr.UndefinedTable, "could not open relation with OID %d", pgcatalog.SequenceOID(id))
				}
				altered = &it.seq
			}
			var got []int64
			_, _, err := s.DB.AdvanceSequence(ctx, id, func(cur catalog.Sequence) (catalog.Sequence, error) {
				q := cur
				if altered != nil {
					q = *altered
					q.LastValue, q.IsCalled = cur.LastValue, cur.IsCalled
				}
				k := max(need, int(min(q.Cache, 1<<20)))
				vals, last, err := seqAdvance(q, k, true)
				if err != nil {
					return cur, err
				}
				if len(vals) < need {
					// the limit cut the cache short of what is needed
					_, _, err := seqAdvance(q, need, false)
					return cur, err
				}
				got = vals
				cur.LastValue, cur.IsCalled = last, true
				return cur, nil
			})
			if err != nil {
				if errors.Is(err, catalog.ErrSequenceNotFound) {
					return nil, pgerr.New(pgerr.UndefinedTable, "could not open relation with OID %d", pgcatalog.SequenceOID(id))
				}
				return nil, err
			}
			out = append(out, got[:need]...)
			s.seq.cache[id] = append(s.seq.cache[id], got[need:]...)
		}
	}
	if len(out) > 0 {
		s.seq.curr[id] = out[len(out)-1]
		s.seq.last = id
	}
	return out, nil
}

// blockSequence is the open block's change of sequence id, nil if none.
func (s *State) blockSequence(id int64) *Item {
	items := s.BlockItems()
	if items == nil {
		return nil
	}
	for _, it := range *items {
		if it.seq.ID == id {
			return it
		}
	}
	return nil
}

func (s *State) pendingSequence(id int64) *Item {
	items := s.BlockItems()
	if items == nil {
		return nil
	}
	for _, it := range *items {
		if it.seq.ID == id && !it.dropped {
			return it
		}
	}
	return nil
}

// sequenceByID is sequence id as the session sees it.
func (s *State) sequenceByID(ctx context.Context, id int64) (catalog.Sequence, error) {
	seqs, err := s.Sequences(ctx)
	if err != nil {
		return catalog.Sequence{}, err
	}
	for _, q := range seqs {
		if q.ID == id {
			return q, nil
		}
	}
	return catalog.Sequence{}, pgerr.New(pgerr.UndefinedTable, "could not open relation with OID %d", pgcatalog.SequenceOID(id))
}

// seqAdvance computes the next n values of q. With partial, a limit
// reached after the first value ends the list early instead of failing
// (a CACHE is filled as far as it goes).
func seqAdvance(q catalog.Sequence, n int, partial bool) ([]int64, int64, error) {
	out := make([]int64, 0, n)
	last, called := q.LastValue, q.IsCalled
	for len(out) < n {
		next := last
		if called {
			inc := q.Inc
			if inc > 0 {
				if (q.Max >= 0 && last > q.Max-inc) || (q.Max < 0 && last+inc > q.Max) {
					if !q.Cycle {
						if partial && len(out) > 0 {
							break
						}
						return nil, 0, pgerr.New(codeSequenceLimit, "nextval: reached maximum value of sequence \"%s\" (%d)", q.Name, q.Max)
					}
					next = q.Min
				} else {
					next = last + inc
				}
			} else {
				if (q.Min < 0 && last < q.Min-inc) || (q.Min >= 0 && last+inc < q.Min) {
					if !q.Cycle {
						if partial && len(out) > 0 {
							break
						}
						return nil, 0, pgerr.New(codeSequenceLimit, "nextval: reached minimum value of sequence \"%s\" (%d)", q.Name, q.Min)
					}
					next = q.Max
				} else {
					next = last + inc
				}
			}
		}
		out = append(out, next)
		last, called = next, true
	}
	return out, last, nil
}

// setValue is setval(id, v, isCalled).
func (s *State) setValue(ctx context.Context, id int64, v int64, isCalled bool) error {
	s.seq.mu.Lock()
	defer s.seq.mu.Unlock()
	view, err := s.sequenceByID(ctx, id)
	if err != nil {
		return err
	}
	if v < view.Min || v > view.Max {
		return pgerr.New(pgerr.NumericValueOutOfRange, "setval: value %d is out of bounds for sequence \"%s\" (%d..%d)", v, view.Name, view.Min, view.Max)
	}
	if it := s.pendingSequence(id); it != nil {
		it.seq.LastValue, it.seq.IsCalled = v, isCalled
	} else {
		_, _, err := s.DB.AdvanceSequence(ctx, id, func(cur catalog.Sequence) (catalog.Sequence, error) {
			cur.LastValue, cur.IsCalled = v, isCalled
			return cur, nil
		})
		if err != nil {
			return err
		}
	}
	s.seq.forget(id)
	if isCalled {
		s.seq.curr[id] = v
	}
	return nil
}

// seqFn is nextval, currval or setval of one sequence argument: a regclass
// OID, or a text name resolved when it runs.
type seqFn struct {
	s    *State
	name string
	args []exec.Expr // the sequence (bigint OID or text), setval's value and is_called

	// a constant sequence argument is resolved once per statement
	mu       sync.Mutex
	resolved bool
	id       int64
	seqName  string
}

func (f *seqFn) Type() types.T { return types.Int64T }

func (f *seqFn) MapColumns(m func(int) int) exec.Expr {
	g := &seqFn{s: f.s, name: f.name}
	g.args = make([]exec.Expr, len(f.args))
	for i, a := range f.args {
		g.args[i] = exec.MapColumns(a, m)
	}
	return g
}

// resolve maps the sequence argument of row i to a sequence id.
func (f *seqFn) resolve(ctx context.Context, v *vec.Vector, i int) (int64, string, error) {
	if _, isConst := f.args[0].(*exec.Const); !isConst {
		return f.lookup(ctx, v, i)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.resolved {
		id, name, err := f.lookup(ctx, v, i)
		if err != nil {
			return 0, "", err
		}
		f.resolved, f.id, f.seqName = true, id, name
	}
	return f.id, f.seqName, nil
}

func (f *seqFn) lookup(ctx context.Context, v *vec.Vector, i int) (int64, string, error) {
	var oid int64
	if v.Type.ID == types.Text {
		c := f.s.CatalogContextFor(ctx)
		var err error
		if oid, err = pgcatalog.RelationOIDByName(c, v.S[i]); err != nil {
			return 0, "", err
		}
	} else {
		oid = v.I64[i]
	}
	id, ok := pgcatalog.SequenceID(oid)
	if !ok {
		c := f.s.CatalogContextFor(ctx)
		return 0, "", pgerr.New(codeWrongObjectType, "\"%s\" is not a sequence", pgcatalog.RelationName(c, oid))
	}
	seqs, err := f.s.Sequences(ctx)
	if err != nil {
		return 0, "", err
	}
	for _, q := range seqs {
		if q.ID == id {
			return id, q.Name, nil
		}
	}
	return 0, "", pgerr.New(pgerr.UndefinedTable, "could not open relation with OID %d", oid)
}

func (f *seqFn) Eval(env *exec.Env, b *vec.Batch) (*vec.Vector, error) {
	ctx := context.Background()
	vs := make([]*vec.Vector, len(f.args))
	for k, a := range f.args {
		v, err := a.Eval(env, b)
		if err != nil {
			return nil, err
		}
		vs[k] = v
	}
	out := vec.New(types.Int64T, b.N)
	// nextval of one constant sequence over many rows: one catalog update
	if f.name == "nextval" && b.N > 1 {
		if _, isConst := f.args[0].(*exec.Const); isConst && !vs[0].IsNull(0) {
			id, _, err := f.resolve(ctx, vs[0], 0)
			if err != nil {
				return nil, err
			}
			vals, err := f.s.nextValues(ctx, id, b.N)
			if err != nil {
				return nil, err
			}
			for _, v := range vals {
				out.AppendInt(v)
			}
			return out, nil
		}
	}
	for i := 0; i < b.N; i++ {
		null := false
		for _, v := range vs {
			null = null || v.IsNull(i)
		}
		if null {
			out.AppendNull()
			continue
		}
		id, name, err := f.resolve(ctx, vs[0], i)
		if err != nil {
			return nil, err
		}
		switch f.name {
		case "nextval":
			vals, err := f.s.nextValues(ctx, id, 1)
			if err != nil {
				return nil, err
			}
			out.AppendInt(vals[0])
		case "currval":
			f.s.seq.mu.Lock()
			v, ok := f.s.seq.curr[id]
			f.s.seq.mu.Unlock()
			if !ok {
				return nil, pgerr.New(codeNotInPrerequisite, "currval of sequence \"%s\" is not yet defined in this session", name)
			}
			out.AppendInt(v)
		case "setval":
			called := true
			if len(vs) > 2 {
				called = vs[2].B[i]
			}
			if err := f.s.setValue(ctx, id, vs[1].I64[i], called); err != nil {
				return nil, err
			}
			out.AppendInt(vs[1].I64[i])
		}
	}
	return out, nil
}

// lastvalFn is lastval().
type lastvalFn struct{ s *State }

func (f *lastvalFn) Type() types.T { return types.Int64T }

func (f *lastvalFn) Eval(env *exec.Env, b *vec.Batch) (*vec.Vector, error) {
	s := f.s
	s.seq.mu.Lock()
	id := s.seq.last
	v, ok := s.seq.curr[id]
	s.seq.mu.Unlock()
	if id == 0 || !ok {
		return nil, pgerr.New(codeNotInPrerequisite, "lastval is not yet defined in this session")
	}
	if _, err := s.sequenceByID(context.Background(), id); err != nil {
		return nil, pgerr.New(codeNotInPrerequisite, "lastval is not yet defined in this session")
	}
	out := vec.New(types.Int64T, b.N)
	for i := 0; i < b.N; i++ {
		out.AppendInt(v)
	}
	return out, nil
}

// CatalogContextFor is the catalog Context at the statement's snapshot.
func (s *State) CatalogContextFor(ctx context.Context) *pgcatalog.Context {
	snap, err := s.ReadSnapshot(ctx)
	if err != nil {
		return s.CatalogContext(nil)
	}
	meta, err := s.Metadata(ctx, snap)
	if err != nil {
		return s.CatalogContext(nil)
	}
	return s.CatalogContext(meta)
}

// SequenceFunction binds nextval, currval, setval and lastval; ok is false
// for other names.
func (s *State) SequenceFunction(b *planner.Binder, name string, args []exec.Expr, loc int32) (exec.Expr, bool, error) {
	switch name {
	case "nextval", "currval", "setval", "lastval":
	case "pg_get_serial_sequence":
		e, err := s.serialSequence(b, args, loc)
		return e, true, err
	default:
		return nil, false, nil
	}
	lo, hi := 1, 1
	switch name {
	case "setval":
		lo, hi = 2, 3
	case "lastval":
		lo, hi = 0, 0
	}
	if len(args) < lo || len(args) > hi {
		var ts []string
		for _, a := range args {
			ts = append(ts, a.Type().String())
		}
		e := pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(ts, ", "))
		e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
		return nil, true, planner.ErrAt(e, loc)
	}
	if name == "lastval" {
		return &lastvalFn{s: s}, true, nil
	}
	var err error
	switch args[0].Type().ID {
	case types.Unknown:
		// nextval('s'): the literal is a regclass, resolved now
		if args[0], _, err = b.RegCast(args[0], "regclass", loc); err != nil {
			return nil, true, err
		}
	case types.Text:
	default:
		if args[0], err = b.Cast(args[0], types.Int64T, false, loc); err != nil {
			return nil, true, err
		}
	}
	if name == "setval" {
		if args[1], err = b.Cast(args[1], types.Int64T, false, loc); err != nil {
			return nil, true, err
		}
		if len(args) > 2 {
			if args[2], err = b.Cast(args[2], types.BoolT, false, loc); err != nil {
				return nil, true, err
			}
		}
	}
	return &seqFn{s: s, name: name, args: args}, true, nil
}

// serialSequence binds pg_get_serial_sequence(table, column): the
// schema-qualified name of the sequence owned by the column (serial or
// identity), NULL when there is none.
func (s *State) serialSequence(b *planner.Binder, args []exec.Expr, loc int32) (exec.Expr, error) {
	if len(args) != 2 {
		e := pgerr.New(pgerr.UndefinedFunction, "function pg_get_serial_sequence does not exist")
		return nil, planner.ErrAt(e, loc)
	}
	for i := range args {
		var err error
		if args[i], err = b.Cast(args[i], types.TextT, false, loc); err != nil {
			return nil, err
		}
	}
	return &planner.CatalogFn{Name: "pg_get_serial_sequence", T: types.TextT, Args: args, Strict: true,
		Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			ctx := context.Background()
			c := s.CatalogContextFor(ctx)
			oid, err := pgcatalog.RelationOIDByName(c, a[0].S[i])
			if err != nil {
				return err
			}
			var t *catalog.Table
			if c.Meta != nil {
				for k := range c.Meta.Tables {
					if pgcatalog.RelationOID(c.Meta.Tables[k].ID) == oid {
						t = &c.Meta.Tables[k]
					}
				}
			}
			colName := a[1].S[i]
			if strings.HasPrefix(colName, `"`) && strings.HasSuffix(colName, `"`) && len(colName) > 1 {
				colName = strings.ReplaceAll(colName[1:len(colName)-1], `""`, `"`)
			} else {
				colName = strings.ToLower(colName)
			}
			if t == nil {
				return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", colName, a[0].S[i])
			}
			col, ok := t.ColumnByName(colName)
			if !ok {
				return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", colName, t.Name)
			}
			for _, q := range c.Sequences() {
				if q.OwnerTable == t.ID && q.OwnerColumn == col.ID {
					schema := ""
					for _, sch := range c.Meta.Schemas {
						if sch.ID == q.SchemaID {
							schema = sch.Name
						}
					}
					out.AppendString(pgcatalog.QuoteIdent(schema) + "." + pgcatalog.QuoteIdent(q.Name))
					return nil
				}
			}
			out.AppendNull()
			return nil
		}}, nil
}

func (f *lastvalFn) MapColumns(func(int) int) exec.Expr { return f }

// indexNameTaken reports whether a constraint of a table in schema sid
// (its index, a relation in PostgreSQL) has name.
func indexNameTaken(meta *catalog.Metadata, schemaID int64, name string) bool {
	for _, c := range meta.Constraints {
		if c.Name != name {
			continue
		}
		if t, ok := meta.TableByID(c.TableID); ok && t.SchemaID == schemaID {
			return true
		}
	}
	return false
}
