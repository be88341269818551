package vec

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/lakepg/lakepg/types"
)

func TestIntervalVector(t *testing.T) {
	a := types.IntervalValue{Months: 14, Days: 3, Micros: 4*types.MicrosPerHour + 5*types.MicrosPerMinute + 6500000}
	b := types.IntervalValue{Micros: -1000000}
	v := New(types.IntervalT, 4)
	if v.Type.Storage() != types.StoreInterval || v.Iv == nil {
		t.Fatal("New(interval) has no interval storage")
	}
	v.AppendInterval(a)
	v.AppendNull()
	v.AppendInterval(b)
	if v.Len() != 3 || !v.IsNull(1) || v.Iv[1] != (types.IntervalValue{}) {
		t.Fatalf("after appends: len %d, nulls %v, %v", v.Len(), v.Nulls, v.Iv)
	}
	if got := string(v.AppendText(nil, 0, time.UTC)); got != "1 year 2 mons 3 days 04:05:06.5" {
		t.Errorf("AppendText = %q", got)
	}
	if got := string(v.AppendText(nil, 2, time.UTC)); got != "-00:00:01" {
		t.Errorf("AppendText = %q", got)
	}

	w := New(types.IntervalT, 0)
	w.AppendFrom(v, 2)
	w.AppendFrom(v, 1)
	w.Gather(v, []int{0, 1})
	if w.Len() != 4 || w.Iv[0] != b || !w.IsNull(1) || w.Iv[2] != a || !w.IsNull(3) {
		t.Errorf("AppendFrom/Gather: %v %v", w.Iv, w.Nulls)
	}
	s := v.Slice(1, 3)
	if s.Len() != 2 || !s.IsNull(0) || s.Iv[1] != b {
		t.Errorf("Slice: %v %v", s.Iv, s.Nulls)
	}
	c := Constant(v, 0, 3)
	if c.Len() != 3 || c.Iv[2] != a || c.HasNulls() {
		t.Errorf("Constant: %v %v", c.Iv, c.Nulls)
	}
	v.Reset()
	if v.Len() != 0 || v.Nulls != nil || cap(v.Iv) == 0 {
		t.Errorf("Reset: len %d, cap %d", v.Len(), cap(v.Iv))
	}
	bt := NewBatch([]types.T{types.IntervalT, types.Int64T}, 8)
	bt.Vecs[0].AppendInterval(a)
	bt.Reset()
	if bt.Vecs[0].Len() != 0 {
		t.Error("Batch.Reset kept intervals")
	}
}

// Strings carved from chunks keep their bytes while later strings, and
// values longer than a chunk, are carved after them.
func TestTextChunks(t *testing.T) {
	var c TextChunks
	var want, got []string
	buf := []byte{}
	for i := 0; i < 3000; i++ {
		buf = fmt.Appendf(buf[:0], "%d.%0*d", i, i%40, i)
		want = append(want, string(buf))
		got = append(got, c.String(buf))
	}
	long := bytes.Repeat([]byte("x"), 3*textChunkSize)
	want, got = append(want, string(long)), append(got, c.String(long))
	want, got = append(want, ""), append(got, c.String(nil))
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("value %d: %q, want %q", i, got[i], want[i])
		}
	}
}
