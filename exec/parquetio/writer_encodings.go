package parquetio

import (
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"

	"github.com/parquet-go/parquet-go"
)

// A dictionary pays when values repeat. For mostly unique columns (keys,
// prices, comments) building it was a fifth of a bulk write's CPU — a hash
// probe per value — and bought a bigger file: parquet-go keeps going until
// the dictionary passes 1 MiB, so a unique bigint column carried a 983 KB
// dictionary plus 17-bit indexes instead of 983 KB of plain values.
// chooseEncodings looks at the first row group and keeps the dictionary
// only where it makes the column smaller by a quarter, then builds the
// parquet-go writer with those encodings. Nothing has been written to the
// file before it runs.

// minChooseRows: a file whose first row group is smaller keeps the
// default encodings. Its size hardly depends on them, and small INSERTs
// would pay for building the writer twice.
const minChooseRows = 1024

func (w *Writer) chooseEncodings(rb *rowGroupBuf) error {
	p := w.par
	fields := p.fields
	p.fields = nil
	if rb.n < minChooseRows {
		return nil
	}
	changed := false
	for i, c := range w.cols {
		if p.encoding != nil && p.encoding(c) != nil {
			continue // a test fixed the encoding
		}
		nf, ok := fields[i].(*namedField)
		if !ok || !isDictionary(nf.Node) || dictionaryPays(&rb.cols[i], rb.n) {
			continue
		}
		leaf := leafOf(c)
		if leaf == nil {
			continue
		}
		if leaf.Type().Kind() == parquet.ByteArray {
			// parquet-go's default for byte arrays is DELTA_LENGTH_BYTE_ARRAY,
			// which readers (ours included) decode by a slower path than
			// PLAIN; DuckDB writes PLAIN too
			leaf = parquet.Encoded(leaf, &parquet.Plain)
		}
		fields[i] = &namedField{Node: parquet.FieldID(parquet.Optional(leaf), int(c.FieldID)), name: c.Name}
		changed = true
	}
	if !changed {
		return nil
	}
	schema := parquet.NewSchema("duckdb_schema", &orderedGroup{fields: fields})
	cfg, err := parquet.NewWriterConfig(append([]parquet.WriterOption{schema}, p.opts...)...)
	if err != nil {
		return fmt.Errorf("parquet: writer config: %w", err)
	}
	w.pw = parquet.NewWriter(w.out, cfg)
	return nil
}

// isDictionary reports whether a field's leaf is dictionary-encoded.
func isDictionary(n parquet.Node) bool {
	e := n.Encoding()
	return e != nil && e.Encoding() == parquet.RLEDictionary.Encoding()
}

// dictionaryPays estimates the column's plain and dictionary sizes from
// its distinct values in the buffered rows.
func dictionaryPays(c *colBuf, n int) bool {
	var set hashSet
	var plain, dict float64
	width := 0
	switch c.kind {
	case bufI32, bufF32:
		width = 4
	case bufI64, bufF64:
		width = 8
	case bufBytes:
	default:
		return true
	}
	seed := maphash.MakeSeed()
	values := 0
	for i := range n {
		if c.hasN && c.null[i] {
			continue
		}
		values++
		var h uint64
		size := width
		switch c.kind {
		case bufI32:
			h = uint64(uint32(c.i32[i]))
		case bufF32:
			h = uint64(math.Float32bits(c.f32[i]))
		case bufI64:
			h = uint64(c.i64[i])
		case bufF64:
			h = math.Float64bits(c.f64[i])
		case bufBytes:
			b := c.data[c.off[i]:c.off[i+1]]
			h = maphash.Bytes(seed, b)
			size = 4 + len(b)
		}
		plain += float64(size)
		if set.add(h) {
			dict += float64(size)
			if dict > 1<<20 || set.n > n*3/4 {
				return false // no use looking further
			}
		}
	}
	if values == 0 {
		return true
	}
	idxBits := bits.Len(uint(max(set.n-1, 1)))
	dict += float64(values) * float64(idxBits) / 8
	return dict < plain*3/4 && dict <= 1<<20
}

// hashSet is a set of 64-bit keys (open addressing; a key's own bits or
// its hash spread by a multiplication).
type hashSet struct {
	slots []uint64
	used  []bool
	n     int
	shift uint // log2(len(slots))
}

// add inserts h and reports whether it was new.
func (s *hashSet) add(h uint64) bool {
	if s.n*2 >= len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	// the product's top bits: its low bits barely change for consecutive keys
	for i := (h * 0x9E3779B97F4A7C15) >> (64 - s.shift); ; i = (i + 1) & mask {
		if !s.used[i] {
			s.used[i], s.slots[i] = true, h
			s.n++
			return true
		}
		if s.slots[i] == h {
			return false
		}
	}
}

func (s *hashSet) grow() {
	old, oldUsed := s.slots, s.used
	size := max(1024, 2*len(old))
	s.slots, s.used, s.n = make([]uint64, size), make([]bool, size), 0
	s.shift = uint(bits.Len(uint(size)) - 1)
	for i, u := range oldUsed {
		if u {
			s.add(old[i])
		}
	}
}
