package snapshot

import (
	"context"
	"fmt"
	"sync"

	"github.com/lakepg/lakepg/catalog"
)

// Group commit. Commits of one process to one catalog that are ready at the
// same moment share a catalog transaction: each is written as its own
// snapshot, one after the other (snapshot ids consecutive), then one COMMIT
// makes them all durable. On PostgreSQL that is one commit lock, one BEGIN
// and one COMMIT (one WAL flush) for the group instead of one each; on
// SQLite one write transaction (one fsync).
//
// Nothing of the protocol changes for a member: it reads the head inside the
// transaction, which is the previous member's snapshot, and checks its
// changes against everything committed since its base — the earlier
// members' included — with the same conflict rules, exactly as if the
// previous member had committed on its own just before. Each member's
// writes are fenced by a savepoint, so a member that conflicts or fails is
// rolled back alone and gets its error (and retries, if the error says so,
// in a later group), while the others go on. Only when the COMMIT itself
// fails do all members fail, and then nothing of any of them is in the
// catalog, so their retries cannot duplicate anything. A member is told it
// committed only after the COMMIT succeeded.
//
// The first commit to arrive while no group is being written leads: it
// takes every commit queued by then, itself included, writes them, and on
// finishing hands the lead to the first commit that queued meanwhile. A
// lone commit goes the ordinary way (try), so an idle server adds no
// latency and no savepoints.

// committer queues the commits of one catalog handle.
type committer struct {
	mu      sync.Mutex
	queue   []*member
	leading bool
}

// member is one commit waiting in a group.
type member struct {
	c       *Commit
	ctx     context.Context
	attempt int
	lead    chan struct{} // closed when this member is to lead the next group
	done    chan struct{} // closed when snap and err are set
	snap    catalog.Snapshot
	err     error
}

var committers sync.Map // *catalog.DB -> *committer

func committerOf(db *catalog.DB) *committer {
	if g, ok := committers.Load(db); ok {
		return g.(*committer)
	}
	g, _ := committers.LoadOrStore(db, &committer{})
	return g.(*committer)
}

// tryGrouped is one attempt of c, alone or in a group.
func (c *Commit) tryGrouped(ctx context.Context, attempt int) (catalog.Snapshot, error) {
	g := committerOf(c.db)
	m := &member{c: c, ctx: ctx, attempt: attempt, lead: make(chan struct{}), done: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, m)
	if g.leading {
		g.mu.Unlock()
		// Wait even when ctx ends: once a group has taken this commit, only
		// its leader knows whether it committed, and a commit reported as
		// failed must not be in the catalog.
		select {
		case <-m.done:
			return m.snap, m.err
		case <-m.lead:
		}
	} else {
		g.leading = true
		g.mu.Unlock()
	}
	g.lead()
	<-m.done
	return m.snap, m.err
}

// lead writes the queued commits as one group, then passes the lead on.
func (g *committer) lead() {
	g.mu.Lock()
	batch := g.queue
	g.queue = nil
	g.mu.Unlock()
	writeGroup(batch)
	g.mu.Lock()
	if len(g.queue) > 0 {
		close(g.queue[0].lead)
	} else {
		g.leading = false
	}
	g.mu.Unlock()
}

// writeGroup commits the members' changes and closes each member's done.
func writeGroup(batch []*member) {
	if len(batch) == 1 {
		m := batch[0]
		m.snap, m.err = m.c.try(m.ctx, m.attempt)
		close(m.done)
		return
	}
	groupCommits.Add(1)
	groupMembers.Add(int64(len(batch)))
	// No member's cancellation may end the transaction the others are in
	// (database/sql rolls a transaction back when its context ends): a
	// member's context is looked at only before its turn.
	ctx := context.WithoutCancel(batch[0].ctx)
	fail := func(ms []*member, err error) {
		for _, m := range ms {
			m.snap, m.err = catalog.Snapshot{}, err
			close(m.done)
		}
	}
	tx, err := batch[0].c.db.BeginCommit(ctx, groupReads(batch))
	if err != nil {
		fail(batch, fmt.Errorf("snapshot: begin commit: %w", err))
		return
	}
	defer tx.Rollback()
	if tx.Pipelined() {
		writePipelined(ctx, tx, batch)
		return
	}
	type written struct {
		m             *member
		snap          catalog.Snapshot
		nextCatalogID int64
	}
	var ok []written
	// The answers BeginCommit read ahead serve every member, kept true as
	// in writePipelined; a member rolled back to its savepoint gets them
	// back as they were at the savepoint.
	tx.KeepReads()
	for i, m := range batch {
		if err := m.ctx.Err(); err != nil {
			m.err = err
			close(m.done)
			continue
		}
		sp := fmt.Sprintf("lakepg_group_%d", i)
		mark := tx.Mark()
		err := tx.Savepoint(ctx, sp)
		var snap catalog.Snapshot
		var next int64
		if err == nil {
			snap, next, err = m.c.writeIn(ctx, tx, m.attempt)
		}
		if err == nil && !m.c.InsertsOnly() {
			tx.ForgetReads()
		}
		if err == nil {
			if ferr := tx.ReleaseAndFlush(ctx, sp); ferr != nil {
				err = deferredCause(tx, ferr)
			}
		}
		if err == nil {
			tx.Advance(snap)
		}
		if err != nil {
			rerr := tx.RollbackTo(ctx, sp)
			tx.RestoreReads(mark)
			if rerr != nil {
				// the transaction is unusable: nothing of the group commits
				var undone []*member
				for _, w := range ok {
					undone = append(undone, w.m)
				}
				fail(append(undone, batch[i:]...), fmt.Errorf("snapshot: group commit: roll back to savepoint after %v: %w", err, rerr))
				return
			}
			m.err = err
			close(m.done)
			continue
		}
		ok = append(ok, written{m: m, snap: snap, nextCatalogID: next})
	}
	if len(ok) == 0 {
		return
	}
	var members []*member
	for _, w := range ok {
		members = append(members, w.m)
	}
	if err := tx.Commit(); err != nil {
		fail(members, fmt.Errorf("snapshot: commit snapshots %d..%d: %w", ok[0].snap.ID, ok[len(ok)-1].snap.ID, err))
		return
	}
	for _, w := range ok {
		w.m.c.finalCatalogBase = w.nextCatalogID
		w.m.snap = w.snap
		close(w.m.done)
	}
}

// groupReads are the reads of every member, for BeginCommit to fetch at once.
func groupReads(batch []*member) *catalog.CommitReads {
	r := batch[0].c.reads()
	ids := idSet{}
	for _, id := range r.Tables {
		ids.add(id)
	}
	for _, m := range batch[1:] {
		mr := m.c.reads()
		r.Base = min(r.Base, mr.Base)
		for _, id := range mr.Tables {
			ids.add(id)
		}
	}
	r.Tables = ids.sorted()
	return r
}

// writePipelined writes a group in a pipelined transaction (PostgreSQL),
// where a savepoint per member would cost a round trip per member while
// every server's commits wait for the commit lock. Instead the members'
// writes are queued one after the other, with the answers BeginCommit read
// ahead kept true as each member's writes are queued (catalog.Tx.KeepReads),
// so a group of any size costs two round trips: the reads, and the writes
// with COMMIT. A member that fails before any of its writes was sent is
// dropped from the queue alone (catalog.Tx.Undo); any other failure ends
// the transaction with nothing of the group committed, and each member is
// then written on its own, as if no group had formed.
func writePipelined(ctx context.Context, tx *catalog.Tx, batch []*member) {
	tx.KeepReads()
	type written struct {
		m             *member
		snap          catalog.Snapshot
		nextCatalogID int64
	}
	var ok []written
	alone := func() {
		tx.Rollback()
		for _, w := range ok {
			m := w.m
			m.snap, m.err = m.c.try(m.ctx, m.attempt)
			close(m.done)
		}
	}
	for i, m := range batch {
		if err := m.ctx.Err(); err != nil {
			m.err = err
			close(m.done)
			continue
		}
		mark := tx.Mark()
		snap, next, err := m.c.writeIn(ctx, tx, m.attempt)
		if err == nil && !m.c.InsertsOnly() {
			// its writes may change what the answers read ahead say
			tx.ForgetReads()
		}
		if err != nil {
			if !tx.Undo(mark) {
				// this member's or an earlier one's writes reached the
				// catalog and failed or cannot be taken back
				for _, rest := range batch[i:] {
					if rest.ctx.Err() == nil || rest == m {
						ok = append(ok, written{m: rest})
					} else {
						rest.err = rest.ctx.Err()
						close(rest.done)
					}
				}
				alone()
				return
			}
			m.err = err
			close(m.done)
			continue
		}
		tx.Advance(snap)
		ok = append(ok, written{m: m, snap: snap, nextCatalogID: next})
	}
	if len(ok) == 0 {
		return
	}
	if err := tx.Commit(); err != nil {
		// nothing of the group is in the catalog (a COMMIT that succeeded
		// reports no error)
		alone()
		return
	}
	for _, w := range ok {
		w.m.c.finalCatalogBase = w.nextCatalogID
		w.m.snap = w.snap
		close(w.m.done)
	}
}

// InsertsOnly reports whether the commit only adds rows (data files or
// inlined rows) to tables that exist and have no primary key or unique
// constraint, and runs no extras. Such a commit conflicts with no
// concurrent insert, so a server may stage several at once and let them
// commit in one group; whatever else they meet (a drop, an ALTER) the
// commit's own checks against the head catch, as they do for another
// server's commits. Inserts into keyed tables are left out: staged one at a
// time, a duplicate key is always 23505, never the 40001 of a keyed table
// written concurrently (constraints.go).
func (c *Commit) InsertsOnly() bool {
	if len(c.extras) > 0 || len(c.cons.keyed) > 0 {
		return false
	}
	m := c.mine()
	return len(m.inserted) > 0 && len(m.createdSchemas) == 0 && len(m.createdTables) == 0 &&
		len(m.droppedSchemas) == 0 && len(m.droppedTables) == 0 && len(m.deleted) == 0 &&
		len(m.deletedInline) == 0 && len(m.altered) == 0 && len(m.renamed) == 0 && len(m.changedViews) == 0
}
