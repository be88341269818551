package parquetio

import (
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Reading nested fields (Dremel record assembly). Each leaf column chunk
// under the field is decoded by its own colReader into a batch of levels
// plus its non-NULL values, densely; the assembler then walks the bound
// shape once per row, following one cursor per leaf, and appends each
// row's value in vec's array/struct encoding (or, for maps, as JSON text)
// to one buffer that becomes the batch's strings with a single allocation.
// Definition levels tell a NULL list from an empty one from a NULL
// element; a repetition level equal to the list's own starts its next
// element. Every cursor move is bounds-checked and the cursors must end
// each row together, so corrupt levels become errors.

// bnode is a file node bound to the type the scan produces.
type bnode struct {
	fn   *nestNode // nil: a struct field the file lacks (always NULL)
	t    types.T   // leaf: the type values decode to
	json bool      // the node is written as JSON text (maps and below)
	leaf int       // the first leaf under fn, local to the field
	kids []*bnode  // struct: fields in output order; list: element; map: key, value
	drop []*bnode  // struct: file fields the type lacks, read and discarded
	name string    // struct field name (JSON objects)
	v    *vnode    // a variant group (nested_variant.go)
}

// nestBind is a nested projection bound to a file field.
type nestBind struct {
	root   *bnode
	node   *nestNode
	leaves []leafSpec // per leaf under the field, in chunk order
}

type leafSpec struct {
	t    types.T
	plan plan
	node *nestNode
}

// isJSONTarget: map columns read as their JSON text.
func isJSONTarget(t types.T) bool { return t.ID == types.JSON || t.ID == types.Text }

func bindNested(name string, tf *topField, t types.T) (*nestBind, error) {
	if tf.node == nil {
		msg := "unknown layout"
		if tf.nestErr != nil {
			msg = tf.nestErr.Error()
		}
		return nil, pgerr.New(pgerr.FeatureNotSupported, "column %q has a nested Parquet type lakepg cannot read: %s", name, msg)
	}
	nb := &nestBind{node: tf.node, leaves: make([]leafSpec, tf.node.hi-tf.node.lo)}
	root, err := nb.bind(name, tf.node, t, false)
	if err != nil {
		return nil, err
	}
	for i := range nb.leaves {
		if nb.leaves[i].node == nil {
			return nil, fmt.Errorf("parquet: column %q: leaf %d of the nested field is not bound", name, i)
		}
	}
	nb.root = root
	return nb, nil
}

func (nb *nestBind) bind(name string, n *nestNode, t types.T, json bool) (*bnode, error) {
	b := &bnode{fn: n, t: t, json: json, leaf: n.lo - nb.node.lo}
	bad := func() (*bnode, error) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot read nested Parquet column %q (%s) as %s", name, kindName(n), t)
	}
	if !json && isJSONTarget(t) && isVariantGroup(n, true) {
		return nb.bindVariant(name, n, true)
	}
	if !json && n.kind == nkMap && isJSONTarget(t) {
		json = true
		b.json = true
	}
	if json {
		switch n.kind {
		case nkLeaf:
			nt, ok := naturalType(n.elem)
			if !ok {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot read Parquet column %q (%s) inside a map", name, physName(classify(n.elem)))
			}
			return nb.leaf(name, b, nt)
		default:
			for _, c := range n.children {
				k, err := nb.bind(name, c, types.TextT, true)
				if err != nil {
					return nil, err
				}
				k.name = c.elem.name
				b.kids = append(b.kids, k)
			}
			return b, nil
		}
	}
	switch n.kind {
	case nkLeaf:
		if t.ID == types.Array || t.ID == types.Struct {
			return bad()
		}
		return nb.leaf(name, b, t)
	case nkList:
		if t.ID != types.Array {
			return bad()
		}
		k, err := nb.bind(name, n.children[0], t.Elem(), false)
		if err != nil {
			return nil, err
		}
		b.kids = []*bnode{k}
		return b, nil
	case nkStruct:
		if t.ID != types.Struct {
			return bad()
		}
		used := make([]bool, len(n.children))
		for _, f := range t.Fields() {
			k := &bnode{t: f.Type, name: f.Name}
			for j, c := range n.children {
				if !used[j] && c.elem.name == f.Name {
					var err error
					if k, err = nb.bind(name, c, f.Type, false); err != nil {
						return nil, err
					}
					k.name = f.Name
					used[j] = true
					break
				}
			}
			b.kids = append(b.kids, k)
		}
		for j, c := range n.children {
			if !used[j] {
				k, err := nb.bind(name, c, types.TextT, true)
				if err != nil {
					return nil, err
				}
				b.drop = append(b.drop, k)
			}
		}
		return b, nil
	}
	return bad()
}

func (nb *nestBind) leaf(name string, b *bnode, t types.T) (*bnode, error) {
	p, err := makePlan(name, b.fn.elem, t)
	if err != nil {
		return nil, err
	}
	b.t = t
	nb.leaves[b.leaf] = leafSpec{t: t, plan: p, node: b.fn}
	return b, nil
}

func kindName(n *nestNode) string {
	switch n.kind {
	case nkList:
		return "LIST"
	case nkMap:
		return "MAP"
	case nkStruct:
		return "group"
	}
	return physName(classify(n.elem))
}

// nestedReader reads one nested projection.
type nestedReader struct {
	name    string
	b       *nestBind
	cols    []*colReader
	lbs     []leafBatch
	maxDef  []uint8 // per leaf: the level of a present value
	scratch [][]byte
	tmp     []byte
	out     []byte
	ends    []int
	nulls   []bool
	// vmeta is the parsed variant metadata of vmetaRaw (rows of one file
	// mostly share it)
	vmetaRaw string
	vmeta    *variantMeta
}

func newNestedReader(f *File, name string, nb *nestBind) *nestedReader {
	r := &nestedReader{name: name, b: nb, cols: make([]*colReader, len(nb.leaves)), lbs: make([]leafBatch, len(nb.leaves)),
		maxDef: make([]uint8, len(nb.leaves))}
	for i, ls := range nb.leaves {
		c := newColReader()
		c.f, c.name, c.leaf, c.want, c.plan = f, name, nb.node.lo+i, ls.t, ls.plan
		c.nest = newNestLevels(ls.node.def, ls.node.rep)
		r.cols[i] = c
		r.lbs[i].vals = vec.New(ls.t, vec.BatchSize)
		r.maxDef[i] = uint8(ls.node.def)
	}
	return r
}

func (r *nestedReader) startChunk(rg int) error {
	for _, c := range r.cols {
		if err := c.startChunk(rg); err != nil {
			return err
		}
	}
	return nil
}

func (r *nestedReader) release() {
	for i, c := range r.cols {
		c.recycle()
		colReaderPool.Put(c)
		r.cols[i] = nil
	}
}

func (r *nestedReader) corrupt(format string, args ...any) error {
	return fmt.Errorf("parquet: nested column %q, row group %d: %s: %w", r.name, r.cols[0].rg, fmt.Sprintf(format, args...), errCorrupt)
}

var errLevels = fmt.Errorf("levels do not describe a value of the column's shape")

// read fills v with the next n rows.
func (r *nestedReader) read(v *vec.Vector, n int) error {
	for i, c := range r.cols {
		if err := c.fillRows(&r.lbs[i], n); err != nil {
			return err
		}
	}
	r.out, r.ends = r.out[:0], r.ends[:0]
	r.nulls = resize(r.nulls, n)
	anyNull := false
	root := r.b.root
	first := &r.lbs[root.leaf]
	var err error
	for row := 0; row < n; row++ {
		if first.pos >= len(first.def) {
			return r.corrupt("%v", errLevels)
		}
		null := int(first.def[first.pos]) < root.fn.def
		r.nulls[row] = null
		switch {
		case null:
			anyNull = true
			err = r.skip(root.fn)
		case root.v != nil:
			// a variant with neither value nor typed_value, or a variant
			// null, is SQL NULL, as DuckDB reads it
			mark := len(r.out)
			var present bool
			r.out, present, err = r.jvariant(root, nil, r.out)
			if err == nil && (!present || string(r.out[mark:]) == "null") {
				r.out = r.out[:mark]
				r.nulls[row] = true
				anyNull = true
			}
		case root.json:
			r.out, err = r.jvalue(root, r.out)
		default:
			r.out, err = r.value(root, r.out, 0)
		}
		if err != nil {
			return r.corrupt("%v", err)
		}
		for i := range r.lbs {
			lb := &r.lbs[i]
			if lb.pos < len(lb.rep) && lb.rep[lb.pos] != 0 {
				return r.corrupt("leaf %d: %v", i, errLevels)
			}
		}
		r.ends = append(r.ends, len(r.out))
	}
	for i := range r.lbs {
		lb := &r.lbs[i]
		if lb.pos != len(lb.def) || lb.vp != lb.vals.Len() {
			return r.corrupt("leaf %d: %v", i, errLevels)
		}
	}
	all := string(r.out)
	v.S = resize(v.S, n)
	start := 0
	for i, e := range r.ends {
		v.S[i] = all[start:e]
		start = e
	}
	if anyNull {
		v.Nulls = r.nulls[:n]
	} else {
		v.Nulls = nil
	}
	return nil
}

// skip moves past a NULL (or empty) value of n: each leaf under it has
// exactly one level entry for it, and no value.
func (r *nestedReader) skip(n *nestNode) error {
	lo := n.lo - r.b.node.lo
	for i := lo; i < lo+n.hi-n.lo; i++ {
		lb := &r.lbs[i]
		if lb.pos >= len(lb.def) || lb.def[lb.pos] >= r.maxDef[i] {
			return errLevels
		}
		lb.pos++
	}
	return nil
}

// level is the definition level of b's first leaf at its cursor.
func (r *nestedReader) level(b *bnode) (*leafBatch, int, error) {
	lb := &r.lbs[b.leaf]
	if lb.pos >= len(lb.def) {
		return nil, 0, errLevels
	}
	return lb, int(lb.def[lb.pos]), nil
}

// value appends the encoding of b's present value (its payload: elements
// or fields, untagged).
func (r *nestedReader) value(b *bnode, dst []byte, depth int) ([]byte, error) {
	n := b.fn
	var err error
	switch n.kind {
	case nkList:
		lb, d, err := r.level(b)
		if err != nil {
			return dst, err
		}
		if d < n.entryDef {
			return dst, r.skip(n)
		}
		for {
			if dst, err = r.slot(b.kids[0], dst, depth); err != nil {
				return dst, err
			}
			if lb.pos >= len(lb.rep) || int(lb.rep[lb.pos]) != n.entryRep {
				return dst, nil
			}
		}
	case nkStruct:
		for _, k := range b.kids {
			if dst, err = r.slot(k, dst, depth); err != nil {
				return dst, err
			}
		}
		for _, k := range b.drop {
			if r.tmp, err = r.jslot(k, r.tmp[:0]); err != nil {
				return dst, err
			}
		}
		return dst, nil
	}
	return dst, errLevels
}

// slot appends b as one tagged element (NULL included).
func (r *nestedReader) slot(b *bnode, dst []byte, depth int) ([]byte, error) {
	if b.fn == nil {
		return vec.AppendNullElem(dst), nil
	}
	lb, d, err := r.level(b)
	if err != nil {
		return dst, err
	}
	if d < b.fn.def {
		return vec.AppendNullElem(dst), r.skip(b.fn)
	}
	if b.fn.kind == nkLeaf {
		if lb.vp >= lb.vals.Len() {
			return dst, errLevels
		}
		dst = vec.AppendElem(dst, lb.vals, lb.vp)
		lb.vp++
		lb.pos++
		return dst, nil
	}
	for len(r.scratch) <= depth {
		r.scratch = append(r.scratch, nil)
	}
	buf := r.scratch[depth][:0]
	if b.json {
		buf, err = r.jvalue(b, buf)
	} else {
		buf, err = r.value(b, buf, depth+1)
	}
	r.scratch[depth] = buf
	if err != nil {
		return dst, err
	}
	return vec.AppendBytesElem(dst, buf), nil
}

// jslot appends b as JSON (null included).
func (r *nestedReader) jslot(b *bnode, dst []byte) ([]byte, error) {
	lb, d, err := r.level(b)
	if err != nil {
		return dst, err
	}
	if d < b.fn.def {
		return append(dst, "null"...), r.skip(b.fn)
	}
	if b.fn.kind == nkLeaf {
		if lb.vp >= lb.vals.Len() {
			return dst, errLevels
		}
		dst = appendJSONValue(dst, lb.vals, lb.vp)
		lb.vp++
		lb.pos++
		return dst, nil
	}
	return r.jvalue(b, dst)
}

// (the variant groups' JSON is jvariant's, nested_variant.go)

// jvalue appends b's present value as JSON: a list as an array, a struct
// as an object, a map as an object with its keys as strings.
func (r *nestedReader) jvalue(b *bnode, dst []byte) ([]byte, error) {
	if b.v != nil {
		dst, _, err := r.jvariant(b, nil, dst)
		return dst, err
	}
	n := b.fn
	var err error
	switch n.kind {
	case nkList, nkMap:
		lb, d, err := r.level(b)
		if err != nil {
			return dst, err
		}
		open, close := byte('['), byte(']')
		if n.kind == nkMap {
			open, close = '{', '}'
		}
		dst = append(dst, open)
		if d < n.entryDef {
			return append(dst, close), r.skip(n)
		}
		for first := true; ; first = false {
			if !first {
				dst = append(dst, ", "...)
			}
			if n.kind == nkMap {
				// keys are strings in JSON: quote a key's own JSON text
				// unless it already is one
				if r.tmp, err = r.jslot(b.kids[0], r.tmp[:0]); err != nil {
					return dst, err
				}
				if len(r.tmp) > 0 && r.tmp[0] == '"' {
					dst = append(dst, r.tmp...)
				} else {
					dst = appendJSONString(dst, string(r.tmp))
				}
				dst = append(dst, ": "...)
				if dst, err = r.jslot(b.kids[1], dst); err != nil {
					return dst, err
				}
			} else if dst, err = r.jslot(b.kids[0], dst); err != nil {
				return dst, err
			}
			if lb.pos >= len(lb.rep) || int(lb.rep[lb.pos]) != n.entryRep {
				return append(dst, close), nil
			}
		}
	case nkStruct:
		dst = append(dst, '{')
		for i, k := range b.kids {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendJSONString(dst, k.name)
			dst = append(dst, ": "...)
			if dst, err = r.jslot(k, dst); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
	return dst, errLevels
}

// appendJSONValue appends row i of v as a JSON value, as PostgreSQL's
// to_json writes it: numbers and booleans bare (non-finite floats as
// strings), everything else as a string of its text form.
func appendJSONValue(dst []byte, v *vec.Vector, i int) []byte {
	t := v.Type
	switch t.ID {
	case types.Bool:
		if v.B[i] {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case types.Int16, types.Int32, types.Int64, types.Numeric:
		return v.AppendText(dst, i, time.UTC)
	case types.Float32, types.Float64:
		if f := v.F64[i]; !math.IsNaN(f) && !math.IsInf(f, 0) {
			return v.AppendText(dst, i, time.UTC)
		}
	}
	start := len(dst)
	dst = v.AppendText(dst, i, time.UTC)
	s := string(dst[start:])
	return appendJSONString(dst[:start], s)
}

// appendJSONString appends s as a JSON string literal.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		case c < utf8.RuneSelf:
			dst = append(dst, c)
		default:
			_, w := utf8.DecodeRuneInString(s[i:])
			dst = append(dst, s[i:i+w]...)
			i += w
			continue
		}
		i++
	}
	return append(dst, '"')
}
