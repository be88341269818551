package parquetio

// RangePrefetcher is an optional ability of the io.ReaderAt a File reads
// from. Object storage pays per request, not per byte, so before a row
// group's column chunks are read one by one the scanner announces all their
// {offset, length} ranges at once, and such a reader fetches adjacent ones
// with a single request. An error is the one the reads would have met.
type RangePrefetcher interface {
	PrefetchRanges(ranges [][2]int64) error
}

// prefetch announces the column chunks of row group rg that the scan will
// read, when the reader wants to know. Chunks that startChunk would reject
// are left to it to report.
func (s *Scanner) prefetch(rg int) error {
	pf, ok := s.f.r.(RangePrefetcher)
	if !ok {
		return nil
	}
	ranges := s.chunkRanges[:0]
	rows := s.f.meta.rowGroups[rg].numRows
	for _, c := range s.cols {
		if c == nil {
			continue
		}
		cm := &s.f.meta.rowGroups[rg].columns[c.leaf]
		start := chunkStart(cm)
		if cm.filePath != "" || start < 4 || cm.totalCompressed <= 0 || start+cm.totalCompressed > s.f.size-8 {
			continue
		}
		ranges, _ = pageReads(cm, c.locs, rows, c.sel, ranges)
	}
	s.chunkRanges = ranges
	if len(ranges) < 2 {
		return nil
	}
	return pf.PrefetchRanges(ranges)
}
