package parquetio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"slices"
	"testing"
)

// TestDeletionVectorFromDuckDB decodes the vector DuckDB 1.5.5 wrote.
func TestDeletionVectorFromDuckDB(t *testing.T) {
	b, err := os.ReadFile("testdata/puffin/duckdb-1.5.5-bare.puffin")
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(b)
	if !IsDeletionVector(r, int64(len(b))) {
		t.Fatal("not recognised as a deletion vector")
	}
	got, err := ReadDeletionVectorPositions(r, int64(len(b)), 7, 7)
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for id := int64(0); id < 140000; id++ {
		if (id < 70000 && id%2 == 0) || (id >= 70000 && id%1000 == 7) || (id >= 100001 && id <= 100100) {
			want = append(want, id)
		}
	}
	if len(want) != 35169 || !slices.Equal(got, want) {
		t.Fatalf("%d positions, want %d (DuckDB's delete_count 35169)", len(got), len(want))
	}
	// encoded by lakepg, the same positions give the same bytes
	enc, err := EncodeDeletionVector(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, b) {
		t.Fatalf("lakepg's encoding differs from DuckDB's (%d bytes against %d)", len(enc), len(b))
	}
}

func TestDeletionVectorRoundTrip(t *testing.T) {
	cases := map[string][]int64{
		"empty":         nil,
		"one":           {0},
		"array":         {1, 5, 65535, 65536, 70000},
		"bitmap":        seq(0, 9000, 1),
		"high bits":     {3, 1 << 32, 1<<32 + 1, 5<<32 + 65537, math.MaxUint32 + 7},
		"many keys":     seq(0, 1<<21, 97),
		"bitmap+array":  append(seq(100, 20000, 2), seq(1<<20, 1<<20+50, 1)...),
		"unsorted dups": {9, 3, 9, 1, 3},
	}
	for name, in := range cases {
		enc, err := EncodeDeletionVector(in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeDVBlob(enc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := slices.Clone(in)
		slices.Sort(want)
		want = slices.Compact(want)
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("%s: got %d positions %v…, want %d", name, len(got), got[:min(5, len(got))], len(want))
		}
	}
	if _, err := EncodeDeletionVector([]int64{-1}); err == nil {
		t.Fatal("negative position accepted")
	}
}

func seq(lo, hi, step int64) []int64 {
	var out []int64
	for v := lo; v < hi; v += step {
		out = append(out, v)
	}
	return out
}

// TestRoaringRunContainers decodes the run-container form of the portable
// format (cookie 12347), which CRoaring writes after run optimisation.
func TestRoaringRunContainers(t *testing.T) {
	// two containers: key 0 runs [10,14] and [100,100]; key 2 an array {7}
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 12347|(2-1)<<16)
	b = append(b, 0b01) // container 0 is a run container
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = binary.LittleEndian.AppendUint16(b, 6-1)
	b = binary.LittleEndian.AppendUint16(b, 2)
	b = binary.LittleEndian.AppendUint16(b, 1-1)
	// fewer than 4 containers: no offsets
	b = binary.LittleEndian.AppendUint16(b, 2) // runs
	b = binary.LittleEndian.AppendUint16(b, 10)
	b = binary.LittleEndian.AppendUint16(b, 4)
	b = binary.LittleEndian.AppendUint16(b, 100)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = binary.LittleEndian.AppendUint16(b, 7)
	vec := append([]byte(nil), dvMagic...)
	vec = binary.LittleEndian.AppendUint64(vec, 1)
	vec = binary.LittleEndian.AppendUint32(vec, 1) // high bits 1
	vec = append(vec, b...)
	blob := binary.BigEndian.AppendUint32(nil, uint32(len(vec)))
	blob = append(blob, vec...)
	blob = binary.BigEndian.AppendUint32(blob, crc32.ChecksumIEEE(vec))
	got, err := decodeDVBlob(blob)
	if err != nil {
		t.Fatal(err)
	}
	base := int64(1) << 32
	want := []int64{base + 10, base + 11, base + 12, base + 13, base + 14, base + 100, base + 2<<16 + 7}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestPuffinSnapshots reads a container with one cumulative vector per
// snapshot at each snapshot.
func TestPuffinSnapshots(t *testing.T) {
	file, footer, err := WritePuffin("data.parquet", []PuffinBlob{
		{Snapshot: 3, Positions: []int64{1, 2}},
		{Snapshot: 5, Positions: []int64{1, 2, 9}},
		{Snapshot: 8, Positions: []int64{1, 2, 9, 4000, 70000}},
	})
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(file))
	if payload := int64(binary.LittleEndian.Uint32(file[n-12:])); footer != payload+16 {
		t.Fatalf("footer size %d, payload %d", footer, payload)
	}
	r := bytes.NewReader(file)
	if !IsDeletionVector(r, n) {
		t.Fatal("Puffin container not recognised")
	}
	for snap, want := range map[int64][]int64{2: {}, 3: {1, 2}, 4: {1, 2}, 5: {1, 2, 9}, 7: {1, 2, 9}, 8: {1, 2, 9, 4000, 70000}, 100: {1, 2, 9, 4000, 70000}} {
		got, err := ReadDeletePositions(r, n, snap) // sniffs the format
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("at %d: %v, want %v", snap, got, want)
		}
	}
	dvs, err := ReadDeletionVectors(r, n)
	if err != nil {
		t.Fatal(err)
	}
	pos, snaps := DeletedAt(dvs, 1, math.MaxInt64)
	if !slices.Equal(pos, []int64{1, 2, 9, 4000, 70000}) || !slices.Equal(snaps, []int64{3, 3, 5, 8, 8}) {
		t.Fatalf("positions %v deleted at %v", pos, snaps)
	}
}

// TestDeletionVectorCorrupt: damaged files are errors, never panics.
func TestDeletionVectorCorrupt(t *testing.T) {
	good, _, err := WritePuffin("d", []PuffinBlob{{Snapshot: 2, Positions: seq(0, 9000, 3)}, {Snapshot: 4, Positions: seq(0, 9000, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	bare, err := EncodeDeletionVector(seq(0, 70000, 5))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range [][]byte{good, bare} {
		for i := 0; i < len(src); i += max(1, len(src)/300) {
			b := slices.Clone(src)
			b[i] ^= 0x5a
			_, _ = ReadDeletionVectors(bytes.NewReader(b), int64(len(b)))
			if _, err := ReadDeletionVectors(bytes.NewReader(b[:i]), int64(i)); err == nil && i > 0 {
				t.Fatalf("a file cut at %d of %d bytes read", i, len(b))
			}
		}
	}
	b := slices.Clone(bare)
	b[len(b)-1] ^= 1
	if _, err := ReadDeletionVectors(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrCorruptDeletionVector) {
		t.Fatalf("bad checksum: %v", err)
	}
}

func FuzzDeletionVector(f *testing.F) {
	good, _, _ := WritePuffin("d", []PuffinBlob{{Snapshot: 2, Positions: []int64{1, 70000}}})
	bare, _ := EncodeDeletionVector(seq(0, 5000, 1))
	f.Add(good)
	f.Add(bare)
	f.Fuzz(func(t *testing.T, b []byte) {
		dvs, err := ReadDeletionVectors(bytes.NewReader(b), int64(len(b)))
		if err == nil {
			DeletedAt(dvs, 1, math.MaxInt64)
		}
	})
}

// BenchmarkDeletionVectorRead decodes DuckDB 1.5.5's vector (35,169
// positions: a bitmap container and two arrays).
func BenchmarkDeletionVectorRead(b *testing.B) {
	buf, err := os.ReadFile("testdata/puffin/duckdb-1.5.5-bare.puffin")
	if err != nil {
		b.Fatal(err)
	}
	r := bytes.NewReader(buf)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadDeletePositionsFormat(r, int64(len(buf)), 1, nil, "puffin"); err != nil {
			b.Fatal(err)
		}
	}
}
