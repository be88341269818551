package sql

import (
	"context"
	"strings"

	"github.com/lakepg/lakepg/sql/planner"
	"github.com/lakepg/lakepg/sql/sequences"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
)

// PRIMARY KEY and UNIQUE constraints: declared in CREATE TABLE (column or
// table constraints) or by ALTER TABLE … ADD, dropped by ALTER TABLE … DROP
// CONSTRAINT, by dropping a key column or with the table. They are stored
// in lakepg_constraint (catalog/constraints.go, snapshot/constraints.go),
// shown in pg_constraint, pg_index, pg_class (as the index PostgreSQL would
// build) and information_schema, and enforced by every write (unique.go).
// Names follow PostgreSQL: <table>_pkey, <table>_<columns>_key, with a
// number appended when the name is taken by a relation of the schema
// (constraint indexes are relations in PostgreSQL).

// conSpec is a constraint being declared.
type conSpec struct {
	name    string // "" until chosen
	typ     string // "p" or "u"
	cols    []int  // positions in the table's column list
	loc     int32
	colName []string
}

// conSpecOf reads a PRIMARY KEY or UNIQUE constraint node; col is the
// column a column constraint belongs to (-1 for a table constraint), names
// the table's column names.
func conSpecOf(con *pg.Constraint, col int, names []string, table string) (conSpec, error) {
	sp := conSpec{name: con.Conname, typ: "u", loc: con.Location}
	if con.Contype == pg.ConstrType_CONSTR_PRIMARY {
		sp.typ = "p"
	}
	if con.Deferrable || con.Initdeferred {
		return sp, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "DEFERRABLE constraints are not supported"), con.Location)
	}
	if con.NullsNotDistinct {
		return sp, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "NULLS NOT DISTINCT is not supported"), con.Location)
	}
	if len(con.Including) > 0 || con.Indexname != "" || con.Indexspace != "" || len(con.Options) > 0 {
		return sp, planner.ErrAt(pgerr.New(pgerr.FeatureNotSupported, "index options of a constraint are not supported"), con.Location)
	}
	if col >= 0 {
		sp.cols = []int{col}
		sp.colName = []string{names[col]}
		return sp, nil
	}
	seen := map[int]bool{}
	for _, k := range con.Keys {
		name := k.GetString_().Sval
		found := -1
		for i, n := range names {
			if n == name {
				found = i
			}
		}
		if found < 0 {
			return sp, planner.ErrAt(pgerr.New(pgerr.UndefinedColumn, "column \"%s\" named in key does not exist", name), con.Location)
		}
		if seen[found] {
			return sp, planner.ErrAt(pgerr.New(pgerr.DuplicateColumn, "column \"%s\" appears twice in %s constraint", name, conWord(sp.typ)), con.Location)
		}
		seen[found] = true
		sp.cols = append(sp.cols, found)
		sp.colName = append(sp.colName, name)
	}
	return sp, nil
}

func conWord(typ string) string {
	if typ == "p" {
		return "primary key"
	}
	return "unique"
}

// sameCols reports two constraints over the same columns in the same order.
func sameCols(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// collectCreateConstraints gathers the keys of a CREATE TABLE, primary key
// first, dropping repeats as PostgreSQL does (a UNIQUE on the primary key's
// columns, or the same UNIQUE twice, builds one index).
func collectCreateConstraints(st *pg.CreateStmt, names []string, table string) ([]conSpec, error) {
	var specs []conSpec
	var pk *conSpec
	add := func(sp conSpec) error {
		if sp.typ == "p" {
			if pk != nil {
				return planner.ErrAt(pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", table), sp.loc)
			}
			pk = &sp
			return nil
		}
		specs = append(specs, sp)
		return nil
	}
	col := 0
	for _, el := range st.TableElts {
		if cd := el.GetColumnDef(); cd != nil {
			for _, cn := range cd.Constraints {
				con := cn.GetConstraint()
				if con.Contype == pg.ConstrType_CONSTR_PRIMARY || con.Contype == pg.ConstrType_CONSTR_UNIQUE {
					sp, err := conSpecOf(con, col, names, table)
					if err != nil {
						return nil, err
					}
					if err := add(sp); err != nil {
						return nil, err
					}
				}
			}
			col++
			continue
		}
		if con := el.GetConstraint(); con != nil {
			sp, err := conSpecOf(con, -1, names, table)
			if err != nil {
				return nil, err
			}
			if err := add(sp); err != nil {
				return nil, err
			}
		}
	}
	var out []conSpec
	if pk != nil {
		out = append(out, *pk)
	}
	for _, sp := range specs {
		dup := false
		for _, o := range out {
			if sameCols(o.cols, sp.cols) && sp.name == "" {
				dup = true
			}
		}
		if !dup {
			out = append(out, sp)
		}
	}
	return out, nil
}

// chooseConName gives sp a name: the one declared (42P07 when taken) or
// PostgreSQL's <table>_<cols>_key / <table>_pkey with a number appended
// until free. taken are names chosen earlier in the same statement.
func chooseConName(meta *catalog.Metadata, schemaID int64, table string, sp *conSpec, taken map[string]bool) error {
	free := func(n string) bool {
		return !taken[n] && !sequences.RelationExists(nil, meta, schemaID, n)
	}
	if sp.name != "" {
		if !free(sp.name) {
			return planner.ErrAt(pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", sp.name), sp.loc)
		}
		taken[sp.name] = true
		return nil
	}
	label := "key"
	name2 := strings.Join(sp.colName, "_")
	if sp.typ == "p" {
		label, name2 = "pkey", ""
	}
	base := table
	if name2 != "" {
		base += "_" + name2
	}
	if len(base)+len(label)+1 > 63 {
		base = base[:63-len(label)-1]
	}
	n := base + "_" + label
	for i := 1; !free(n); i++ {
		n = base + "_" + label + planner.Itoa(i)
	}
	sp.name = n
	taken[n] = true
	return nil
}

// stageCreateConstraints adds the keys of a table created in c with
// provisional id tid.
func stageCreateConstraints(c *snapshot.Commit, meta *catalog.Metadata, schemaID, tid int64, table string, specs []conSpec, cols []snapshot.ColumnDef) error {
	ids := snapshot.ColumnIDs(cols)
	taken := map[string]bool{table: true}
	t := catalog.Table{ID: tid, SchemaID: schemaID, Name: table}
	for i := range specs {
		sp := &specs[i]
		if err := chooseConName(meta, schemaID, table, sp, taken); err != nil {
			return err
		}
		var colIDs []int64
		for _, ci := range sp.cols {
			colIDs = append(colIDs, ids[ci])
		}
		c.AddConstraint(t, sp.name, sp.typ, colIDs)
	}
	return nil
}

// addConstraint runs ALTER TABLE … ADD [CONSTRAINT n] PRIMARY KEY/UNIQUE:
// the table's rows (as the commit sees them) must already satisfy it.
func (s *Session) addConstraint(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, sch *catalog.Schema, t *catalog.Table, con *pg.Constraint) error {
	var names []string
	for _, col := range t.Columns {
		names = append(names, col.Name)
	}
	sp, err := conSpecOf(con, -1, names, t.Name)
	if err != nil {
		return err
	}
	existing := meta.ConstraintsOf(t.ID)
	if sp.typ == "p" {
		for _, e := range existing {
			if e.Primary() {
				return pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", t.Name)
			}
		}
	}
	if err := chooseConName(meta, sch.ID, t.Name, &sp, map[string]bool{}); err != nil {
		return err
	}
	var colIDs []int64
	for _, ci := range sp.cols {
		colIDs = append(colIDs, t.Columns[ci].ID)
	}
	// the rows now: no NULL in a primary key, no key twice
	if err := s.checkExistingUnique(ctx, meta.Snapshot, sch, t, sp); err != nil {
		return err
	}
	if sp.typ == "p" {
		for _, ci := range sp.cols {
			if t.Columns[ci].NullsAllowed {
				c.SetColumnNotNull(*t, t.Columns[ci].ID)
			}
		}
	}
	c.AddConstraint(*t, sp.name, sp.typ, colIDs)
	// rows another writer adds meanwhile were not checked (snapshot/constraints.go)
	c.CheckedKeys(t.ID, meta.Snapshot.ID)
	return nil
}

// dropConstraint runs ALTER TABLE … DROP CONSTRAINT.
func (s *Session) dropConstraint(c *snapshot.Commit, meta *catalog.Metadata, t *catalog.Table, cmd *pg.AlterTableCmd) error {
	for _, con := range meta.ConstraintsOf(t.ID) {
		if con.Name == cmd.Name {
			c.DropConstraint(*t, con)
			return nil
		}
	}
	if cmd.MissingOk {
		s.notice("constraint \"%s\" of relation \"%s\" does not exist, skipping", cmd.Name, t.Name)
		return nil
	}
	return pgerr.New(pgerr.UndefinedObject, "constraint \"%s\" of relation \"%s\" does not exist", cmd.Name, t.Name)
}

// dropColumnConstraints drops the keys that include a column being
// dropped, as PostgreSQL drops the indexes over it.
func dropColumnConstraints(c *snapshot.Commit, meta *catalog.Metadata, t *catalog.Table, colID int64) {
	for _, con := range meta.ConstraintsOf(t.ID) {
		if con.HasColumn(colID) {
			c.DropConstraint(*t, con)
		}
	}
}

// addColumnConstraints adds the PRIMARY KEY or UNIQUE of a column added by
// ALTER TABLE … ADD COLUMN. The table's rows read the column's default,
// which is NULL or a constant: more than one row then repeats it.
func (s *Session) addColumnConstraints(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, t *catalog.Table, cd *pg.ColumnDef, colID int64) error {
	for _, cn := range cd.Constraints {
		con := cn.GetConstraint()
		if con.Contype != pg.ConstrType_CONSTR_PRIMARY && con.Contype != pg.ConstrType_CONSTR_UNIQUE {
			continue
		}
		sp, err := conSpecOf(con, 0, []string{cd.Colname}, t.Name)
		if err != nil {
			return err
		}
		if sp.typ == "p" {
			for _, e := range meta.ConstraintsOf(t.ID) {
				if e.Primary() {
					return pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", t.Name)
				}
			}
		}
		if err := chooseConName(meta, t.SchemaID, t.Name, &sp, map[string]bool{}); err != nil {
			return err
		}
		sch, _ := meta.SchemaByID(t.SchemaID)
		n, err := s.countRows(ctx, meta.Snapshot, sch, t)
		if err != nil {
			return err
		}
		if n > 0 && sp.typ == "p" {
			return pgerr.New(pgerr.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", cd.Colname, t.Name)
		}
		c.AddConstraint(*t, sp.name, sp.typ, []int64{colID})
	}
	return nil
}
