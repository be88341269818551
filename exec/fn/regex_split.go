package fn

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
	var out []string
	prev := 0
	// RE2 already skips an empty match that abuts the previous match
	for _, m := range re.FindAllStringIndex(s, -1) {
		if m[0] >= len(s) || m[1] == 0 {
			continue
		}
		out = append(out, s[prev:m[0]])
		prev = m[1]
	}
	return append(out, s[prev:]), nil
}
