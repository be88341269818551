package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"path"
	"strings"

	"github.com/lakepg/lakepg/catalog"
)

// Orphan detection compares what storage lists with what the catalog names,
// and a mismatch deletes data for good. The two sides spell paths
// differently more often than one would think: a data path registered with
// "//" or "./", absolute rows (path_is_relative = false) written by another
// tool, file:// URLs, s3a:// from Spark-era configurations, a table whose
// row has no path of its own. So both sides are compared in one canonical
// spelling, and, because DuckLake names every file ducklake-<uuidv7>.parquet
// (unique by construction), a listed file that carries the name of a file
// the catalog names anywhere is never taken for an orphan: it is the
// catalog's file in the wrong place, and deleting it would delete the only
// copy of its rows.

// CanonicalPath is p in the one spelling orphan detection compares:
// file:// dropped, s3a:// and s3n:// read as s3://, "//", "./" and ".."
// resolved, no trailing slash, and a path that is neither absolute nor a
// URL taken as relative to dataPath. Two spellings of one object give the
// same string; on S3, where "a//b" and "a/b" are distinct keys, they give
// the same string too, which can only keep a file that could have gone.
func CanonicalPath(dataPath, p string) string {
	if rest, ok := cutScheme(p, "file"); ok {
		if r, ok := strings.CutPrefix(rest, "localhost/"); ok {
			rest = "/" + r
		}
		p = rest
	}
	for _, scheme := range []string{"s3", "s3a", "s3n"} {
		if rest, ok := cutScheme(p, scheme); ok {
			return "s3://" + cleanKey(rest)
		}
	}
	if i := strings.Index(p, "://"); i > 0 {
		return strings.ToLower(p[:i]) + "://" + cleanKey(p[i+3:])
	}
	if !strings.HasPrefix(p, "/") {
		if dataPath == "" {
			return path.Clean(p)
		}
		return CanonicalPath("", strings.TrimSuffix(dataPath, "/")+"/"+p)
	}
	return path.Clean(p)
}

// cleanKey cleans the bucket/key (or host/path) part of a URL.
func cleanKey(rest string) string {
	return strings.TrimPrefix(path.Clean("/"+rest), "/")
}

func cutScheme(p, scheme string) (string, bool) {
	prefix := scheme + "://"
	if len(p) >= len(prefix) && strings.EqualFold(p[:len(prefix)], prefix) {
		return p[len(prefix):], true
	}
	return "", false
}

// BaseName is the file name of p (any spelling).
func BaseName(p string) string { return path.Base(CanonicalPath("", p)) }

// FileNames is every file the catalog names: data and delete files of any
// snapshot (live or end-dated) and files scheduled for deletion.
type FileNames struct {
	dataPath string
	paths    map[string]string // canonical path → the path as the catalog resolves it
	bases    map[string]string // base name → a path the catalog names with that name
}

// Names reports whether the catalog names p, in whatever spelling.
func (n *FileNames) Names(p string) bool {
	_, ok := n.paths[CanonicalPath(n.dataPath, p)]
	return ok
}

// SameName returns a path the catalog names whose file name is p's: p is
// then that file in the wrong place (or a copy of it), never an orphan.
func (n *FileNames) SameName(p string) (string, bool) {
	named, ok := n.bases[path.Base(CanonicalPath(n.dataPath, p))]
	return named, ok
}

// Canonical is p in the spelling Names compares.
func (n *FileNames) Canonical(p string) string { return CanonicalPath(n.dataPath, p) }

// Len is the number of distinct paths named.
func (n *FileNames) Len() int { return len(n.paths) }

func (n *FileNames) add(p string) {
	c := CanonicalPath(n.dataPath, p)
	if _, ok := n.paths[c]; !ok {
		n.paths[c] = p
	}
	if b := path.Base(c); b != "/" && b != "." {
		if _, ok := n.bases[b]; !ok {
			n.bases[b] = p
		}
	}
}

// KnownFiles reads every file the catalog names, in one catalog
// transaction so the three tables agree. A relative file path is resolved
// against every directory any row of its table (and of its schema) ever
// gave, and against the data path: a rename that moved a table's path, or
// a writer that got it wrong, must not turn a named file into an orphan.
func KnownFiles(ctx context.Context, db *catalog.DB) (*FileNames, error) {
	tx, err := db.BeginWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	n := &FileNames{dataPath: db.DataPath(), paths: map[string]string{}, bases: map[string]string{}}
	dirs, err := allTableDirs(ctx, tx, db.DataPath())
	if err != nil {
		return nil, err
	}
	for _, q := range []string{`SELECT table_id, path, path_is_relative FROM ducklake_data_file`,
		`SELECT table_id, path, path_is_relative FROM ducklake_delete_file`} {
		rows, err := tx.QueryContext(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("snapshot: read catalog files: %w", err)
		}
		for rows.Next() {
			var (
				tableID int64
				p       string
				rel     catalog.NullBool
			)
			if err := rows.Scan(&tableID, &p, &rel); err != nil {
				rows.Close()
				return nil, fmt.Errorf("snapshot: read catalog files: %w", err)
			}
			if rel.Valid && !rel.Bool {
				n.add(p)
				continue
			}
			for _, d := range dirs[tableID] {
				n.add(d + p)
			}
			n.add(db.DataPath() + p)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("snapshot: read catalog files: %w", err)
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT path, path_is_relative FROM ducklake_files_scheduled_for_deletion`)
	if err != nil {
		return nil, fmt.Errorf("snapshot: read files scheduled for deletion: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			p   string
			rel catalog.NullBool
		)
		if err := rows.Scan(&p, &rel); err != nil {
			return nil, fmt.Errorf("snapshot: read files scheduled for deletion: %w", err)
		}
		// relative to the data path, not to a table (DuckLake spec)
		if !rel.Valid || rel.Bool {
			p = db.DataPath() + p
		}
		n.add(p)
	}
	return n, rows.Err()
}

// allTableDirs maps each table id to every directory its rows and its
// schema's rows resolve to.
func allTableDirs(ctx context.Context, tx *catalog.Tx, dataPath string) (map[int64][]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT t.table_id, t.path, t.path_is_relative, s.path, s.path_is_relative
FROM ducklake_table t LEFT JOIN ducklake_schema s ON s.schema_id = t.schema_id`)
	if err != nil {
		return nil, fmt.Errorf("snapshot: read table paths: %w", err)
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		var (
			id         int64
			tp, sp     sql.NullString
			trel, srel catalog.NullBool
		)
		if err := rows.Scan(&id, &tp, &trel, &sp, &srel); err != nil {
			return nil, fmt.Errorf("snapshot: read table paths: %w", err)
		}
		dir := ResolveDir(ResolveDir(dataPath, sp, srel), tp, trel)
		dup := false
		for _, d := range out[id] {
			dup = dup || d == dir
		}
		if !dup {
			out[id] = append(out[id], dir)
		}
	}
	return out, rows.Err()
}

// ResolveDir is the directory a schema or table row names under parent: a
// NULL path means the parent's own directory (whatever path_is_relative
// says), a relative one (path_is_relative true or NULL) is appended to it,
// an absolute one replaces it.
func ResolveDir(parent string, p sql.NullString, rel catalog.NullBool) string {
	switch {
	case !p.Valid:
		return parent
	case !rel.Valid || rel.Bool:
		return parent + p.String
	default:
		return p.String
	}
}
