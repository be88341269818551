package txnmodel

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// stmt is one generated statement with what the model says it does.
type stmt struct {
	sql     string
	copy    string // data for COPY … FROM STDIN
	wantErr string // the SQLSTATE it must fail with; "" when it must succeed
	next    *state // the state after it succeeds
	touched map[int]touch
}

// gen generates statements against a model state. Row ids come from one counter, so every
// row of every table is distinct and predicates on id pick reproducible subsets.
type gen struct {
	rng    *rand.Rand
	lastID int64
	uids   int
	cols   int
}

var (
	schemaPool = []string{"public", "s1", "s2"}
	// tablePool has dbt's names (a model is built as <name>__dbt_tmp and renamed into
	// place, the old one kept as <name>__dbt_backup) and a name DuckLake cannot use as a
	// directory ("T x": its files go under the table's uuid).
	tablePool = []string{"t0", "t1", "t2", "stg", "stg__dbt_tmp", "stg__dbt_backup", "T x"}
)

func q(ident string) string { return `"` + strings.ReplaceAll(ident, `"`, `""`) + `"` }

func qname(key string) string {
	s, n, _ := strings.Cut(key, ".")
	return q(s) + "." + q(n)
}

func split(key string) (schema, name string) {
	s, n, _ := strings.Cut(key, ".")
	return s, n
}

func (g *gen) pick(n int) int { return g.rng.IntN(n) }

func (g *gen) chance(pct int) bool { return g.rng.IntN(100) < pct }

// anyTable picks a table of v, or "" when there is none.
func (g *gen) anyTable(v *state) (string, *table) {
	ks := v.keys()
	if len(ks) == 0 {
		return "", nil
	}
	k := ks[g.pick(len(ks))]
	return k, v.tables[k]
}

// freeName picks a table name not used in schema, or "".
func (g *gen) freeName(v *state, schema string) string {
	var free []string
	for _, n := range tablePool {
		if v.tables[schema+"."+n] == nil {
			free = append(free, n)
		}
	}
	if len(free) == 0 {
		return ""
	}
	return free[g.pick(len(free))]
}

func (g *gen) schema(v *state) string {
	var have []string
	for _, s := range schemaPool {
		if v.schemas[s] {
			have = append(have, s)
		}
	}
	return have[g.pick(len(have))]
}

// value is what column c holds in the row with id: derived from the id so that INSERT …
// SELECT over generate_series computes the same (valueExpr).
func value(c column, id int64) *string {
	switch {
	case c.name == "id":
		return str(strconv.FormatInt(id, 10))
	case c.typ == "text":
		return str("v" + strconv.FormatInt(id, 10))
	case c.typ == "bigint":
		return str(strconv.FormatInt(id*3, 10))
	default:
		return str(strconv.FormatInt(id%7, 10))
	}
}

func valueExpr(c column, g string) string {
	switch {
	case c.name == "id":
		return g
	case c.typ == "text":
		return "'v' || " + g
	case c.typ == "bigint":
		return g + "::bigint * 3"
	default:
		return g + " % 7"
	}
}

func literal(v *string, typ string) string {
	if v == nil {
		return "NULL"
	}
	if typ == "text" {
		return "'" + *v + "'"
	}
	return *v
}

// step returns a statement for v: mostly valid ones, some that must fail.
func (g *gen) step(v *state) stmt {
	if g.chance(7) {
		if s, ok := g.failing(v); ok {
			return s
		}
	}
	for {
		var s stmt
		var ok bool
		switch r := g.pick(100); {
		case r < 10:
			s, ok = g.createTable(v)
		case r < 18:
			s, ok = g.ctas(v)
		case r < 32:
			s, ok = g.insertValues(v)
		case r < 42:
			s, ok = g.insertSelect(v)
		case r < 48:
			s, ok = g.copyIn(v)
		case r < 57:
			s, ok = g.update(v)
		case r < 65:
			s, ok = g.delete(v)
		case r < 80:
			s, ok = g.alter(v)
		case r < 87:
			s, ok = g.renameTable(v)
		case r < 92:
			s, ok = g.dropTable(v)
		default:
			s, ok = g.schemaDDL(v)
		}
		if ok {
			return s
		}
	}
}

// change starts a statement that changes v: a copy to edit.
func change(v *state, sql string) stmt {
	return stmt{sql: sql, next: v.clone(), touched: map[int]touch{}}
}

func (g *gen) createTable(v *state) (stmt, bool) {
	sch := g.schema(v)
	name := g.freeName(v, sch)
	if name == "" {
		return stmt{}, false
	}
	key := sch + "." + name
	t := &table{cols: []column{{name: "id", typ: "bigint", notNull: g.chance(70)}, {name: "a", typ: "integer"}, {name: "b", typ: "text"}}}
	if g.chance(30) {
		t.cols[1].def = str("5")
	}
	var defs []string
	for _, c := range t.cols {
		d := q(c.name) + " " + c.typ
		if c.notNull {
			d += " NOT NULL"
		}
		if c.def != nil {
			d += " DEFAULT " + *c.def
		}
		defs = append(defs, d)
	}
	s := change(v, fmt.Sprintf("CREATE TABLE %s (%s)", qname(key), strings.Join(defs, ", ")))
	g.uids++
	t.uid = g.uids
	s.next.tables[key] = t
	return s, true
}

// ctas creates a table from another one or from generate_series.
func (g *gen) ctas(v *state) (stmt, bool) {
	sch := g.schema(v)
	name := g.freeName(v, sch)
	if name == "" {
		return stmt{}, false
	}
	return g.ctasAs(v, sch+"."+name), true
}

func (g *gen) ctasAs(v *state, key string) stmt {
	g.uids++
	nt := &table{uid: g.uids}
	srcKey, src := g.anyTable(v)
	var s stmt
	if src != nil && g.chance(60) {
		k, r := int64(2+g.pick(3)), int64(g.pick(2))
		s = change(v, fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM %s WHERE id %% %d <> %d", qname(key), qname(srcKey), k, r))
		for _, c := range src.cols {
			nt.cols = append(nt.cols, column{name: c.name, typ: c.typ})
		}
		for _, rw := range src.rows {
			if id, _ := strconv.ParseInt(*rw.vals[0], 10, 64); id%k != r {
				nt.rows = append(nt.rows, row{vals: slices.Clone(rw.vals), fresh: true})
			}
		}
	} else {
		n := []int64{1, 4, 30, 2500}[g.pick(4)]
		lo := g.lastID + 1
		g.lastID += n
		nt.cols = []column{{name: "id", typ: "bigint"}, {name: "a", typ: "integer"}, {name: "b", typ: "text"}}
		s = change(v, fmt.Sprintf("CREATE TABLE %s AS SELECT g::bigint AS id, g %% 7 AS a, 'v' || g AS b FROM generate_series(%d, %d) g", qname(key), lo, g.lastID))
		for id := lo; id <= g.lastID; id++ {
			nt.rows = append(nt.rows, g.newRow(nt, id, nil))
		}
	}
	s.next.tables[key] = nt
	return s
}

// newRow is the row with id, with only the columns in given set (nil: all); the others
// take their defaults.
func (g *gen) newRow(t *table, id int64, given []bool) row {
	vals := make([]*string, len(t.cols))
	for i, c := range t.cols {
		if given == nil || given[i] {
			vals[i] = value(c, id)
		} else {
			vals[i] = c.def
		}
	}
	return row{vals: vals, fresh: true}
}

// insertTarget picks a table and the columns an INSERT names: id always, the others
// each with even odds.
func (g *gen) insertTarget(v *state) (string, *table, []bool, bool) {
	key, t := g.anyTable(v)
	if t == nil {
		return "", nil, nil, false
	}
	given := make([]bool, len(t.cols))
	for i, c := range t.cols {
		given[i] = c.name == "id" || g.chance(60)
	}
	return key, t, given, true
}

func columnList(t *table, given []bool) string {
	var names []string
	for i, c := range t.cols {
		if given[i] {
			names = append(names, q(c.name))
		}
	}
	return strings.Join(names, ", ")
}

func (g *gen) insertValues(v *state) (stmt, bool) {
	key, t, given, ok := g.insertTarget(v)
	if !ok {
		return stmt{}, false
	}
	n := 1 + g.pick(5)
	var tuples []string
	s := change(v, "")
	nt := s.next.tables[key]
	for range n {
		g.lastID++
		r := g.newRow(t, g.lastID, given)
		var lits []string
		for i, c := range t.cols {
			if !given[i] {
				continue
			}
			if c.name != "id" && !c.notNull && g.chance(15) {
				r.vals[i] = nil
			}
			lits = append(lits, literal(r.vals[i], c.typ))
		}
		tuples = append(tuples, "("+strings.Join(lits, ", ")+")")
		nt.rows = append(nt.rows, r)
	}
	s.sql = fmt.Sprintf("INSERT INTO %s (%s) VALUES %s", qname(key), columnList(t, given), strings.Join(tuples, ", "))
	s.touched[t.uid] = touch{maybe: true}
	return s, true
}

func (g *gen) insertSelect(v *state) (stmt, bool) {
	key, t, given, ok := g.insertTarget(v)
	if !ok {
		return stmt{}, false
	}
	n := []int64{3, 40, 3000}[g.pick(3)]
	lo := g.lastID + 1
	g.lastID += n
	var exprs []string
	for i, c := range t.cols {
		if given[i] {
			exprs = append(exprs, valueExpr(c, "g"))
		}
	}
	s := change(v, fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM generate_series(%d, %d) g", qname(key), columnList(t, given), strings.Join(exprs, ", "), lo, g.lastID))
	nt := s.next.tables[key]
	for id := lo; id <= g.lastID; id++ {
		nt.rows = append(nt.rows, g.newRow(t, id, given))
	}
	s.touched[t.uid] = touch{maybe: true}
	return s, true
}

func (g *gen) copyIn(v *state) (stmt, bool) {
	key, t, given, ok := g.insertTarget(v)
	if !ok {
		return stmt{}, false
	}
	n := []int{2, 1500}[g.pick(2)]
	var data strings.Builder
	s := change(v, fmt.Sprintf("COPY %s (%s) FROM STDIN", qname(key), columnList(t, given)))
	nt := s.next.tables[key]
	for range n {
		g.lastID++
		r := g.newRow(t, g.lastID, given)
		var fields []string
		for i, c := range t.cols {
			if !given[i] {
				continue
			}
			if c.name != "id" && !c.notNull && g.chance(10) {
				r.vals[i] = nil
			}
			if r.vals[i] == nil {
				fields = append(fields, `\N`)
			} else {
				fields = append(fields, *r.vals[i])
			}
		}
		data.WriteString(strings.Join(fields, "\t") + "\n")
		nt.rows = append(nt.rows, r)
	}
	s.copy = data.String()
	s.touched[t.uid] = touch{maybe: true}
	return s, true
}

// modulus picks the k and r of a predicate id % k = r; k = 1 takes every row.
func (g *gen) modulus() (k, r int64) {
	if g.chance(10) {
		return 1, 0
	}
	return int64(2 + g.pick(4)), int64(g.pick(2))
}

// selector is the rows an UPDATE or DELETE changes: those with id % k = r, or those
// whose id is the id of such a row of a table (the same one or another), found through
// FROM or a correlated EXISTS, which lakepg plans as a join.
type selector struct {
	k, r int64
	via  string          // the other table's key; "" for the plain predicate
	ids  map[string]bool // its ids that satisfy the predicate
}

func (g *gen) selector(v *state) selector {
	k, r := g.modulus()
	sl := selector{k: k, r: r}
	if key, t := g.anyTable(v); t != nil && g.chance(30) {
		sl.via, sl.ids = key, map[string]bool{}
		for _, rw := range t.rows {
			if matches(rw, k, r) {
				sl.ids[*rw.vals[0]] = true
			}
		}
	}
	return sl
}

func (sl selector) hit(rw row) bool {
	if sl.via == "" {
		return matches(rw, sl.k, sl.r)
	}
	return sl.ids[*rw.vals[0]]
}

func (sl selector) update(key, set string) string {
	if sl.via == "" {
		return fmt.Sprintf("UPDATE %s SET %s WHERE id %% %d = %d", qname(key), set, sl.k, sl.r)
	}
	return fmt.Sprintf("UPDATE %s AS t SET %s FROM %s AS u WHERE u.id = t.id AND u.id %% %d = %d", qname(key), set, qname(sl.via), sl.k, sl.r)
}

func (sl selector) delete(key string) string {
	if sl.via == "" {
		return fmt.Sprintf("DELETE FROM %s WHERE id %% %d = %d", qname(key), sl.k, sl.r)
	}
	return fmt.Sprintf("DELETE FROM %s AS t WHERE EXISTS (SELECT 1 FROM %s AS u WHERE u.id = t.id AND u.id %% %d = %d)", qname(key), qname(sl.via), sl.k, sl.r)
}

// matches is the predicate id % k = r the UPDATE and DELETE statements use.
func matches(rw row, k, r int64) bool {
	id, _ := strconv.ParseInt(*rw.vals[0], 10, 64)
	return id%k == r
}

func (g *gen) update(v *state) (stmt, bool) {
	key, t := g.anyTable(v)
	if t == nil || len(t.cols) < 2 {
		return stmt{}, false
	}
	ci := 1 + g.pick(len(t.cols)-1)
	c := t.cols[ci]
	sl := g.selector(v)
	ref := q(c.name)
	if sl.via != "" {
		ref = "t." + ref // the other table may have a column of that name
	}
	set := ref + " + 1"
	if c.typ == "text" {
		set = ref + " || 'u'"
	}
	s := change(v, sl.update(key, q(c.name)+" = "+set))
	nt := s.next.tables[key]
	var tc touch
	for i, rw := range nt.rows {
		if !sl.hit(rw) {
			continue
		}
		if !rw.fresh {
			tc.certain = true
		}
		tc.maybe = true
		if old := rw.vals[ci]; old != nil {
			if c.typ == "text" {
				rw.vals[ci] = str(*old + "u")
			} else {
				n, _ := strconv.ParseInt(*old, 10, 64)
				rw.vals[ci] = str(strconv.FormatInt(n+1, 10))
			}
		}
		nt.rows[i].fresh = true
	}
	s.touched[t.uid] = tc
	return s, true
}

func (g *gen) delete(v *state) (stmt, bool) {
	key, t := g.anyTable(v)
	if t == nil {
		return stmt{}, false
	}
	sl := g.selector(v)
	s := change(v, sl.delete(key))
	nt := s.next.tables[key]
	var tc touch
	kept := nt.rows[:0]
	for _, rw := range nt.rows {
		if !sl.hit(rw) {
			kept = append(kept, rw)
			continue
		}
		tc.maybe = true
		if !rw.fresh {
			tc.certain = true
		}
	}
	nt.rows = kept
	s.touched[t.uid] = tc
	return s, true
}

// alter changes a column or the partitioning. The id column and the partition column are
// left alone: the statements find rows by id.
func (g *gen) alter(v *state) (stmt, bool) {
	key, t := g.anyTable(v)
	if t == nil {
		return stmt{}, false
	}
	var others []int
	for i, c := range t.cols {
		if c.name != "id" && c.name != t.part {
			others = append(others, i)
		}
	}
	s := change(v, "")
	nt := s.next.tables[key]
	s.touched[t.uid] = touch{maybe: true}
	switch r := g.pick(6); {
	case r == 0: // ADD COLUMN
		g.cols++
		c := column{name: fmt.Sprintf("c%d", g.cols), typ: []string{"integer", "text", "bigint"}[g.pick(3)]}
		sql := fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", qname(key), q(c.name), c.typ)
		if g.chance(50) {
			c.def = str("7")
			if c.typ == "text" {
				c.def = str("d")
			}
			sql += " DEFAULT " + literal(c.def, c.typ)
		}
		s.sql = sql
		nt.cols = append(nt.cols, c)
		for i := range nt.rows {
			nt.rows[i].vals = append(nt.rows[i].vals, c.def)
		}
	case r == 1: // DROP COLUMN
		if len(others) < 2 {
			return stmt{}, false
		}
		i := others[g.pick(len(others))]
		s.sql = fmt.Sprintf("ALTER TABLE %s DROP COLUMN %s", qname(key), q(t.cols[i].name))
		nt.cols = slices.Delete(nt.cols, i, i+1)
		for k := range nt.rows {
			nt.rows[k].vals = slices.Delete(nt.rows[k].vals, i, i+1)
		}
	case r == 2: // RENAME COLUMN
		if len(others) == 0 {
			return stmt{}, false
		}
		i := others[g.pick(len(others))]
		g.cols++
		nn := fmt.Sprintf("c%d", g.cols)
		s.sql = fmt.Sprintf("ALTER TABLE %s RENAME COLUMN %s TO %s", qname(key), q(t.cols[i].name), q(nn))
		nt.cols[i].name = nn
	case r == 3: // SET DATA TYPE: integer widens to bigint
		var ints []int
		for _, i := range others {
			if t.cols[i].typ == "integer" {
				ints = append(ints, i)
			}
		}
		if len(ints) == 0 {
			return stmt{}, false
		}
		i := ints[g.pick(len(ints))]
		s.sql = fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s SET DATA TYPE bigint", qname(key), q(t.cols[i].name))
		nt.cols[i].typ = "bigint"
	case r == 4 && t.part == "": // SET PARTITIONED BY an integer column
		var ints []int
		for _, i := range others {
			if t.cols[i].typ != "text" {
				ints = append(ints, i)
			}
		}
		if len(ints) == 0 {
			return stmt{}, false
		}
		i := ints[g.pick(len(ints))]
		s.sql = fmt.Sprintf("ALTER TABLE %s SET PARTITIONED BY (%s)", qname(key), q(t.cols[i].name))
		nt.part = t.cols[i].name
	case r == 4 || r == 5:
		if t.part == "" {
			return stmt{}, false
		}
		s.sql = fmt.Sprintf("ALTER TABLE %s RESET PARTITIONED BY", qname(key))
		nt.part = ""
	default:
		return stmt{}, false
	}
	return s, true
}

func (g *gen) renameTable(v *state) (stmt, bool) {
	key, t := g.anyTable(v)
	if t == nil {
		return stmt{}, false
	}
	sch, _ := split(key)
	name := g.freeName(v, sch)
	if name == "" {
		return stmt{}, false
	}
	return renameTo(v, key, name), true
}

// renameTo renames table key (which exists) to name (which is free in its schema).
func renameTo(v *state, key, name string) stmt {
	sch, _ := split(key)
	s := change(v, fmt.Sprintf("ALTER TABLE %s RENAME TO %s", qname(key), q(name)))
	t := s.next.tables[key]
	s.next.tables[sch+"."+name] = t
	delete(s.next.tables, key)
	s.touched[t.uid] = touch{certain: true}
	return s
}

func (g *gen) dropTable(v *state) (stmt, bool) {
	key, t := g.anyTable(v)
	if t == nil {
		return stmt{}, false
	}
	return dropIfExists(v, key, "DROP TABLE "+qname(key)), true
}

// dropIfExists drops table key if there is one, with sql.
func dropIfExists(v *state, key, sql string) stmt {
	s := change(v, sql)
	if t := v.tables[key]; t != nil {
		delete(s.next.tables, key)
		s.touched[t.uid] = touch{certain: true}
	}
	return s
}

// schemaDDL creates a missing schema or drops one with CASCADE.
func (g *gen) schemaDDL(v *state) (stmt, bool) {
	sch := schemaPool[1+g.pick(len(schemaPool)-1)]
	if !v.schemas[sch] {
		s := change(v, "CREATE SCHEMA "+q(sch))
		s.next.schemas[sch] = true
		return s, true
	}
	s := change(v, "DROP SCHEMA "+q(sch)+" CASCADE")
	delete(s.next.schemas, sch)
	for _, k := range v.inSchema(sch) {
		s.touched[v.tables[k].uid] = touch{certain: true}
		delete(s.next.tables, k)
	}
	return s, true
}

// failing returns a statement that must fail, with its SQLSTATE.
func (g *gen) failing(v *state) (stmt, bool) {
	key, t := g.anyTable(v)
	switch g.pick(6) {
	case 0:
		if t == nil {
			return stmt{}, false
		}
		return stmt{sql: fmt.Sprintf("CREATE TABLE %s (id bigint)", qname(key)), wantErr: "42P07"}, true
	case 1:
		sch := g.schema(v)
		name := g.freeName(v, sch)
		if name == "" {
			return stmt{}, false
		}
		return stmt{sql: "DROP TABLE " + qname(sch+"."+name), wantErr: "42P01"}, true
	case 2:
		if t == nil || !t.cols[0].notNull {
			return stmt{}, false
		}
		return stmt{sql: fmt.Sprintf("INSERT INTO %s (id) VALUES (NULL)", qname(key)), wantErr: "23502"}, true
	case 3:
		if t == nil {
			return stmt{}, false
		}
		return stmt{sql: fmt.Sprintf("INSERT INTO %s (id) SELECT 1 / (g - g) FROM generate_series(1, 3) g", qname(key)), wantErr: "22012"}, true
	case 4:
		if t == nil {
			return stmt{}, false
		}
		return stmt{sql: fmt.Sprintf("ALTER TABLE %s RENAME COLUMN no_such_column TO x", qname(key)), wantErr: "42703"}, true
	default:
		for _, sch := range schemaPool[1:] {
			if len(v.inSchema(sch)) > 0 {
				return stmt{sql: "DROP SCHEMA " + q(sch), wantErr: "2BP01"}, true
			}
		}
		return stmt{}, false
	}
}
