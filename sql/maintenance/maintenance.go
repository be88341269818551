package maintenance

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/datafile"
	"github.com/lakepg/lakepg/types"
)

// CALL lakepg.<name>(...) runs DuckLake maintenance (DuckLake §12), writing
// what DuckDB's ducklake_<name> writes. DuckDB's own spelling,
// CALL ducklake_<name>('catalog', ...), is accepted too: its first argument
// names the attached catalog, which for lakepg is always the one it serves.

func (s *Runner) Call(ctx context.Context, st *pg.CallStmt, p *planner.Params) error {
	fc := st.Funccall
	if fc == nil {
		return pgerr.New(pgerr.SyntaxError, "CALL needs a procedure")
	}
	names := planner.StrNodes(fc.Funcname)
	name := strings.ToLower(names[len(names)-1])
	qualified := strings.Join(names, ".")
	duck := strings.HasPrefix(name, "ducklake_")
	switch {
	case duck && len(names) == 1:
		name = strings.TrimPrefix(name, "ducklake_")
	case len(names) == 2 && names[0] == planner.LakeSchema:
	default:
		return planner.ErrAt(pgerr.New(pgerr.UndefinedFunction, "procedure %s does not exist", qualified), fc.Location)
	}
	if s.InTx() {
		return pgerr.New(activeSQLTransaction, "CALL %s cannot run inside a transaction block", qualified)
	}
	if err := s.CheckWritable(); err != nil {
		return err
	}
	if err := s.CheckMaintenance(ctx, qualified); err != nil { // sql/privileges
		return err
	}
	a := &planner.CallArgs{Named: map[string]*pg.Node{}, B: &planner.Binder{Sess: s.Session, Env: s.NewEnv(), Params: p}, Loc: fc.Location}
	for _, arg := range fc.Args {
		if na := arg.GetNamedArgExpr(); na != nil {
			a.Named[strings.ToLower(na.Name)] = na.Arg
			continue
		}
		a.Pos = append(a.Pos, arg)
	}
	if duck {
		if len(a.Pos) == 0 {
			return planner.ErrAt(pgerr.New(pgerr.UndefinedFunction, "%s needs the catalog name as its first argument", qualified), fc.Location)
		}
		a.Pos = a.Pos[1:]
	}
	wg := s.Writes()
	wg.Add(1)
	defer wg.Done()
	var (
		msg string
		err error
	)
	switch name {
	case "merge_adjacent_files":
		msg, err = s.callMerge(ctx, a)
	case "rewrite_data_files":
		msg, err = s.callRewrite(ctx, a)
	case "flush_inlined_data":
		msg, err = s.callFlush(ctx, a)
	case "expire_snapshots":
		msg, err = s.callExpire(ctx, a)
	case "cleanup_old_files":
		msg, err = s.callCleanup(ctx, a, false)
	case "delete_orphaned_files":
		msg, err = s.callCleanup(ctx, a, true)
	case "set_option":
		msg, err = s.callSetOption(ctx, a)
	case "add_data_files":
		msg, err = s.callAddFiles(ctx, a) // addfiles.go
	default:
		return planner.ErrAt(pgerr.New(pgerr.UndefinedFunction, "procedure %s does not exist", qualified), fc.Location)
	}
	if err != nil {
		if errors.Is(err, snapshot.ErrConflict) {
			return pgerr.Wrap(pgerr.SerializationFailure, err, "could not serialize access due to concurrent update")
		}
		return err
	}
	if msg != "" {
		// a dry run's first line sums up, the rest lists what it would touch
		msg, detail, _ := strings.Cut(msg, "\n")
		s.Raise(planner.Notice{Severity: "NOTICE", Code: "00000", Message: msg, Detail: detail})
	}
	return nil
}

// tableSel is a table a maintenance call works on.
type tableSel struct {
	sch *catalog.Schema
	t   *catalog.Table
}

// tables resolves the optional table argument (positional tablePos, or
// table_name =>) and schema (schema =>, schema_name =>): one table, the
// tables of one schema, or every table.
func (s *Runner) maintTables(a *planner.CallArgs, meta *catalog.Metadata, tablePos int) ([]tableSel, error) {
	var tableNode, schemaNode *pg.Node
	if len(a.Pos) > tablePos {
		tableNode = a.Pos[tablePos]
	}
	if n, ok := a.Named["table_name"]; ok {
		tableNode = n
	}
	for _, k := range []string{"schema", "schema_name"} {
		if n, ok := a.Named[k]; ok {
			schemaNode = n
		}
	}
	schemaName := ""
	if schemaNode != nil {
		v, ok, err := a.Text(schemaNode)
		if err != nil {
			return nil, err
		}
		if ok {
			schemaName = v
		}
	}
	if tableNode != nil {
		v, ok, err := a.Text(tableNode)
		if err != nil {
			return nil, err
		}
		if ok {
			sn, tn := planner.SplitQualified(v)
			if sn == "" {
				sn = schemaName
			}
			sch, t, err := s.ResolveTable(meta, sn, tn, planner.NodeLoc(tableNode))
			if err != nil {
				return nil, err
			}
			return []tableSel{{sch, t}}, nil
		}
	}
	var out []tableSel
	for i := range meta.Tables {
		t := &meta.Tables[i]
		sch, ok := meta.SchemaByID(t.SchemaID)
		if !ok || (schemaName != "" && sch.Name != schemaName) {
			continue
		}
		out = append(out, tableSel{sch, t})
	}
	if schemaName != "" {
		if _, ok := meta.SchemaByName(schemaName); !ok {
			return nil, planner.ErrAt(pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", schemaName), a.Loc)
		}
	}
	return out, nil
}

// maintHead is the snapshot maintenance builds on and the catalog as it
// sees it. Maintenance of this server is serialised with its other commits
// by the caller holding writeMu.
// maintTargets is what a table maintenance call works on: the head
// snapshot, the tables its arguments select there, and whether it is a
// dry run. The caller holds writeMu.
func (s *Runner) maintTargets(ctx context.Context, a *planner.CallArgs) (catalog.Snapshot, []tableSel, bool, error) {
	head, meta, err := s.maintHead(ctx)
	if err != nil {
		return head, nil, false, err
	}
	sels, err := s.maintTables(a, meta, 0)
	if err != nil {
		return head, nil, false, err
	}
	dry, err := a.DryRun()
	return head, sels, dry, err
}

func (s *Runner) maintHead(ctx context.Context) (catalog.Snapshot, *catalog.Metadata, error) {
	head, err := s.DB.Head(ctx)
	if err != nil {
		return head, nil, err
	}
	meta, err := s.LakeMetadata(ctx, head)
	return head, meta, err
}

func (s *Runner) callMerge(ctx context.Context, a *planner.CallArgs) (string, error) {
	if err := a.Check("merge_adjacent_files", 1, "table_name", "schema", "schema_name", "max_compacted_files", "min_file_size", "max_file_size", "dry_run"); err != nil {
		return "", err
	}
	var maxFiles int64
	if n, ok := a.Named["max_compacted_files"]; ok {
		v, err := a.Value(n, types.Int64T)
		if err != nil {
			return "", err
		}
		if v != nil {
			maxFiles = v.I64[0]
		}
	}
	s.LockWrites()
	defer s.WriteMu().Unlock()
	head, sels, dry, err := s.maintTargets(ctx, a)
	if err != nil {
		return "", err
	}
	if dry {
		return s.planMerge(ctx, head, sels, maxFiles)
	}
	var processed, created int
	for _, sel := range sels {
		p, c, err := s.mergeTable(ctx, head, sel, maxFiles)
		if err != nil {
			return "", err
		}
		if c > 0 {
			if head, _, err = s.maintHead(ctx); err != nil {
				return "", err
			}
		}
		processed, created = processed+p, created+c
	}
	return fmt.Sprintf("merge_adjacent_files: %d files merged into %d", processed, created), nil
}

// defaultTargetFileSize is DuckDB's target_file_size default (512 MB).
const defaultTargetFileSize = 512 << 20

func (s *Runner) targetFileSize(ctx context.Context, sch *catalog.Schema, t *catalog.Table) (int64, error) {
	v, ok, err := snapshot.Option(ctx, s.DB, "target_file_size", sch.ID, t.ID)
	if err != nil || !ok {
		return defaultTargetFileSize, err
	}
	n, ok := parseByteSize(v)
	if !ok {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid target_file_size \"%s\"", v)
	}
	return n, nil
}

// parseByteSize reads DuckDB's memory sizes: a number of bytes or a number
// with a unit (KB, MB, GB, TB, KiB, MiB, GiB, TiB, B).
func parseByteSize(v string) (int64, bool) {
	v = strings.TrimSpace(strings.ToLower(v))
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.') {
		i++
	}
	num, err := strconv.ParseFloat(v[:i], 64)
	if err != nil {
		return 0, false
	}
	mult := map[string]float64{"": 1, "b": 1, "bytes": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40, "k": 1e3, "m": 1e6, "g": 1e9}[strings.TrimSpace(v[i:])]
	if mult == 0 {
		return 0, false
	}
	return int64(num * mult), true
}

// mergeTable merges the table's small files that have no deletes and were
// written under its current layout, in DuckDB's order (begin snapshot, row
// id start, file id), into files of up to target_file_size.
func (s *Runner) mergeTable(ctx context.Context, head catalog.Snapshot, sel tableSel, maxFiles int64) (int, int, error) {
	db := s.DB
	groups, err := s.mergeGroups(ctx, head, sel, maxFiles)
	if err != nil || len(groups) == 0 {
		return 0, 0, err
	}
	dir := db.TableDir(sel.sch, sel.t)
	var merges []snapshot.Merge
	var written []*exec.WrittenFile
	cleanup := func() {
		for _, w := range written {
			s.WriteStore().Delete(context.WithoutCancel(ctx), w.Path)
		}
	}
	processed := 0
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		nf, w, err := s.writeMerged(ctx, head, sel, dir, g)
		if err != nil {
			cleanup()
			return 0, 0, err
		}
		written = append(written, w)
		merges = append(merges, snapshot.Merge{Sources: g, File: nf})
		processed += len(g)
	}
	if len(merges) == 0 {
		return 0, 0, nil
	}
	if _, err := snapshot.MergeAdjacent(context.WithoutCancel(ctx), db, head, *sel.t, dir, merges); err != nil {
		cleanup()
		return 0, 0, err
	}
	s.Settled(datafile.FilePaths(written...)...) // package sql's inflight.go
	return processed, len(merges), nil
}

// reservedColumns are the two DuckLake columns merged and flushed files
// embed after the table's columns.
func withReserved(cols []exec.ScanCol, snapshotID bool) []exec.ScanCol {
	out := append(append([]exec.ScanCol(nil), cols...), exec.ScanCol{FieldID: exec.RowIDFieldID, Name: "_ducklake_internal_row_id", T: types.Int64T})
	if snapshotID {
		out = append(out, exec.ScanCol{FieldID: planner.ParquetioSnapshotField, Name: "_ducklake_internal_snapshot_id", T: types.Int64T})
	}
	return out
}

// dataStats are a written file's column statistics without the reserved
// columns.
func dataStats(cols []exec.ScanCol, w *exec.WrittenFile) []catalog.ColumnStats {
	var out []catalog.ColumnStats
	for _, st := range datafile.ToStats(cols, w.Info) {
		if st.ColumnID < int64(exec.RowIDFieldID)-1000 {
			out = append(out, st)
		}
	}
	return out
}

func (s *Runner) writeMerged(ctx context.Context, head catalog.Snapshot, sel tableSel, dir string, group []catalog.DataFile) (snapshot.NewFile, *exec.WrittenFile, error) {
	cols, err := planner.ScanColumns(sel.t)
	if err != nil {
		return snapshot.NewFile{}, nil, err
	}
	files := make([]exec.ScanFile, len(group))
	begins := make([]int64, len(group))
	for i, f := range group {
		files[i] = exec.ScanFile{Path: f.Path, Size: f.FileSize, RowIDStart: f.RowIDStart, Key: f.EncryptionKey}
		begins[i] = f.BeginSnapshot
	}
	h := planner.NewHistScan(s.Store, head, cols, files, begins)
	defer h.Close()
	out := withReserved(cols, true)
	// a group is one partition: the merged file stays in its directory
	prefix, part := sourcePartition(group[0])
	opt, err := s.WriterOptions(ctx, sel.sch.ID, sel.t.ID)
	if err != nil {
		return snapshot.NewFile{}, nil, err
	}
	in, sorted, err := s.SortedInput(ctx, sel.t, datafile.ParquetColumns(out), h) // sql/tablelayout
	if err != nil {
		return snapshot.NewFile{}, nil, err
	}
	w, err := exec.WriteParquet(ctx, s.WriteStore(), dir+prefix, datafile.ParquetColumns(out), in, nil, opt)
	sorted()
	if err != nil {
		return snapshot.NewFile{}, nil, err
	}
	nf := snapshot.NewFile{
		NewDataFile: snapshot.NewDataFile{RelPath: prefix + w.Name, RecordCount: w.Info.Rows, FileSize: w.Info.Size, FooterSize: w.Info.FooterSize, RowGroupCount: w.Info.RowGroups, EncryptionKey: w.KeyText(),
			Stats: dataStats(out, w), EmbeddedRowIDs: true, Partition: part},
		BeginSnapshot: h.MinS,
		PartialMax:    h.MaxS,
	}
	return nf, w, nil
}

func (s *Runner) callRewrite(ctx context.Context, a *planner.CallArgs) (string, error) {
	if err := a.Check("rewrite_data_files", 2, "table_name", "schema", "schema_name", "delete_threshold", "dry_run"); err != nil {
		return "", err
	}
	thresholdNode := a.Named["delete_threshold"]
	if len(a.Pos) > 1 {
		thresholdNode = a.Pos[1]
	}
	s.LockWrites()
	defer s.WriteMu().Unlock()
	head, sels, dry, err := s.maintTargets(ctx, a)
	if err != nil {
		return "", err
	}
	var plan maintPlan
	var rewritten, created int
	for _, sel := range sels {
		threshold := 0.95
		if v, ok, err := snapshot.Option(ctx, s.DB, "rewrite_delete_threshold", sel.sch.ID, sel.t.ID); err != nil {
			return "", err
		} else if ok {
			if threshold, err = strconv.ParseFloat(v, 64); err != nil {
				return "", pgerr.New(pgerr.InvalidParameterValue, "invalid rewrite_delete_threshold \"%s\"", v)
			}
		}
		if thresholdNode != nil {
			v, err := a.Value(thresholdNode, types.Float64T)
			if err != nil {
				return "", err
			}
			if v != nil {
				threshold = v.F64[0]
			}
		}
		if threshold < 0 || threshold > 1 {
			return "", pgerr.New(pgerr.InvalidParameterValue, "delete_threshold must be between 0 and 1")
		}
		if dry {
			if err := s.planRewrite(ctx, head, sel, threshold, &plan); err != nil {
				return "", err
			}
			continue
		}
		r, c, err := s.rewriteTable(ctx, head, sel, threshold)
		if err != nil {
			return "", err
		}
		if r > 0 {
			if head, _, err = s.maintHead(ctx); err != nil {
				return "", err
			}
		}
		rewritten, created = rewritten+r, created+c
	}
	if dry {
		return plan.message("rewrite_data_files: would rewrite %d files", plan.items), nil
	}
	return fmt.Sprintf("rewrite_data_files: %d files rewritten into %d", rewritten, created), nil
}

// rewriteTable rewrites each file whose deleted fraction (delete file plus
// inlined file deletes) reaches threshold into a file of its remaining rows,
// which keep their row ids.
func (s *Runner) rewriteTable(ctx context.Context, head catalog.Snapshot, sel tableSel, threshold float64) (int, int, error) {
	if hasVariantColumn(sel.t) { // maintenance_plan.go
		return 0, 0, nil
	}
	db := s.DB
	files, err := db.Files(ctx, sel.sch, sel.t, head)
	if err != nil || len(files) == 0 {
		return 0, 0, err
	}
	inl, err := db.InlinedFileDeletes(ctx, sel.t.ID, head)
	if err != nil {
		return 0, 0, err
	}
	cols, err := planner.ScanColumns(sel.t)
	if err != nil {
		return 0, 0, err
	}
	dir := db.TableDir(sel.sch, sel.t)
	var rewrites []snapshot.Rewrite
	var written []*exec.WrittenFile
	cleanup := func() {
		for _, w := range written {
			s.WriteStore().Delete(context.WithoutCancel(ctx), w.Path)
		}
	}
	opt, err := s.WriterOptions(ctx, sel.sch.ID, sel.t.ID)
	if err != nil {
		return 0, 0, err
	}
	created := 0
	for _, f := range files {
		if _, due := rewriteDue(f, inl, threshold); !due {
			continue
		}
		sf := planner.ToScanFiles([]catalog.DataFile{f}, head.ID)
		sf[0].Deleted = inl[f.ID]
		scan := &exec.TableScan{Store: s.Store, Snapshot: head.ID, Label: sel.t.Name, Cols: cols, WithPos: true, Files: sf}
		proj := make([]exec.Expr, 0, len(cols)+1)
		for i, c := range cols {
			proj = append(proj, &exec.ColRef{Idx: i, T: c.T})
		}
		proj = append(proj, &exec.ColRef{Idx: len(cols) + 2, T: types.Int64T})
		out := withReserved(cols, false)
		prefix, part := sourcePartition(f) // maintenance_plan.go
		// in the table's sort order, if it has one (sql/tablelayout)
		in, sorted, err := s.SortedInput(ctx, sel.t, datafile.ParquetColumns(out), &exec.Project{Env: s.NewEnv(), Input: scan, Exprs: proj})
		if err != nil {
			scan.Close()
			cleanup()
			return 0, 0, err
		}
		w, err := exec.WriteParquet(ctx, s.WriteStore(), dir+prefix, datafile.ParquetColumns(out), in, nil, opt)
		sorted()
		scan.Close()
		if err != nil {
			cleanup()
			return 0, 0, err
		}
		rw := snapshot.Rewrite{Old: f}
		if w.Info.Rows > 0 {
			written = append(written, w)
			rw.File = &snapshot.NewFile{NewDataFile: snapshot.NewDataFile{RelPath: prefix + w.Name, RecordCount: w.Info.Rows, FileSize: w.Info.Size, RowGroupCount: w.Info.RowGroups,
				FooterSize: w.Info.FooterSize, Stats: dataStats(out, w), EmbeddedRowIDs: true, Partition: part, EncryptionKey: w.KeyText()}}
			created++
		}
		rewrites = append(rewrites, rw)
	}
	if len(rewrites) == 0 {
		return 0, 0, nil
	}
	if _, err := snapshot.RewriteDeletes(context.WithoutCancel(ctx), db, head, *sel.t, rewrites); err != nil {
		cleanup()
		return 0, 0, err
	}
	s.Settled(datafile.FilePaths(written...)...) // package sql's inflight.go
	return len(rewrites), created, nil
}

func (s *Runner) callExpire(ctx context.Context, a *planner.CallArgs) (string, error) {
	if err := a.Check("expire_snapshots", 0, "older_than", "versions", "dry_run"); err != nil {
		return "", err
	}
	var opt snapshot.ExpireOptions
	if n, ok := a.Named["older_than"]; ok {
		t, err := a.Timestamp(n)
		if err != nil {
			return "", err
		}
		opt.OlderThan = t
	}
	if n, ok := a.Named["versions"]; ok {
		var elems []*pg.Node
		if arr := n.GetAArrayExpr(); arr != nil {
			elems = arr.Elements
		} else {
			elems = []*pg.Node{n}
		}
		for _, el := range elems {
			v, err := a.Value(el, types.Int64T)
			if err != nil {
				return "", err
			}
			if v != nil {
				opt.Versions = append(opt.Versions, v.I64[0])
			}
		}
	}
	if n, ok := a.Named["dry_run"]; ok {
		b, err := a.Boolean(n)
		if err != nil {
			return "", err
		}
		opt.DryRun = b
	}
	if opt.OlderThan != nil && opt.Versions != nil {
		return "", planner.ErrAt(pgerr.New(pgerr.InvalidParameterValue, "expire_snapshots: give either older_than or versions, not both"), a.Loc)
	}
	if opt.OlderThan == nil && opt.Versions == nil {
		v, ok, err := snapshot.Option(ctx, s.DB, "expire_older_than", -1, -1)
		if err != nil {
			return "", err
		}
		if !ok {
			return "expire_snapshots: no snapshot chosen (give older_than or versions)", nil
		}
		iv, err := types.ParseInterval(v)
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid expire_older_than \"%s\"", v)
		}
		t := time.Now().AddDate(0, -int(iv.Months), -int(iv.Days)).Add(-time.Duration(iv.Micros) * time.Microsecond).UTC()
		opt.OlderThan = &t
	}
	s.LockWrites()
	defer s.WriteMu().Unlock()
	var (
		snaps []catalog.Snapshot
		files []string // a dry run's files that expiry would schedule for deletion
		err   error
	)
	if opt.DryRun {
		snaps, files, err = snapshot.ExpirePreview(ctx, s.DB, opt)
	} else {
		snaps, err = snapshot.ExpireSnapshots(context.WithoutCancel(ctx), s.DB, opt)
	}
	if err != nil {
		return "", err
	}
	ids := make([]string, len(snaps))
	for i, sn := range snaps {
		ids[i] = strconv.FormatInt(sn.ID, 10)
	}
	verb := "expired"
	if opt.DryRun {
		verb = "would expire"
	}
	msg := fmt.Sprintf("expire_snapshots: %s %d snapshots [%s]", verb, len(snaps), strings.Join(ids, ", "))
	if opt.DryRun {
		msg += expireDetail(snaps, files)
	}
	return msg, nil
}

// defaultDeleteOlderThan is DuckDB's delete_older_than when the catalog
// sets none.
const defaultDeleteOlderThan = "2 days"

// callCleanup runs cleanup_old_files (files scheduled for deletion) or
// delete_orphaned_files (Parquet files under the data path the catalog does
// not know).
func (s *Runner) callCleanup(ctx context.Context, a *planner.CallArgs, orphans bool) (string, error) {
	proc := "cleanup_old_files"
	if orphans {
		proc = "delete_orphaned_files"
	}
	if err := a.Check(proc, 0, "older_than", "cleanup_all", "dry_run"); err != nil {
		return "", err
	}
	var olderThan *time.Time
	all, dry := false, false
	var err error
	if n, ok := a.Named["older_than"]; ok {
		if olderThan, err = a.Timestamp(n); err != nil {
			return "", err
		}
	}
	if n, ok := a.Named["cleanup_all"]; ok {
		if all, err = a.Boolean(n); err != nil {
			return "", err
		}
	}
	if n, ok := a.Named["dry_run"]; ok {
		if dry, err = a.Boolean(n); err != nil {
			return "", err
		}
	}
	if all && olderThan != nil {
		return "", planner.ErrAt(pgerr.New(pgerr.InvalidParameterValue, "%s: give either older_than or cleanup_all, not both", proc), a.Loc)
	}
	if !all && olderThan == nil {
		// as DuckDB's ducklake extension: the catalog's delete_older_than,
		// two days when it has none, and no default when it was set empty
		key := "delete_older_than"
		v, ok, err := snapshot.Option(ctx, s.DB, key, -1, -1)
		if err != nil {
			return "", err
		}
		if !ok {
			v = defaultDeleteOlderThan
		}
		if strings.TrimSpace(v) == "" {
			return "", planner.ErrAt(pgerr.New(pgerr.InvalidParameterValue, "%s: give older_than => timestamp or cleanup_all => true, or set a default with CALL lakepg.set_option('delete_older_than', '1 week')", proc), a.Loc)
		}
		iv, err := types.ParseInterval(v)
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid %s \"%s\"", key, v)
		}
		t := time.Now().AddDate(0, -int(iv.Months), -int(iv.Days)).Add(-time.Duration(iv.Micros) * time.Microsecond).UTC()
		olderThan = &t
	}
	db, store := s.DB, s.Store
	verb := "deleted"
	if dry {
		verb = "would delete"
	}
	if !orphans {
		files, err := snapshot.ScheduledFiles(ctx, db, olderThan)
		if err != nil {
			return "", err
		}
		if dry || len(files) == 0 {
			return fmt.Sprintf("%s: %s %d files", proc, verb, len(files)) + scheduledDetail(files, dry), nil
		}
		ids := make([]int64, 0, len(files))
		for _, f := range files {
			if err := store.Delete(ctx, f.Path); err != nil {
				return "", pgerr.Wrap(pgerr.IOError, err, "could not delete file \"%s\"", f.Path)
			}
			ids = append(ids, f.ID)
		}
		if err := snapshot.ForgetScheduled(context.WithoutCancel(ctx), db, ids); err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: %s %d files", proc, verb, len(files)), nil
	}
	return s.deleteOrphans(ctx, proc, olderThan, dry) // maintenance_orphans.go
}

// callSetOption sets a DuckLake option (set_option(option, value
// [, table_name => ..., schema => ...])), for the catalog, a schema or a
// table.
func (s *Runner) callSetOption(ctx context.Context, a *planner.CallArgs) (string, error) {
	if err := a.Check("set_option", 2, "table_name", "schema", "schema_name"); err != nil {
		return "", err
	}
	if len(a.Pos) != 2 {
		return "", planner.ErrAt(pgerr.New(pgerr.UndefinedFunction, "set_option(option, value) takes two arguments"), a.Loc)
	}
	key, ok1, err := a.Text(a.Pos[0])
	if err != nil {
		return "", err
	}
	value, ok2, err := a.Text(a.Pos[1])
	if err != nil {
		return "", err
	}
	if !ok1 || !ok2 {
		return "", planner.ErrAt(pgerr.New(pgerr.InvalidParameterValue, "set_option: option and value must not be NULL"), a.Loc)
	}
	scope, id := "", int64(0)
	_, meta, err := s.maintHead(ctx)
	if err != nil {
		return "", err
	}
	if _, ok := a.Named["table_name"]; ok {
		a.Pos = a.Pos[:0]
		sels, err := s.maintTables(a, meta, 0)
		if err != nil {
			return "", err
		}
		scope, id = "table", sels[0].t.ID
	} else {
		for _, k := range []string{"schema", "schema_name"} {
			if n, ok := a.Named[k]; ok {
				name, _, err := a.Text(n)
				if err != nil {
					return "", err
				}
				sch, ok := meta.SchemaByName(name)
				if !ok {
					return "", planner.ErrAt(pgerr.New(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name), a.Loc)
				}
				scope, id = "schema", sch.ID
			}
		}
	}
	if key == "parquet_compression" {
		if err := parquetio.CheckCompression(value); err != nil {
			return "", err
		}
	}
	if err := snapshot.SetOption(context.WithoutCancel(ctx), s.DB, key, value, scope, id); err != nil {
		return "", err
	}
	return "", nil
}
