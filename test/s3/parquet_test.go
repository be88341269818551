package s3

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/storage"
	"github.com/lakepg/lakepg/storage/s3test"
	"github.com/lakepg/lakepg/types"
)

var testCols = []parquetio.Column{
	{FieldID: 1, Name: "id", Type: types.Int64T},
	{FieldID: 2, Name: "a", Type: types.Int64T},
	{FieldID: 3, Name: "b", Type: types.TextT},
	{FieldID: 4, Name: "c", Type: types.Float64T},
	{FieldID: 5, Name: "d", Type: types.TextT},
	{FieldID: 6, Name: "e", Type: types.Int64T},
}

// parquetBytes writes rows [lo, hi) of the test table in row groups of
// rowGroup rows.
func parquetBytes(t *testing.T, lo, hi, rowGroup int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := parquetio.NewWriter(&buf, testCols, parquetio.WriterOptions{RowGroupRows: rowGroup})
	if err != nil {
		t.Fatal(err)
	}
	ts := make([]types.T, len(testCols))
	for i, c := range testCols {
		ts[i] = c.Type
	}
	b := vec.NewBatch(ts, 1000)
	for start := lo; start < hi; start += 1000 {
		b.Reset()
		end := min(start+1000, hi)
		for i := start; i < end; i++ {
			b.Vecs[0].AppendInt(int64(i))
			b.Vecs[1].AppendInt(int64(i * 2))
			b.Vecs[2].AppendString(fmt.Sprintf("row %d/%d", i, i*7919%10007))
			b.Vecs[3].AppendFloat(float64(i) / 4)
			b.Vecs[4].AppendString(fmt.Sprintf("padding %x", i*104729))
			b.Vecs[5].AppendInt(int64(i % 7))
		}
		b.N = end - start
		if err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func putObject(t *testing.T, srv *s3test.Server, bucket, key string, data []byte) {
	t.Helper()
	_, err := srv.Client().PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: &bucket, Key: &key, Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data))),
	})
	if err != nil {
		t.Fatalf("putting s3://%s/%s: %v", bucket, key, err)
	}
}

// noPrefetch hides a reader's PrefetchRanges, to count what the scan would
// cost without it.
type noPrefetch struct{ io.ReaderAt }

// TestS3ParquetRequests pins the request counts of a Parquet scan over S3:
// one GET opens the file and its footer, one GET per row group reads all
// projected column chunks, and a repeated scan is served from the cache
// after one revalidation.
func TestS3ParquetRequests(t *testing.T) {
	srv := s3test.Shared(t)
	bucket := srv.Bucket(t)
	srv.SetEnv(t)
	const rows, rowGroup = 40000, 10000
	putObject(t, srv, bucket, "f.parquet", parquetBytes(t, 0, rows, rowGroup))
	path := "s3://" + bucket + "/f.parquet"
	proj := []parquetio.Projection{
		{FieldID: 1, Name: "id", Pos: 0, Type: types.Int64T},
		{FieldID: 3, Name: "b", Pos: 2, Type: types.TextT},
		{FieldID: 6, Name: "e", Pos: 5, Type: types.Int64T},
	}
	scan := func(store storage.Backend, hide bool) storage.Stats {
		t.Helper()
		before := storage.ReadStats()
		f, err := store.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var r io.ReaderAt = f
		if hide {
			r = noPrefetch{f}
		}
		pf, err := parquetio.Open(r, f.Size())
		if err != nil {
			t.Fatal(err)
		}
		if pf.NumRowGroups() != rows/rowGroup {
			t.Fatalf("%d row groups, want %d", pf.NumRowGroups(), rows/rowGroup)
		}
		if st := storage.ReadStats().Sub(before); st.GetRequests != 1 {
			t.Fatalf("open + footer took %d GETs, want 1", st.GetRequests)
		}
		sc := pf.Scan(proj, parquetio.ScanOptions{})
		var b vec.Batch
		var n, sum int64
		for {
			_, ok, err := sc.Next(&b)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			for i := 0; i < b.N; i++ {
				sum += b.Vecs[0].I64[i] + b.Vecs[2].I64[i]
			}
			n += int64(b.N)
		}
		if want := int64(rows*(rows-1)/2) + sumMod7(rows); n != rows || sum != want {
			t.Fatalf("scan: %d rows, sum %d", n, sum)
		}
		return storage.ReadStats().Sub(before)
	}
	opts := storage.Options{S3Endpoint: srv.Endpoint, S3PathStyle: true, S3Region: s3test.Region, MemoryCacheSize: -1}
	store, err := storage.ForDataPath(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	plain := scan(store, true)
	coalesced := scan(store, false)
	t.Logf("GETs for 3 of 6 columns over %d row groups: %d without coalescing, %d with", rows/rowGroup, plain.GetRequests, coalesced.GetRequests)
	// Without coalescing each chunk is a GET, except those within the
	// speculative tail read of the open (the last row group's last chunks).
	if plain.GetRequests < 3*rows/rowGroup {
		t.Fatalf("scan without coalescing took %d GETs, want at least %d", plain.GetRequests, 3*rows/rowGroup)
	}
	if coalesced.GetRequests != 1+rows/rowGroup {
		t.Fatalf("coalesced scan took %d GETs, want %d (open + one per row group)", coalesced.GetRequests, 1+rows/rowGroup)
	}

	opts.MemoryCacheSize = 0 // the default cache
	cached, err := storage.ForDataPath(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	first := scan(cached, false)
	second := scan(cached, false)
	if second.GetRequests != 1 || second.BytesFetched != 0 || first.BytesFetched == 0 {
		t.Fatalf("repeated scan: %d GETs, %d bytes (first %d bytes); want 1 revalidation and no bytes", second.GetRequests, second.BytesFetched, first.BytesFetched)
	}
}

func sumMod7(n int) int64 {
	var s int64
	for i := 0; i < n; i++ {
		s += int64(i % 7)
	}
	return s
}
