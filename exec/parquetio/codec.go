package parquetio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Page decompression. Every codec decodes into dst, whose length is the
// uncompressed size the page header announces, and must produce exactly that
// many bytes: a corrupt page can neither make us allocate more nor return a
// short page. (parquet-go's codecs grow their output on demand, which a
// corrupt file turns into unbounded allocation.)

var errSizeMismatch = errors.New("decompressed size differs from the page header")

var (
	zstdOnce sync.Once
	zstdDec  *zstd.Decoder
	zstdErr  error
)

// zstdDecoder is shared: DecodeAll is safe for concurrent use. The cap limit
// keeps DecodeAll inside the buffer it is given.
func zstdDecoder() (*zstd.Decoder, error) {
	zstdOnce.Do(func() {
		zstdDec, zstdErr = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(0),
			zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderMaxMemory(maxPageSize))
	})
	return zstdDec, zstdErr
}

// decoders holds per-reader stream decoders that are reset, not rebuilt,
// for each page.
type decoders struct {
	gz  *gzip.Reader
	src bytes.Reader
}

// decompressInto fills dst (len = the uncompressed size) from src.
func (d *decoders) decompressInto(codec int32, dst, src []byte) error {
	switch codec {
	case codecSnappy:
		n, err := snappy.DecodedLen(src)
		if err != nil {
			return err
		}
		if n != len(dst) {
			return errSizeMismatch
		}
		out, err := snappy.Decode(dst, src)
		if err != nil {
			return err
		}
		if len(out) != len(dst) || &out[0] != &dst[0] {
			return errSizeMismatch
		}
		return nil
	case codecZstd:
		dec, err := zstdDecoder()
		if err != nil {
			return err
		}
		out, err := dec.DecodeAll(src, dst[:0])
		if err != nil {
			return err
		}
		if len(out) != len(dst) {
			return errSizeMismatch
		}
		if &out[0] != &dst[0] {
			copy(dst, out)
		}
		return nil
	case codecLZ4Raw:
		n, err := lz4.UncompressBlock(src, dst)
		if err != nil {
			return err
		}
		if n != len(dst) {
			return errSizeMismatch
		}
		return nil
	case codecGzip:
		d.src.Reset(src)
		if d.gz == nil {
			gz, err := gzip.NewReader(&d.src)
			if err != nil {
				return err
			}
			d.gz = gz
		} else if err := d.gz.Reset(&d.src); err != nil {
			return err
		}
		return readExactly(d.gz, dst)
	case codecBrotli:
		return readExactly(brotli.NewReader(bytes.NewReader(src)), dst)
	}
	return fmt.Errorf("compression codec %d is not supported", codec)
}

// readExactly fills dst from a stream that must end right there.
func readExactly(r io.Reader, dst []byte) error {
	if _, err := io.ReadFull(r, dst); err != nil {
		return err
	}
	var one [1]byte
	if n, _ := r.Read(one[:]); n != 0 {
		return errSizeMismatch
	}
	return nil
}
