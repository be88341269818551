package maintenance

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/snapshot"
)

// Dry runs (dry_run => true) of the maintenance calls: they read the
// catalog as the real call would and report, in the NOTICE's first line, a
// summary and, in its detail, one line per file, snapshot or table the call
// would touch. They write nothing: no file, no catalog row.

// maxPlanLines bounds a dry run's detail so a lake of a million small files
// does not produce a notice of a million lines.
const maxPlanLines = 1000

// maintPlan collects what a dry run would do.
type maintPlan struct {
	items   int // files, rows or snapshots the summary counts
	results int // files the call would write
	lines   []string
	more    int // lines left out beyond maxPlanLines
}

func (p *maintPlan) add(format string, args ...any) {
	if len(p.lines) >= maxPlanLines {
		p.more++
		return
	}
	p.lines = append(p.lines, fmt.Sprintf(format, args...))
}

// message is the summary line followed by the detail lines.
func (p *maintPlan) message(format string, args ...any) string {
	var b strings.Builder
	fmt.Fprintf(&b, format, args...)
	for _, l := range p.lines {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	if p.more > 0 {
		fmt.Fprintf(&b, "\n… and %d more", p.more)
	}
	return b.String()
}

func tableName(sel tableSel) string { return sel.sch.Name + "." + sel.t.Name }

// mergeGroups chooses the files merge_adjacent_files merges: the table's
// small files that have no deletes and were written under its current
// layout, in DuckDB's order (begin snapshot, row id start, file id), cut
// into groups of up to target_file_size (and max_compacted_files). As in
// DuckDB, a group holds files of one partition only (same spec, same
// values). Groups of one file are left as they are.
func (s *Runner) mergeGroups(ctx context.Context, head catalog.Snapshot, sel tableSel, maxFiles int64) ([][]catalog.DataFile, error) {
	if hasVariantColumn(sel.t) {
		return nil, nil
	}
	db := s.DB
	files, err := db.Files(ctx, sel.sch, sel.t, head)
	if err != nil || len(files) < 2 {
		return nil, err
	}
	inl, err := db.InlinedFileDeletes(ctx, sel.t.ID, head)
	if err != nil {
		return nil, err
	}
	since, err := snapshot.LayoutSince(ctx, db, *sel.t)
	if err != nil {
		return nil, err
	}
	target, err := s.targetFileSize(ctx, sel.sch, sel.t)
	if err != nil {
		return nil, err
	}
	var cands []catalog.DataFile
	for _, f := range files {
		if f.Delete == nil && len(inl[f.ID]) == 0 && f.BeginSnapshot >= since && f.MappingID == nil && f.FileSize < target {
			cands = append(cands, f)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.BeginSnapshot != b.BeginSnapshot {
			return a.BeginSnapshot < b.BeginSnapshot
		}
		if a.RowIDStart != b.RowIDStart {
			return a.RowIDStart < b.RowIDStart
		}
		return a.ID < b.ID
	})
	// one run per partition (partitionGroup), in order of first file
	var order []string
	byPart := map[string][]catalog.DataFile{}
	for _, f := range cands {
		k := partitionGroup(f)
		if _, ok := byPart[k]; !ok {
			order = append(order, k)
		}
		byPart[k] = append(byPart[k], f)
	}
	var groups [][]catalog.DataFile
	for _, k := range order {
		var cur []catalog.DataFile
		var size int64
		for _, f := range byPart[k] {
			if len(cur) > 0 && (size+f.FileSize > target || (maxFiles > 0 && int64(len(cur)) >= maxFiles)) {
				groups, cur, size = append(groups, cur), nil, 0
			}
			cur = append(cur, f)
			size += f.FileSize
		}
		groups = append(groups, cur)
	}
	return groups, nil
}

// planMerge is merge_adjacent_files(dry_run => true).
func (s *Runner) planMerge(ctx context.Context, head catalog.Snapshot, sels []tableSel, maxFiles int64) (string, error) {
	var p maintPlan
	for _, sel := range sels {
		groups, err := s.mergeGroups(ctx, head, sel, maxFiles)
		if err != nil {
			return "", err
		}
		for _, g := range groups {
			if len(g) < 2 {
				continue
			}
			var size, rows int64
			for _, f := range g {
				size, rows = size+f.FileSize, rows+f.RecordCount
			}
			p.items += len(g)
			p.results++
			p.add("%s: %d files (%d rows, %d bytes) into 1:", tableName(sel), len(g), rows, size)
			for _, f := range g {
				p.add("  %s (%d rows, %d bytes)", f.Path, f.RecordCount, f.FileSize)
			}
		}
	}
	return p.message("merge_adjacent_files: would merge %d files into %d", p.items, p.results), nil
}

// rewriteDue reports whether rewrite_data_files rewrites data file f: the
// fraction of its rows deleted (delete file plus inlined file deletes)
// reaches threshold. deleted is that number of rows.
func rewriteDue(f catalog.DataFile, inl map[int64][]int64, threshold float64) (deleted int64, due bool) {
	if f.Delete != nil {
		deleted = f.Delete.DeleteCount
	}
	deleted += int64(len(inl[f.ID]))
	return deleted, deleted > 0 && f.RecordCount > 0 && float64(deleted)/float64(f.RecordCount) >= threshold
}

// planRewrite adds the files rewrite_data_files would rewrite in one table.
func (s *Runner) planRewrite(ctx context.Context, head catalog.Snapshot, sel tableSel, threshold float64, p *maintPlan) error {
	db := s.DB
	files, err := db.Files(ctx, sel.sch, sel.t, head)
	if err != nil || len(files) == 0 {
		return err
	}
	inl, err := db.InlinedFileDeletes(ctx, sel.t.ID, head)
	if err != nil {
		return err
	}
	for _, f := range files {
		deleted, due := rewriteDue(f, inl, threshold)
		if !due {
			continue
		}
		p.items++
		p.add("%s: %s (%d rows, %d deleted)", tableName(sel), f.Path, f.RecordCount, deleted)
	}
	return nil
}

// planFlush is flush_inlined_data(dry_run => true): the inlined rows of each
// table (deleted ones too: they are flushed with a delete file) and the
// inlined deletes of data files that would be folded into delete files.
func (s *Runner) planFlush(ctx context.Context, head catalog.Snapshot, sels []tableSel) (string, error) {
	var p maintPlan
	tables := 0
	for _, sel := range sels {
		regs, err := s.DB.InlinedTables(ctx, sel.t.ID)
		if err != nil {
			return "", err
		}
		rows := 0
		for _, reg := range regs {
			_, rs, err := snapshot.ReadInlinedRows(ctx, s.DB, reg.Name, head.ID)
			if err != nil {
				return "", err
			}
			rows += len(rs)
		}
		inl, err := snapshot.InlinedFileDeletes(ctx, s.DB, sel.t.ID, head.ID)
		if err != nil {
			return "", err
		}
		dels, delFiles := 0, 0
		if len(inl) > 0 {
			// only deletes of live files are folded
			files, err := s.DB.Files(ctx, sel.sch, sel.t, head)
			if err != nil {
				return "", err
			}
			for _, f := range files {
				if n := len(inl[f.ID]); n > 0 {
					dels, delFiles = dels+n, delFiles+1
				}
			}
		}
		if rows == 0 && dels == 0 {
			continue
		}
		tables++
		p.items += rows
		p.add("%s: %d inlined rows, %d inlined deletes of %d data files", tableName(sel), rows, dels, delFiles)
	}
	return p.message("flush_inlined_data: would flush %d inlined rows of %d tables", p.items, tables), nil
}

// expireDetail lists the snapshots a dry run of expire_snapshots would
// expire and the files it would schedule for deletion, one a line after a
// newline.
func expireDetail(snaps []catalog.Snapshot, files []string) string {
	var p maintPlan
	for _, sn := range snaps {
		p.add("snapshot %d at %s: %s", sn.ID, sn.Time.UTC().Format(time.RFC3339), sn.Changes)
	}
	if len(files) > 0 {
		p.add("%d files would be scheduled for deletion (cleanup_old_files deletes them):", len(files))
		for _, f := range files {
			p.add("  %s", f)
		}
	}
	return p.message("")
}

// scheduledDetail lists the files cleanup_old_files would delete, in a
// dry run.
func scheduledDetail(files []snapshot.ScheduledFile, dry bool) string {
	if !dry {
		return ""
	}
	var p maintPlan
	for _, f := range files {
		p.add("%s (scheduled %s)", f.Path, f.Schedule.UTC().Format(time.RFC3339))
	}
	return p.message("")
}

// hasVariantColumn: lakepg holds variants as json, so rewriting a file
// DuckDB wrote would turn its typed values (dates, blobs, ...) into
// strings; compaction leaves such tables alone.
func hasVariantColumn(t *catalog.Table) bool {
	for _, c := range t.Columns {
		if strings.EqualFold(c.Type, "variant") {
			return true
		}
	}
	return false
}

// sourcePartition is where a file holding only rows of data file f goes
// (maintenance rewrites and merges): f's hive directory, relative to the
// table's, and f's partition values, which hold for those rows too.
func sourcePartition(f catalog.DataFile) (prefix string, p *snapshot.FilePartition) {
	if f.PartitionID == nil || len(f.Partition) == 0 {
		return "", nil
	}
	vals := make([]*string, len(f.Partition))
	for _, pv := range f.Partition {
		if pv.Index < 0 || pv.Index >= len(vals) {
			return "", nil
		}
		vals[pv.Index] = pv.Value
	}
	if i := strings.LastIndexByte(f.RelPath, '/'); i > 0 && f.Path != f.RelPath && !strings.HasPrefix(f.RelPath, "/") {
		prefix = f.RelPath[:i+1]
	}
	return prefix, &snapshot.FilePartition{SpecID: *f.PartitionID, Values: vals}
}

// partitionGroup names the partition of data file f for merging: files
// merge only with files of the same spec and values.
func partitionGroup(f catalog.DataFile) string {
	if f.PartitionID == nil {
		return ""
	}
	b := strconv.AppendInt(nil, *f.PartitionID, 10)
	for _, pv := range f.Partition {
		if pv.Value == nil {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(*pv.Value)))
		b = append(b, *pv.Value...)
	}
	return string(b)
}
