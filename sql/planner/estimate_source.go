package planner

import (
	"context"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql/planner/estimate"
)

// newEstimator estimates the rows of the plans s makes (package estimate),
// for join ordering and EXPLAIN.
func newEstimator(ctx context.Context, s *Session) *estimate.Estimator {
	return estimate.New(ctx, estSource{s})
}

// estSource is what row estimates read of the session: the footers of a
// scan's files, the pipelines of the Parallels made while planning, the
// lake table behind a scan, the rules switched off and the sketches.
type estSource struct{ s *Session }

func (a estSource) RowGroups(ctx context.Context, o *exec.TableScan) (estimate.ScanStats, error) {
	return a.s.rowGroups(ctx, o)
}

func (a estSource) Chain(o *exec.Parallel) exec.Operator { return a.s.chains[o] }

func (a estSource) ScanTable(o *exec.TableScan) *estimate.ScanTable {
	ref := a.s.scanRefs[o]
	if ref == nil {
		return nil
	}
	return &estimate.ScanTable{Schema: ref.Schema, Table: ref.Table, Snap: ref.Snap, Files: ref.Files, Kept: ref.Kept, Pruned: ref.Pruned, ScanFiles: ref.ScanFiles, Pending: ref.Pending}
}

func (a estSource) RuleOn(name string) bool { return a.s.ruleOn(name) }

func (a estSource) Sketches(ctx context.Context, sch *catalog.Schema, t *catalog.Table, snap catalog.Snapshot) (*catalog.TableSketches, error) {
	return a.s.DB.Sketches(ctx, sch, t, snap)
}
