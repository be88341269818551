package maintenance

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/sql/planner"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/datafile"
	"github.com/lakepg/lakepg/sql/partitioning"
)

// CALL lakepg.add_data_files('schema.table', 'path-or-glob', allow_missing
// => bool, ignore_extra_columns => bool, hive_partitioning => bool)
// registers Parquet files that already exist as data files of a table,
// without copying them, as DuckDB's ducklake_add_data_files does: the lake
// takes ownership of them (a later DELETE, compaction or cleanup may
// delete them). Columns are found by name through a map_by_name mapping
// (ducklake_column_mapping, ducklake_name_mapping) written with the file,
// because such files have no DuckLake field ids; a hive directory key=value
// in the path gives a column its value when hive_partitioning is on. The
// statistics are computed from the values, as lakepg's own files' are.

// addFilesOpts are add_data_files' options.
type addFilesOpts struct {
	allowMissing, ignoreExtra, hive bool
}

func (s *Runner) callAddFiles(ctx context.Context, a *planner.CallArgs) (string, error) {
	if err := a.Check("add_data_files", 2, "table_name", "schema", "schema_name", "allow_missing", "ignore_extra_columns", "hive_partitioning"); err != nil {
		return "", err
	}
	var pattern string
	if len(a.Pos) > 1 {
		v, ok, err := a.Text(a.Pos[1])
		if err != nil {
			return "", err
		}
		if !ok {
			return "", pgerr.New(pgerr.InvalidParameterValue, "add_data_files: the file list cannot be NULL")
		}
		pattern = v
	}
	if pattern == "" {
		return "", planner.ErrAt(pgerr.New(pgerr.UndefinedFunction, "add_data_files needs a table and a file path or glob"), a.Loc)
	}
	opts := addFilesOpts{hive: true}
	for name, dst := range map[string]*bool{"allow_missing": &opts.allowMissing, "ignore_extra_columns": &opts.ignoreExtra, "hive_partitioning": &opts.hive} {
		if n, ok := a.Named[name]; ok {
			v, err := a.Boolean(n)
			if err != nil {
				return "", err
			}
			*dst = v
		}
	}
	if s.DB.Encrypted() {
		// every file of an encrypted lake has a key in the catalog; a
		// plaintext file would silently weaken it
		return "", pgerr.New(pgerr.FeatureNotSupported, "add_data_files cannot register plaintext files in an encrypted lake")
	}
	_, meta, err := s.maintHead(ctx)
	if err != nil {
		return "", err
	}
	sels, err := s.maintTables(a, meta, 0)
	if err != nil {
		return "", err
	}
	if len(sels) != 1 || len(a.Pos) == 0 && a.Named["table_name"] == nil {
		return "", planner.ErrAt(pgerr.New(pgerr.UndefinedFunction, "add_data_files needs a table and a file path or glob"), a.Loc)
	}
	sel := sels[0]
	var keys []partitioning.Key
	if sel.t.Partition.Partitioned() {
		if keys, err = partitioning.Keys(sel.t, sel.t.Partition); err != nil {
			return "", err
		}
		for i := range keys {
			// calendar keys of a timestamptz are checked in the session's
			// zone, as the writer splits them
			keys[i].Loc = s.Loc
		}
	}
	paths, err := s.globFiles(ctx, pattern)
	if err != nil {
		return "", err
	}
	cols, err := planner.ScanColumns(sel.t)
	if err != nil {
		return "", err
	}
	existing, err := s.DB.TableNameMaps(ctx, sel.t.ID)
	if err != nil {
		return "", err
	}
	var files []snapshot.NewDataFile
	var rows int64
	for _, p := range paths {
		f, err := s.registerFile(ctx, sel.t, cols, p, opts, keys)
		if err != nil {
			return "", err
		}
		// an identical mapping of the table is named again, as DuckDB does
		key := snapshot.NameMapKey(sel.t.ID, f.NameMap)
		for id, m := range existing {
			if snapshot.NameMapKey(sel.t.ID, m) == key && (f.Mapping == nil || id < *f.Mapping) {
				f.Mapping = &id
			}
		}
		files = append(files, f)
		rows += f.RecordCount
	}
	err = s.Commit(ctx, func(c *snapshot.Commit, m *catalog.Metadata) error {
		cur, ok := m.TableByID(sel.t.ID)
		if !ok || !datafile.SameColumns(cur, sel.t) {
			return pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update")
		}
		for _, f := range files {
			c.AddDataFile(*sel.t, f)
		}
		return nil
	}, nil)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("add_data_files: %d files with %d rows added to %s.%s", len(files), rows, sel.sch.Name, sel.t.Name), nil
}

// globFiles lists the files a path or glob names, sorted; none is an error
// (58P01), as in DuckDB.
func (s *Runner) globFiles(ctx context.Context, pattern string) ([]string, error) {
	if !strings.ContainsAny(pattern, "*?[") {
		if _, err := s.Store.Stat(ctx, pattern); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, pgerr.New(pgerr.UndefinedFile, "add_data_files: no files found that match the pattern \"%s\"", pattern)
			}
			return nil, exec.ReadError(err, pattern)
		}
		return []string{pattern}, nil
	}
	// list from the directory before the first wildcard, then match each
	// path segment by segment ('*' stays within a directory, '**' any depth)
	prefix := pattern[:strings.IndexAny(pattern, "*?[")]
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		prefix = prefix[:i+1]
	}
	objs, err := s.Store.List(ctx, prefix)
	if err != nil {
		return nil, exec.ReadError(err, prefix)
	}
	var out []string
	for _, o := range objs {
		ok, err := globMatch(pattern, o.Path)
		if err != nil {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "add_data_files: bad pattern \"%s\": %v", pattern, err)
		}
		if ok {
			out = append(out, o.Path)
		}
	}
	if len(out) == 0 {
		return nil, pgerr.New(pgerr.UndefinedFile, "add_data_files: no files found that match the pattern \"%s\"", pattern)
	}
	return out, nil
}

// globMatch matches name against pattern segment by segment; a "**"
// segment matches any number of directories.
func globMatch(pattern, name string) (bool, error) {
	ps, ns := strings.Split(pattern, "/"), strings.Split(name, "/")
	var match func(i, j int) (bool, error)
	match = func(i, j int) (bool, error) {
		if i == len(ps) {
			return j == len(ns), nil
		}
		if ps[i] == "**" {
			for k := j; k <= len(ns); k++ {
				if ok, err := match(i+1, k); ok || err != nil {
					return ok, err
				}
			}
			return false, nil
		}
		if j == len(ns) {
			return false, nil
		}
		ok, err := path.Match(ps[i], ns[j])
		if !ok || err != nil {
			return false, err
		}
		return match(i+1, j+1)
	}
	return match(0, 0)
}

// registerFile reads one file's footer and values: its name mapping onto
// the table's columns, its row count, sizes and column statistics.
func (s *Runner) registerFile(ctx context.Context, t *catalog.Table, cols []exec.ScanCol, p string, opts addFilesOpts, keys []partitioning.Key) (snapshot.NewDataFile, error) {
	f, err := s.Store.Open(ctx, p)
	if err != nil {
		return snapshot.NewDataFile{}, exec.ReadError(err, p)
	}
	defer f.Close()
	pf, err := parquetio.OpenKey(f, f.Size(), nil)
	if err != nil {
		return snapshot.NewDataFile{}, pgerr.New(pgerr.DataCorrupted, "add_data_files: \"%s\" is not a readable Parquet file: %v", p, err)
	}
	byName := map[string]int{}
	for i, c := range cols {
		byName[strings.ToLower(c.Name)] = i
	}
	var hive map[string]string
	if opts.hive {
		hive = planner.HiveValues(p)
	}
	var (
		nm      []catalog.NameMapEntry
		proj    []parquetio.Projection
		projCol []int
		hiveCol = map[int]string{}
		mapped  = map[int]bool{}
		nulls   []int64 // missing columns read as NULL
	)
	add := func(col int, source string, isHive bool) error {
		c := cols[col]
		nested := isNestedColumn(&t.Columns[col])
		if nested && isHive {
			return pgerr.New(pgerr.FeatureNotSupported, "add_data_files: column \"%s\" of table \"%s\" is nested and cannot take its value from the hive directory in \"%s\"", c.Name, t.Name, p)
		}
		idx := int64(len(nm))
		nm = append(nm, catalog.NameMapEntry{Index: idx, Source: source, FieldID: int64(c.FieldID), IsPartition: isHive})
		if nested {
			nm = nestedNameMap(nm, &t.Columns[col], idx)
		}
		mapped[col] = true
		if isHive {
			hiveCol[col] = hive[strings.ToLower(c.Name)]
			return nil
		}
		proj = append(proj, parquetio.Projection{FieldID: c.FieldID, Name: source, ByName: true, Pos: col, Type: c.T})
		projCol = append(projCol, col)
		return nil
	}
	for _, fl := range pf.Fields() {
		col, ok := byName[strings.ToLower(fl.Name)]
		if !ok {
			if opts.ignoreExtra {
				continue
			}
			e := pgerr.New(pgerr.UndefinedColumn, "column \"%s\" exists in file \"%s\" but not in table \"%s\"", fl.Name, p, t.Name)
			e.Hint = "Set ignore_extra_columns => true to add the file anyway."
			return snapshot.NewDataFile{}, e
		}
		_, isHive := hive[strings.ToLower(fl.Name)]
		if err := add(col, fl.Name, isHive); err != nil {
			return snapshot.NewDataFile{}, err
		}
	}
	for i, c := range cols {
		if mapped[i] {
			continue
		}
		if _, ok := hive[strings.ToLower(c.Name)]; ok {
			if err := add(i, c.Name, true); err != nil {
				return snapshot.NewDataFile{}, err
			}
			continue
		}
		if opts.allowMissing {
			if c.Default == nil {
				nulls = append(nulls, int64(c.FieldID))
				// the leaves carry a nested column's statistics: they are
				// NULL in every row too (DuckDB's table row would ignore the
				// file and claim no NULLs)
				nulls = appendLeafIDs(nulls, &t.Columns[i])
			}
			continue
		}
		e := pgerr.New(pgerr.UndefinedColumn, "column \"%s\" exists in table \"%s\" but not in file \"%s\"", c.Name, t.Name, p)
		e.Hint = "Set allow_missing => true to read it as its default in this file."
		return snapshot.NewDataFile{}, e
	}
	rows := pf.NumRows()
	part, check, err := registeredPartition(t, cols, p, hive, keys, projCol)
	if err != nil {
		return snapshot.NewDataFile{}, err
	}
	stats, err := registeredStats(pf, p, t, cols, proj, projCol, check)
	if err != nil {
		return snapshot.NewDataFile{}, err
	}
	for col, v := range hiveCol {
		c := cols[col]
		st := catalog.ColumnStats{ColumnID: int64(c.FieldID), ColumnSizeBytes: ptrInt(0), ValueCount: ptrInt(rows), NullCount: ptrInt(0)}
		if v == hiveNull {
			// DuckDB counts no values in an all-NULL partition column
			st.ValueCount, st.NullCount = ptrInt(0), ptrInt(rows)
			stats = append(stats, st)
			continue
		}
		d := vec.New(c.T, 1)
		if err := exec.ParseInto(d, v, nil, false); err != nil {
			return snapshot.NewDataFile{}, pgerr.New(pgerr.InvalidTextRepr, "add_data_files: hive partition value \"%s\" of column \"%s\" in \"%s\" is not a valid %s", v, c.Name, p, c.T)
		}
		if txt, ok := parquetio.StatText(c.T, d, 0); ok {
			st.Min, st.Max = &txt, &txt
		}
		stats = append(stats, st)
	}
	nf := snapshot.NewDataFile{RelPath: p, Registered: true, RecordCount: rows, FileSize: f.Size(), FooterSize: pf.FooterSize(), RowGroupCount: int64(pf.NumRowGroups()), Stats: stats, NameMap: nm, NullColumns: nulls, Partition: part}
	return nf, nil
}

// hiveNull is the directory value of a NULL partition (DuckDB's and Hive's).
const hiveNull = "__HIVE_DEFAULT_PARTITION__"

// registeredPartition gives a file registered into a partitioned table its
// partition values, as DuckDB's ducklake_add_data_files does: each key's
// value comes from the hive directory named as the writer names it (the
// column for an identity key, year, bucket, epoch_day, ... for the
// others), and a file without all of them is refused. DuckDB trusts the
// directories of transformed keys; lakepg reads every value anyway, so
// check verifies each row against them (a wrong directory would make
// pruning skip rows).
func registeredPartition(t *catalog.Table, cols []exec.ScanCol, p string, hive map[string]string, keys []partitioning.Key, projCol []int) (*snapshot.FilePartition, func(*vec.Batch) error, error) {
	if len(keys) == 0 {
		return nil, nil, nil
	}
	vals := make([]*string, len(keys))
	type verify struct {
		key  int
		proj int
	}
	var checks []verify
	for i, k := range keys {
		c := cols[k.Col]
		dir := k.Dir
		if k.Kind == partitioning.Identity {
			dir = c.Name
		}
		v, ok := hive[strings.ToLower(dir)]
		if !ok {
			e := pgerr.New(pgerr.InvalidParameterValue, "add_data_files: \"%s\" is not in a %s=… directory, which partition key %d of table \"%s\" needs", p, dir, k.Col, t.Name)
			e.Hint = "Files added to a partitioned table must sit in its partition directories, and hive_partitioning must not be false."
			return nil, nil, e
		}
		if v == hiveNull {
			continue
		}
		if k.Kind == partitioning.Identity {
			d := vec.New(c.T, 1)
			if err := exec.ParseInto(d, v, nil, false); err != nil {
				return nil, nil, pgerr.New(pgerr.InvalidTextRepr, "add_data_files: hive partition value \"%s\" of column \"%s\" in \"%s\" is not a valid %s", v, c.Name, p, c.T)
			}
			txt := string(partitioning.AppendDuckText(nil, d, 0))
			vals[i] = &txt
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, nil, pgerr.New(pgerr.InvalidTextRepr, "add_data_files: partition value \"%s\" of key %s in \"%s\" is not an integer", v, dir, p)
		}
		txt := strconv.FormatInt(n, 10)
		vals[i] = &txt
		for j, col := range projCol {
			if col == k.Col {
				checks = append(checks, verify{i, j})
			}
		}
	}
	part := &snapshot.FilePartition{SpecID: t.Partition.ID, Values: vals}
	if len(checks) == 0 {
		return part, nil, nil
	}
	var buf []byte
	check := func(b *vec.Batch) error {
		for _, ch := range checks {
			k, want := &keys[ch.key], vals[ch.key]
			for r := 0; r < b.N; r++ {
				got, null := k.Value(buf[:0], b.Vecs[ch.proj], r)
				buf = got
				if null != (want == nil) || !null && string(got) != *want {
					e := pgerr.New(pgerr.InvalidParameterValue, "add_data_files: a row of \"%s\" has partition key %s = %s, but its directory says %s", p, k.Dir, showValue(got, null), showValue([]byte(strOr(want)), want == nil))
					e.Hint = "Each file must hold the rows of the partition its directory names."
					return e
				}
			}
		}
		return nil
	}
	return part, check, nil
}

func showValue(b []byte, null bool) string {
	if null {
		return "NULL"
	}
	return string(b)
}

func strOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// registeredStats reads the mapped columns as the table's types (a file
// type the column cannot take is 42804) and computes their statistics.
func registeredStats(pf *parquetio.File, p string, t *catalog.Table, cols []exec.ScanCol, proj []parquetio.Projection, projCol []int, check func(*vec.Batch) error) ([]catalog.ColumnStats, error) {
	table := t.Name
	accs := make([]*parquetio.StatsAcc, len(proj))
	for i := range proj {
		// a nested column is read (so that a file whose nesting does not fit
		// the table's is refused) but has no statistics of its own; its
		// leaves' come from the footer (leafStats)
		if !isNestedColumn(&t.Columns[projCol[i]]) {
			accs[i] = parquetio.NewStatsAcc(proj[i].Type)
		}
	}
	if len(proj) > 0 {
		sc := pf.Scan(proj, parquetio.ScanOptions{})
		defer sc.Release()
		var b vec.Batch
		for {
			_, ok, err := sc.Next(&b)
			if err != nil {
				return nil, pgerr.New(pgerr.DatatypeMismatch, "add_data_files: the columns of \"%s\" do not fit table \"%s\": %v", p, table, err)
			}
			if !ok {
				break
			}
			if check != nil {
				if err := check(&b); err != nil {
					return nil, err
				}
			}
			for i := range proj {
				if accs[i] != nil {
					accs[i].Add(b.Vecs[i], b.N)
				}
			}
		}
	}
	var out []catalog.ColumnStats
	for i, acc := range accs {
		if acc == nil {
			leaves, err := leafStats(pf, proj[i].Name, &t.Columns[projCol[i]])
			if err != nil {
				return nil, err
			}
			out = append(out, leaves...)
			continue
		}
		c := cols[projCol[i]]
		cs := acc.Result(c.FieldID, pf.ColumnBytes(proj[i].Name))
		// DuckDB leaves contains_nan NULL for registered files (footer
		// statistics do not say); lakepg read every value, so it knows, and
		// the table's min/max stay usable
		st := catalog.ColumnStats{ColumnID: int64(cs.FieldID), ColumnSizeBytes: ptrInt(cs.SizeBytes), ValueCount: ptrInt(cs.ValueCount), NullCount: ptrInt(cs.NullCount), Min: cs.Min, Max: cs.Max, ContainsNaN: cs.ContainsNaN}
		out = append(out, st)
	}
	return out, nil
}

// leafStats are the statistics of nested column c's leaves in a registered
// file, from its footer as DuckDB takes them (parquetio.LeafStats); none
// when the file's leaves do not pair with the table's.
func leafStats(pf *parquetio.File, name string, c *catalog.Column) ([]catalog.ColumnStats, error) {
	var leaves []parquetio.LeafCol
	var walk func(c *catalog.Column) error
	walk = func(c *catalog.Column) error {
		if !isNestedColumn(c) {
			t, err := planner.ColumnType(c)
			if err != nil {
				return err
			}
			leaves = append(leaves, parquetio.LeafCol{FieldID: int32(c.ID), Type: t})
			return nil
		}
		for i := range c.Children {
			if err := walk(&c.Children[i]); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range c.Children {
		if err := walk(&c.Children[i]); err != nil {
			return nil, err
		}
	}
	css, ok := pf.LeafStats(name, leaves)
	if !ok {
		return nil, nil
	}
	out := make([]catalog.ColumnStats, 0, len(css))
	for _, cs := range css {
		st := catalog.ColumnStats{ColumnID: int64(cs.FieldID), ColumnSizeBytes: ptrInt(cs.SizeBytes), ValueCount: ptrInt(cs.ValueCount), NullCount: ptrInt(cs.NullCount), Min: cs.Min, Max: cs.Max, ContainsNaN: cs.ContainsNaN}
		if cs.CountsUnknown {
			st.ValueCount, st.NullCount = nil, nil
		}
		out = append(out, st)
	}
	return out, nil
}

// appendLeafIDs appends the column ids of c's leaf fields (none for a
// scalar column).
func appendLeafIDs(ids []int64, c *catalog.Column) []int64 {
	for i := range c.Children {
		ch := &c.Children[i]
		if isNestedColumn(ch) {
			ids = appendLeafIDs(ids, ch)
		} else {
			ids = append(ids, ch.ID)
		}
	}
	return ids
}

func ptrInt(v int64) *int64 { return &v }

// isNestedColumn reports whether c is a list, struct or map column.
func isNestedColumn(c *catalog.Column) bool {
	switch strings.ToLower(c.Type) {
	case "list", "struct", "map":
		return true
	}
	return false
}

// nestedNameMap appends the name-mapping entries of c's fields under the
// entry parent, depth first, as DuckDB's ducklake_add_data_files writes
// them: a struct's fields by name, a list's element as "list", a map's
// "key" and "value".
func nestedNameMap(nm []catalog.NameMapEntry, c *catalog.Column, parent int64) []catalog.NameMapEntry {
	for i := range c.Children {
		ch := &c.Children[i]
		src := ch.Name
		if strings.EqualFold(c.Type, "list") {
			src = "list"
		}
		idx := int64(len(nm))
		par := parent
		nm = append(nm, catalog.NameMapEntry{Index: idx, Source: src, FieldID: ch.ID, Parent: &par})
		if isNestedColumn(ch) {
			nm = nestedNameMap(nm, ch, idx)
		}
	}
	return nm
}
