package exec

import (
	"fmt"
	"math/rand"
	"syscall"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// BenchmarkIndex: a build side of 230,000 scattered integer keys (TPC-H
// Q5's orders of a year) and of 800,000 pairs (Q9's partsupp), indexed by
// one goroutine and by two.
func BenchmarkIndex(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	const n1, n2 = 230_000, 800_000
	one := vec.New(types.Int64T, n1)
	for range n1 {
		one.I64 = append(one.I64, rng.Int63n(6_000_000))
	}
	a, c := vec.New(types.Int64T, n2), vec.New(types.Int64T, n2)
	for r := range n2 {
		a.I64 = append(a.I64, int64(r/4))
		c.I64 = append(c.I64, rng.Int63n(10_000))
	}
	for _, keys := range [][]*vec.Vector{{one}, {a, c}} {
		for _, par := range []int{1, 2} {
			n := keys[0].Len()
			b.Run(fmt.Sprintf("keys%d/par%d", len(keys), par), func(b *testing.B) {
				var r0, r1 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
				b.ResetTimer()
				for range b.N {
					jb := &joinBuild{bkeys: keys, next: make([]int32, n)}
					jb.res.Mem = memory.NewMemory(nil, 0)
					if err := jb.index(n, par); err != nil {
						b.Fatal(err)
					}
				}
				syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
				cpu := time.Duration(r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano())
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(r1.Stime.Nano()-r0.Stime.Nano())/float64(b.N), "sys-ns/op")
			})
		}
	}
}
