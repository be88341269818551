package parquetio

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Scan benchmarks over 1M-row files written by our Writer (snappy, 122880-
// row row groups, v1 pages), read from memory: they measure decoding, not
// I/O. rows/s is the figure to compare.

const benchRows = 1 << 20

func benchFile(b *testing.B, t types.T, gen genFunc) []byte {
	cols := []Column{{FieldID: 1, Name: "c", Type: t}}
	data, _ := writeRows(b, cols, []genFunc{gen}, benchRows, vec.BatchSize, WriterOptions{})
	return data
}

func benchScan(b *testing.B, data []byte, t types.T) {
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	proj := []Projection{{FieldID: 1, Type: t}}
	var batch vec.Batch
	b.ReportAllocs()
	b.SetBytes(int64(len(data))) // MB/s of compressed file
	b.ResetTimer()
	rows := 0
	for b.Loop() {
		s := f.Scan(proj, ScanOptions{})
		for {
			_, ok, err := s.Next(&batch)
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				break
			}
			rows += batch.N
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkScanInt64(b *testing.B) {
	// Random-looking values so snappy cannot shrink the pages to nothing.
	data := benchFile(b, types.Int64T, func(i int) cell { return int64(uint64(i) * 0x9E3779B97F4A7C15 >> 20) })
	benchScan(b, data, types.Int64T)
}

func BenchmarkScanInt64Sequential(b *testing.B) {
	data := benchFile(b, types.Int64T, func(i int) cell { return int64(i) })
	benchScan(b, data, types.Int64T)
}

func BenchmarkScanInt64Nulls(b *testing.B) {
	data := benchFile(b, types.Int64T, func(i int) cell {
		if i%5 == 0 {
			return nil
		}
		return int64(uint64(i) * 0x9E3779B97F4A7C15 >> 20)
	})
	benchScan(b, data, types.Int64T)
}

func BenchmarkScanInt32AsInt64(b *testing.B) {
	data := benchFile(b, types.Int32T, func(i int) cell { return int64(int32(uint32(i) * 2654435761)) })
	benchScan(b, data, types.Int64T)
}

func BenchmarkScanFloat64(b *testing.B) {
	data := benchFile(b, types.Float64T, func(i int) cell { return float64(uint64(i)*0x9E3779B97F4A7C15>>20) / 7 })
	benchScan(b, data, types.Float64T)
}

func BenchmarkScanDecimal(b *testing.B) {
	t := types.NumericT(15, 2)
	data := benchFile(b, t, func(i int) cell { return int64(uint64(i) * 0x9E3779B97F4A7C15 >> 24) })
	benchScan(b, data, t)
}

func BenchmarkScanStringDict(b *testing.B) {
	data := benchFile(b, types.TextT, func(i int) cell { return fmt.Sprintf("group-%d", i*7%23) })
	benchScan(b, data, types.TextT)
}

func BenchmarkScanStringPlain(b *testing.B) {
	data := benchFile(b, types.TextT, func(i int) cell { return fmt.Sprintf("unique value %d", i) })
	benchScan(b, data, types.TextT)
}

func BenchmarkWriteInt64(b *testing.B) {
	cols := []Column{{FieldID: 1, Name: "c", Type: types.Int64T}}
	batch := vec.NewBatch([]types.T{types.Int64T}, vec.BatchSize)
	for i := 0; i < vec.BatchSize; i++ {
		batch.Vecs[0].AppendInt(int64(uint64(i) * 0x9E3779B97F4A7C15 >> 20))
	}
	batch.N = vec.BatchSize
	b.ReportAllocs()
	rows := 0
	for b.Loop() {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, cols, WriterOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for r := 0; r < benchRows; r += vec.BatchSize {
			if err := w.Write(batch); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			b.Fatal(err)
		}
		rows += benchRows
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
