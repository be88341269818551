package cli

import (
	"strings"

	"github.com/lakepg/lakepg/types"
)

// Column types a CSV column can be inferred as, in order of preference:
// the first that every sampled value parses as wins, text when none does.
var inferOrder = []struct {
	t     types.T
	parse func(string) bool
}{
	{types.Int64T, func(s string) bool { _, err := types.ParseInt(s, 64); return err == nil }},
	{types.Float64T, func(s string) bool { _, err := types.ParseFloat(s, 64); return err == nil }},
	{types.BoolT, func(s string) bool { _, err := types.ParseBool(s); return err == nil }},
	// PostgreSQL's date input accepts a time after the date and drops it:
	// such values are timestamps, not dates
	{types.DateT, func(s string) bool { _, err := types.ParseDate(s); return err == nil && !strings.Contains(s, ":") }},
	{types.TimestampT, func(s string) bool { _, err := types.ParseTimestamp(s); return err == nil }},
}

// inferrer narrows each column's candidate types over sampled rows.
type inferrer struct {
	alive [][]bool // per column, per inferOrder entry
	seen  []bool   // the column had a non-NULL value
}

func newInferrer(n int) *inferrer {
	in := &inferrer{alive: make([][]bool, n), seen: make([]bool, n)}
	for i := range in.alive {
		in.alive[i] = make([]bool, len(inferOrder))
		for k := range in.alive[i] {
			in.alive[i][k] = true
		}
	}
	return in
}

// add looks at one row; empty fields are NULL and rule nothing out.
func (in *inferrer) add(rec []string) {
	for i, v := range rec {
		if i >= len(in.alive) || v == "" {
			continue
		}
		in.seen[i] = true
		for k, c := range inferOrder {
			if in.alive[i][k] && !c.parse(v) {
				in.alive[i][k] = false
			}
		}
	}
}

// types returns the inferred type of each column; a column without any
// value is text.
func (in *inferrer) types() []types.T {
	out := make([]types.T, len(in.alive))
	for i := range out {
		out[i] = types.TextT
		if !in.seen[i] {
			continue
		}
		for k, c := range inferOrder {
			if in.alive[i][k] {
				out[i] = c.t
				break
			}
		}
	}
	return out
}
