package parquetio

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"slices"
	"sort"
	"strconv"
)

// Deletion vectors: DuckLake delete files with format 'puffin' hold the
// deleted positions of one data file as Iceberg's deletion-vector-v1 blob (a
// 64-bit roaring bitmap, portable serialisation, with a length prefix, a
// magic and a CRC). DuckDB writes them with the write_deletion_vectors
// option. Two layouts exist:
//   - a bare blob (the whole file; DuckDB 1.5, and 2.0 for one snapshot):
//     every position was deleted at the delete file's begin_snapshot;
//   - a Puffin container (PFA1 … blobs … footer JSON … PFA1; DuckLake 1.1)
//     with one blob per snapshot, each holding every position deleted up to
//     that snapshot (cumulative, not a delta), the snapshot in the blob's
//     property ducklake-snapshot-id. A reader at snapshot S applies the
//     blobs of snapshots ≤ S.
//
// Puffin files are never encrypted (DuckDB writes them in plain even in an
// ENCRYPTED lake).

// IsDeletionVector reports whether a delete file is a deletion vector (a
// Puffin container, or a bare deletion-vector-v1 blob) rather than Parquet,
// whose files start with PAR1 (PARE encrypted). The catalog's format column
// says the same; the bytes are what every reader already has at hand.
func IsDeletionVector(r io.ReaderAt, size int64) bool {
	if size < 12 {
		return false
	}
	var head [8]byte
	if n, _ := r.ReadAt(head[:], 0); n != len(head) {
		return false
	}
	if m := string(head[:4]); m == "PAR1" || m == "PARE" {
		return false // Parquet, whatever bytes follow its magic
	}
	return string(head[:4]) == string(puffinMagic) || string(head[4:8]) == string(dvMagic)
}

// DeletionVector is one blob: the positions deleted as of Snapshot (0 for a
// blob without a snapshot: the delete file's begin_snapshot applies).
type DeletionVector struct {
	Snapshot  int64
	Positions []int64 // ascending
}

var (
	puffinMagic = []byte("PFA1")
	dvMagic     = []byte{0xD1, 0xD3, 0x39, 0x64}
)

const (
	puffinSnapshotProperty = "ducklake-snapshot-id"
	dvBlobType             = "deletion-vector-v1"
)

// ErrCorruptDeletionVector marks a deletion-vector file lakepg cannot decode.
var ErrCorruptDeletionVector = errors.New("corrupt deletion vector")

func dvErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorruptDeletionVector}, args...)...)
}

// maxDeletionVectorFile bounds what is read into memory: a vector of every
// position of a 2^32-row file is 512 MiB as a bitmap, far beyond any real
// delete file, so a bigger size means a wrong catalog row.
const maxDeletionVectorFile = 1 << 30

// ReadDeletionVectors reads every deletion vector of a 'puffin' delete file,
// ordered by snapshot.
func ReadDeletionVectors(r io.ReaderAt, size int64) ([]DeletionVector, error) {
	if size < 12 || size > maxDeletionVectorFile {
		return nil, dvErr("file of %d bytes", size)
	}
	buf := make([]byte, size)
	if n, err := r.ReadAt(buf, 0); n != len(buf) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if len(buf) >= 4 && string(buf[:4]) == string(puffinMagic) {
		return readPuffinContainer(buf)
	}
	pos, err := decodeDVBlob(buf)
	if err != nil {
		return nil, err
	}
	return []DeletionVector{{Positions: pos}}, nil
}

// DeletedAt lists the positions of a 'puffin' delete file deleted at or
// before snapshot, each with the snapshot that deleted it first; begin is
// the delete file's begin_snapshot, which snapshot-less blobs take.
func DeletedAt(dvs []DeletionVector, begin, snapshot int64) (pos, snaps []int64) {
	// vectors come in ascending snapshot order, each sorted: merge them in
	// turn, a position keeping the snapshot of the first vector holding it
	for _, dv := range dvs {
		s := dv.Snapshot
		if s == 0 {
			s = begin
		}
		if s > snapshot {
			continue
		}
		np := make([]int64, 0, max(len(pos), len(dv.Positions)))
		ns := make([]int64, 0, cap(np))
		i, j := 0, 0
		for i < len(pos) || j < len(dv.Positions) {
			switch {
			case j == len(dv.Positions) || (i < len(pos) && pos[i] < dv.Positions[j]):
				np, ns = append(np, pos[i]), append(ns, snaps[i])
				i++
			case i == len(pos) || dv.Positions[j] < pos[i]:
				np, ns = append(np, dv.Positions[j]), append(ns, s)
				j++
			default: // in both: the earlier vector's snapshot
				np, ns = append(np, pos[i]), append(ns, min(snaps[i], s))
				i++
				j++
			}
		}
		pos, snaps = np, ns
	}
	if pos == nil {
		pos, snaps = []int64{}, []int64{}
	}
	return pos, snaps
}

// ReadDeletionVectorPositions reads the positions a 'puffin' delete file
// deletes as of snapshot (begin: its begin_snapshot), ascending.
func ReadDeletionVectorPositions(r io.ReaderAt, size, begin, snapshot int64) ([]int64, error) {
	dvs, err := ReadDeletionVectors(r, size)
	if err != nil {
		return nil, err
	}
	// the union of the vectors in force (each is sorted; one, the usual
	// case, needs no merging)
	var out []int64
	n := 0
	for _, dv := range dvs {
		s := dv.Snapshot
		if s == 0 {
			s = begin
		}
		if s > snapshot {
			continue
		}
		if n == 0 {
			out = dv.Positions
		} else {
			out = append(slices.Clip(out), dv.Positions...)
		}
		n++
	}
	if n > 1 {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	if out == nil {
		out = []int64{}
	}
	return out, nil
}

type puffinFooter struct {
	Blobs []struct {
		Type       string            `json:"type"`
		Offset     int64             `json:"offset"`
		Length     int64             `json:"length"`
		Properties map[string]string `json:"properties"`
	} `json:"blobs"`
}

// readPuffinContainer reads Magic Blob… Footer, where Footer is
// Magic FooterPayload PayloadSize(4, LE) Flags(4) Magic.
func readPuffinContainer(buf []byte) ([]DeletionVector, error) {
	n := int64(len(buf))
	if n < 4+16 || string(buf[n-4:]) != string(puffinMagic) {
		return nil, dvErr("Puffin file without its trailing magic")
	}
	flags := binary.LittleEndian.Uint32(buf[n-8:])
	if flags != 0 {
		// bit 0 is an LZ4-compressed footer, which DuckDB never writes
		return nil, dvErr("Puffin footer flags %#x are not supported", flags)
	}
	payload := int64(binary.LittleEndian.Uint32(buf[n-12:]))
	start := n - 12 - payload
	if payload > n-20 || start < 8 || string(buf[start-4:start]) != string(puffinMagic) {
		return nil, dvErr("Puffin footer size %d out of range", payload)
	}
	var f puffinFooter
	if err := json.Unmarshal(buf[start:start+payload], &f); err != nil {
		return nil, dvErr("Puffin footer: %v", err)
	}
	blobEnd := start - 4
	var out []DeletionVector
	withSnap := 0
	for _, b := range f.Blobs {
		if b.Type != dvBlobType {
			continue // other blob kinds (statistics) carry no deletes
		}
		if b.Offset < 4 || b.Length < 0 || b.Offset > blobEnd || b.Length > blobEnd-b.Offset {
			return nil, dvErr("blob at %d+%d outside the file", b.Offset, b.Length)
		}
		pos, err := decodeDVBlob(buf[b.Offset : b.Offset+b.Length])
		if err != nil {
			return nil, err
		}
		dv := DeletionVector{Positions: pos}
		if v, ok := b.Properties[puffinSnapshotProperty]; ok {
			s, err := strconv.ParseInt(v, 10, 64)
			if err != nil || s < 0 {
				return nil, dvErr("bad %s %q", puffinSnapshotProperty, v)
			}
			dv.Snapshot = s
			withSnap++
		}
		out = append(out, dv)
	}
	if len(out) == 0 {
		return nil, dvErr("Puffin file without a deletion vector")
	}
	if withSnap != 0 && withSnap != len(out) {
		return nil, dvErr("Puffin file mixes deletion vectors with and without a snapshot")
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Snapshot < out[j].Snapshot })
	return out, nil
}

// decodeDVBlob decodes a deletion-vector-v1 blob: length (4, BE, of magic
// and vector), magic, the vector (bitmap count as int64 LE, then per bitmap
// its high 32 bits as uint32 LE and a 32-bit roaring bitmap in the portable
// format), and the CRC-32 (BE) of magic and vector.
func decodeDVBlob(b []byte) ([]int64, error) {
	if len(b) < 4+4+8+4 {
		return nil, dvErr("blob of %d bytes", len(b))
	}
	n := int(binary.BigEndian.Uint32(b))
	if n != len(b)-8 {
		return nil, dvErr("blob length %d, want %d", n, len(b)-8)
	}
	body := b[4 : 4+n]
	if string(body[:4]) != string(dvMagic) {
		return nil, dvErr("bad magic")
	}
	if got, want := crc32.ChecksumIEEE(body), binary.BigEndian.Uint32(b[4+n:]); got != want {
		return nil, dvErr("checksum %08x, stored %08x", got, want)
	}
	v := body[4:]
	count := binary.LittleEndian.Uint64(v)
	v = v[8:]
	if count > uint64(len(v)) {
		return nil, dvErr("%d bitmaps in %d bytes", count, len(v))
	}
	var out []int64
	for i := uint64(0); i < count; i++ {
		if len(v) < 4 {
			return nil, dvErr("truncated bitmap key")
		}
		hi := int64(binary.LittleEndian.Uint32(v))
		var used int
		var err error
		out, used, err = decodeRoaring32(v[4:], hi<<32, out)
		if err != nil {
			return nil, err
		}
		v = v[4+used:]
	}
	if len(v) != 0 {
		return nil, dvErr("%d bytes after the last bitmap", len(v))
	}
	if !slices.IsSorted(out) {
		slices.Sort(out)
	}
	return slices.Compact(out), nil
}

// maxDeletedPositions bounds a decoded vector (1 GiB of positions): no data
// file has that many rows, and a corrupt header must not make the decoder
// allocate without limit.
const maxDeletedPositions = 1 << 27

const (
	roaringCookieNoRuns = 12346
	roaringCookie       = 12347
	roaringNoOffsets    = 4 // below this many containers a run-cookie bitmap has no offsets
)

// decodeRoaring32 appends the values of a 32-bit roaring bitmap in the
// portable serialisation (RoaringFormatSpec) to out, each plus base, and
// says how many bytes it took.
func decodeRoaring32(b []byte, base int64, out []int64) ([]int64, int, error) {
	p := 0
	need := func(k int) error {
		if len(b)-p < k {
			return dvErr("truncated roaring bitmap")
		}
		return nil
	}
	if err := need(4); err != nil {
		return out, 0, err
	}
	cookie := binary.LittleEndian.Uint32(b)
	p += 4
	var size int
	var runs []byte
	hasOffsets := true
	switch {
	case cookie == roaringCookieNoRuns:
		if err := need(4); err != nil {
			return out, 0, err
		}
		size = int(binary.LittleEndian.Uint32(b[p:]))
		p += 4
	case cookie&0xFFFF == roaringCookie:
		size = int(cookie>>16) + 1
		k := (size + 7) / 8
		if err := need(k); err != nil {
			return out, 0, err
		}
		runs = b[p : p+k]
		p += k
		hasOffsets = size >= roaringNoOffsets
	default:
		return out, 0, dvErr("roaring cookie %#x", cookie)
	}
	if size > 1<<16 {
		return out, 0, dvErr("%d roaring containers", size)
	}
	if err := need(4 * size); err != nil {
		return out, 0, err
	}
	keys := make([]uint16, size)
	cards := make([]int, size)
	for i := range size {
		keys[i] = binary.LittleEndian.Uint16(b[p:])
		cards[i] = int(binary.LittleEndian.Uint16(b[p+2:])) + 1
		p += 4
	}
	if hasOffsets {
		// the containers follow in order; the offsets add nothing
		if err := need(4 * size); err != nil {
			return out, 0, err
		}
		p += 4 * size
	}
	for i := range size {
		hi := base | int64(keys[i])<<16
		if len(out)+cards[i] > maxDeletedPositions {
			return out, 0, dvErr("more than %d positions", maxDeletedPositions)
		}
		switch {
		case runs != nil && runs[i/8]&(1<<(i%8)) != 0:
			if err := need(2); err != nil {
				return out, 0, err
			}
			nr := int(binary.LittleEndian.Uint16(b[p:]))
			p += 2
			if err := need(4 * nr); err != nil {
				return out, 0, err
			}
			// runs are sorted and disjoint, so a container holds at most
			// 65536 values and exactly its header's cardinality
			n0, next := len(out), int64(0)
			for r := 0; r < nr; r++ {
				start := int64(binary.LittleEndian.Uint16(b[p:]))
				length := int64(binary.LittleEndian.Uint16(b[p+2:]))
				p += 4
				if start < next || start+length > 0xFFFF {
					return out, 0, dvErr("roaring runs out of order")
				}
				for x := start; x <= start+length; x++ {
					out = append(out, hi|x)
				}
				next = start + length + 1
			}
			if len(out)-n0 != cards[i] {
				return out, 0, dvErr("roaring run container of %d values, header says %d", len(out)-n0, cards[i])
			}
		case cards[i] <= 4096:
			if err := need(2 * cards[i]); err != nil {
				return out, 0, err
			}
			for j := 0; j < cards[i]; j++ {
				out = append(out, hi|int64(binary.LittleEndian.Uint16(b[p:])))
				p += 2
			}
		default:
			if err := need(8192); err != nil {
				return out, 0, err
			}
			for w := 0; w < 1024; w++ {
				word := binary.LittleEndian.Uint64(b[p:])
				p += 8
				for word != 0 {
					out = append(out, hi|int64(w*64+bits.TrailingZeros64(word)))
					word &= word - 1
				}
			}
		}
	}
	return out, p, nil
}

// EncodeDeletionVector builds a deletion-vector-v1 blob holding positions
// (any order, no negatives), as Iceberg and DuckDB lay it out: array
// containers up to 4096 values, bitmap containers above, no run containers.
func EncodeDeletionVector(positions []int64) ([]byte, error) {
	ps := slices.Clone(positions)
	slices.Sort(ps)
	ps = slices.Compact(ps)
	if len(ps) > 0 && ps[0] < 0 {
		return nil, fmt.Errorf("parquet: negative delete position %d", ps[0])
	}
	vec := append([]byte(nil), dvMagic...)
	var highs []int64
	for i := 0; i < len(ps); {
		h := ps[i] >> 32
		j := i
		for j < len(ps) && ps[j]>>32 == h {
			j++
		}
		highs = append(highs, h)
		i = j
	}
	vec = binary.LittleEndian.AppendUint64(vec, uint64(len(highs)))
	for i := 0; i < len(ps); {
		h := ps[i] >> 32
		j := i
		for j < len(ps) && ps[j]>>32 == h {
			j++
		}
		vec = binary.LittleEndian.AppendUint32(vec, uint32(h))
		vec = appendRoaring32(vec, ps[i:j])
		i = j
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(len(vec)))
	out = append(out, vec...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(vec)), nil
}

// appendRoaring32 serialises the low 32 bits of sorted values that share
// their high 32 bits, in the portable format without run containers.
func appendRoaring32(b []byte, vals []int64) []byte {
	type container struct {
		key  uint16
		vals []uint16
	}
	var cs []container
	for _, v := range vals {
		lo := uint32(v)
		k := uint16(lo >> 16)
		if len(cs) == 0 || cs[len(cs)-1].key != k {
			cs = append(cs, container{key: k})
		}
		c := &cs[len(cs)-1]
		c.vals = append(c.vals, uint16(lo))
	}
	b = binary.LittleEndian.AppendUint32(b, roaringCookieNoRuns)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(cs)))
	for _, c := range cs {
		b = binary.LittleEndian.AppendUint16(b, c.key)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(c.vals)-1))
	}
	// offsets are from the start of this bitmap
	off := 8 + 8*len(cs)
	for _, c := range cs {
		b = binary.LittleEndian.AppendUint32(b, uint32(off))
		if len(c.vals) <= 4096 {
			off += 2 * len(c.vals)
		} else {
			off += 8192
		}
	}
	for _, c := range cs {
		if len(c.vals) <= 4096 {
			for _, v := range c.vals {
				b = binary.LittleEndian.AppendUint16(b, v)
			}
			continue
		}
		var words [1024]uint64
		for _, v := range c.vals {
			words[v/64] |= 1 << (v % 64)
		}
		for _, w := range words {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
	}
	return b
}

// PuffinBlob is one deletion vector of a Puffin container WritePuffin
// writes: the positions deleted as of Snapshot (cumulative).
type PuffinBlob struct {
	Snapshot  int64
	Positions []int64
}

// WritePuffin lays out a Puffin container of deletion vectors for the data
// file dataFilePath, one blob per snapshot, as DuckLake 1.1 does; it returns
// the file and its footer size (footer payload plus its 16 framing bytes).
func WritePuffin(dataFilePath string, blobs []PuffinBlob) (file []byte, footerSize int64, err error) {
	file = append([]byte(nil), puffinMagic...)
	type meta struct {
		Type           string            `json:"type"`
		Fields         []int             `json:"fields"`
		SnapshotID     int64             `json:"snapshot-id"`
		SequenceNumber int64             `json:"sequence-number"`
		Offset         int               `json:"offset"`
		Length         int               `json:"length"`
		Properties     map[string]string `json:"properties"`
	}
	var ms []meta
	for _, bl := range blobs {
		blob, err := EncodeDeletionVector(bl.Positions)
		if err != nil {
			return nil, 0, err
		}
		ms = append(ms, meta{Type: dvBlobType, Fields: []int{}, SnapshotID: -1, SequenceNumber: -1, Offset: len(file), Length: len(blob),
			Properties: map[string]string{"referenced-data-file": dataFilePath, "cardinality": strconv.Itoa(len(bl.Positions)), puffinSnapshotProperty: strconv.FormatInt(bl.Snapshot, 10)}})
		file = append(file, blob...)
	}
	payload, err := json.Marshal(struct {
		Blobs      []meta            `json:"blobs"`
		Properties map[string]string `json:"properties"`
	}{ms, map[string]string{"created-by": "lakepg"}})
	if err != nil {
		return nil, 0, err
	}
	file = append(file, puffinMagic...)
	file = append(file, payload...)
	file = binary.LittleEndian.AppendUint32(file, uint32(len(payload)))
	file = binary.LittleEndian.AppendUint32(file, 0)
	file = append(file, puffinMagic...)
	return file, int64(len(payload)) + 16, nil
}
