package vec

import "bytes"

// Appending nested values element by element, for readers that assemble
// arrays and structs from their parts (the Parquet reader builds each
// row's encoding straight from decoded leaf values).

// AppendNullElem appends a NULL element.
func AppendNullElem(dst []byte) []byte { return append(dst, tagNull) }

// AppendBytesElem appends a non-NULL element of a byte-string-stored type
// (text, bytea, an array or struct payload) whose bytes are b.
func AppendBytesElem(dst, b []byte) []byte {
	dst = append(dst, tagValue)
	for {
		k := bytes.IndexByte(b, 0)
		if k < 0 {
			break
		}
		dst = append(append(dst, b[:k]...), 0, 0xff)
		b = b[k+1:]
	}
	return append(append(dst, b...), 0, 1)
}
