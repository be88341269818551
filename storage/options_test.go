package storage

import (
	"flag"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "512": 512, "10KiB": 10 << 10, "10k": 10 << 10, "1.5GiB": 3 << 29, "2GB": 2e9,
		"256 MiB": 256 << 20, "1T": 1 << 40, "-1": -1, "7b": 7,
	} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "abc", "10XB", "-5MB", "GiB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

func TestRegisterFlags(t *testing.T) {
	t.Setenv("LAKEPG_S3_ENDPOINT", "http://env:1")
	t.Setenv("LAKEPG_S3_PATH_STYLE", "true")
	t.Setenv("LAKEPG_CACHE_SIZE", "1GiB")
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	o := RegisterFlags(fs)
	if err := fs.Parse([]string{"--s3-region", "eu-west-1", "--cache-dir", "/tmp/c", "--cache-memory", "64MiB"}); err != nil {
		t.Fatal(err)
	}
	want := Options{S3Endpoint: "http://env:1", S3Region: "eu-west-1", S3PathStyle: true, CacheDir: "/tmp/c", CacheSize: 1 << 30, MemoryCacheSize: 64 << 20}
	if *o != want {
		t.Fatalf("options %+v, want %+v", *o, want)
	}
	if err := fs.Parse([]string{"--s3-endpoint", "http://flag:2", "--s3-path-style=false"}); err != nil {
		t.Fatal(err)
	}
	if o.S3Endpoint != "http://flag:2" || o.S3PathStyle {
		t.Fatalf("flags do not override the environment: %+v", *o)
	}
	t.Setenv("LAKEPG_S3_PATH_STYLE", "yes please")
	o = RegisterFlags(flag.NewFlagSet("y", flag.ContinueOnError))
	if _, err := ForDataPath("/lake/", *o); err == nil || !strings.Contains(err.Error(), "LAKEPG_S3_PATH_STYLE") {
		t.Fatalf("bad env accepted: %v", err)
	}
}

func TestForDataPath(t *testing.T) {
	b, err := ForDataPath("/var/lake/data/", Options{})
	if err != nil {
		t.Fatalf("local: %v", err)
	}
	r := b.(*Router)
	if r.s3b != nil {
		t.Fatal("a local lake made an S3 client")
	}
	if got, err := r.pick("/x/y.parquet"); err != nil || got != r.local {
		t.Fatalf("local path: %v %v", got, err)
	}
	b, err = ForDataPath("s3://bucket/prefix/", Options{S3Endpoint: "http://127.0.0.1:1", S3Region: "us-east-1"})
	if err != nil {
		t.Fatalf("s3: %v", err)
	}
	r = b.(*Router)
	if got, err := r.pick("S3://bucket/k"); err != nil || got != Backend(r.s3b) {
		t.Fatalf("s3 path: %v %v", got, err)
	}
	if got, err := r.pick("/local/file.parquet"); err != nil || got != r.local {
		t.Fatalf("local path from an s3 lake: %v %v", got, err)
	}
	for _, bad := range []string{"gs://x/", "ftp://x/", "", "s3:///nobucket"} {
		if _, err := ForDataPath(bad, Options{}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := ForDataPath("gs://x/", Options{}); !strings.Contains(err.Error(), "s3://") {
		t.Errorf("gs:// error does not point to s3://: %v", err)
	}
}

func TestRangeCache(t *testing.T) {
	c := newRangeCache(8000) // entries up to 1000 bytes
	c.put("a", 0, make([]byte, 1001))
	if c.used != 0 {
		t.Fatal("oversized entry stored")
	}
	for i := 0; i < 10; i++ {
		b := make([]byte, 1000)
		b[0] = byte(i)
		c.put("a", int64(i)*1000, b)
	}
	if c.used > 8000 {
		t.Fatalf("cache holds %d bytes over its limit", c.used)
	}
	if _, ok := c.get("a", 0, 10); ok {
		t.Fatal("least recently used entry survived")
	}
	if got, ok := c.get("a", 9000, 1); !ok || got[0] != 9 {
		t.Fatal("newest entry missing")
	}
	if got, ok := c.get("a", 9500, 500); !ok || len(got) != 500 {
		t.Fatal("contained range not served")
	}
	if _, ok := c.get("a", 9500, 501); ok {
		t.Fatal("range past the entry served")
	}
	if _, ok := c.get("b", 9000, 1); ok {
		t.Fatal("other object served")
	}
	// Use keeps an entry alive.
	c.get("a", 2000, 1)
	for i := 10; i < 16; i++ {
		c.put("a", int64(i)*1000, make([]byte, 1000))
	}
	if _, ok := c.get("a", 2000, 1); !ok {
		t.Fatal("recently used entry evicted")
	}
}

func TestContentRangeTotal(t *testing.T) {
	if n, ok := contentRangeTotal("bytes 100-199/4096"); !ok || n != 4096 {
		t.Fatal(n, ok)
	}
	if _, ok := contentRangeTotal(""); ok {
		t.Fatal("empty accepted")
	}
	if _, ok := contentRangeTotal("bytes */*"); ok {
		t.Fatal("unknown total accepted")
	}
}
