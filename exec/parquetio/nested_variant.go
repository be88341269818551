package parquetio

import (
	"strings"

	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Binding and assembling variant groups (variant.go) inside the nested
// reader: the column's group is bound with its metadata and value leaves
// read as raw bytes and its typed_value bound by shape, and each row is
// written as JSON.

// vnode is the variant part of a bnode.
type vnode struct {
	meta, value, typed *bnode // nil when the group lacks the field
	// fields are typed_value's object fields (variant groups) by name; elem
	// is typed_value's list element (a variant group)
	fields []*bnode
	elem   *bnode
}

// isVariantGroup reports whether n is a variant group: a struct with
// metadata and value (the column) or value and/or typed_value (a shredded
// field or element, which takes the column's metadata).
func isVariantGroup(n *nestNode, top bool) bool {
	if n.kind != nkStruct {
		return false
	}
	has := map[string]bool{}
	for _, c := range n.children {
		has[strings.ToLower(c.elem.name)] = true
	}
	if top {
		return has["metadata"] && has["value"] && len(n.children) <= 3
	}
	return (has["value"] || has["typed_value"]) && len(n.children) <= 2 && !has["metadata"]
}

func (nb *nestBind) bindVariant(name string, n *nestNode, top bool) (*bnode, error) {
	b := &bnode{fn: n, t: types.JSONT, json: true, leaf: n.lo - nb.node.lo, v: &vnode{}}
	for _, c := range n.children {
		switch strings.ToLower(c.elem.name) {
		case "metadata", "value":
			if c.kind != nkLeaf {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "variant column %q: %s is not a binary column", name, c.elem.name)
			}
			k, err := nb.leaf(name, &bnode{fn: c, leaf: c.lo - nb.node.lo}, types.ByteaT)
			if err != nil {
				return nil, err
			}
			if strings.EqualFold(c.elem.name, "metadata") {
				b.v.meta = k
			} else {
				b.v.value = k
			}
		case "typed_value":
			k := &bnode{fn: c, json: true, leaf: c.lo - nb.node.lo}
			switch c.kind {
			case nkLeaf:
				nt, ok := naturalType(c.elem)
				if !ok {
					return nil, pgerr.New(pgerr.FeatureNotSupported, "variant column %q: shredded type %s is not supported", name, physName(classify(c.elem)))
				}
				var err error
				if k, err = nb.leaf(name, k, nt); err != nil {
					return nil, err
				}
			case nkStruct:
				for _, f := range c.children {
					if !isVariantGroup(f, false) {
						return nil, pgerr.New(pgerr.FeatureNotSupported, "variant column %q: shredded field %s is not a variant group", name, f.elem.name)
					}
					fb, err := nb.bindVariant(name, f, false)
					if err != nil {
						return nil, err
					}
					fb.name = f.elem.name
					k.kids = append(k.kids, fb)
				}
			case nkList:
				e := c.children[0]
				if !isVariantGroup(e, false) {
					return nil, pgerr.New(pgerr.FeatureNotSupported, "variant column %q: shredded element is not a variant group", name)
				}
				eb, err := nb.bindVariant(name, e, false)
				if err != nil {
					return nil, err
				}
				k.kids = []*bnode{eb}
			default:
				return nil, pgerr.New(pgerr.FeatureNotSupported, "variant column %q: typed_value of kind %s", name, kindName(c))
			}
			b.v.typed = k
		default:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "variant column %q: unknown field %s", name, c.elem.name)
		}
	}
	if top && b.v.meta == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "variant column %q has no metadata", name)
	}
	return b, nil
}

// rawLeaf takes leaf b's value at its cursor: ok is false for NULL.
func (r *nestedReader) rawLeaf(b *bnode) (string, bool, error) {
	lb, d, err := r.level(b)
	if err != nil {
		return "", false, err
	}
	if d < b.fn.def {
		return "", false, r.skip(b.fn)
	}
	if lb.vp >= lb.vals.Len() {
		return "", false, errLevels
	}
	s := lb.vals.S[lb.vp]
	lb.vp++
	lb.pos++
	return s, true, nil
}

// jvariant appends the present variant group b as JSON; present is false
// when neither value nor typed_value holds anything (a missing object
// field). meta is the column's metadata (nil at the column, which reads
// its own).
func (r *nestedReader) jvariant(b *bnode, meta *variantMeta, dst []byte) (out []byte, present bool, err error) {
	v := b.v
	if v.meta != nil {
		raw, ok, err := r.rawLeaf(v.meta)
		if err != nil {
			return dst, false, err
		}
		if !ok {
			return dst, false, errVariant
		}
		if raw != r.vmetaRaw || r.vmeta == nil {
			m, err := parseVariantMeta([]byte(raw))
			if err != nil {
				return dst, false, err
			}
			r.vmetaRaw, r.vmeta = raw, &m
		}
		meta = r.vmeta
	}
	if meta == nil {
		return dst, false, errVariant
	}
	var value string
	hasValue := false
	if v.value != nil {
		if value, hasValue, err = r.rawLeaf(v.value); err != nil {
			return dst, false, err
		}
	}
	if v.typed != nil {
		lb, d, err := r.level(v.typed)
		if err != nil {
			return dst, false, err
		}
		if d >= v.typed.fn.def {
			t := v.typed
			switch t.fn.kind {
			case nkLeaf:
				if lb.vp >= lb.vals.Len() {
					return dst, false, errLevels
				}
				dst = appendJSONValue(dst, lb.vals, lb.vp)
				lb.vp++
				lb.pos++
				return dst, true, nil
			case nkStruct:
				dst = append(dst, '{')
				n := 0
				for _, f := range t.kids {
					fl, fd, err := r.level(f)
					if err != nil {
						return dst, false, err
					}
					_ = fl
					if fd < f.fn.def {
						if err := r.skip(f.fn); err != nil {
							return dst, false, err
						}
						continue
					}
					mark := len(dst)
					if n > 0 {
						dst = append(dst, ", "...)
					}
					dst = appendJSONString(dst, f.name)
					dst = append(dst, ": "...)
					var ok bool
					if dst, ok, err = r.jvariant(f, meta, dst); err != nil {
						return dst, false, err
					}
					if !ok {
						dst = dst[:mark]
						continue
					}
					n++
				}
				if hasValue {
					// a partly shredded object: the fields not shredded
					// are in value, an object of its own
					rest, err := appendVariantJSON(nil, meta, []byte(value), 0)
					if err != nil {
						return dst, false, err
					}
					if len(rest) > 2 && rest[0] == '{' {
						if n > 0 {
							dst = append(dst, ", "...)
						}
						dst = append(dst, rest[1:len(rest)-1]...)
					}
				}
				return append(dst, '}'), true, nil
			case nkList:
				dst = append(dst, '[')
				if d < t.fn.entryDef {
					return append(dst, ']'), true, r.skip(t.fn)
				}
				for first := true; ; first = false {
					if !first {
						dst = append(dst, ", "...)
					}
					e := t.kids[0]
					_, ed, err := r.level(e)
					if err != nil {
						return dst, false, err
					}
					if ed < e.fn.def {
						dst = append(dst, "null"...)
						if err := r.skip(e.fn); err != nil {
							return dst, false, err
						}
					} else {
						var ok bool
						if dst, ok, err = r.jvariant(e, meta, dst); err != nil {
							return dst, false, err
						}
						if !ok {
							dst = append(dst, "null"...)
						}
					}
					if lb.pos >= len(lb.rep) || int(lb.rep[lb.pos]) != t.fn.entryRep {
						return append(dst, ']'), true, nil
					}
				}
			}
			return dst, false, errLevels
		}
		if err := r.skip(v.typed.fn); err != nil {
			return dst, false, err
		}
	}
	if !hasValue {
		return append(dst, "null"...), false, nil
	}
	dst, err = appendVariantJSON(dst, meta, []byte(value), 0)
	return dst, true, err
}
