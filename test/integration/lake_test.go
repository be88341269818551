package integration

import (
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/parquet-go/parquet-go"
	_ "modernc.org/sqlite"
)

// openCatalog opens a DuckLake SQLite catalog read-only with modernc.org/sqlite.
func openCatalog(t *testing.T, path string) *sql.DB {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("catalog: %v", err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatalf("opening catalog %s: %v", path, err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatalf("opening catalog %s: %v", path, err)
	}
	return db
}

// catalogRows runs q against the catalog and calls scan for every row.
func catalogRows(t *testing.T, db *sql.DB, q string, scan func(*sql.Rows) error) {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("catalog query %q: %v", q, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			t.Fatalf("catalog query %q: %v", q, err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("catalog query %q: %v", q, err)
	}
}

// tableDir resolves the directory of a table's files the way a DuckLake reader does:
// data_path + schema path + table path, each relative to its parent unless
// path_is_relative is false. A relative data_path is relative to the server's working
// directory (serverDir).
func tableDir(t *testing.T, db *sql.DB, serverDir string, tableID int64) string {
	t.Helper()
	var dataPath string
	if err := db.QueryRow(`SELECT value FROM ducklake_metadata WHERE key = 'data_path' AND scope IS NULL`).Scan(&dataPath); err != nil {
		t.Fatalf("ducklake_metadata data_path: %v", err)
	}
	if !filepath.IsAbs(dataPath) {
		dataPath = filepath.Join(serverDir, dataPath)
	}
	var schemaPath, tablePath string
	var schemaRel, tableRel bool
	err := db.QueryRow(`SELECT s.path, s.path_is_relative, t.path, t.path_is_relative
		FROM ducklake_table t JOIN ducklake_schema s ON s.schema_id = t.schema_id
		WHERE t.table_id = ? AND t.end_snapshot IS NULL AND s.end_snapshot IS NULL`, tableID).
		Scan(&schemaPath, &schemaRel, &tablePath, &tableRel)
	if err != nil {
		t.Fatalf("paths of table %d: %v", tableID, err)
	}
	dir := dataPath
	if schemaRel {
		dir = filepath.Join(dir, schemaPath)
	} else {
		dir = schemaPath
	}
	if tableRel {
		dir = filepath.Join(dir, tablePath)
	} else {
		dir = tablePath
	}
	return dir
}

// fileSize is the size of a file on disk, failing the test if it is missing.
func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatalf("data file: %v", err)
	}
	return st.Size()
}

// parquetFooterSize reads the 4-byte little-endian footer length before the trailing
// "PAR1" magic, checking both magics.
func parquetFooterSize(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 12 || string(b[:4]) != "PAR1" || string(b[len(b)-4:]) != "PAR1" {
		t.Fatalf("%s is not a Parquet file (no PAR1 magic at both ends)", path)
	}
	return int64(binary.LittleEndian.Uint32(b[len(b)-8 : len(b)-4]))
}

// openParquet opens a Parquet file with parquet-go (which validates the footer).
func openParquet(t *testing.T, path string) *parquet.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatalf("parquet-go cannot open %s: %v", path, err)
	}
	return pf
}

// parquetFieldIDs is the sorted field_id of every top-level column of a flat file; a
// column without a field id shows as 0.
func parquetFieldIDs(pf *parquet.File) []int32 {
	schema := pf.Metadata().Schema // [root, children...] depth-first
	var ids []int32
	for _, el := range schema[1:] {
		ids = append(ids, el.FieldID)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// parquetInts reads every value of an integer column (INT32 or INT64) of a Parquet file.
func parquetInts(t *testing.T, pf *parquet.File, column string) []int64 {
	t.Helper()
	leaf, ok := pf.Schema().Lookup(column)
	if !ok {
		t.Fatalf("parquet file has no column %q (schema %v)", column, pf.Schema())
	}
	var out []int64
	for _, rg := range pf.RowGroups() {
		pages := rg.ColumnChunks()[leaf.ColumnIndex].Pages()
		for {
			p, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("reading column %q: %v", column, err)
			}
			vals := make([]parquet.Value, p.NumValues())
			n, err := p.Values().ReadValues(vals)
			if err != nil && !errors.Is(err, io.EOF) {
				t.Fatalf("reading column %q: %v", column, err)
			}
			for _, v := range vals[:n] {
				switch v.Kind() {
				case parquet.Int32:
					out = append(out, int64(v.Int32()))
				case parquet.Int64:
					out = append(out, v.Int64())
				default:
					t.Fatalf("column %q holds %v, want an integer", column, v.Kind())
				}
			}
			parquet.Release(p)
		}
		_ = pages.Close()
	}
	return out
}

// columnName is the name of the top-level Parquet column with the given field id.
func columnName(pf *parquet.File, id int32) string {
	for _, el := range pf.Metadata().Schema[1:] {
		if el.FieldID == id {
			return el.Name
		}
	}
	return fmt.Sprintf("<no column with field id %d>", id)
}
