package storage

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestLocalCreateCommitOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := NewLocal()
	path := filepath.Join(dir, "main", "t", "ducklake-x.parquet")

	w, err := b.Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, "hello "); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, "world"); err != nil {
		t.Fatal(err)
	}
	// Nothing visible before Commit.
	if _, err := b.Stat(ctx, path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("stat before commit: %v, want ErrNotExist", err)
	}
	if objs, err := b.List(ctx, dir+"/"); err != nil || len(objs) != 0 {
		t.Fatalf("list before commit: %v %v", objs, err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatalf("abort after commit: %v", err)
	}
	if _, err := w.Write([]byte("x")); err == nil {
		t.Fatal("write after commit succeeded")
	}
	size, err := b.Stat(ctx, path)
	if err != nil || size != 11 {
		t.Fatalf("stat = %d, %v", size, err)
	}
	f, err := b.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != 11 {
		t.Fatalf("size %d", f.Size())
	}
	// Concurrent ReadAt.
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 5)
			for k := 0; k < 100; k++ {
				if _, err := f.ReadAt(buf, 6); err != nil || string(buf) != "world" {
					t.Errorf("ReadAt = %q, %v", buf, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	// No temporary files left behind.
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Fatalf("dir has %d entries", len(ents))
	}
}

func TestLocalAbort(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := NewLocal()
	path := filepath.Join(dir, "a.parquet")
	w, err := b.Create(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("partial"))
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err == nil {
		t.Fatal("commit after abort succeeded")
	}
	if _, err := b.Stat(ctx, path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("stat after abort: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Fatalf("leftover files: %v", ents)
	}
}

func TestLocalCommitReplaces(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := NewLocal()
	path := filepath.Join(dir, "x")
	for _, s := range []string{"first version", "2nd"} {
		w, err := b.Create(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, s)
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(path)
	if string(got) != "2nd" {
		t.Fatalf("got %q", got)
	}
}

func TestLocalMissingAndDelete(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := NewLocal()
	missing := filepath.Join(dir, "nope.parquet")
	if _, err := b.Open(ctx, missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("open missing: %v", err)
	}
	if _, err := b.Stat(ctx, missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("stat missing: %v", err)
	}
	if err := b.Delete(ctx, missing); err != nil {
		t.Fatalf("delete missing: %v", err)
	}
	os.WriteFile(missing, []byte("x"), 0o644)
	if err := b.Delete(ctx, missing); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("file still there")
	}
}

func TestLocalList(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := NewLocal()
	files := map[string]string{
		"main/t/a.parquet":                "aa",
		"main/t/year=2024/b.parquet":      "bbb",
		"main/tx/c.parquet":               "c",
		"main/u/d.parquet":                "dddd",
		"main/t/.e.parquet.tmp-123":       "in progress",
		"other/ducklake-1-delete.parquet": "d",
	}
	for p, s := range files {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(s), 0o644)
	}
	got, err := b.List(ctx, filepath.Join(dir, "main", "t")+"/")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range got {
		names = append(names, strings.TrimPrefix(o.Path, dir+"/"))
		if o.ModTime.IsZero() {
			t.Error("zero mod time")
		}
	}
	want := "main/t/a.parquet,main/t/year=2024/b.parquet"
	if strings.Join(names, ",") != want {
		t.Fatalf("list = %v, want %s", names, want)
	}
	if got[1].Size != 3 {
		t.Fatalf("size %d", got[1].Size)
	}
	// A prefix that is not a directory boundary matches by string prefix.
	got, _ = b.List(ctx, filepath.Join(dir, "main", "t"))
	if len(got) != 3 {
		t.Fatalf("prefix list: %v", got)
	}
	// A missing prefix is an empty list, not an error.
	got, err = b.List(ctx, filepath.Join(dir, "nothing")+"/")
	if err != nil || len(got) != 0 {
		t.Fatalf("missing prefix: %v %v", got, err)
	}
}
