package wire

// simpleFormats are the result formats of a statement run by the simple
// protocol: text (nil), except for a FETCH from a BINARY cursor, whose rows
// PostgreSQL sends in binary.
func (c *conn) simpleFormats(res Result, n int) []int16 {
	br, ok := res.(BinaryRows)
	if !ok {
		return nil
	}
	bin := false
	_ = c.guard("BinaryRows", func() error { bin = br.BinaryRows(); return nil })
	if !bin {
		return nil
	}
	formats := make([]int16, n)
	for i := range formats {
		formats[i] = binaryFormat
	}
	return formats
}

// chooseEncodings picks each column's encoder for formats (nil = all text).
func chooseEncodings(cols []Column, formats []int16) ([]encoding, error) {
	encs := make([]encoding, len(cols))
	for i, col := range cols {
		f := textFormat
		if formats != nil {
			f = formats[i]
		}
		var err error
		if encs[i], err = chooseEncoding(col.Type, f); err != nil {
			return nil, err
		}
	}
	return encs, nil
}
