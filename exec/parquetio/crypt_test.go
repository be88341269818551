package parquetio

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// testdata/encrypted holds a data file and its delete file as DuckDB 1.5.5's
// ducklake extension wrote them for
//
//	ATTACH 'ducklake:sqlite:…' AS x (DATA_PATH …, ENCRYPTED, DATA_INLINING_ROW_LIMIT 0);
//	CREATE TABLE x.t(a INT, b VARCHAR);
//	INSERT INTO x.t SELECT i, 'v'||i FROM range(10) r(i);
//	DELETE FROM x.t WHERE a=3;
//
// with the keys below from ducklake_data_file / ducklake_delete_file
// encryption_key (the rows DuckDB then returns: 0..9 without 3).
const (
	duckDataKey   = "h5DCeneJWPB8+Ppuub/qkQ=="
	duckDeleteKey = "zGw3hlcViFzfD3ClKEOvig=="
)

func mustKey(t *testing.T, s string) Key {
	t.Helper()
	k, err := ParseKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/encrypted/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantCode checks err is a pgerr with code and does not quote the key.
func wantCode(t *testing.T, what string, err error, code string, key string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	pe, ok := pgerr.As(err)
	if !ok || pe.Code != code {
		t.Fatalf("%s: error %v (%T), want SQLSTATE %s", what, err, err, code)
	}
	if key != "" && strings.Contains(err.Error(), key) {
		t.Fatalf("%s: error text contains the key: %v", what, err)
	}
}

func TestEncryptedDuckDBFiles(t *testing.T) {
	data := readTestdata(t, "data.parquet")
	f, err := OpenKey(bytes.NewReader(data), int64(len(data)), mustKey(t, duckDataKey))
	if err != nil {
		t.Fatal(err)
	}
	proj := []Projection{
		{Name: "a", Pos: 0, Type: types.Int32T, FieldID: 1},
		{Name: "b", Pos: 1, Type: types.VarcharT, FieldID: 2},
	}
	rows, _, _ := scanFile(t, f, proj, ScanOptions{})
	if len(rows) != 10 {
		t.Fatalf("%d rows, want 10", len(rows))
	}
	for i, r := range rows {
		if r[0] != int64(i) || r[1] != "v"+string(rune('0'+i)) {
			t.Fatalf("row %d = %v", i, r)
		}
	}
	del := readTestdata(t, "delete.parquet")
	pos, err := ReadDeletePositionsKey(bytes.NewReader(del), int64(len(del)), 1<<62, mustKey(t, duckDeleteKey))
	if err != nil {
		t.Fatal(err)
	}
	if len(pos) != 1 || pos[0] != 3 {
		t.Fatalf("delete positions %v, want [3]", pos)
	}

	// Without a key, with the other file's key, with a malformed key: errors
	// with a SQLSTATE, never the key.
	_, err = Open(bytes.NewReader(data), int64(len(data)))
	wantCode(t, "no key", err, pgerr.DataCorrupted, "")
	_, err = OpenKey(bytes.NewReader(data), int64(len(data)), mustKey(t, duckDeleteKey))
	wantCode(t, "wrong key", err, pgerr.DataCorrupted, duckDeleteKey)
	if !strings.Contains(err.Error(), "wrong key") {
		t.Fatalf("wrong key error does not say so: %v", err)
	}
	_, err = ParseKey("not base64!")
	wantCode(t, "bad base64", err, pgerr.DataCorrupted, "not base64!")
	_, err = ParseKey("AAAA")
	wantCode(t, "short key", err, pgerr.DataCorrupted, "")
}

func TestEncryptedRoundTrip(t *testing.T) {
	cols := []Column{
		{FieldID: 1, Name: "id", Type: types.Int64T},
		{FieldID: 2, Name: "s", Type: types.VarcharT},
		{FieldID: 3, Name: "d", Type: types.Float64T},
	}
	gens := []genFunc{
		func(i int) cell { return int64(i) },
		func(i int) cell {
			if i%7 == 0 {
				return nil
			}
			return []string{"red", "green", "blue"}[i%3] // dictionary pages
		},
		func(i int) cell { return float64(i) / 4 },
	}
	key, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	const n = 5000
	data, info := writeRows(t, cols, gens, n, 700, WriterOptions{Key: key, RowGroupRows: 2048})
	if string(data[:4]) != "PARE" || string(data[len(data)-4:]) != "PARE" {
		t.Fatalf("file does not start and end with PARE")
	}
	if info.Size != int64(len(data)) || info.FooterSize != footerLen(data) || !bytes.Equal(info.Key, key) {
		t.Fatalf("info size %d footer %d, file %d footer %d", info.Size, info.FooterSize, len(data), footerLen(data))
	}
	if bytes.Contains(data, key) || bytes.Contains(data, []byte(EncodeKey(key))) {
		t.Fatal("the file contains its key")
	}
	if bytes.Contains(data, []byte("green")) {
		t.Fatal("plaintext values in the encrypted file")
	}
	f, err := OpenKey(bytes.NewReader(data), int64(len(data)), key)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.meta.rowGroups) != 3 {
		t.Fatalf("%d row groups, want 3", len(f.meta.rowGroups))
	}
	rows, _, _ := scanFile(t, f, projFor(cols), ScanOptions{})
	if len(rows) != n {
		t.Fatalf("%d rows, want %d", len(rows), n)
	}
	for i, r := range rows {
		for c := range cols {
			if !sameCell(r[c], gens[c](i)) {
				t.Fatalf("row %d col %d = %v, want %v", i, c, r[c], gens[c](i))
			}
		}
	}

	// Deletes, encrypted with their own key.
	dkey, _ := NewKey()
	var buf bytes.Buffer
	if _, err := WriteDeleteFileKey(&buf, "x.parquet", []int64{1, 5, 4000}, dkey); err != nil {
		t.Fatal(err)
	}
	pos, err := ReadDeletePositionsKey(bytes.NewReader(buf.Bytes()), int64(buf.Len()), 1<<62, dkey)
	if err != nil || len(pos) != 3 || pos[2] != 4000 {
		t.Fatalf("delete positions %v, %v", pos, err)
	}
	_, err = ReadDeletePositionsKey(bytes.NewReader(buf.Bytes()), int64(buf.Len()), 1<<62, key)
	wantCode(t, "delete file, wrong key", err, pgerr.DataCorrupted, EncodeKey(key))
}

// TestEncryptedCorrupt: truncated files and flipped bytes are errors, never
// panics or wrong rows (GCM authenticates every module).
func TestEncryptedCorrupt(t *testing.T) {
	data := readTestdata(t, "data.parquet")
	key := mustKey(t, duckDataKey)
	proj := []Projection{
		{Name: "a", Pos: 0, Type: types.Int32T, FieldID: 1},
		{Name: "b", Pos: 1, Type: types.VarcharT, FieldID: 2},
	}
	scan := func(b []byte) error {
		f, err := OpenKey(bytes.NewReader(b), int64(len(b)), key)
		if err != nil {
			return err
		}
		s := f.Scan(proj, ScanOptions{})
		defer s.Release()
		var bt vec.Batch
		for {
			_, ok, err := s.Next(&bt)
			if err != nil || !ok {
				return err
			}
		}
	}
	for n := 0; n < len(data); n++ {
		if err := scan(data[:n]); err == nil {
			t.Fatalf("file truncated to %d bytes read without error", n)
		}
	}
	// From byte 4: the leading magic is never read (by DuckDB or us, for
	// plain files too); everything after it is.
	for i := 4; i < len(data); i++ {
		b := bytes.Clone(data)
		b[i] ^= 0x5a
		err := scan(b)
		// Flipped lengths, nonces, tags, ciphertext, the crypto metadata
		// and the trailing magic are all caught.
		if err == nil {
			t.Fatalf("byte %d flipped: read without error", i)
		}
		var pe *pgerr.Error
		if errors.As(err, &pe) && strings.Contains(pe.Message, duckDataKey) {
			t.Fatal("error contains the key")
		}
	}
}
