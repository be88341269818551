package wire

import (
	"context"
	"encoding/binary"
	"io"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
)

// copyResult returns the COPY description of res, nil when res is not a
// COPY FROM STDIN or TO STDOUT.
func (c *conn) copyResult(res Result) (CopyResult, *CopySpec, error) {
	cr, ok := res.(CopyResult)
	if !ok {
		return nil, nil, nil
	}
	var spec *CopySpec
	err := c.guard("Copy", func() error { spec = cr.Copy(); return nil })
	if err != nil || spec == nil {
		return nil, nil, err
	}
	return cr, spec, nil
}

// runCopy runs the COPY sub-protocol for portal p, whose Result is a COPY,
// and ends like runPortal: with CommandComplete or an error for the caller
// to report. A row limit of Execute does not apply, as in PostgreSQL.
func (c *conn) runCopy(p *portal, cr CopyResult, spec *CopySpec) error {
	var err error
	if spec.In {
		err = c.copyIn(p, cr, spec)
	} else {
		err = c.copyOut(p, spec)
	}
	if err != nil {
		return err
	}
	var tag string
	if err := c.guard("Result.Tag", func() error { tag = p.res.Tag(); return nil }); err != nil {
		return err
	}
	res := p.res
	p.res = nil
	if err := c.guard("Result.Close", res.Close); err != nil {
		return err
	}
	p.cancel()
	p.done, p.tag = true, tag
	c.send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
	return nil
}

// copyIn sends CopyInResponse and lets the statement read the rows. The
// client's CopyData, CopyDone and CopyFail are read here, from the same
// inbox as every message; whatever of them is left after an error is
// dropped by the session loop, as PostgreSQL drops them.
func (c *conn) copyIn(p *portal, cr CopyResult, spec *CopySpec) error {
	c.send(copyInResponse(spec))
	c.flush()
	if c.werr != nil {
		return c.werr
	}
	rd := newCopyReader(spec, func() ([]byte, error) { return c.copyData(p.ctx) })
	return c.guard("CopyIn", func() error { return cr.CopyIn(rd) })
}

// copyData returns the payload of the next CopyData message, io.EOF at
// CopyDone, and an error for CopyFail, cancellation, or any message that
// has no place in a COPY. Flush and Sync are ignored there, as PostgreSQL
// does (libpq sends a Sync right after its Execute).
func (c *conn) copyData(ctx context.Context) ([]byte, error) {
	for {
		in, ok := c.receiveAhead()
		if !ok {
			select {
			case in = <-c.in:
			case <-ctx.Done():
				return nil, pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
			}
		}
		if in.err != nil {
			// The reader stopped (the client is gone or sent garbage): give
			// the session loop the same news, so that it ends the session.
			c.requeue(in)
			return nil, in.err
		}
		switch m := in.msg.(type) {
		case *pgproto3.CopyData:
			return m.Data, nil
		case *pgproto3.CopyDone:
			return nil, io.EOF
		case *pgproto3.CopyFail:
			return nil, pgerr.New(pgerr.QueryCanceled, "COPY from stdin failed: %s", m.Message)
		case *pgproto3.Flush, *pgproto3.Sync:
		case *malformedMessage:
			return nil, pgerr.New(pgerr.ProtocolViolation, "insufficient data left in message")
		case *pgproto3.Terminate:
			c.requeue(in)
			return nil, pgerr.New(pgerr.ProtocolViolation, "unexpected message type 0x58 during COPY from stdin")
		default:
			typ := byte('?')
			if b, err := in.msg.Encode(nil); err == nil && len(b) > 0 {
				typ = b[0]
			}
			return nil, pgerr.New(pgerr.ProtocolViolation, "unexpected message type 0x%02X during COPY from stdin", typ)
		}
	}
}

// requeue puts back the last thing the reader goroutine sent (an error or
// Terminate, after which it sends nothing more), so the session loop sees
// it next.
func (c *conn) requeue(in inbound) {
	c.ahead = append([]inbound{in}, c.ahead...)
}

// copyOut sends CopyOutResponse, every row of the Result as one CopyData
// (as PostgreSQL does: clients may rely on it), and CopyDone.
func (c *conn) copyOut(p *portal, spec *CopySpec) error {
	enc, err := newCopyEncoder(spec)
	if err != nil {
		return err
	}
	c.send(copyOutResponse(spec))
	loc := c.location()
	// The binary header rides in the first row's CopyData, a header line
	// has its own.
	prefix := enc.header(nil)
	if spec.Format != CopyBinary && len(prefix) > 0 {
		c.out = appendCopyData(c.out, prefix)
		prefix = nil
	}
	for {
		var b *vec.Batch
		err := c.guard("Result.Next", func() (err error) {
			if b, err = p.res.Next(); err != nil || b == nil || b.N == 0 {
				return err
			}
			return enc.fill(b, loc)
		})
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		for i := 0; i < b.N; i++ {
			at := len(c.out)
			c.out = append(c.out, 'd', 0, 0, 0, 0)
			c.out = enc.appendRow(append(c.out, prefix...), i)
			prefix = nil
			binary.BigEndian.PutUint32(c.out[at+1:], uint32(len(c.out)-at-1))
			if len(c.out) >= flushThreshold {
				c.flush()
				if c.werr != nil {
					return c.werr
				}
			}
		}
	}
	if spec.Format == CopyBinary {
		c.out = appendCopyData(c.out, enc.trailer(prefix))
	}
	c.send(&pgproto3.CopyDone{})
	return nil
}

// appendCopyData appends a CopyData message holding data.
func appendCopyData(dst, data []byte) []byte {
	n := len(data) + 4
	dst = append(dst, 'd', byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	return append(dst, data...)
}
