package fn

import (
	"encoding/json"
	"strings"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// json operators and functions, as PostgreSQL's jsonfuncs.c has them for
// json (not jsonb): -> and ->> by key or array index (negative indexes
// count from the end), json_typeof, json_array_length. json values keep
// their text, so these scan it; results of -> are the original text of the
// member. Of duplicate keys the last wins, as PostgreSQL documents.

var jsonT = types.JSONT

func init() {
	regOp("->", strict(jsonGetKernel(false), jsonT, jsonT, textT))
	regOp("->", strict(jsonGetKernel(false), jsonT, jsonT, int4T))
	regOp("->>", strict(jsonGetKernel(true), textT, jsonT, textT))
	regOp("->>", strict(jsonGetKernel(true), textT, jsonT, int4T))
	reg("json_typeof", strict(kJSONTypeof, textT, jsonT))
	reg("json_array_length", strict(kJSONArrayLength, int4T, jsonT))
}

func errBadJSON() error {
	return pgerr.New(pgerr.InvalidTextRepr, "invalid input syntax for type json")
}

func jsonGetKernel(asText bool) Kernel {
	return func(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
		doc, key := a[0], a[1]
		dst := outS(out, n)
		for i := range dst {
			if isNull(out.Nulls, i) {
				continue
			}
			var raw string
			var found bool
			var err error
			if key.Type.ID == types.Text {
				raw, found, err = jsonField(doc.S[i], key.S[i])
			} else {
				raw, found, err = jsonElem(doc.S[i], key.I64[i])
			}
			if err != nil {
				return err
			}
			if !found {
				setNull(out, i, n)
				continue
			}
			if asText {
				if raw == "null" {
					setNull(out, i, n)
					continue
				}
				if raw[0] == '"' {
					var s string
					if json.Unmarshal([]byte(raw), &s) != nil {
						return errBadJSON()
					}
					raw = s
				}
			}
			dst[i] = raw
		}
		return nil
	}
}

func kJSONTypeof(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	dst := outS(out, n)
	for i := range dst {
		if isNull(out.Nulls, i) {
			continue
		}
		p := jscan{s: a[0].S[i]}
		p.ws()
		if p.i >= len(p.s) {
			return errBadJSON()
		}
		switch p.s[p.i] {
		case '{':
			dst[i] = "object"
		case '[':
			dst[i] = "array"
		case '"':
			dst[i] = "string"
		case 't', 'f':
			dst[i] = "boolean"
		case 'n':
			dst[i] = "null"
		default:
			dst[i] = "number"
		}
	}
	return nil
}

func kJSONArrayLength(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	dst := outI64(out, n)
	for i := range dst {
		if isNull(out.Nulls, i) {
			continue
		}
		p := jscan{s: a[0].S[i]}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '[' {
			if p.i < len(p.s) && p.s[p.i] == '{' {
				return pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a non-array")
			}
			return pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a scalar")
		}
		k := int64(0)
		err := p.each('[', func(string, int, int) bool { k++; return true })
		if err != nil {
			return err
		}
		dst[i] = k
	}
	return nil
}

// jsonField returns the text of the last member named key of an object.
func jsonField(doc, key string) (string, bool, error) {
	p := jscan{s: doc}
	p.ws()
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return "", false, nil
	}
	var raw string
	found := false
	err := p.each('{', func(k string, lo, hi int) bool {
		if k == key {
			raw, found = doc[lo:hi], true
		}
		return true
	})
	return raw, found, err
}

// jsonElem returns the text of array element idx (negative: from the end).
func jsonElem(doc string, idx int64) (string, bool, error) {
	p := jscan{s: doc}
	p.ws()
	if p.i >= len(p.s) || p.s[p.i] != '[' {
		return "", false, nil
	}
	var elems [][2]int
	if err := p.each('[', func(_ string, lo, hi int) bool { elems = append(elems, [2]int{lo, hi}); return true }); err != nil {
		return "", false, err
	}
	if idx < 0 {
		idx += int64(len(elems))
	}
	if idx < 0 || idx >= int64(len(elems)) {
		return "", false, nil
	}
	return doc[elems[idx][0]:elems[idx][1]], true, nil
}

// jscan walks json text without building values.
type jscan struct {
	s string
	i int
}

func (p *jscan) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// each visits the members (key and value bounds) of the object or array
// starting at p.i; open is '{' or '['.
func (p *jscan) each(open byte, visit func(key string, lo, hi int) bool) error {
	closeCh := byte(']')
	if open == '{' {
		closeCh = '}'
	}
	p.i++
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == closeCh {
		p.i++
		return nil
	}
	for {
		var key string
		if open == '{' {
			p.ws()
			lo := p.i
			if err := p.str(); err != nil {
				return err
			}
			key = p.s[lo+1 : p.i-1]
			if strings.IndexByte(key, '\\') >= 0 && json.Unmarshal([]byte(p.s[lo:p.i]), &key) != nil {
				return errBadJSON()
			}
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return errBadJSON()
			}
			p.i++
		}
		p.ws()
		lo := p.i
		if err := p.value(); err != nil {
			return err
		}
		if !visit(key, lo, p.i) {
			return nil
		}
		p.ws()
		if p.i >= len(p.s) {
			return errBadJSON()
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case closeCh:
			p.i++
			return nil
		default:
			return errBadJSON()
		}
	}
}

func (p *jscan) str() error {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return errBadJSON()
	}
	for j := p.i + 1; j < len(p.s); j++ {
		switch p.s[j] {
		case '\\':
			j++
		case '"':
			p.i = j + 1
			return nil
		}
	}
	return errBadJSON()
}

// value skips one value.
func (p *jscan) value() error {
	if p.i >= len(p.s) {
		return errBadJSON()
	}
	switch c := p.s[p.i]; c {
	case '{', '[':
		return p.each(c, func(string, int, int) bool { return true })
	case '"':
		return p.str()
	}
	lo := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			break
		}
		p.i++
	}
	if p.i == lo {
		return errBadJSON()
	}
	return nil
}
