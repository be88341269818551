package aggregate

// FrameExclude is a frame's EXCLUDE clause: which rows around the current
// one leave its frame.
type FrameExclude uint8

const (
	ExcludeNoOthers   FrameExclude = iota
	ExcludeCurrentRow              // the row itself
	ExcludeGroup                   // the row and its ORDER BY peers
	ExcludeTies                    // the row's peers, not the row
)

// span is rows [lo, hi) of the sorted input.
type span struct{ lo, hi int }

// excludedSpans are the rows of frame [fs, fe) that row i's EXCLUDE
// clause removes (at most two spans, in row order).
func (w *Window) excludedSpans(ex FrameExclude, i, fs, fe int) ([2]span, int) {
	return excludedSpansOf(ex, i, int(w.peerBeg[i]), int(w.peerEnd[i]), fs, fe)
}

// excludedSpansOf is excludedSpans for row i whose peers are rows [pb, pe).
func excludedSpansOf(ex FrameExclude, i, pb, pe, fs, fe int) ([2]span, int) {
	var out [2]span
	n := 0
	add := func(lo, hi int) {
		lo, hi = max(lo, fs), min(hi, fe)
		if lo < hi {
			out[n] = span{lo, hi}
			n++
		}
	}
	switch ex {
	case ExcludeCurrentRow:
		add(i, i+1)
	case ExcludeGroup:
		add(pb, pe)
	case ExcludeTies:
		add(pb, i)
		add(i+1, pe)
	}
	return out, n
}

// keptSpans are the rows of frame [fs, fe) left after row i's EXCLUDE
// clause (at most three spans, in row order).
func (w *Window) keptSpans(ex FrameExclude, i, fs, fe int) ([3]span, int) {
	return keptSpansOf(ex, i, int(w.peerBeg[i]), int(w.peerEnd[i]), fs, fe)
}

// keptSpansOf is keptSpans for row i whose peers are rows [pb, pe).
func keptSpansOf(ex FrameExclude, i, pb, pe, fs, fe int) ([3]span, int) {
	var out [3]span
	n := 0
	cur := fs
	gone, k := excludedSpansOf(ex, i, pb, pe, fs, fe)
	for _, g := range gone[:k] {
		if cur < g.lo {
			out[n] = span{cur, g.lo}
			n++
		}
		cur = g.hi
	}
	if cur < fe {
		out[n] = span{cur, fe}
		n++
	}
	return out, n
}

// rowOfKept is the position of the k-th row (0-based) of the kept spans,
// or -1 when there are fewer; k < 0 counts from the end (-1 is the last).
func rowOfKept(spans []span, k int) int {
	if k < 0 {
		for j := len(spans) - 1; j >= 0; j-- {
			s := spans[j]
			if -k <= s.hi-s.lo {
				return s.hi + k
			}
			k += s.hi - s.lo
		}
		return -1
	}
	for _, s := range spans {
		if k < s.hi-s.lo {
			return s.lo + k
		}
		k -= s.hi - s.lo
	}
	return -1
}
