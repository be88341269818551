package memory

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

// testSpill points GlobalSpill at a fresh directory for one test and
// returns the space; the old one comes back when the test ends.
func testSpill(t *testing.T, maxBytes int64) *SpillSpace {
	t.Helper()
	old := GlobalSpill
	sp := &SpillSpace{Base: t.TempDir()}
	if err := sp.Configure("", maxBytes); err != nil {
		t.Fatal(err)
	}
	GlobalSpill = sp
	t.Cleanup(func() { GlobalSpill = old })
	return sp
}

func isOutOfMemory(err error) bool { return pgerr.Code(err) == OutOfMemory }

// TestSpillConfigureCleansStale: a starting server removes the directories
// of servers that are gone and keeps its own.
func TestSpillConfigureCleansStale(t *testing.T) {
	base := t.TempDir()
	stale := filepath.Join(base, "pid-2147483646")
	if err := os.MkdirAll(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, "sort-1"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	sp := &SpillSpace{}
	if err := sp.Configure(base, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale directory still there: %v", err)
	}
	dir, err := sp.Dir()
	if err != nil || filepath.Dir(dir) != base {
		t.Fatalf("own directory %q (%v), want one under %s", dir, err, base)
	}
}

// TestSpillFileDropsWriterWhenRead: a spill file being read holds no write
// buffer, and one written to again after that gets a new one and reads back
// every block in order.
func TestSpillFileDropsWriterWhenRead(t *testing.T) {
	sp := testSpill(t, 0)
	f, err := NewSpillFile(sp, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	read := func() []string {
		rd, err := f.Reader()
		if err != nil {
			t.Fatal(err)
		}
		if f.W != nil {
			t.Fatal("the file keeps its write buffer while read")
		}
		var got []string
		for {
			b, err := rd.Next()
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				return got
			}
			got = append(got, string(b))
		}
	}
	if got := read(); len(got) != 0 {
		t.Fatalf("empty file read %q", got)
	}
	for _, b := range []string{"one", "two"} {
		if err := f.WriteBlock([]byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	if got := read(); !slices.Equal(got, []string{"one", "two"}) {
		t.Fatalf("read %q, want one, two", got)
	}
	if err := f.WriteBlock([]byte("three")); err != nil {
		t.Fatal(err)
	}
	if got := read(); !slices.Equal(got, []string{"one", "two", "three"}) {
		t.Fatalf("read %q after writing again, want one, two, three", got)
	}
}
