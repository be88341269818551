package parquetio

import (
	"sync"

	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// fastLZ4 is Parquet's LZ4_RAW codec with LZ4's fast block compressor.
// parquet-go's codec defaults to the high-compression one, many times
// slower to write for little gain; both decode at the same speed, about
// three times Snappy's on number columns.
type fastLZ4 struct{}

var lz4Compressors = sync.Pool{New: func() any { return new(lz4.Compressor) }}

func (fastLZ4) String() string                            { return "LZ4_RAW" }
func (fastLZ4) CompressionCodec() format.CompressionCodec { return format.Lz4Raw }

func (fastLZ4) Encode(dst, src []byte) ([]byte, error) {
	n := lz4.CompressBlockBound(len(src))
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	c := lz4Compressors.Get().(*lz4.Compressor)
	defer lz4Compressors.Put(c)
	// dst holds the bound, so even incompressible input is encoded
	m, err := c.CompressBlock(src, dst)
	if err != nil {
		return dst[:0], err
	}
	return dst[:m], nil
}

func (fastLZ4) Decode(dst, src []byte) ([]byte, error) {
	if cap(dst) < 3*len(src) {
		dst = make([]byte, 3*len(src))
	}
	for {
		n, err := lz4.UncompressBlock(src, dst[:cap(dst)])
		if err == nil {
			return dst[:n], nil
		}
		dst = make([]byte, 2*cap(dst))
	}
}
