package main

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/storage"
)

type fakeScans struct{ bytes, files, groups, pages int64 }

func (f fakeScans) BytesRead() int64       { return f.bytes }
func (f fakeScans) FilesPruned() int64     { return f.files }
func (f fakeScans) RowGroupsPruned() int64 { return f.groups }
func (f fakeScans) PagesSkipped() int64    { return f.pages }

// TestStatementLogFields: each statement's line carries what its scans read
// and skipped, and its outcome.
func TestStatementLogFields(t *testing.T) {
	var buf bytes.Buffer
	o := newObserver(slog.New(slog.NewJSONHandler(&buf, nil)), 0)
	o.statement("alice", "SELECT * FROM t", time.Now(), 3, fakeScans{4096, 2, 5, 7}, "SELECT 3", nil)
	o.statement("alice", "SELECT 1/0", time.Now(), 0, nil, "", errors.New("boom"))
	out := buf.String()
	for _, want := range []string{`"rows":3,"bytes_read":4096,"files_pruned":2,"row_groups_pruned":5,"pages_skipped":7,"statement":"SELECT * FROM t","tag":"SELECT 3"`,
		`"statement":"SELECT 1/0","sqlstate":"XX000","error":"boom"`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
}

// TestStorageMetrics: the local read counters reach /metrics.
func TestStorageMetrics(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	o := newObserver(slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)), 0)
	value := func(name string) float64 {
		mfs, err := o.reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() != "lakepg_storage_read_bytes_total" {
				continue
			}
			for _, m := range mf.GetMetric() {
				if m.GetLabel()[0].GetValue() == name {
					return m.GetCounter().GetValue()
				}
			}
		}
		t.Fatalf("no lakepg_storage_read_bytes_total{backend=%q}", name)
		return 0
	}
	before := value("local")
	f, err := storage.NewLocal().Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.ReadAt(make([]byte, 600), 100); err != nil {
		t.Fatal(err)
	}
	if d := value("local") - before; d < 600 {
		t.Errorf("local bytes read grew by %v after a 600-byte read", d)
	}
}
