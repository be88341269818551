package fn

import (
	"regexp"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// RegexpSplit splits s at the matches of a PostgreSQL regular expression,
// as regexp_split_to_table does: an empty match at the very start or end
// of s, or right after the previous match, does not split.
func RegexpSplit(s, pattern, flags string) ([]string, error) {
	var o reOpts
	if err := parseFlags(flags, &o); err != nil {
		return nil, err
	}
	if o.global {
		return nil, noGlobal("regexp_split_to_table")
	}
	re, err := compileRE(pattern, o)
	if err != nil {
		return nil, err
	}
	return splitRE(nil, re, s), nil
}

func splitRE(out []string, re *regexp.Regexp, s string) []string {
	prev := 0
	// RE2 already skips an empty match that abuts the previous match
	for _, m := range re.FindAllStringIndex(s, -1) {
		if m[0] >= len(s) || m[1] == 0 {
			continue
		}
		out = append(out, s[prev:m[0]])
		prev = m[1]
	}
	return append(out, s[prev:])
}

var textArrT = types.ArrayOf(types.TextT)

func init() {
	reg("regexp_split_to_array", strict(kRegexpSplitToArray, textArrT, textT, textT))
	reg("regexp_split_to_array", strict(kRegexpSplitToArray, textArrT, textT, textT, textT))
	reg("regexp_match", strict(kRegexpMatch, textArrT, textT, textT))
	reg("regexp_match", strict(kRegexpMatch, textArrT, textT, textT, textT))
}

func kRegexpSplitToArray(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, pats := a[0].S[:n], a[1].S[:n]
	dst := outS(out, n)
	nl := out.Nulls
	var pk rePicker
	prev, first := "", true
	elems := vec.New(types.TextT, 8)
	var parts []string
	for i, s := range src {
		if isNull(nl, i) {
			continue
		}
		re, err := rowRegexp(&pk, flagsAt(a, 2, i), &prev, &first, pats[i], "regexp_split_to_array")
		if err != nil {
			return err
		}
		parts = splitRE(parts[:0], re, s)
		elems.Reset()
		for _, part := range parts {
			elems.AppendString(part)
		}
		dst[i] = vec.EncodeArray(elems, 0, elems.Len())
	}
	return nil
}

// kRegexpMatch returns the capture groups of the first match (an
// unmatched group is a NULL element), the whole match when the pattern
// has no groups, and NULL when nothing matches.
func kRegexpMatch(_ *Ctx, out *vec.Vector, a []*vec.Vector, n int) error {
	src, pats := a[0].S[:n], a[1].S[:n]
	dst := outS(out, n)
	nl := out.Nulls
	var pk rePicker
	prev, first := "", true
	elems := vec.New(types.TextT, 8)
	for i, s := range src {
		if isNull(nl, i) {
			continue
		}
		p, err := pickerFor(&pk, flagsAt(a, 2, i), &prev, &first)
		if err != nil {
			return err
		}
		if p.o.global {
			e := pgerr.New(pgerr.InvalidParameterValue, "regexp_match() does not support the \"global\" option")
			e.Hint = "Use the regexp_matches function instead."
			return e
		}
		re, err := p.get(pats[i])
		if err != nil {
			return err
		}
		m := re.FindStringSubmatchIndex(s)
		if m == nil {
			setNull(out, i, n)
			continue
		}
		elems.Reset()
		if len(m) == 2 {
			elems.AppendString(s[m[0]:m[1]])
		}
		for g := 2; g < len(m); g += 2 {
			if m[g] < 0 {
				elems.AppendNull()
			} else {
				elems.AppendString(s[m[g]:m[g+1]])
			}
		}
		dst[i] = vec.EncodeArray(elems, 0, elems.Len())
	}
	return nil
}
