package wire

import (
	"io"
	"sync"
)

// Cutting COPY data into rows takes one pass over the bytes that must be
// sequential (a quote or a backslash changes the meaning of everything
// after it); splitting the rows into fields and parsing the fields need
// not be. NextChunk runs the first part on the connection's goroutine and
// hands out chunks of whole rows that the SQL layer splits and parses on
// as many goroutines as there are cores.
//
// A chunk keeps every row's line number (a CSV row with quoted line ends
// spans several), so errors name the same line as the sequential reader.
// A line-level error (mixed line ends, a corrupt end marker) ends a chunk
// early and is returned by the next NextChunk, so errors still come in
// the order of the data. Encoding checks move to the chunk's Next: they
// are per line and were a fifth of the sequential pass.

// copyChunkRows is how many rows a chunk holds at most, and
// copyChunkBytes about how many bytes.
const (
	copyChunkRows  = 2048
	copyChunkBytes = 1 << 20
)

// copyChunk is a run of whole rows of text or csv data; Next splits them
// one by one. It is used by one goroutine at a time and recycled after
// Next has returned io.EOF.
type copyChunk struct {
	split copyReader // splits the rows: spec, line and field scratch
	data  []byte     // the rows' bytes, without their line ends
	ends  []int      // row k is data[ends[k-1]:ends[k]] (ends[-1] = 0)
	lines []int64    // row k's line number
	next  int
}

var copyChunks = sync.Pool{New: func() any { return new(copyChunk) }}

// CanChunk reports whether NextChunk can be used: text and csv data.
func (r *copyReader) CanChunk() bool { return r.spec.Format != CopyBinary }

// NextChunk returns the next rows as a chunk that can be split on another
// goroutine, or io.EOF after the last. It must not be mixed with Next.
func (r *copyReader) NextChunk() (interface {
	Next() ([][]byte, error)
	Line() int64
}, error) {
	if r.pendErr != nil {
		err := r.pendErr
		r.pendErr = nil
		return nil, err
	}
	if r.ended {
		return nil, r.drain()
	}
	if !r.started {
		r.started = true
		if r.spec.Header {
			line, ok, err := r.readLine()
			if err != nil || !ok {
				if err == nil {
					err = r.drain()
				}
				return nil, err
			}
			r.line++
			if r.spec.HeaderMatch {
				if err := r.matchHeader(line); err != nil {
					return nil, err
				}
			}
		}
	}
	c := copyChunks.Get().(*copyChunk)
	c.split.spec = r.spec
	c.data, c.ends, c.lines, c.next = c.data[:0], c.ends[:0], c.lines[:0], 0
	r.deferEnc = true
	defer func() { r.deferEnc = false }()
	maxRows := copyChunkRows
	if r.chunkMax > 0 {
		maxRows = r.chunkMax
	}
	for len(c.ends) < maxRows && len(c.data) < copyChunkBytes {
		line, ok, err := r.readLine()
		if err != nil {
			if len(c.ends) == 0 {
				copyChunks.Put(c)
				return nil, err
			}
			r.pendErr = err
			break
		}
		if !ok {
			if len(c.ends) == 0 {
				copyChunks.Put(c)
				return nil, r.drain()
			}
			break
		}
		r.line++
		c.data = append(c.data, line...)
		c.ends = append(c.ends, len(c.data))
		c.lines = append(c.lines, r.line)
		if r.ended {
			break // the row before an end marker \. was the last
		}
	}
	return c, nil
}

// Line is the line number of the row Next returned last.
func (c *copyChunk) Line() int64 { return c.split.line }

// Next returns the next row's fields (nil = NULL), valid until the next
// call, and io.EOF after the last row, when the chunk goes back to the pool.
func (c *copyChunk) Next() ([][]byte, error) {
	k := c.next
	if k >= len(c.ends) {
		copyChunks.Put(c)
		return nil, io.EOF
	}
	c.next++
	lo := 0
	if k > 0 {
		lo = c.ends[k-1]
	}
	line := c.data[lo:c.ends[k]]
	if line == nil {
		// an empty row of a chunk whose buffer is still nil: a row all
		// the same, whose CONTEXT shows it as "" (lineError), as Next does
		line = []byte{}
	}
	// checkEncoding names the line being read, one past the last counted
	c.split.line = c.lines[k] - 1
	if err := c.split.checkEncoding(line); err != nil {
		return nil, err
	}
	c.split.line++
	if err := c.split.splitLine(line); err != nil {
		return nil, err
	}
	return c.split.fields, nil
}
