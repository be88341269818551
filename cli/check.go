package cli

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"strings"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/storage"
)

func checkFlags(fs *flag.FlagSet) func(context.Context, []string, Info) int {
	lf := addLakeFlags(fs, false)
	return func(ctx context.Context, args []string, info Info) int {
		if len(args) > 0 {
			fmt.Fprintf(info.Stderr, "lakepg check: unexpected argument %q\n", args[0])
			return ExitUsage
		}
		db, store, err := openLake(ctx, lf.lake(), false)
		if err != nil {
			fmt.Fprintln(info.Stderr, "lakepg check:", err)
			return ExitError
		}
		defer db.Close()
		rep, err := checkLake(ctx, db, store, info.Stdout)
		if err != nil {
			fmt.Fprintln(info.Stderr, "lakepg check:", err)
			return ExitError
		}
		// the summary is the last line (problems come one a line before it)
		fmt.Fprintf(info.Stdout, "checked %d data files, %d delete files and %d files under %s (DuckLake format version %s), and the column stats of %d live data files: %d problem(s)\n",
			rep.dataFiles, rep.deleteFiles, rep.listed, db.DataPath(), db.Format(), rep.statsFiles, rep.problems)
		if rep.problems > 0 {
			return ExitError
		}
		return ExitOK
	}
}

type checkReport struct {
	dataFiles, deleteFiles, listed, problems int
	statsFiles                               int // live data files whose column stats were compared
}

// lakeFile is one file the catalog knows, with what it says about it.
type lakeFile struct {
	kind  string // "data file" or "delete file"
	id    int64
	table string
	path  string
	size  int64
	rows  int64  // record_count, or delete_count of a delete file
	key   string // encryption_key (encrypted lakes), "" for a plain file
}

// checkLake compares every file the catalog references, at any snapshot (time
// travel still reads end-dated files), with the data directory: each must
// exist with the size and row count the catalog recorded, and every file
// under the data path must be referenced (or scheduled for deletion). A
// missing file whose name an orphan carries is reported once, with the move
// that repairs it: it is the same file in the wrong directory, and deleting
// the "orphan" would lose its rows. Then the column statistics of the files
// live at the head are compared with their footers (checkstats.go).
// Problems are printed one a line to w.
func checkLake(ctx context.Context, db *catalog.DB, store storage.Backend, w io.Writer) (checkReport, error) {
	var rep checkReport
	files, scheduled, err := catalogFiles(ctx, db)
	if err != nil {
		return rep, err
	}
	problem := func(format string, args ...any) {
		rep.problems++
		fmt.Fprintf(w, format+"\n", args...)
	}
	// Paths are compared in one spelling (snapshot.CanonicalPath), as
	// delete_orphaned_files compares them, so check calls nothing an orphan
	// that the sweep would keep.
	canon := func(p string) string { return snapshot.CanonicalPath(db.DataPath(), p) }
	known := map[string]bool{}
	named := map[string]string{} // base name → a path the catalog names with it
	note := func(p string) {
		c := canon(p)
		known[c] = true
		if _, ok := named[path.Base(c)]; !ok {
			named[path.Base(c)] = p
		}
	}
	for _, p := range scheduled {
		note(p)
	}
	for _, f := range files {
		note(f.path)
	}
	listed, err := store.List(ctx, db.DataPath())
	if err != nil {
		return rep, fmt.Errorf("list %s: %w", db.DataPath(), err)
	}
	rep.listed = len(listed)
	// orphans by base name: a catalog file that is missing while an orphan
	// has its name is that file in the wrong directory (a writer put it
	// there), which one move repairs
	orphans := map[string][]storage.ObjectInfo{}
	for _, o := range listed {
		if !known[canon(o.Path)] {
			b := path.Base(canon(o.Path))
			orphans[b] = append(orphans[b], o)
		}
	}
	explained := map[string]string{} // orphan → the catalog path whose missing line accounts for it
	bad := map[string]bool{}         // files already reported: their stats are not compared
	for _, f := range files {
		if f.kind == "data file" {
			rep.dataFiles++
		} else {
			rep.deleteFiles++
		}
		what := fmt.Sprintf("%s %d of %s", f.kind, f.id, f.table)
		size, err := store.Stat(ctx, f.path)
		if err != nil {
			bad[f.path] = true
		}
		if errors.Is(err, fs.ErrNotExist) {
			// several rows may name the one file; another missing file of
			// the same name is not this orphan's
			if cands := orphans[path.Base(canon(f.path))]; len(cands) > 0 {
				if whose, ok := explained[cands[0].Path]; !ok || whose == canon(f.path) {
					explained[cands[0].Path] = canon(f.path)
					problem("missing: %s (%s) — %s", f.path, what, repairHint(f, cands[0]))
					continue
				}
			}
			problem("missing: %s (%s)", f.path, what)
			continue
		}
		if err != nil {
			problem("unreadable: %s (%s): %v", f.path, what, err)
			continue
		}
		if size != f.size {
			bad[f.path] = true
			problem("size mismatch: %s (%s): catalog says %d bytes, the file has %d", f.path, what, f.size, size)
			continue
		}
		rows, err := footerRows(ctx, store, f.path, f.key)
		if err != nil {
			bad[f.path] = true
			problem("unreadable: %s (%s): %v", f.path, what, err)
			continue
		}
		if rows != f.rows {
			bad[f.path] = true
			problem("row count mismatch: %s (%s): catalog says %d rows, the Parquet footer %d", f.path, what, f.rows, rows)
		}
	}
	for _, o := range listed {
		if _, ok := explained[o.Path]; ok || known[canon(o.Path)] {
			continue
		}
		if p, ok := named[path.Base(canon(o.Path))]; ok {
			problem("orphan: %s (%d bytes, referenced by no catalog row; it has the name of %s, which the catalog names, so delete_orphaned_files keeps it: remove it by hand once you know it is a stray copy)", o.Path, o.Size, p)
			continue
		}
		problem("orphan: %s (%d bytes, referenced by no catalog row)", o.Path, o.Size)
	}
	rep.statsFiles, err = checkStats(ctx, db, store, bad, problem)
	return rep, err
}

// repairHint says how to put back a catalog file f that sits at o instead.
func repairHint(f lakeFile, o storage.ObjectInfo) string {
	var how string
	if strings.HasPrefix(strings.ToLower(f.path), "s3://") || strings.HasPrefix(strings.ToLower(o.Path), "s3://") {
		how = fmt.Sprintf("aws s3 mv %s %s, or copy the object with any S3 client", shellQuote(o.Path), shellQuote(f.path))
	} else {
		how = fmt.Sprintf("mkdir -p %s && mv %s %s", shellQuote(filepath.Dir(f.path)), shellQuote(o.Path), shellQuote(f.path))
	}
	size := ""
	if o.Size != f.size {
		size = fmt.Sprintf(" (but it has %d bytes, the catalog says %d)", o.Size, f.size)
	}
	return fmt.Sprintf("the file is at %s%s; move it to the path the catalog names (%s) and run lakepg check again; do not delete orphans before that", o.Path, size, how)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func footerRows(ctx context.Context, store storage.Backend, path, key string) (int64, error) {
	k, err := parquetio.ParseKeyText(key)
	if err != nil {
		return 0, err
	}
	f, err := store.Open(ctx, path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if parquetio.IsDeletionVector(f, f.Size()) {
		// a deletion vector's delete_count is the positions of its newest
		// (cumulative) vector
		pos, err := parquetio.ReadDeletionVectorPositions(f, f.Size(), 0, math.MaxInt64)
		return int64(len(pos)), err
	}
	pf, err := parquetio.OpenKey(f, f.Size(), k)
	if err != nil {
		return 0, err
	}
	return pf.NumRows(), nil
}

// catalogFiles reads every data and delete file row, whatever its snapshots,
// with its resolved path, and the paths scheduled for deletion.
func catalogFiles(ctx context.Context, db *catalog.DB) ([]lakeFile, []string, error) {
	q := db.SQL()
	type dir struct {
		name, path string
		rel        catalog.NullBool
		parent     int64
	}
	// the latest row of each schema and table: a rename keeps the id and path
	latest := func(query string) (map[int64]dir, error) {
		rows, err := q.QueryContext(ctx, db.Rebind(query))
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[int64]dir{}
		for rows.Next() {
			var (
				id     int64
				d      dir
				path   sql.NullString
				parent sql.NullInt64
			)
			if err := rows.Scan(&id, &parent, &d.name, &path, &d.rel); err != nil {
				return nil, err
			}
			d.path, d.parent = path.String, parent.Int64
			out[id] = d // ordered by begin_snapshot: the last row wins
		}
		return out, rows.Err()
	}
	schemas, err := latest(`SELECT schema_id, NULL, schema_name, path, path_is_relative FROM ducklake_schema ORDER BY begin_snapshot`)
	if err != nil {
		return nil, nil, fmt.Errorf("read ducklake_schema: %w", err)
	}
	tables, err := latest(`SELECT table_id, schema_id, table_name, path, path_is_relative FROM ducklake_table ORDER BY begin_snapshot`)
	if err != nil {
		return nil, nil, fmt.Errorf("read ducklake_table: %w", err)
	}
	tableDir := func(tableID int64) (string, string) {
		t, ok := tables[tableID]
		if !ok {
			return db.DataPath(), fmt.Sprintf("table %d", tableID)
		}
		s := schemas[t.parent]
		cs := &catalog.Schema{Name: s.name, Path: s.path, PathIsRelative: !s.rel.Valid || s.rel.Bool}
		ct := &catalog.Table{Name: t.name, Path: t.path, PathIsRelative: !t.rel.Valid || t.rel.Bool}
		return db.TableDir(cs, ct), s.name + "." + t.name
	}
	resolve := func(dir, path string, rel catalog.NullBool) string {
		if rel.Valid && !rel.Bool {
			return path
		}
		return dir + path
	}

	var files []lakeFile
	read := func(kind, query string) error {
		rows, err := q.QueryContext(ctx, db.Rebind(query))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				f         = lakeFile{kind: kind}
				tableID   int64
				path      string
				rel       catalog.NullBool
				size, cnt sql.NullInt64
				key       sql.NullString
			)
			if err := rows.Scan(&f.id, &tableID, &path, &rel, &cnt, &size, &key); err != nil {
				return err
			}
			dir, name := tableDir(tableID)
			f.table, f.path, f.rows, f.size, f.key = name, resolve(dir, path, rel), cnt.Int64, size.Int64, key.String
			files = append(files, f)
		}
		return rows.Err()
	}
	if err := read("data file", `SELECT data_file_id, table_id, path, path_is_relative, record_count, file_size_bytes, encryption_key FROM ducklake_data_file ORDER BY data_file_id`); err != nil {
		return nil, nil, fmt.Errorf("read ducklake_data_file: %w", err)
	}
	if err := read("delete file", `SELECT delete_file_id, table_id, path, path_is_relative, delete_count, file_size_bytes, encryption_key FROM ducklake_delete_file ORDER BY delete_file_id`); err != nil {
		return nil, nil, fmt.Errorf("read ducklake_delete_file: %w", err)
	}

	var scheduled []string
	rows, err := q.QueryContext(ctx, db.Rebind(`SELECT path, path_is_relative FROM ducklake_files_scheduled_for_deletion`))
	if err != nil {
		return nil, nil, fmt.Errorf("read ducklake_files_scheduled_for_deletion: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			path string
			rel  catalog.NullBool
		)
		if err := rows.Scan(&path, &rel); err != nil {
			return nil, nil, err
		}
		// relative to the data path, not to a table (DuckLake spec)
		scheduled = append(scheduled, resolve(db.DataPath(), path, rel))
	}
	return files, scheduled, rows.Err()
}
