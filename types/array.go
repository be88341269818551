package types

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// Arrays and structs name their element type or field list through Sub,
// an index into an append-only registry, so that T stays a small
// comparable value (compared with ==, used as a map key) however deep the
// nesting. A type is interned once, at bind or catalog-read time; reading
// the registry afterwards takes no lock.

// Field is one field of a struct type.
type Field struct {
	Name string
	Type T
}

type registry struct {
	mu      sync.Mutex
	elems   atomic.Pointer[[]T]       // Sub-1 → element type of an Array
	structs atomic.Pointer[[][]Field] // Sub-1 → fields of a Struct
	byElem  map[T]int32
	byKey   map[string]int32
}

var reg = func() *registry {
	r := &registry{byElem: map[T]int32{}, byKey: map[string]int32{}}
	r.elems.Store(&[]T{})
	r.structs.Store(&[][]Field{})
	return r
}()

// ArrayOf returns the array type whose elements have type elem.
func ArrayOf(elem T) T {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if k, ok := reg.byElem[elem]; ok {
		return T{ID: Array, Sub: k}
	}
	old := *reg.elems.Load()
	next := append(old[:len(old):len(old)], elem)
	reg.elems.Store(&next)
	k := int32(len(next))
	reg.byElem[elem] = k
	return T{ID: Array, Sub: k}
}

// Elem is the element type of an array type (UnknownT for other types).
func (t T) Elem() T {
	if t.ID != Array || t.Sub <= 0 {
		return UnknownT
	}
	es := *reg.elems.Load()
	if int(t.Sub) > len(es) {
		return UnknownT
	}
	return es[t.Sub-1]
}

// StructOf returns the struct type with these fields.
func StructOf(fields []Field) T {
	var key strings.Builder
	for _, f := range fields {
		fmt.Fprintf(&key, "%q:%s;", f.Name, typeKey(f.Type))
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if k, ok := reg.byKey[key.String()]; ok {
		return T{ID: Struct, Sub: k}
	}
	old := *reg.structs.Load()
	next := append(old[:len(old):len(old)], append([]Field(nil), fields...))
	reg.structs.Store(&next)
	k := int32(len(next))
	reg.byKey[key.String()] = k
	return T{ID: Struct, Sub: k}
}

func typeKey(t T) string {
	return fmt.Sprintf("%d/%d/%d/%d/%t/%t/%t/%d/%d", t.ID, t.Precision, t.Scale, t.Width, t.Varchar, t.Name, t.Bpchar, t.Sub, t.DeclScale)
}

// Fields lists the fields of a struct type (nil for other types).
func (t T) Fields() []Field {
	if t.ID != Struct || t.Sub <= 0 {
		return nil
	}
	ss := *reg.structs.Load()
	if int(t.Sub) > len(ss) {
		return nil
	}
	return ss[t.Sub-1]
}

// OIDs of composite and json values.
const (
	OIDRecord = 2249
	OIDJSON   = 114
)

// arrayOIDs maps element OIDs to PostgreSQL's array type OIDs.
var arrayOIDs = map[uint32]uint32{
	OIDBool: 1000, OIDBytea: 1001, OIDName: 1003, OIDInt2: 1005, OIDInt4: 1007,
	OIDText: 1009, OIDVarchar: 1015, OIDInt8: 1016, OIDFloat4: 1021, OIDFloat8: 1022,
	OIDTimestamp: 1115, OIDDate: 1182, OIDTimestamptz: 1185, OIDInterval: 1187,
	OIDNumeric: 1231, OIDUUID: 2951, OIDRecord: 2287, OIDJSON: 199, OIDOid: 1028, OIDBpchar: 1014,
	OIDTime: 1183, OIDTimeTZ: 1270,
}

// ArrayOIDOf is the array type OID whose elements have OID elem (0: none).
func ArrayOIDOf(elem uint32) uint32 { return arrayOIDs[elem] }

// OIDAnyArray is PostgreSQL's anyarray, reported for arrays of arrays.
const OIDAnyArray = 2277

func (t T) arrayOID() uint32 {
	if o, ok := arrayOIDs[t.Elem().OID()]; ok {
		return o
	}
	return OIDAnyArray
}

func elemOfArrayOID(oid uint32) (T, bool) {
	for e, a := range arrayOIDs {
		if a == oid {
			if e == OIDRecord || e == OIDJSON {
				return T{}, false
			}
			t, ok := FromOID(e)
			return t, ok
		}
	}
	return T{}, false
}

// ElemOIDOfArray is the element OID of array type OID oid (0: not an array).
func ElemOIDOfArray(oid uint32) uint32 {
	for e, a := range arrayOIDs {
		if a == oid {
			return e
		}
	}
	return 0
}

// AppendArrayElem appends one element's text form s to an array's text
// form as array_out writes it: double-quoted when empty, equal to NULL
// (any case) or holding a brace, comma, quote, backslash or white space,
// with quotes and backslashes escaped.
func AppendArrayElem(dst []byte, s string) []byte {
	quote := s == "" || strings.EqualFold(s, "NULL")
	if !quote {
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '{', '}', ',', '"', '\\', ' ', '\t', '\n', '\r', '\v', '\f':
				quote = true
			}
			if quote {
				break
			}
		}
	}
	if !quote {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '"')
}

// AppendRecordField appends one field's text form to a record's text form
// as record_out writes it: quoted when empty or holding a parenthesis,
// comma, quote, backslash or white space, with quotes and backslashes
// doubled. A NULL field is written as nothing by the caller.
func AppendRecordField(dst []byte, s string) []byte {
	quote := s == ""
	for i := 0; i < len(s) && !quote; i++ {
		switch s[i] {
		case '(', ')', ',', '"', '\\', ' ', '\t', '\n', '\r', '\v', '\f':
			quote = true
		}
	}
	if !quote {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			dst = append(dst, s[i])
		}
		dst = append(dst, s[i])
	}
	return append(dst, '"')
}
