package snapshot

import (
	"context"
	"slices"

	"github.com/lakepg/lakepg/catalog"
)

// PRIMARY KEY and UNIQUE constraints are rows of lakepg_constraint
// (catalog/constraints.go), written in the commit's catalog transaction. A
// commit that adds or drops one of an existing table says altered_table for
// that table, so concurrent writers of the table conflict with it as with
// any ALTER (an ADD checked the rows its statement saw).
//
// Enforcement is the sql layer's: before a commit that adds rows to a keyed
// table, it checks the new keys against the table at the commit's base.
// What another writer commits after that base is unknown to that check, so
// such a commit marks the table (CheckedKeys), and the conflict check adds a
// rule: a commit whose keys were checked at snapshot B conflicts with any
// snapshot after B that inserted into the same table (a data file or inlined
// rows). Two writers inserting the same key can then never both commit: the
// second gets 40001. It also refuses concurrent inserts of different keys
// into one keyed table; lakepg's own writers in one server avoid that by
// checking autocommit statements under the engine's writer lock against the
// latest snapshot.

type newConstraint struct {
	provID  int64
	tableID int64 // may be provisional
	name    string
	typ     string
	cols    []int64
	dropped bool
}

type droppedConstraint struct {
	tableID int64
	con     catalog.Constraint
}

// constraintChanges are a commit's constraint changes.
type constraintChanges struct {
	added   []*newConstraint
	dropped []droppedConstraint
	// keyed maps tables whose new keys were checked to the snapshot the
	// check read
	keyed map[int64]int64
}

func (cc *constraintChanges) empty() bool {
	for _, a := range cc.added {
		if !a.dropped {
			return false
		}
	}
	return len(cc.dropped) == 0
}

// ColumnIDs are the column ids a new table gives cols (depth-first from 1).
func ColumnIDs(cols []ColumnDef) []int64 {
	nt := &newTable{cols: cols}
	return nt.columnIDs()
}

// AddConstraint adds a PRIMARY KEY (typ "p") or UNIQUE ("u") constraint
// over the column ids cols of table t (which may be created in this commit)
// and returns its provisional id.
func (c *Commit) AddConstraint(t catalog.Table, name, typ string, cols []int64) int64 {
	id := c.allocCatalogID()
	c.cons.added = append(c.cons.added, &newConstraint{provID: id, tableID: t.ID, name: name, typ: typ, cols: append([]int64(nil), cols...)})
	return id
}

// DropConstraint drops a constraint of table t.
func (c *Commit) DropConstraint(t catalog.Table, con catalog.Constraint) {
	for _, a := range c.cons.added {
		if a.provID == con.ID {
			a.dropped = true
			return
		}
	}
	c.cons.dropped = append(c.cons.dropped, droppedConstraint{tableID: t.ID, con: con})
}

// SetColumnNotNull makes a column NOT NULL (a PRIMARY KEY's columns).
func (c *Commit) SetColumnNotNull(t catalog.Table, columnID int64) {
	if nt := c.findNewTable(t.ID); nt != nil {
		if d, _ := newTableColumn(nt, columnID); d != nil {
			d.NullsAllowed = false
		}
		return
	}
	if a := c.findAddedColumn(t.ID, columnID); a != nil {
		a.def.NullsAllowed = false
		return
	}
	ch := c.change(t.ID, columnID)
	ch.notNull, ch.nullable = true, false
}

// CheckedKeys records that the keys this commit adds to table id were
// checked against the table at snapshot at (see above).
func (c *Commit) CheckedKeys(tableID, at int64) {
	if c.isProvisional(tableID) {
		return // nobody else can insert into a table this commit creates
	}
	if c.cons.keyed == nil {
		c.cons.keyed = map[int64]int64{}
	}
	if prev, ok := c.cons.keyed[tableID]; !ok || at < prev {
		c.cons.keyed[tableID] = at
	}
}

// overlayConstraints applies the commit's constraint changes to out.
func (c *Commit) overlayConstraints(meta, out *catalog.Metadata) {
	for _, con := range meta.Constraints {
		if c.dropsTable(con.TableID) || slices.ContainsFunc(c.cons.dropped, func(d droppedConstraint) bool { return d.con.ID == con.ID }) {
			continue
		}
		out.Constraints = append(out.Constraints, con)
	}
	for _, a := range c.cons.added {
		if a.dropped || c.dropsTable(a.tableID) {
			continue
		}
		out.Constraints = append(out.Constraints, catalog.Constraint{ID: a.provID, TableID: a.tableID, Name: a.name, Type: a.typ,
			Columns: append([]int64(nil), a.cols...), BeginSnapshot: meta.Snapshot.ID + 1})
	}
}

// mineConstraints marks existing tables whose constraints change as altered.
func (c *Commit) mineConstraints(m *mine) {
	for _, a := range c.cons.added {
		if !a.dropped && !c.isProvisional(a.tableID) {
			m.altered.add(a.tableID)
		}
	}
	for _, d := range c.cons.dropped {
		m.altered.add(d.tableID)
	}
}

// checkKeyed applies the rule above inside a commit attempt.
func (c *Commit) checkKeyed(ctx context.Context, tx *catalog.Tx, head catalog.Snapshot) error {
	for tid, at := range c.cons.keyed {
		if head.ID <= at {
			continue
		}
		changes, err := tx.ChangesSince(ctx, at)
		if err != nil {
			return err
		}
		other := newChangeSet()
		for _, ch := range changes {
			if err := other.parse(ch); err != nil {
				return err
			}
		}
		if other.inserted[tid] || other.insertedInline[tid] {
			return conflictf("attempting to insert keys into table with index %d, but another transaction inserted into it after they were checked", tid)
		}
	}
	return nil
}

// writeConstraints writes the commit's constraint rows.
func (w *writer) writeConstraints() error {
	cc := &w.c.cons
	var dropTables []int64
	for _, d := range w.c.droppedTables {
		dropTables = append(dropTables, d.t.ID)
	}
	if cc.empty() && len(dropTables) == 0 {
		return nil
	}
	if cc.empty() {
		// a dropped table's constraints end with it
		ok, err := w.tx.ConstraintTableExists(w.ctx)
		if err != nil || !ok {
			return err
		}
	} else if err := w.tx.EnsureConstraintTable(w.ctx); err != nil {
		return err
	}
	for _, tid := range dropTables {
		if _, err := w.endLive("lakepg_constraint", "table_id = ?", tid); err != nil {
			return err
		}
	}
	for _, d := range cc.dropped {
		if w.droppedTable(d.tableID) {
			continue
		}
		n, err := w.endLive("lakepg_constraint", "constraint_id = ?", d.con.ID)
		if err != nil {
			return err
		}
		if n == 0 {
			return conflictf("attempting to drop constraint %q, but another transaction dropped it already", d.con.Name)
		}
		w.done.altered.add(d.tableID)
		w.done.versioned.add(d.tableID)
	}
	for _, a := range cc.added {
		if a.dropped || w.droppedTable(a.tableID) {
			continue
		}
		tid := w.fid(a.tableID)
		if !w.c.isProvisional(a.tableID) {
			if err := w.tableLive(tid); err != nil {
				return err
			}
		}
		if _, err := w.exec(`INSERT INTO lakepg_constraint VALUES (?, ?, NULL, ?, ?, ?, ?)`,
			w.fid(a.provID), w.snapID, tid, a.name, a.typ, catalog.EncodeColumnIDs(a.cols)); err != nil {
			return err
		}
		if !w.c.isProvisional(a.tableID) {
			w.done.altered.add(tid)
			w.done.versioned.add(tid)
		}
	}
	return nil
}

// clone copies the changes deeply, for savepoints (savepoint.go).
func (cc constraintChanges) clone() constraintChanges {
	out := constraintChanges{dropped: slices.Clone(cc.dropped)}
	for _, a := range cc.added {
		v := *a
		v.cols = slices.Clone(a.cols)
		out.added = append(out.added, &v)
	}
	if cc.keyed != nil {
		out.keyed = map[int64]int64{}
		for k, v := range cc.keyed {
			out.keyed[k] = v
		}
	}
	return out
}
