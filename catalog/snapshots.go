package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Snapshot is one row of ducklake_snapshot with its ducklake_snapshot_changes
// row. NextCatalogID and NextFileID are the next free ids after this
// snapshot's commit.
type Snapshot struct {
	ID            int64
	Time          time.Time
	SchemaVersion int64
	NextCatalogID int64
	NextFileID    int64
	Changes       string
	Author        *string
	Message       *string
}

const snapshotSelect = `SELECT s.snapshot_id, s.snapshot_time, s.schema_version, s.next_catalog_id, s.next_file_id,
	c.changes_made, c.author, c.commit_message
FROM ducklake_snapshot s LEFT JOIN ducklake_snapshot_changes c ON c.snapshot_id = s.snapshot_id`

func scanSnapshots(rows *sql.Rows) ([]Snapshot, error) {
	defer rows.Close()
	return scanSnapshotRows(rows)
}

// scanSnapshotRows reads snapshotSelect's rows from a database/sql or a
// pipelined pgx result (commitreads.go).
func scanSnapshotRows(rows rowScanner) ([]Snapshot, error) {
	var out []Snapshot
	for rows.Next() {
		var (
			s               Snapshot
			t               NullTime
			sv, nc, nf      sql.NullInt64
			changes, author sql.NullString
			msg             sql.NullString
		)
		if err := rows.Scan(&s.ID, &t, &sv, &nc, &nf, &changes, &author, &msg); err != nil {
			return nil, fmt.Errorf("catalog: read snapshot: %w", err)
		}
		s.Time = t.Time
		s.SchemaVersion, s.NextCatalogID, s.NextFileID = sv.Int64, nc.Int64, nf.Int64
		s.Changes = changes.String
		s.Author, s.Message = nullStr(author), nullStr(msg)
		out = append(out, s)
	}
	return out, rows.Err()
}

func oneSnapshot(ctx context.Context, q queryer, where string, args ...any) (Snapshot, error) {
	rows, err := q.QueryContext(ctx, snapshotSelect+" "+where, args...)
	if err != nil {
		return Snapshot{}, fmt.Errorf("catalog: read snapshot: %w", err)
	}
	snaps, err := scanSnapshots(rows)
	if err != nil {
		return Snapshot{}, err
	}
	if len(snaps) == 0 {
		return Snapshot{}, ErrSnapshotNotFound
	}
	return snaps[0], nil
}

const headWhere = `WHERE s.snapshot_id = (SELECT MAX(snapshot_id) FROM ducklake_snapshot)`

// Head is the latest snapshot (the highest snapshot_id).
func (db *DB) Head(ctx context.Context) (Snapshot, error) {
	var s Snapshot
	var err error
	if f := statementFacts(ctx); f != nil && !f.read && db.d.name == "postgres" {
		s, err = db.headGathering(ctx, f) // stmtcache.go
	} else {
		s, err = oneSnapshot(ctx, db.q(), headWhere)
	}
	if err == nil {
		db.noteHead(s) // filecache.go
	}
	return s, err
}

// Head is the latest snapshot as this transaction sees it.
func (t *Tx) Head(ctx context.Context) (Snapshot, error) {
	if p := t.prefetched(); p != nil {
		return p.head, nil
	}
	return oneSnapshot(ctx, t, headWhere)
}

// SnapshotByID is the snapshot with exactly this id, or ErrSnapshotNotFound.
func (db *DB) SnapshotByID(ctx context.Context, id int64) (Snapshot, error) {
	return oneSnapshot(ctx, db.q(), `WHERE s.snapshot_id = ?`, id)
}

// SnapshotAsOf is the latest snapshot whose snapshot_time is at or before t
// (DuckDB's AT (TIMESTAMP => t)), or ErrSnapshotNotFound.
//
// Times are compared in Go, not in SQL: on SQLite they are text, and DuckDB
// renders them in its session time zone, so text order is not time order.
func (db *DB) SnapshotAsOf(ctx context.Context, t time.Time) (Snapshot, error) {
	rows, err := db.q().QueryContext(ctx, `SELECT snapshot_id, snapshot_time FROM ducklake_snapshot`)
	if err != nil {
		return Snapshot{}, fmt.Errorf("catalog: read snapshots: %w", err)
	}
	defer rows.Close()
	best := int64(-1)
	var bestTime time.Time
	for rows.Next() {
		var id int64
		var st NullTime
		if err := rows.Scan(&id, &st); err != nil {
			return Snapshot{}, fmt.Errorf("catalog: read snapshots: %w", err)
		}
		if !st.Valid || st.Time.After(t) {
			continue
		}
		if best < 0 || st.Time.After(bestTime) || (st.Time.Equal(bestTime) && id > best) {
			best, bestTime = id, st.Time
		}
	}
	if err := rows.Err(); err != nil {
		return Snapshot{}, fmt.Errorf("catalog: read snapshots: %w", err)
	}
	rows.Close()
	if best < 0 {
		return Snapshot{}, ErrSnapshotNotFound
	}
	return db.SnapshotByID(ctx, best)
}

// Snapshots lists every snapshot, ordered by id, with its changes.
func (db *DB) Snapshots(ctx context.Context) ([]Snapshot, error) {
	rows, err := db.q().QueryContext(ctx, snapshotSelect+` ORDER BY s.snapshot_id`)
	if err != nil {
		return nil, fmt.Errorf("catalog: read snapshots: %w", err)
	}
	return scanSnapshots(rows)
}

// ChangesSince returns the changes_made of every snapshot after base, in
// snapshot order: what other writers did since a transaction started.
func (t *Tx) ChangesSince(ctx context.Context, base int64) ([]string, error) {
	if p := t.prefetched(); p != nil {
		if out, ok := p.changesSince(base); ok {
			return out, nil
		}
	}
	rows, err := t.QueryContext(ctx, changesSinceQuery, base)
	if err != nil {
		return nil, fmt.Errorf("catalog: read snapshot changes: %w", err)
	}
	defer rows.Close()
	return scanChanges(rows)
}

const changesSinceQuery = `SELECT changes_made` + changesAfter

// changesAfter selects the ducklake_snapshot_changes rows after a snapshot
// id, in order. The upper bound changes nothing (no snapshot is newer than
// the newest) but the plan: PostgreSQL plans a statement prepared once
// generically after a few runs, and for "snapshot_id > $1" alone it then
// guesses a third of the table and scans and sorts all of it, a cost that
// grew with every commit (0.7 ms per commit at 9,000 snapshots); with two
// bounds it guesses a narrow range and reads the key's index.
const changesAfter = ` FROM ducklake_snapshot_changes WHERE snapshot_id > ? AND snapshot_id <= (SELECT MAX(snapshot_id) FROM ducklake_snapshot) ORDER BY snapshot_id`

func scanChanges(rows rowScanner) ([]string, error) {
	var out []string
	for rows.Next() {
		var c sql.NullString
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("catalog: read snapshot changes: %w", err)
		}
		if c.String != "" {
			out = append(out, c.String)
		}
	}
	return out, rows.Err()
}
