package bind

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// jsonBuilder binds json_build_object and json_build_array, which
// SQLAlchemy's column reflection calls for identity and collation
// details. lakepg has no json type: the result is its text.
func (b *Binder) jsonBuilder(name string, args []exec.Expr, loc int32) (exec.Expr, bool, error) {
	switch name {
	case "json_build_object", "jsonb_build_object":
		if len(args)%2 != 0 {
			return nil, true, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "argument list must have even number of elements"), loc)
		}
	case "json_build_array", "jsonb_build_array":
	default:
		return nil, false, nil
	}
	object := strings.HasSuffix(name, "object")
	for i := range args {
		if args[i].Type().ID == types.Unknown {
			var err error
			if args[i], err = b.Cast(args[i], types.TextT, false, loc); err != nil {
				return nil, true, err
			}
		}
	}
	loc2 := b.Env.Loc
	f := &CatalogFn{Name: name, T: types.TextT, Args: args, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
		var buf []byte
		open, close := byte('['), byte(']')
		if object {
			open, close = '{', '}'
		}
		buf = append(buf, open)
		for k, v := range a {
			switch {
			case k > 0 && object && k%2 == 1:
				buf = append(buf, " : "...)
			case k > 0:
				buf = append(buf, ", "...)
			}
			if object && k%2 == 0 {
				if v.IsNull(i) {
					return pgerr.New("22004", "null value not allowed for object key")
				}
				buf = appendJSONString(buf, string(v.AppendText(nil, i, loc2)))
				continue
			}
			buf = appendJSONValue(buf, v, i, loc2)
		}
		out.AppendString(string(append(buf, close)))
		return nil
	}}
	e, err := b.Fold(f, loc)
	return e, true, err
}

func appendJSONValue(buf []byte, v *vec.Vector, i int, loc *time.Location) []byte {
	if v.IsNull(i) {
		return append(buf, "null"...)
	}
	switch t := v.Type; {
	case t.ID == types.Bool:
		return strconv.AppendBool(buf, v.B[i])
	case t.IsNumeric():
		s := string(v.AppendText(nil, i, loc))
		if s == "NaN" || s == "Infinity" || s == "-Infinity" {
			return appendJSONString(buf, s)
		}
		return append(buf, s...)
	}
	return appendJSONString(buf, string(v.AppendText(nil, i, loc)))
}

func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for _, r := range s {
		switch {
		case r == '"':
			buf = append(buf, `\"`...)
		case r == '\\':
			buf = append(buf, `\\`...)
		case r == '\n':
			buf = append(buf, `\n`...)
		case r == '\t':
			buf = append(buf, `\t`...)
		case r == '\r':
			buf = append(buf, `\r`...)
		case r < 0x20:
			buf = append(buf, `\u00`...)
			buf = append(buf, "0123456789abcdef"[r>>4], "0123456789abcdef"[r&15])
		default:
			buf = utf8.AppendRune(buf, r)
		}
	}
	return append(buf, '"')
}
