package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Sequences live in lakepg_sequence, a table of lakepg's own beside the
// DuckLake tables (as lakepg_role), so that every server on one catalog
// shares them. DuckDB ignores it. A sequence is not versioned by DuckLake
// snapshots: its row is created and dropped in the catalog transaction of
// the snapshot that creates or drops it (or one of its own when nothing
// else changes), and nextval moves last_value with a compare-and-set
// UPDATE of its own, outside any snapshot, so a value is never handed out
// twice, by any server, and a rolled-back block gives none back.
//
// owner_table_id/owner_column_id are the column a sequence is OWNED BY
// (serial, identity); identity is 'a' (GENERATED ALWAYS), 'd' (BY DEFAULT)
// or NULL. data_type is smallint, integer or bigint.
const sequenceTableDDL = `CREATE TABLE IF NOT EXISTS lakepg_sequence (
	sequence_id BIGINT PRIMARY KEY,
	schema_id BIGINT NOT NULL,
	sequence_name VARCHAR NOT NULL,
	data_type VARCHAR NOT NULL,
	start_value BIGINT NOT NULL,
	increment_by BIGINT NOT NULL,
	min_value BIGINT NOT NULL,
	max_value BIGINT NOT NULL,
	cache_size BIGINT NOT NULL,
	cycle BIGINT NOT NULL,
	last_value BIGINT NOT NULL,
	is_called BIGINT NOT NULL,
	owner_table_id BIGINT,
	owner_column_id BIGINT,
	identity VARCHAR,
	UNIQUE (schema_id, sequence_name)
)`

// ErrSequenceNotFound is returned when a sequence row is gone.
var ErrSequenceNotFound = errors.New("catalog: sequence not found")

// ErrSequenceExists is returned by CreateSequence when the schema already
// has a sequence of that name.
var ErrSequenceExists = errors.New("catalog: sequence already exists")

// Sequence is one row of lakepg_sequence.
type Sequence struct {
	ID       int64
	SchemaID int64
	Name     string
	DataType string // smallint, integer, bigint
	Start    int64
	Inc      int64
	Min      int64
	Max      int64
	Cache    int64
	Cycle    bool
	// LastValue and IsCalled are PostgreSQL's: the next nextval returns
	// LastValue itself when !IsCalled, else LastValue+Inc.
	LastValue int64
	IsCalled  bool
	// OwnerTable and OwnerColumn are the table_id and column_id the
	// sequence is OWNED BY; 0 when none.
	OwnerTable  int64
	OwnerColumn int64
	Identity    string // "a", "d" or ""
}

const sequenceCols = `sequence_id, schema_id, sequence_name, data_type, start_value, increment_by, min_value, max_value,
	cache_size, cycle, last_value, is_called, owner_table_id, owner_column_id, identity`

// EnsureSequenceTable creates lakepg_sequence when missing. Call it before a
// commit that writes sequences: creating it inside the commit's transaction
// would make concurrent first commits collide on the DDL.
func (db *DB) EnsureSequenceTable(ctx context.Context) error {
	ok, err := db.tableExists(ctx, db.sql, "lakepg_sequence")
	if err != nil {
		return fmt.Errorf("catalog: look for lakepg_sequence: %w", err)
	}
	if ok {
		return nil
	}
	if _, err := db.sql.ExecContext(ctx, sequenceTableDDL); err != nil {
		// another server may have created it meanwhile
		if ok, err2 := db.probeTable(ctx, db.sql, "lakepg_sequence"); err2 == nil && ok {
			db.noteCreated(ctx, "lakepg_sequence")
			return nil
		}
		return fmt.Errorf("catalog: create lakepg_sequence: %w", err)
	}
	db.noteCreated(ctx, "lakepg_sequence")
	return nil
}

// Sequences lists every sequence, ordered by id; none before the first is
// created.
func (db *DB) Sequences(ctx context.Context) ([]Sequence, error) {
	ok, err := db.tableExists(ctx, db.sql, "lakepg_sequence")
	if err != nil || !ok {
		return nil, err
	}
	return readSequences(ctx, db.q(), `ORDER BY sequence_id`)
}

// Sequence reads one sequence by id.
func (db *DB) Sequence(ctx context.Context, id int64) (Sequence, error) {
	ss, err := readSequences(ctx, db.q(), `WHERE sequence_id = ?`, id)
	if err != nil {
		return Sequence{}, err
	}
	if len(ss) == 0 {
		return Sequence{}, ErrSequenceNotFound
	}
	return ss[0], nil
}

func readSequences(ctx context.Context, q queryer, where string, args ...any) ([]Sequence, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+sequenceCols+` FROM lakepg_sequence `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("catalog: read lakepg_sequence: %w", err)
	}
	defer rows.Close()
	var out []Sequence
	for rows.Next() {
		var s Sequence
		var cycle, called int64
		var ot, oc sql.NullInt64
		var ident sql.NullString
		if err := rows.Scan(&s.ID, &s.SchemaID, &s.Name, &s.DataType, &s.Start, &s.Inc, &s.Min, &s.Max,
			&s.Cache, &cycle, &s.LastValue, &called, &ot, &oc, &ident); err != nil {
			return nil, fmt.Errorf("catalog: read lakepg_sequence: %w", err)
		}
		s.Cycle, s.IsCalled = cycle != 0, called != 0
		s.OwnerTable, s.OwnerColumn, s.Identity = ot.Int64, oc.Int64, ident.String
		out = append(out, s)
	}
	return out, rows.Err()
}

// CreateSequence inserts s with a new sequence_id, which it returns; the
// table must exist (EnsureSequenceTable).
func (t *Tx) CreateSequence(ctx context.Context, s Sequence) (int64, error) {
	ss, err := readSequences(ctx, t, `WHERE schema_id = ? AND sequence_name = ?`, s.SchemaID, s.Name)
	if err != nil {
		return 0, err
	}
	if len(ss) > 0 {
		return 0, ErrSequenceExists
	}
	var id int64
	if err := t.QueryRowContext(ctx, `SELECT COALESCE(MAX(sequence_id), 0) + 1 FROM lakepg_sequence`).Scan(&id); err != nil {
		return 0, fmt.Errorf("catalog: next sequence id: %w", err)
	}
	_, err = t.ExecContext(ctx, `INSERT INTO lakepg_sequence (`+sequenceCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, s.SchemaID, s.Name, s.DataType, s.Start, s.Inc, s.Min, s.Max, s.Cache, boolInt(s.Cycle),
		s.LastValue, boolInt(s.IsCalled), nullID(s.OwnerTable), nullID(s.OwnerColumn), nullString(s.Identity))
	if err != nil {
		return 0, fmt.Errorf("catalog: write lakepg_sequence: %w", err)
	}
	return id, nil
}

// UpdateSequence rewrites every column of sequence s.ID but last_value and
// is_called, which only AdvanceSequence and SetSequenceValue move.
func (t *Tx) UpdateSequence(ctx context.Context, s Sequence) error {
	res, err := t.ExecContext(ctx, `UPDATE lakepg_sequence SET schema_id = ?, sequence_name = ?, data_type = ?, start_value = ?,
	increment_by = ?, min_value = ?, max_value = ?, cache_size = ?, cycle = ?, owner_table_id = ?, owner_column_id = ?, identity = ?
	WHERE sequence_id = ?`,
		s.SchemaID, s.Name, s.DataType, s.Start, s.Inc, s.Min, s.Max, s.Cache, boolInt(s.Cycle),
		nullID(s.OwnerTable), nullID(s.OwnerColumn), nullString(s.Identity), s.ID)
	if err != nil {
		return fmt.Errorf("catalog: write lakepg_sequence: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return ErrSequenceNotFound
	}
	return nil
}

// RestartSequence sets sequence id's state (ALTER SEQUENCE … RESTART).
func (t *Tx) RestartSequence(ctx context.Context, id, lastValue int64, isCalled bool) error {
	if _, err := t.ExecContext(ctx, `UPDATE lakepg_sequence SET last_value = ?, is_called = ? WHERE sequence_id = ?`,
		lastValue, boolInt(isCalled), id); err != nil {
		return fmt.Errorf("catalog: write lakepg_sequence: %w", err)
	}
	return nil
}

// DropSequence deletes sequence id; a sequence already gone is no error.
func (t *Tx) DropSequence(ctx context.Context, id int64) error {
	if _, err := t.ExecContext(ctx, `DELETE FROM lakepg_sequence WHERE sequence_id = ?`, id); err != nil {
		return fmt.Errorf("catalog: write lakepg_sequence: %w", err)
	}
	return nil
}

// AdvanceSequence moves sequence id from its current state to the state
// next computes from it, atomically: an UPDATE that only succeeds when
// last_value and is_called are still what was read, retried otherwise.
// Several servers and sessions may call it at once; each call's move is
// its own, so values it hands out are never handed out again. It returns
// the state it read and the state it wrote.
func (db *DB) AdvanceSequence(ctx context.Context, id int64, next func(cur Sequence) (Sequence, error)) (Sequence, Sequence, error) {
	for {
		cur, err := db.Sequence(ctx, id)
		if err != nil {
			return Sequence{}, Sequence{}, err
		}
		nw, err := next(cur)
		if err != nil {
			return Sequence{}, Sequence{}, err
		}
		res, err := db.sql.ExecContext(ctx, db.d.rebind(`UPDATE lakepg_sequence SET last_value = ?, is_called = ?
	WHERE sequence_id = ? AND last_value = ? AND is_called = ?`),
			nw.LastValue, boolInt(nw.IsCalled), id, cur.LastValue, boolInt(cur.IsCalled))
		if err != nil {
			if ctx.Err() != nil {
				return Sequence{}, Sequence{}, ctx.Err()
			}
			if retryableSequenceError(err) {
				continue
			}
			return Sequence{}, Sequence{}, fmt.Errorf("catalog: advance sequence: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return Sequence{}, Sequence{}, fmt.Errorf("catalog: advance sequence: %w", err)
		}
		if n == 1 {
			return cur, nw, nil
		}
		// another session moved it first: read again
	}
}

// retryableSequenceError is a PostgreSQL serialization failure or deadlock
// (under a stricter default isolation), or SQLite's busy: the
// compare-and-set simply runs again.
func retryableSequenceError(err error) bool {
	s := err.Error()
	for _, m := range []string{"40001", "40P01", "SQLITE_BUSY", "database is locked"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}
