package difftest

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
)

// value is one cell: its input text (what INSERT reads), or NULL.
type value struct {
	null bool
	s    string
}

var null = value{null: true}

// The value pools. Common values are small and shared between columns and tables, so that
// joins, IN lists and GROUP BY find matches and duplicates; edge values are the ends of each
// type's range, special floats and dates, empty and odd strings. Before a run every pool
// value is cast on both servers and those whose text differs are left out (and reported),
// so that a known difference in one literal does not make every query differ.
var pools = map[kind]struct{ common, edge []string }{
	kInt: {
		common: []string{"0", "1", "-1", "2", "3", "7", "10", "42"},
		edge:   []string{"2147483647", "-2147483648", "-100", "100000", "2147483646"},
	},
	kBig: {
		common: []string{"0", "1", "-1", "2", "3", "10", "42"},
		edge:   []string{"9223372036854775807", "-9223372036854775808", "4294967296", "-5000000000", "2147483648"},
	},
	kFloat: {
		common: []string{"0", "1", "-1", "2", "0.5", "1.5", "0.1", "3.25", "-2.5", "10"},
		edge: []string{"-0", "NaN", "Infinity", "-Infinity", "1.7976931348623157e+308", "-1.7976931348623157e+308",
			"5e-324", "2.2250738585072014e-308", "1e+15", "123456.789", "1e-05", "9007199254740993"},
	},
	kText: {
		common: []string{"a", "b", "ab", "abc", "A", "B", "", "0", "10"},
		edge:   []string{" ", "a ", " a", "a b", "z", "9", "é", "ß", "x'y", "%", "_", "NULL", `a\b`, "Ab", "aB", "ä€𝄞"},
	},
	kBool: {common: []string{"true", "false"}},
	kDate: {
		common: []string{"2000-01-01", "2000-01-02", "1999-12-31", "2024-02-29", "2000-03-01"},
		edge:   []string{"1970-01-01", "0001-01-01", "4713-01-01 BC", "5874897-12-31", "infinity", "-infinity", "0001-12-31 BC"},
	},
	kTS: {
		common: []string{"2000-01-01 00:00:00", "2000-01-01 12:34:56.789", "2000-01-02 00:00:00", "1999-12-31 23:59:59.999999", "2024-02-29 00:00:01"},
		edge: []string{"1970-01-01 00:00:00", "0001-01-01 00:00:00", "4713-01-01 00:00:00 BC", "294276-12-31 23:59:59.999999",
			"infinity", "-infinity", "2000-01-01 00:00:00.000001", "1969-12-31 23:59:59.999999"},
	},
}

// numPool is the pool of a numeric(p,s) column: the same small values (rounded to its
// scale) and its own ends of range.
func numPool(p, s int) (common, edge []string) {
	for _, v := range []string{"0", "1", "-1", "2", "0.5", "3.14", "-2.25", "10"} {
		if x := fitNumeric(v, p, s); x != "" {
			common = append(common, x)
		}
	}
	max := strings.Repeat("9", p-s)
	if s > 0 {
		if max == "" {
			max = "0"
		}
		max += "." + strings.Repeat("9", s)
	}
	edge = append(edge, max, "-"+max)
	if s > 0 {
		edge = append(edge, "0."+strings.Repeat("0", s-1)+"1", "-0."+strings.Repeat("0", s-1)+"1")
	}
	if p-s > 2 {
		edge = append(edge, fitNumeric("123.456789123", p, s))
	}
	return common, edge
}

// fitNumeric writes v with exactly s decimals (truncated), or "" when it has more than p-s
// integer digits.
func fitNumeric(v string, p, s int) string {
	r, ok := new(big.Rat).SetString(v)
	if !ok {
		return ""
	}
	scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s)), nil)))
	q := new(big.Int).Quo(scaled.Num(), scaled.Denom())
	digits := new(big.Int).Abs(q).String()
	for len(digits) <= s {
		digits = "0" + digits
	}
	if len(digits)-s > p-s && !(len(digits)-s == 1 && digits[0] == '0') {
		return ""
	}
	out := digits[:len(digits)-s]
	if s > 0 {
		out += "." + digits[len(digits)-s:]
	}
	if q.Sign() < 0 {
		out = "-" + out
	}
	return out
}

// colDef is a column of a generated table.
type colDef struct {
	name   string
	t      sqlType
	common []string
	edge   []string
}

// table is a generated table and the way lakepg is to store it: rows of part 0 arrive
// by CREATE TABLE AS (a Parquet file), rows of part 1 by a later INSERT (inlined or a
// second file), rows of part 2 by CREATE TABLE AS with other values (pre) and then an
// UPDATE, and junk rows are inserted and deleted again (a delete file, or inlined deletes).
// PostgreSQL gets the final rows by one INSERT.
type table struct {
	name string
	cols []colDef // cols[0] is id, unique and never NULL
	rows [][]value
	part []int
	pre  [][]value // part 2: the values before the UPDATE
	junk [][]value
	// junkPart is where junk rows arrive (0 or 1); inlineInsert, inlineDelete and
	// inlineUpdate set data_inlining_row_limit for those statements (10 keeps small
	// changes in the catalog, 0 writes files).
	junkPart                                 int
	inlineInsert, inlineDelete, inlineUpdate bool
}

func (t *table) clone() *table {
	c := *t
	c.cols = slices.Clone(t.cols)
	c.rows = cloneRows(t.rows)
	c.part = slices.Clone(t.part)
	c.pre = cloneRows(t.pre)
	c.junk = cloneRows(t.junk)
	return &c
}

func cloneRows(rows [][]value) [][]value {
	if rows == nil {
		return nil
	}
	out := make([][]value, len(rows))
	for i, r := range rows {
		out[i] = slices.Clone(r)
	}
	return out
}

type dataset struct {
	tables []*table
}

func (d *dataset) clone() *dataset {
	c := &dataset{}
	for _, t := range d.tables {
		c.tables = append(c.tables, t.clone())
	}
	return c
}

func (d *dataset) table(name string) *table {
	for _, t := range d.tables {
		if t.name == name {
			return t
		}
	}
	return nil
}

// kindLetters name columns by type: t0.a_i1 is an integer, t1.b_s2 a text.
var kindLetters = [nKinds]string{"i", "g", "n", "f", "s", "l", "d", "t"}

var numericShapes = [][2]int{{5, 2}, {10, 0}, {12, 4}, {18, 6}, {38, 10}, {3, 3}, {20, 2}}

// genDataset draws the tables of one round from the pools that both servers agree on.
func genDataset(r *rand.Rand, pl map[kind]struct{ common, edge []string }) *dataset {
	d := &dataset{}
	ntab := 3
	if r.IntN(3) == 0 {
		ntab = 2 + r.IntN(3)
	}
	for ti := 0; ti < ntab; ti++ {
		letter := string(rune('a' + ti))
		t := &table{name: fmt.Sprintf("t%d", ti)}
		t.cols = append(t.cols, colDef{name: "id", t: typ(kInt)})
		ncols := 3 + r.IntN(4)
		for ci := 1; ci <= ncols; ci++ {
			var k kind
			switch {
			case ci == 1:
				k = []kind{kInt, kBig, kNum}[r.IntN(3)]
			case ci == 2:
				k = []kind{kText, kText, kDate, kTS, kFloat}[r.IntN(5)]
			default:
				k = kind(r.IntN(int(nKinds)))
			}
			c := colDef{name: fmt.Sprintf("%s_%s%d", letter, kindLetters[k], ci), t: typ(k)}
			if k == kNum {
				sh := numericShapes[r.IntN(len(numericShapes))]
				c.t.prec, c.t.scale = sh[0], sh[1]
				c.common, c.edge = numPool(sh[0], sh[1])
			} else {
				c.common, c.edge = pl[k].common, pl[k].edge
			}
			t.cols = append(t.cols, c)
		}
		nulls := []int{0, 10, 30, 60}
		nullPct := make([]int, len(t.cols))
		for ci := 1; ci < len(t.cols); ci++ {
			nullPct[ci] = nulls[r.IntN(len(nulls))]
		}
		edgePct := []int{0, 15, 40}[r.IntN(3)]
		draw := func(c colDef, ci int) value {
			if r.IntN(100) < nullPct[ci] {
				return null
			}
			if len(c.edge) > 0 && r.IntN(100) < edgePct {
				return value{s: c.edge[r.IntN(len(c.edge))]}
			}
			if len(c.common) == 0 {
				return null
			}
			return value{s: c.common[r.IntN(len(c.common))]}
		}
		nrows := []int{0, 2, 5, 12, 20, 30, 30}[r.IntN(7)]
		for i := 0; i < nrows; i++ {
			row := make([]value, len(t.cols))
			row[0] = value{s: fmt.Sprint(i + 1)}
			if i > 0 && r.IntN(5) == 0 {
				// a duplicate of an earlier row but for its id
				copy(row[1:], t.rows[r.IntN(i)][1:])
			} else {
				for ci := 1; ci < len(t.cols); ci++ {
					row[ci] = draw(t.cols[ci], ci)
				}
			}
			t.rows = append(t.rows, row)
			p := []int{0, 0, 0, 1, 1, 2}[r.IntN(6)]
			t.part = append(t.part, p)
			var pre []value
			if p == 2 {
				pre = make([]value, len(t.cols))
				pre[0] = row[0]
				for ci := 1; ci < len(t.cols); ci++ {
					pre[ci] = draw(t.cols[ci], ci)
				}
			}
			t.pre = append(t.pre, pre)
		}
		// rows in random order, so that ids do not follow the files' order
		r.Shuffle(len(t.rows), func(i, j int) {
			t.rows[i], t.rows[j] = t.rows[j], t.rows[i]
			t.part[i], t.part[j] = t.part[j], t.part[i]
			t.pre[i], t.pre[j] = t.pre[j], t.pre[i]
		})
		for i, nj := 0, r.IntN(14); i < nj; i++ {
			row := make([]value, len(t.cols))
			row[0] = value{s: fmt.Sprint(nrows + i + 1)}
			for ci := 1; ci < len(t.cols); ci++ {
				row[ci] = draw(t.cols[ci], ci)
			}
			t.junk = append(t.junk, row)
		}
		t.junkPart = r.IntN(2)
		t.inlineInsert, t.inlineDelete, t.inlineUpdate = r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(2) == 0
		d.tables = append(d.tables, t)
	}
	return d
}

// insertLit writes v as a VALUES item for a column of type t.
func insertLit(t sqlType, v value) string {
	switch {
	case v.null:
		return "NULL"
	case t.k == kBool:
		return v.s
	case (t.k == kInt || t.k == kNum) && !strings.HasPrefix(v.s, "-"):
		return v.s
	}
	return quote(v.s)
}

// exprLit writes v as a typed constant of an expression.
func exprLit(t sqlType, v value) *lit {
	t.approx = false
	if v.null {
		return nullOf(t)
	}
	var s string
	switch t.k {
	case kInt:
		s = v.s
		if strings.HasPrefix(s, "-") {
			s = "(" + s + ")"
		}
	case kNum:
		if strings.Contains(v.s, ".") {
			s = v.s
			if strings.HasPrefix(s, "-") {
				s = "(" + s + ")"
			}
			t = sqlType{k: kNum, scale: len(v.s) - strings.Index(v.s, ".") - 1}
		} else {
			s = "CAST(" + quote(v.s) + " AS numeric)"
			t = sqlType{k: kNum, scale: 0}
		}
	case kBig:
		s = quote(v.s) + "::bigint"
	case kFloat:
		s = quote(v.s) + "::float8"
	case kText:
		s = quote(v.s) + "::text"
	case kBool:
		s = v.s
	case kDate:
		s = "DATE " + quote(v.s)
	case kTS:
		s = "TIMESTAMP " + quote(v.s)
	}
	t.prec = 0
	return &lit{text: s, t: t}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func (t *table) createSQL(name string) string {
	var defs []string
	for _, c := range t.cols {
		defs = append(defs, c.name+" "+c.t.name())
	}
	return fmt.Sprintf("CREATE TABLE %s (%s)", name, strings.Join(defs, ", "))
}

func (t *table) insertSQL(name string, rows [][]value) string {
	var sb strings.Builder
	sb.WriteString("INSERT INTO " + name + " VALUES ")
	for i, row := range rows {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("(")
		for ci, v := range row {
			if ci > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(insertLit(t.cols[ci].t, v))
		}
		sb.WriteString(")")
	}
	return sb.String()
}

func inlineLimit(on bool) string {
	if on {
		return "SET lakepg.data_inlining_row_limit = 10"
	}
	return "SET lakepg.data_inlining_row_limit = 0"
}

// lakepgScript is how lakepg gets the table: CREATE TABLE AS into a Parquet file, more
// rows inserted, junk deleted, some rows updated. PostgreSQL runs it the same (it takes
// lakepg.* as a placeholder setting), so it is also the reproduction.
func (t *table) lakepgScript() []string {
	var first, later [][]value
	var upd [][]value
	for i, row := range t.rows {
		switch t.part[i] {
		case 0:
			first = append(first, row)
		case 1:
			later = append(later, row)
		case 2:
			first = append(first, t.pre[i])
			upd = append(upd, row)
		}
	}
	if t.junkPart == 0 {
		first = append(first, t.junk...)
	} else {
		later = append(later, t.junk...)
	}
	if len(first) == 0 {
		// the plain way: CREATE TABLE and INSERT
		out := []string{t.createSQL(t.name)}
		if len(later) > 0 {
			out = append(out, inlineLimit(t.inlineInsert), t.insertSQL(t.name, later), "RESET lakepg.data_inlining_row_limit")
		}
		return append(out, t.deleteAndUpdate(upd)...)
	}
	load := t.name + "_load"
	out := []string{
		"SET lakepg.data_inlining_row_limit = 0",
		t.createSQL(load),
		t.insertSQL(load, first),
		"CREATE TABLE " + t.name + " AS SELECT * FROM " + load,
		"DROP TABLE " + load,
	}
	if len(later) > 0 {
		out = append(out, inlineLimit(t.inlineInsert), t.insertSQL(t.name, later))
	}
	out = append(out, "RESET lakepg.data_inlining_row_limit")
	return append(out, t.deleteAndUpdate(upd)...)
}

func (t *table) deleteAndUpdate(upd [][]value) []string {
	var out []string
	if len(t.junk) > 0 {
		var ids []string
		for _, j := range t.junk {
			ids = append(ids, j[0].s)
		}
		out = append(out, inlineLimit(t.inlineDelete),
			fmt.Sprintf("DELETE FROM %s WHERE id IN (%s)", t.name, strings.Join(ids, ", ")),
			"RESET lakepg.data_inlining_row_limit")
	}
	if len(upd) > 0 {
		var ids, sets []string
		for _, row := range upd {
			ids = append(ids, row[0].s)
		}
		for ci := 1; ci < len(t.cols); ci++ {
			var sb strings.Builder
			fmt.Fprintf(&sb, "%s = CASE id", t.cols[ci].name)
			for _, row := range upd {
				v := "NULL"
				if !row[ci].null {
					v = quote(row[ci].s)
				}
				fmt.Fprintf(&sb, " WHEN %s THEN CAST(%s AS %s)", row[0].s, v, t.cols[ci].t.name())
			}
			sb.WriteString(" END")
			sets = append(sets, sb.String())
		}
		out = append(out, inlineLimit(t.inlineUpdate),
			fmt.Sprintf("UPDATE %s SET %s WHERE id IN (%s)", t.name, strings.Join(sets, ", "), strings.Join(ids, ", ")),
			"RESET lakepg.data_inlining_row_limit")
	}
	return out
}

// postgresScript gives PostgreSQL the final rows directly.
func (t *table) postgresScript() []string {
	out := []string{t.createSQL(t.name)}
	if len(t.rows) > 0 {
		out = append(out, t.insertSQL(t.name, t.rows))
	}
	return out
}

// plain makes lakepg store the table as PostgreSQL does, by one INSERT: the shrinker tries
// it to tell whether the way the rows are stored matters.
func (t *table) plain() {
	for i := range t.part {
		t.part[i] = 1
	}
	t.junk = nil
}
