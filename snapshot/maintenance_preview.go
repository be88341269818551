package snapshot

import (
	"context"
	"fmt"
	"sort"

	"github.com/lakepg/lakepg/catalog"
)

// ExpirePreview is a dry run of ExpireSnapshots: the snapshots it would
// expire and the files (resolved paths) it would schedule for deletion. It
// runs the expiry in a catalog transaction and rolls it back, so the answer
// is exactly what the real run would do at this moment, and nothing changes;
// the transaction holds the catalog's write lock for that long.
func ExpirePreview(ctx context.Context, db *catalog.DB, opt ExpireOptions) ([]catalog.Snapshot, []string, error) {
	opt.DryRun = true
	chosen, err := expireOnce(ctx, db, opt)
	if err != nil || len(chosen) == 0 {
		return chosen, nil, err
	}
	tx, err := db.BeginWrite(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("snapshot: begin expire preview: %w", err)
	}
	defer tx.Rollback()
	x := &expirer{ctx: ctx, tx: tx, dataPath: db.DataPath()}
	before, err := x.scheduled()
	if err != nil {
		return nil, nil, err
	}
	if err := x.run(chosen); err != nil {
		return nil, nil, err
	}
	after, err := x.scheduled()
	if err != nil {
		return nil, nil, err
	}
	var files []string
	for p := range after {
		if !before[p] {
			files = append(files, p)
		}
	}
	sort.Strings(files)
	return chosen, files, nil
}

// scheduled is the set of resolved paths in ducklake_files_scheduled_for_deletion.
func (x *expirer) scheduled() (map[string]bool, error) {
	rows, err := x.tx.QueryContext(x.ctx, `SELECT path, path_is_relative FROM ducklake_files_scheduled_for_deletion`)
	if err != nil {
		return nil, fmt.Errorf("snapshot: read files scheduled for deletion: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var (
			p   string
			rel catalog.NullBool
		)
		if err := rows.Scan(&p, &rel); err != nil {
			return nil, err
		}
		if !rel.Valid || rel.Bool {
			p = x.dataPath + p
		}
		out[p] = true
	}
	return out, rows.Err()
}
