package sql

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
)

// FOREIGN KEY constraints are accepted and not kept, as CREATE INDEX is: ORMs and migration tools
// (SQLAlchemy/Alembic, Django, dbt's contracts) declare them in every schema, DuckLake has no place
// for them and DuckDB does not enforce them on a lake either. The referenced table and columns
// must exist (42P01, 42703 as in PostgreSQL); nothing checks the rows, and pg_constraint does not
// list the constraint. Each one dropped raises a NOTICE saying so.

// dropForeignKeysCreate removes the FOREIGN KEY constraints of a CREATE TABLE, table and column
// ones, after checking what they reference.
func (s *Session) dropForeignKeysCreate(meta *catalog.Metadata, st *pg.CreateStmt) error {
	own := map[string]bool{} // the new table's columns, for a table that references itself
	for _, el := range st.TableElts {
		if cd := el.GetColumnDef(); cd != nil {
			own[cd.Colname] = true
		}
	}
	self := func(con *pg.Constraint) bool {
		pk := con.Pktable
		return pk != nil && pk.Relname == st.Relation.Relname && (pk.Schemaname == "" || pk.Schemaname == st.Relation.Schemaname)
	}
	elts := st.TableElts[:0]
	for _, el := range st.TableElts {
		if con := el.GetConstraint(); con != nil && con.Contype == pg.ConstrType_CONSTR_FOREIGN {
			if err := s.checkForeignKey(meta, con, self(con), own); err != nil {
				return err
			}
			continue
		}
		if cd := el.GetColumnDef(); cd != nil {
			cons := cd.Constraints[:0]
			for _, cn := range cd.Constraints {
				if con := cn.GetConstraint(); con != nil && con.Contype == pg.ConstrType_CONSTR_FOREIGN {
					if err := s.checkForeignKey(meta, con, self(con), own); err != nil {
						return err
					}
					continue
				}
				cons = append(cons, cn)
			}
			cd.Constraints = cons
		}
		elts = append(elts, el)
	}
	st.TableElts = elts
	return nil
}

// dropForeignKeysAlter removes ALTER TABLE … ADD [CONSTRAINT c] FOREIGN KEY commands (and
// REFERENCES on an added column) after checking what they reference; it reports whether any
// command is left to run.
func (s *Session) dropForeignKeysAlter(meta *catalog.Metadata, st *pg.AlterTableStmt) (bool, error) {
	cmds := st.Cmds[:0]
	for _, n := range st.Cmds {
		cmd := n.GetAlterTableCmd()
		if cmd != nil && cmd.Subtype == pg.AlterTableType_AT_AddConstraint {
			if con := cmd.Def.GetConstraint(); con != nil && con.Contype == pg.ConstrType_CONSTR_FOREIGN {
				if err := s.checkForeignKey(meta, con, false, nil); err != nil {
					return false, err
				}
				continue
			}
		}
		if cmd != nil && cmd.Subtype == pg.AlterTableType_AT_AddColumn {
			if cd := cmd.Def.GetColumnDef(); cd != nil {
				cons := cd.Constraints[:0]
				for _, cn := range cd.Constraints {
					if con := cn.GetConstraint(); con != nil && con.Contype == pg.ConstrType_CONSTR_FOREIGN {
						if err := s.checkForeignKey(meta, con, false, nil); err != nil {
							return false, err
						}
						continue
					}
					cons = append(cons, cn)
				}
				cd.Constraints = cons
			}
		}
		cmds = append(cmds, n)
	}
	st.Cmds = cmds
	return len(cmds) > 0, nil
}

// checkForeignKey checks that a FOREIGN KEY's table and columns exist (own holds the columns of
// a table referencing itself in its CREATE TABLE) and says that the constraint is not kept.
func (s *Session) checkForeignKey(meta *catalog.Metadata, con *pg.Constraint, self bool, own map[string]bool) error {
	pk := con.Pktable
	if pk == nil {
		return nil
	}
	var t *catalog.Table
	if !self {
		var err error
		if _, t, err = s.ResolveTable(meta, pk.Schemaname, pk.Relname, pk.Location); err != nil {
			return err
		}
		own = map[string]bool{}
		for _, c := range t.Columns {
			own[c.Name] = true
		}
	}
	for _, a := range con.PkAttrs {
		if name := a.GetString_().GetSval(); !own[name] {
			return pgerr.New(pgerr.UndefinedColumn, "column \"%s\" referenced in foreign key constraint does not exist", name)
		}
	}
	if t != nil {
		if err := referencedKey(meta, t, con); err != nil {
			return err
		}
	}
	s.notice("lakepg does not keep FOREIGN KEY constraints: the reference to \"%s\" is not enforced", pk.Relname)
	return nil
}

// dropIndexes accepts DROP INDEX [CONCURRENTLY] [IF EXISTS] name [, …] [CASCADE | RESTRICT] as
// createIndex (ddl.go) accepts CREATE INDEX: lake tables have no indexes, so there is nothing to
// drop. A name that is a table or view answers 42809, the index of a PRIMARY KEY or UNIQUE
// constraint 2BP01, as in PostgreSQL.
func (s *Session) dropIndexes(meta *catalog.Metadata, st *pg.DropStmt) (string, error) {
	for _, o := range st.Objects {
		var parts []string
		for _, n := range o.GetList().GetItems() {
			parts = append(parts, n.GetString_().GetSval())
		}
		if len(parts) == 0 {
			continue
		}
		schema, name := "", parts[len(parts)-1]
		if len(parts) > 1 {
			schema = parts[len(parts)-2]
		}
		if r, err := s.ResolveRelation(meta, schema, name, 0); err == nil && (r.Table != nil || r.View != nil) {
			return "", pgerr.New(pgerr.WrongObjectType, "\"%s\" is not an index", name)
		}
		for _, k := range meta.Constraints {
			if k.Name != name {
				continue
			}
			if t, ok := meta.TableByID(k.TableID); ok && (schema == "" || s.schemaNamed(meta, t.SchemaID, schema)) {
				e := pgerr.New(pgerr.DependentObjectsExist, "cannot drop index %s because constraint %s on table %s requires it", name, name, t.Name)
				e.Hint = fmt.Sprintf("You can drop constraint %s on table %s instead.", name, t.Name)
				return "", e
			}
		}
	}
	return "DROP INDEX", nil
}

// referencedKey checks, as PostgreSQL does, that a foreign key references its table's primary
// key (no column list: 42704 without one) or exactly the columns of a PRIMARY KEY or UNIQUE
// constraint (42830).
func referencedKey(meta *catalog.Metadata, t *catalog.Table, con *pg.Constraint) error {
	cons := meta.ConstraintsOf(t.ID)
	if len(con.PkAttrs) == 0 {
		if len(cons) == 0 || !cons[0].Primary() {
			return pgerr.New(pgerr.UndefinedObject, "there is no primary key for referenced table \"%s\"", t.Name)
		}
		return nil
	}
	want := map[int64]bool{}
	for _, a := range con.PkAttrs {
		if c, ok := t.ColumnByName(a.GetString_().GetSval()); ok {
			want[c.ID] = true
		}
	}
	for _, k := range cons {
		if len(k.Columns) != len(want) {
			continue
		}
		all := true
		for _, id := range k.Columns {
			all = all && want[id]
		}
		if all {
			return nil
		}
	}
	return pgerr.New(pgerr.InvalidForeignKey, "there is no unique constraint matching given keys for referenced table \"%s\"", t.Name)
}

// schemaNamed reports whether schema id is called name.
func (s *Session) schemaNamed(meta *catalog.Metadata, id int64, name string) bool {
	sch, ok := meta.SchemaByID(id)
	return ok && sch.Name == name
}
