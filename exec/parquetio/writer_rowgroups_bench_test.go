package parquetio

import (
	"io"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// ingestBatches are batches shaped like the bench's ingest table: a unique
// bigint, a small integer, a numeric(12,2), a date, a unique text and a
// double with 9973 values.
func ingestBatches(rows int) ([]Column, []*vec.Batch) {
	num := types.T{ID: types.Numeric, Precision: 12, Scale: 2}
	ts := []types.T{types.Int64T, types.Int32T, num, types.DateT, types.TextT, types.Float64T}
	cols := make([]Column, len(ts))
	for i, t := range ts {
		cols[i] = Column{FieldID: int32(i + 1), Name: "c" + strconv.Itoa(i), Type: t}
	}
	var bs []*vec.Batch
	for lo := 1; lo <= rows; lo += vec.BatchSize {
		b := vec.NewBatch(ts, vec.BatchSize)
		n := 0
		for i := lo; i < lo+vec.BatchSize && i <= rows; i++ {
			b.Vecs[0].AppendInt(int64(i))
			b.Vecs[1].AppendInt(int64(i % 1000))
			b.Vecs[2].AppendInt(int64(i) * 7919 % 10000000)
			b.Vecs[3].AppendInt(int64(18262 + i%1500))
			b.Vecs[4].AppendString("item-" + strconv.FormatUint(uint64(i)*2654435761%(1<<32), 16))
			b.Vecs[5].AppendFloat(float64(i%9973) / 8)
			n++
		}
		b.N = n
		bs = append(bs, b)
	}
	return cols, bs
}

func BenchmarkWriteIngest(b *testing.B) {
	cols, bs := ingestBatches(1 << 20)
	b.ResetTimer()
	cpuSeconds()
	for range b.N {
		w, err := NewWriter(io.Discard, cols, WriterOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, bt := range bs {
			if err := w.Write(bt); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*float64(1<<20)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(cpuSeconds()/float64(b.N), "cpu-s/op")
}

func BenchmarkWriteIngestSequential(b *testing.B) {
	cols, bs := ingestBatches(1 << 20)
	b.ResetTimer()
	cpuSeconds()
	for range b.N {
		w, err := NewWriter(io.Discard, cols, WriterOptions{sequential: true})
		if err != nil {
			b.Fatal(err)
		}
		for _, bt := range bs {
			if err := w.Write(bt); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*float64(1<<20)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(cpuSeconds()/float64(b.N), "cpu-s/op")
}

var lastCPU time.Duration

// cpuSeconds is the process's CPU time since the last call: on a shared
// machine it says more about a change than the wall clock.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	t := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	d := t - lastCPU
	lastCPU = t
	return d.Seconds()
}
