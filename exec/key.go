package exec

import "github.com/lakepg/lakepg/exec/vec"

// AppendKey encodes row i of v so that equal values give equal bytes (NULL
// its own byte): the key encoding SetOp uses, for callers that keep rows in
// Go maps (unique constraint checks in sql).
func AppendKey(dst []byte, v *vec.Vector, i int) []byte { return appendKey(dst, v, i) }
