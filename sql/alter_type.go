package sql

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lakepg/lakepg/sql/planner"
	"github.com/lakepg/lakepg/sql/sequences"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/types"
)

// ALTER COLUMN … TYPE that DuckLake cannot do in place (anything but a
// widening, a varchar limit or a list element's widening, or any USING)
// rewrites the table, as PostgreSQL does: in one snapshot, a column of the
// new type takes the old one's place (its column_order), every row is
// rewritten with the converted value (as an UPDATE writes rows: new data
// files, the old ones deleted), the old column is dropped and the new one
// takes its name. The column gets a new column id (Parquet field id), so
// DuckDB reads the new type from the new files; time travel to before the
// change reads the old column.

// retypePrefix names the column while the rewrite runs; no one sees it.
const retypePrefix = "__lakepg_retype_"

// alterTypeRewrite runs st when it is such a type change; ok is false for
// every other ALTER TABLE, planned as before.
func (s *Session) alterTypeRewrite(ctx context.Context, st *pg.AlterTableStmt) (*Result, bool, error) {
	var cmd *pg.AlterTableCmd
	for _, n := range st.Cmds {
		if c := n.GetAlterTableCmd(); c != nil && c.Subtype == pg.AlterTableType_AT_AlterColumnType {
			cmd = c
		}
	}
	if cmd == nil || st.Relation == nil {
		return nil, false, nil
	}
	meta, _, t, err := s.tableAtHead(ctx, st.Relation) // dml.go
	if err != nil {
		return nil, false, nil // ddl reports it as it always has
	}
	col, ok := t.ColumnByName(cmd.Name)
	if !ok {
		return nil, false, nil
	}
	cd := cmd.Def.GetColumnDef()
	nt, err := planner.ResolveTypeName(cd.TypeName)
	if err != nil {
		return nil, false, nil
	}
	nt = storedType(nt) // nested_write.go
	if cd.RawDefault == nil && !needsRewrite(col, nt) {
		return nil, false, nil
	}
	if len(st.Cmds) > 1 {
		return nil, true, pgerr.New(pgerr.FeatureNotSupported, "a column type change that rewrites the table must be the only command of its ALTER TABLE")
	}
	if err := s.checkRetypable(ctx, meta, t, col); err != nil {
		return nil, true, err
	}
	// PostgreSQL converts without USING only where an assignment cast
	// exists (integer to text, not text to integer)
	var expr *pg.Node
	colRef := &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: col.Name}}}}, Location: -1}}}
	if cd.RawDefault != nil {
		expr = cd.RawDefault
	} else {
		expr = colRef
	}
	def, err := s.retypedColumn(ctx, t, col, nt)
	if err != nil {
		return nil, true, err
	}
	tmp := retypePrefix + col.Name

	own := !s.inTx
	if own {
		s.inTx = true
	}
	err = s.runRetype(ctx, st.Relation, t, col, def, tmp, expr, cd.RawDefault == nil, nt)
	if own {
		s.inTx = false
		if cerr := s.endTxn(ctx, err == nil); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return nil, true, err
	}
	return tagResult("ALTER TABLE"), true, nil
}

// needsRewrite reports whether changing col to nt changes stored values.
func needsRewrite(col *catalog.Column, nt types.T) bool {
	if nt.ID == types.Array || strings.EqualFold(col.Type, "list") {
		return false // nested_alter.go decides
	}
	dl, err := nt.DuckLake()
	if err != nil {
		return false // ddl gives the error
	}
	if dl == col.Type {
		// text types are all DuckLake varchar: only lengthening a varchar
		// limit or lifting it changes no value (planner/laketypes/charn.go)
		from, err := planner.DeclaredType(col)
		return err == nil && from.ID == types.Text && !planner.TextModifierInPlace(from, nt)
	}
	return !widening(col.Type, dl)
}

// checkRetypable refuses a rewrite of a column that something refers to by
// its column id, which the rewrite changes.
func (s *Session) checkRetypable(ctx context.Context, meta *catalog.Metadata, t *catalog.Table, col *catalog.Column) error {
	refused := func(what string) error {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot change the type of column \"%s\": it is %s (drop that first, change the type, then add it again)", col.Name, what)
	}
	for _, k := range meta.Constraints {
		if k.TableID == t.ID && slices.Contains(k.Columns, col.ID) {
			return refused("part of key \"" + k.Name + "\"")
		}
	}
	if t.Partition.Partitioned() {
		for _, k := range t.Partition.Keys {
			if k.ColumnID == col.ID {
				return refused("a partition key")
			}
		}
	}
	seqs, err := s.seq.Sequences(ctx)
	if err != nil {
		return err
	}
	for _, q := range seqs {
		if q.OwnerTable == t.ID && q.OwnerColumn == col.ID {
			return refused("the owner of sequence \"" + q.Name + "\"")
		}
	}
	return nil
}

// retypedColumn is the definition of col's replacement of type nt, in
// col's place: NOT NULL kept, the default kept when its value converts.
func (s *Session) retypedColumn(ctx context.Context, t *catalog.Table, col *catalog.Column, nt types.T) (snapshot.ColumnDef, error) {
	def, err := tableColumnDef(col.Name, nt) // nested_write.go
	if err != nil {
		return def, err
	}
	def.PGType = types.PGTypeTag(nt)
	def.NullsAllowed = col.NullsAllowed
	def.Order = col.Order
	if col.DefaultValue != nil {
		if col.DefaultValueType == "expression" {
			v := *col.DefaultValue
			def.DefaultValue, def.DefaultIsExpression = &v, true
		} else {
			// the old default, a constant of the old type, must convert by
			// an assignment cast, as PostgreSQL requires
			old, err := planner.DeclaredType(col)
			if err != nil {
				return def, err
			}
			ov := vec.New(old, 1)
			if err := exec.ParseInto(ov, *col.DefaultValue, s.Loc, true); err != nil {
				return def, err
			}
			b := &planner.Binder{Sess: &s.Session, Env: s.NewEnv(), Qc: s.NewQueryCtx(ctx, &planner.Params{}, false)}
			e, err := b.CoerceAssign(exec.NewConst(ov), nt, col.Name, -1)
			if err != nil {
				return def, pgerr.New(pgerr.DatatypeMismatch, "default for column \"%s\" cannot be cast automatically to type %s", col.Name, nt)
			}
			nv, err := e.Eval(b.Env, &vec.Batch{N: 1})
			if err != nil {
				return def, err
			}
			text := literalText(nv)
			def.DefaultValue = &text
		}
	}
	return def, nil
}

// runRetype stages the four steps in the open block.
func (s *Session) runRetype(ctx context.Context, rv *pg.RangeVar, t *catalog.Table, col *catalog.Column, def snapshot.ColumnDef, tmp string, expr *pg.Node, implicit bool, nt types.T) error {
	def.Name = tmp
	var tmpID int64
	err := s.commit(ctx, func(c *snapshot.Commit, meta *catalog.Metadata) error {
		cur, ok := meta.TableByID(t.ID)
		if !ok {
			return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", t.Name)
		}
		tmpID = c.AddColumn(*cur, def)
		return nil
	}, nil)
	if err != nil {
		return err
	}
	set := []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Name: tmp, Val: expr, Location: -1}}}}
	target := &pg.RangeVar{Schemaname: rv.Schemaname, Relname: rv.Relname, Inh: true, Relpersistence: "p", Location: rv.Location}
	if _, err := s.modify(ctx, target, nil, nil, set, nil, &planner.Params{Values: [][]byte{}, Bound: true}, false); err != nil {
		if pe, ok := pgerr.As(err); ok && implicit && pe.Code == pgerr.DatatypeMismatch {
			e := pgerr.New(pgerr.DatatypeMismatch, "column \"%s\" cannot be cast automatically to type %s", col.Name, nt)
			e.Hint = fmt.Sprintf("You might need to specify \"USING %s::%s\".", sequences.PgIdent(col.Name), nt)
			return e
		}
		return err
	}
	return s.commit(ctx, func(c *snapshot.Commit, meta *catalog.Metadata) error {
		cur, ok := meta.TableByID(t.ID)
		if !ok {
			return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", t.Name)
		}
		c.DropColumn(*cur, col.ID)
		c.RenameColumn(*cur, tmpID, col.Name)
		return nil
	}, nil)
}
