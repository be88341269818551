package parquetio

import (
	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go/format"
)

// fastSnappy is Parquet's SNAPPY codec with the plain Snappy encoder.
// parquet-go's codec uses the "better" encoder, whose extra matching was
// the largest single CPU item of a bulk write for a few percent of size;
// the output is standard Snappy either way, which every reader decodes.
type fastSnappy struct{}

func (fastSnappy) String() string                            { return "SNAPPY" }
func (fastSnappy) CompressionCodec() format.CompressionCodec { return format.Snappy }

func (fastSnappy) Encode(dst, src []byte) ([]byte, error) {
	return s2.EncodeSnappy(dst, src), nil
}

func (fastSnappy) Decode(dst, src []byte) ([]byte, error) {
	n, err := s2.DecodedLen(src)
	if err != nil {
		return dst[:0], err
	}
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	return s2.Decode(dst[:n], src)
}
