package snapshot

import (
	"context"

	"github.com/lakepg/lakepg/catalog"
)

// Extra writes rows of lakepg's own catalog tables (lakepg_sequence) in the
// catalog transaction of a commit, so that they commit, fail or retry with
// it. finalID maps an id the commit handed out (CreateSchema, CreateTable)
// to the id this attempt writes. An Extra runs again on every attempt: it
// must only write through tx.
type Extra func(ctx context.Context, tx *catalog.Tx, finalID func(int64) int64) error

// AddExtra queues fn for the commit. A commit of extras alone writes no
// DuckLake snapshot: it only runs them in one catalog transaction.
func (c *Commit) AddExtra(fn Extra) { c.extras = append(c.extras, fn) }

// onlyExtras reports whether the commit changes nothing but extras.
func (c *Commit) onlyExtras() bool {
	if len(c.extras) == 0 {
		return false
	}
	ex := c.extras
	c.extras = nil
	empty := c.Empty()
	c.extras = ex
	return empty
}

func (c *Commit) runExtras(ctx context.Context, tx *catalog.Tx, nextCatalogID int64) error {
	final := func(id int64) int64 { return c.remap(id, nextCatalogID) }
	for _, fn := range c.extras {
		if err := fn(ctx, tx, final); err != nil {
			return err
		}
	}
	return nil
}
