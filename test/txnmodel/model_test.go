package txnmodel

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// column is a model table's column: its name, its PostgreSQL type (integer, bigint or
// text), NOT NULL, and its DEFAULT as the text value it yields (nil: NULL).
type column struct {
	name, typ string
	notNull   bool
	def       *string
}

// row is a model row, values as PostgreSQL prints them (nil for NULL). fresh marks rows
// the open block inserted: changing them is no conflict with another writer.
type row struct {
	vals  []*string
	fresh bool
}

// table is a model table. uid names it across renames; part is its partition column.
type table struct {
	uid  int
	cols []column
	rows []row
	part string
}

func (t *table) clone() *table {
	c := *t
	c.cols = slices.Clone(t.cols)
	c.rows = make([]row, len(t.rows))
	for i, r := range t.rows {
		c.rows[i] = row{vals: slices.Clone(r.vals), fresh: r.fresh}
	}
	return &c
}

func (t *table) colIndex(name string) int {
	return slices.IndexFunc(t.cols, func(c column) bool { return c.name == name })
}

// state is what the lake holds: user schemas (public always exists) and tables by
// "schema.name".
type state struct {
	schemas map[string]bool
	tables  map[string]*table
}

func newState() *state {
	return &state{schemas: map[string]bool{"public": true}, tables: map[string]*table{}}
}

func (s *state) clone() *state {
	c := &state{schemas: maps.Clone(s.schemas), tables: make(map[string]*table, len(s.tables))}
	for k, t := range s.tables {
		c.tables[k] = t.clone()
	}
	return c
}

// settle forgets which rows are fresh: what a commit does to them.
func (s *state) settle() {
	for _, t := range s.tables {
		for i := range t.rows {
			t.rows[i].fresh = false
		}
	}
}

func (s *state) keys() []string {
	ks := slices.Collect(maps.Keys(s.tables))
	sort.Strings(ks)
	return ks
}

// byUID finds a table by identity.
func (s *state) byUID(uid int) (string, *table) {
	for k, t := range s.tables {
		if t.uid == uid {
			return k, t
		}
	}
	return "", nil
}

func (s *state) inSchema(schema string) []string {
	var out []string
	for _, k := range s.keys() {
		if strings.HasPrefix(k, schema+".") {
			out = append(out, k)
		}
	}
	return out
}

// touch is what an open block did to a table that existed when it began, for the
// conflict rules: a second writer dropping the table must make COMMIT fail when the block
// certainly changed it.
type touch struct {
	certain bool // renamed, dropped, or deleted/updated committed rows
	maybe   bool // inserted (its rows may all be gone again) or altered columns
}

// textRows renders rows for comparison: sorted, NULL as \N.
func textRows(rows [][]*string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(r))
		for k, v := range r {
			if v == nil {
				parts[k] = `\N`
			} else {
				parts[k] = *v
			}
		}
		out[i] = strings.Join(parts, "|")
	}
	sort.Strings(out)
	return out
}

func (t *table) textRows() []string {
	rs := make([][]*string, len(t.rows))
	for i, r := range t.rows {
		rs[i] = r.vals
	}
	return textRows(rs)
}

func (t *table) colNames() []string {
	out := make([]string, len(t.cols))
	for i, c := range t.cols {
		out[i] = c.name
	}
	return out
}

// diffRows describes how got differs from want, briefly.
func diffRows(want, got []string) string {
	if slices.Equal(want, got) {
		return ""
	}
	w, g := map[string]int{}, map[string]int{}
	for _, r := range want {
		w[r]++
	}
	for _, r := range got {
		g[r]++
	}
	var missing, extra []string
	for r, n := range w {
		for ; n > g[r]; n-- {
			missing = append(missing, r)
		}
	}
	for r, n := range g {
		for ; n > w[r]; n-- {
			extra = append(extra, r)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return fmt.Sprintf("want %d rows, got %d; missing %s; unexpected %s", len(want), len(got), head(missing), head(extra))
}

func head(rs []string) string {
	if len(rs) > 5 {
		return fmt.Sprintf("%q … (%d)", rs[:5], len(rs))
	}
	return fmt.Sprintf("%q", rs)
}

func str(s string) *string { return &s }
