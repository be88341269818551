package storage

import "sort"

// Coalescing: ranges closer than coalesceGap are fetched by one GET (the gap
// bytes cost less than another request's latency), up to maxCoalesce per
// request so one failure does not waste a huge transfer. maxPending bounds
// the prefetched bytes a file holds before they are read.
const (
	coalesceGap = 1 << 20
	maxCoalesce = 64 << 20
	maxPending  = 256 << 20
)

// PrefetchRanges is told, before a Parquet row group is read, the byte
// ranges ({offset, length}) of all the column chunks that will be read from
// it one by one. Adjacent ones are fetched together, so a row group costs
// about one request however many columns it projects; the ReadAt calls that
// follow are served from memory. Ranges already cached are left out. An
// error is returned as the reads would have returned it.
func (f *s3File) PrefetchRanges(ranges [][2]int64) error {
	var want [][2]int64
	for _, r := range ranges {
		off, n := r[0], r[1]
		if n <= 0 || off < 0 || off+n > f.size || (f.tail != nil && off >= f.tailOff) {
			continue
		}
		if _, ok := f.b.mem.get(f.obj, off, int(n)); ok {
			continue
		}
		if f.b.disk.has(f.obj, off, n) {
			continue
		}
		want = append(want, r)
	}
	if len(want) < 2 {
		return nil // one range is one request whether prefetched or not
	}
	sort.Slice(want, func(i, j int) bool { return want[i][0] < want[j][0] })
	for i := 0; i < len(want); {
		start, end := want[i][0], want[i][0]+want[i][1]
		j := i + 1
		for j < len(want) {
			next := want[j]
			if next[0]-end > coalesceGap || max(end, next[0]+next[1])-start > maxCoalesce {
				break
			}
			end = max(end, next[0]+next[1])
			j++
		}
		if j-i >= 2 {
			if err := f.prefetchSpan(start, end, want[i:j]); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}

func (f *s3File) prefetchSpan(start, end int64, rs [][2]int64) error {
	f.mu.Lock()
	full := f.pendN+(end-start) > maxPending
	f.mu.Unlock()
	if full {
		return nil
	}
	stats.misses.Add(1)
	data, err := f.fetch(start, end)
	if err != nil {
		return err
	}
	pieces := make([]piece, len(rs))
	var n int64
	for i, r := range rs {
		pieces[i] = piece{off: r[0], data: data[r[0]-start : r[0]-start+r[1] : r[0]-start+r[1]]}
		n += r[1]
	}
	f.mu.Lock()
	f.pending = append(f.pending, pieces...)
	f.pendN += n
	f.mu.Unlock()
	for _, pc := range pieces {
		f.b.mem.put(f.obj, pc.off, pc.data)
		f.b.disk.put(f.obj, pc.off, pc.data)
	}
	return nil
}
