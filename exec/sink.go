package exec

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/storage"
)

// NewFileName returns a DuckLake data-file name with a time-ordered uuid (v7).
func NewFileName(suffix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	ms := uint64(time.Now().UnixMilli())
	binary.BigEndian.PutUint16(b[4:6], uint16(ms))
	binary.BigEndian.PutUint32(b[0:4], uint32(ms>>16))
	b[6] = (b[6] & 0x0f) | 0x70
	b[8] = (b[8] & 0x3f) | 0x80
	return fmt.Sprintf("ducklake-%x-%x-%x-%x-%x%s.parquet", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16], suffix)
}

// WrittenFile is a Parquet file written to the store but not yet committed
// to the catalog.
type WrittenFile struct {
	Path string
	Name string
	Info parquetio.FileInfo
}

// WriteParquet streams op into one new Parquet file in dir. check runs on
// every batch before it is written (constraint checks); opt sets the codec.
// Nothing is visible at the path unless it returns without error.
func WriteParquet(ctx context.Context, store storage.Backend, dir string, cols []parquetio.Column, op Operator, check func(*vec.Batch) error, opt parquetio.WriterOptions) (*WrittenFile, error) {
	name := NewFileName("")
	path := dir + name
	w, err := store.Create(ctx, path)
	if err != nil {
		return nil, WriteError(err, path)
	}
	pw, err := parquetio.NewWriter(w, cols, opt)
	if err != nil {
		w.Abort()
		return nil, err
	}
	fail := func(err error) (*WrittenFile, error) {
		w.Abort()
		return nil, err
	}
	err = Drain(ctx, op, func(b *vec.Batch) error {
		if check != nil {
			if err := check(b); err != nil {
				return err
			}
		}
		if err := pw.Write(b); err != nil {
			return WriteError(err, path)
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	info, err := pw.Close()
	if err != nil {
		return fail(WriteError(err, path))
	}
	if info.Rows == 0 {
		w.Abort()
		return &WrittenFile{Info: info}, nil
	}
	if err := w.Commit(); err != nil {
		return fail(WriteError(err, path))
	}
	return &WrittenFile{Path: path, Name: name, Info: info}, nil
}

// KeyText is the file's encryption_key for the catalog: base64 of its key,
// "" for a plain file.
func (w *WrittenFile) KeyText() string {
	if w == nil || w.Info.Key == nil {
		return ""
	}
	return parquetio.EncodeKey(w.Info.Key)
}

// WriteDeletes writes a positional delete file for dataPath into dir,
// encrypted with a fresh key when encrypt (encrypted lakes).
func WriteDeletes(ctx context.Context, store storage.Backend, dir, dataPath string, positions []int64, encrypt bool) (*WrittenFile, error) {
	name := NewFileName("-delete")
	path := dir + name
	w, err := store.Create(ctx, path)
	if err != nil {
		return nil, WriteError(err, path)
	}
	var key parquetio.Key
	if encrypt {
		if key, err = parquetio.NewKey(); err != nil {
			w.Abort()
			return nil, err
		}
	}
	info, err := parquetio.WriteDeleteFileKey(w, dataPath, positions, key)
	if err != nil {
		w.Abort()
		return nil, WriteError(err, path)
	}
	if err := w.Commit(); err != nil {
		w.Abort()
		return nil, WriteError(err, path)
	}
	return &WrittenFile{Path: path, Name: name, Info: info}, nil
}

// ReadAllDeletes reads every position of a delete file (any snapshot); key is
// its encryption_key ("" for a plain file).
func ReadAllDeletes(ctx context.Context, store storage.Backend, path, key string) ([]int64, error) {
	f, err := store.Open(ctx, path)
	if err != nil {
		return nil, ReadError(err, path)
	}
	defer f.Close()
	k, err := fileKey(key)
	if err != nil {
		return nil, err
	}
	return parquetio.ReadDeletePositionsKey(f, f.Size(), 1<<62, k)
}
