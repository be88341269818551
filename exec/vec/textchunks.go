package vec

import "unsafe"

// A chunk holds firstTextChunk bytes, each next one twice its
// predecessor's up to textChunkSize: a batch of short formatted values
// (numerics of twenty-odd digits) fills a few, and a caller that formats a
// value or two (a window's aggregate, row by row) does not pay for 8 KiB.
const (
	firstTextChunk = 256
	textChunkSize  = 8 << 10
)

// TextChunks carves strings out of byte chunks it only ever appends to, so
// an operator that formats a batch of values (an average, a numeric
// product) allocates once per chunk instead of once per value. A string it
// returns keeps its whole chunk alive, which is the price. The zero value
// is ready; it is not safe for concurrent use.
type TextChunks struct{ cur []byte }

// String returns b's bytes as a string that stays valid after b changes.
func (c *TextChunks) String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(c.cur)-len(c.cur) < len(b) {
		size := min(max(2*cap(c.cur), firstTextChunk), textChunkSize)
		c.cur = make([]byte, 0, max(size, len(b)))
	}
	at := len(c.cur)
	c.cur = append(c.cur, b...)
	return unsafe.String(&c.cur[at], len(b))
}
