package snapshot

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/catalog"
)

func init() {
	// Keep retry tests fast; the formula is tested separately.
	retryWait = time.Millisecond
}

type env struct {
	t    *testing.T
	db   *catalog.DB
	file string
	data string
	ctx  context.Context
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{t: t, file: filepath.Join(dir, "cat.sqlite"), data: filepath.Join(dir, "data"), ctx: context.Background()}
	db, err := catalog.Open(e.ctx, "sqlite:"+e.file, e.data)
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	t.Cleanup(func() { e.db.Close() })
	return e
}

// open opens a second handle on the same catalog, as another process would.
func (e *env) open() *catalog.DB {
	db, err := catalog.Open(e.ctx, "sqlite:"+e.file, "")
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { db.Close() })
	return db
}

func (e *env) head() catalog.Snapshot {
	e.t.Helper()
	h, err := e.db.Head(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return h
}

func (e *env) load(s catalog.Snapshot) *catalog.Metadata {
	e.t.Helper()
	m, err := e.db.Load(e.ctx, s)
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

func (e *env) at(id int64) catalog.Snapshot {
	e.t.Helper()
	s, err := e.db.SnapshotByID(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// begin starts a commit on the current head.
func (e *env) begin() (*Commit, *catalog.Metadata) {
	h := e.head()
	m := e.load(h)
	return Begin(e.db, h, m), m
}

func (e *env) commit(c *Commit) catalog.Snapshot {
	e.t.Helper()
	s, err := c.Commit(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// rows runs a query and renders each row as "a|b|c" with NULL as ~.
func (e *env) rows(q string, args ...any) []string {
	e.t.Helper()
	r, err := e.db.SQL().QueryContext(e.ctx, q, args...)
	if err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
	defer r.Close()
	cols, _ := r.Columns()
	var out []string
	for r.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := r.Scan(ptrs...); err != nil {
			e.t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				parts[i] = "~"
			case []byte:
				parts[i] = string(x)
			default:
				parts[i] = fmt.Sprint(x)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

func (e *env) expectRows(q string, want ...string) {
	e.t.Helper()
	got := e.rows(q)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		e.t.Errorf("%s\n got:\n  %s\nwant:\n  %s", q, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func p[T any](v T) *T { return &v }

func intStats(col int64, min, max string, n, nulls int64) catalog.ColumnStats {
	return catalog.ColumnStats{ColumnID: col, ValueCount: p(n), NullCount: p(nulls), ColumnSizeBytes: p(int64(10)), Min: &min, Max: &max}
}
