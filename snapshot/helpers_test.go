package snapshot

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/catalog/catalogtest"
)

func init() {
	// Keep retry tests fast; the formula is tested separately.
	retryWait = time.Millisecond
}

// backend is a catalog database the tests run on.
type backend struct {
	name string
	// newCatalog returns the DSN and options of a catalog that does not
	// exist yet.
	newCatalog func(t *testing.T) (string, catalog.Options)
}

var testBackends = []backend{
	{"sqlite", func(t *testing.T) (string, catalog.Options) {
		return "sqlite:" + filepath.Join(t.TempDir(), "cat.sqlite"), catalog.Options{}
	}},
	// A schema of its own on the test server per catalog.
	{"postgres", func(t *testing.T) (string, catalog.Options) {
		admin := catalogtest.PostgresDSN(t)
		if admin == "" {
			t.Skip("LAKEPG_TEST_PG_DSN is not set")
		}
		return admin, catalog.Options{Schema: catalogtest.NewSchema(t, admin)}
	}},
}

// eachBackend runs f as a subtest per backend.
func eachBackend(t *testing.T, f func(t *testing.T, be backend)) {
	for _, be := range testBackends {
		t.Run(be.name, func(t *testing.T) { f(t, be) })
	}
}

type env struct {
	t    *testing.T
	db   *catalog.DB
	dsn  string
	opts catalog.Options
	data string
	ctx  context.Context
}

func newEnv(t *testing.T, be backend) *env {
	t.Helper()
	dsn, opts := be.newCatalog(t)
	e := &env{t: t, dsn: dsn, opts: opts, data: filepath.Join(t.TempDir(), "data"), ctx: context.Background()}
	db, err := catalog.OpenWithOptions(e.ctx, e.dsn, e.data, e.opts)
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	t.Cleanup(func() { e.db.Close() })
	return e
}

// open opens a second handle on the same catalog, as another process would.
func (e *env) open() *catalog.DB {
	db, err := catalog.OpenWithOptions(e.ctx, e.dsn, "", e.opts)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { db.Close() })
	return db
}

// pg reports whether the catalog is on PostgreSQL.
func (e *env) pg() bool { return e.db.Dialect() == "postgres" }

// exec runs a statement written with '?' placeholders on the catalog.
func (e *env) exec(q string, args ...any) {
	e.t.Helper()
	if _, err := e.db.SQL().ExecContext(e.ctx, e.db.Rebind(q), args...); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
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

// rows runs a query and renders each row as "a|b|c" with NULL as ~, in
// SQLite's rendering whatever the backend: booleans as 1/0, timestamps as
// catalog.FormatTime writes them.
func (e *env) rows(q string, args ...any) []string {
	e.t.Helper()
	r, err := e.db.SQL().QueryContext(e.ctx, e.db.Rebind(q), args...)
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
			case bool:
				parts[i] = map[bool]string{true: "1", false: "0"}[x]
			case time.Time:
				parts[i] = catalog.FormatTime(x)
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
