package sql

import (
	"context"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/types"
)

// likeOption is the bit of TableLikeClause.Options for option o, as
// PostgreSQL numbers them (CREATE_TABLE_LIKE_COMMENTS is bit 0).
func likeOption(o pg.TableLikeOption) uint32 { return 1 << (uint32(o) - 1) }

// likeColumns are the columns CREATE TABLE … (LIKE src [INCLUDING …]) copies
// from a table or view: names, declared types and NOT NULL always, the
// DEFAULTs with INCLUDING DEFAULTS (or ALL). Nothing else a lake table has
// to copy (constraints, indexes, storage) is kept by lakepg.
func (s *Session) likeColumns(meta *catalog.Metadata, lc *pg.TableLikeClause) ([]snapshot.ColumnDef, error) {
	rv := lc.Relation
	r, err := s.ResolveRelation(meta, rv.Schemaname, rv.Relname, rv.Location)
	if err != nil {
		return nil, err
	}
	defaults := lc.Options&likeOption(pg.TableLikeOption_CREATE_TABLE_LIKE_DEFAULTS) != 0
	var defs []snapshot.ColumnDef
	if r.View != nil {
		sel, err := planner.ViewQuery(meta, r.Schema, r.View)
		if err != nil {
			return nil, err
		}
		cols, err := s.viewColumns(context.Background(), sel, r.View.ColumnAliases)
		if err != nil {
			return nil, err
		}
		for _, c := range cols {
			def, err := tableColumnDef(c.Name, c.Type) // nested_write.go
			if err != nil {
				return nil, planner.ErrAt(err.(*pgerr.Error), rv.Location)
			}
			def.PGType = types.PGTypeTag(c.Type)
			defs = append(defs, def)
		}
		return defs, nil
	}
	for i := range r.Table.Columns {
		c := &r.Table.Columns[i]
		t, err := planner.DeclaredType(c) // planner/laketypes/charn.go
		if err != nil {
			return nil, err
		}
		def, err := tableColumnDef(c.Name, t)
		if err != nil {
			return nil, planner.ErrAt(err.(*pgerr.Error), rv.Location)
		}
		def.PGType = types.PGTypeTag(t)
		def.NullsAllowed = c.NullsAllowed
		if defaults && c.DefaultValue != nil {
			v := *c.DefaultValue
			def.DefaultValue = &v
			def.DefaultIsExpression = c.DefaultValueType == "expression"
		}
		defs = append(defs, def)
	}
	return defs, nil
}
