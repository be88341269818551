package laketypes

import (
	"encoding/hex"
	"strings"
	"time"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// DuckDB keeps inlined list and struct values in SQLite and PostgreSQL
// catalogs as its VARCHAR text: [1, 2, NULL], {'x': 1, 'y': abc}. A string
// element is single-quoted (backslash escapes) when it is empty, reads as
// NULL or holds characters of the syntax, else bare; blobs use \xHH
// escapes. AppendDuckNested parses that text into the array or struct
// encoding.

func AppendDuckNested(v *vec.Vector, s string) error {
	p := &duckText{s: s}
	payload, null, err := p.Value(v.Type, nil, 0)
	if err != nil {
		return err
	}
	p.space()
	if p.i != len(s) {
		return p.fail()
	}
	if null {
		v.AppendNull()
		return nil
	}
	v.AppendString(string(payload))
	return nil
}

type duckText struct {
	s   string
	i   int
	tmp map[types.T]*vec.Vector
}

func (p *duckText) fail() error {
	return pgerr.New(pgerr.InvalidTextRepr, "malformed DuckDB nested value: %q", p.s)
}

func (p *duckText) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *duckText) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// Value parses one value of type t and returns its payload (arrays and
// structs: the encoding; scalars: unused) or NULL.
func (p *duckText) Value(t types.T, dst []byte, depth int) ([]byte, bool, error) {
	if depth > 64 {
		return nil, false, p.fail()
	}
	p.space()
	if strings.HasPrefix(p.s[p.i:], "NULL") {
		rest := p.s[p.i+4:]
		if rest == "" || strings.ContainsRune(",]} \t\n", rune(rest[0])) {
			p.i += 4
			return dst, true, nil
		}
	}
	switch t.ID {
	case types.Array:
		if !p.eat('[') {
			return nil, false, p.fail()
		}
		if p.eat(']') {
			return dst, false, nil
		}
		for {
			var err error
			if dst, err = p.elem(t.Elem(), dst, depth); err != nil {
				return nil, false, err
			}
			if p.eat(']') {
				return dst, false, nil
			}
			if !p.eat(',') {
				return nil, false, p.fail()
			}
		}
	case types.Struct:
		if !p.eat('{') {
			return nil, false, p.fail()
		}
		for k, f := range t.Fields() {
			if k > 0 && !p.eat(',') {
				return nil, false, p.fail()
			}
			if _, _, err := p.token(":"); err != nil {
				return nil, false, err
			}
			if !p.eat(':') {
				return nil, false, p.fail()
			}
			var err error
			if dst, err = p.elem(f.Type, dst, depth); err != nil {
				return nil, false, err
			}
		}
		if !p.eat('}') {
			return nil, false, p.fail()
		}
		return dst, false, nil
	}
	return nil, false, p.fail()
}

// elem appends one tagged element of type t.
func (p *duckText) elem(t types.T, dst []byte, depth int) ([]byte, error) {
	if t.ID == types.Array || t.ID == types.Struct {
		inner, null, err := p.Value(t, nil, depth+1)
		if err != nil {
			return nil, err
		}
		if null {
			return vec.AppendNullElem(dst), nil
		}
		return vec.AppendBytesElem(dst, inner), nil
	}
	text, quoted, err := p.token(",]}")
	if err != nil {
		return nil, err
	}
	if !quoted && text == "NULL" {
		return vec.AppendNullElem(dst), nil
	}
	if p.tmp == nil {
		p.tmp = map[types.T]*vec.Vector{}
	}
	tv := p.tmp[t]
	if tv == nil {
		tv = vec.New(t, 1)
		p.tmp[t] = tv
	}
	tv.Reset()
	if t.ID == types.Bytea {
		b, err := duckBlob(text)
		if err != nil {
			return nil, err
		}
		tv.AppendString(b)
	} else if err := exec.ParseInto(tv, text, time.UTC, false); err != nil {
		return nil, err
	}
	return vec.AppendElem(dst, tv, 0), nil
}

// token reads a scalar: a quoted string, or bare text up to one of stops.
func (p *duckText) token(stops string) (string, bool, error) {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '\'' {
		var b strings.Builder
		for p.i++; p.i < len(p.s); p.i++ {
			c := p.s[p.i]
			switch {
			case c == '\\' && p.i+1 < len(p.s):
				p.i++
				b.WriteByte(p.s[p.i])
			case c == '\'':
				p.i++
				return b.String(), true, nil
			default:
				b.WriteByte(c)
			}
		}
		return "", false, p.fail()
	}
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(stops, rune(p.s[p.i])) {
		p.i++
	}
	return strings.TrimSpace(p.s[start:p.i]), false, nil
}

// duckBlob decodes DuckDB's blob text: bytes as they are, \xHH escapes.
func duckBlob(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) && s[i+1] == 'x' {
			h, err := hex.DecodeString(s[i+2 : i+4])
			if err != nil {
				return "", pgerr.New(pgerr.InvalidTextRepr, "malformed DuckDB blob: %q", s)
			}
			b.Write(h)
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), nil
}
