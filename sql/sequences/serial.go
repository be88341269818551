package sequences

import (
	"context"
	"fmt"
	"strings"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
)

// serial, bigserial and smallserial columns and GENERATED … AS IDENTITY:
// an integer column, NOT NULL, whose DEFAULT is nextval of a sequence the
// column owns (<table>_<column>_seq). The default is kept in
// ducklake_column as the expression nextval('t_id_seq'::regclass) with
// default_value_type 'expression', as PostgreSQL prints it; an identity
// column keeps the same default and is told apart by its sequence's
// identity mark ('a' ALWAYS, 'd' BY DEFAULT) in lakepg_sequence.

// SerialSpec is a column that needs a sequence.
type SerialSpec struct {
	Col      string
	Index    int    // position among the table's columns
	Typ      string // smallint, integer, bigint
	identity string // "a", "d" or "" for serial
	options  []*pg.Node
}

var serialTypes = map[string]string{
	"serial": "int4", "serial4": "int4", "bigserial": "int8", "serial8": "int8",
	"smallserial": "int2", "serial2": "int2",
}

// SerialSpecOf recognises a serial type or an identity constraint in cd.
// It returns the column definition to use instead: the integer type and
// the constraints without the identity one.
func SerialSpecOf(cd *pg.ColumnDef) (*SerialSpec, *pg.ColumnDef, error) {
	var sp *SerialSpec
	out := cd
	if cd.TypeName != nil && len(cd.TypeName.ArrayBounds) == 0 {
		names := planner.StrNodes(cd.TypeName.Names)
		if len(names) == 1 || (len(names) == 2 && names[0] == "pg_catalog") {
			if it, ok := serialTypes[names[len(names)-1]]; ok {
				cp := proto.Clone(cd).(*pg.ColumnDef)
				cp.TypeName.Names = []*pg.Node{pg.MakeStrNode("pg_catalog"), pg.MakeStrNode(it)}
				out = cp
				sp = &SerialSpec{}
			}
		}
	}
	var kept []*pg.Node
	for _, cn := range out.Constraints {
		con := cn.GetConstraint()
		if con == nil || con.Contype != pg.ConstrType_CONSTR_IDENTITY {
			if sp != nil && con != nil && con.Contype == pg.ConstrType_CONSTR_DEFAULT {
				return nil, nil, planner.ErrAt(pgerr.New(pgerr.SyntaxError, "multiple default values specified for column \"%s\" of table", cd.Colname), con.Location)
			}
			kept = append(kept, cn)
			continue
		}
		if sp != nil {
			return nil, nil, planner.ErrAt(pgerr.New(pgerr.SyntaxError, "both default and identity specified for column \"%s\"", cd.Colname), con.Location)
		}
		sp = &SerialSpec{identity: con.GeneratedWhen, options: con.Options}
	}
	if sp != nil && sp.identity != "" {
		for _, cn := range kept {
			if con := cn.GetConstraint(); con != nil && con.Contype == pg.ConstrType_CONSTR_DEFAULT {
				return nil, nil, planner.ErrAt(pgerr.New(pgerr.SyntaxError, "both default and identity specified for column \"%s\"", cd.Colname), con.Location)
			}
		}
		cp := proto.Clone(out).(*pg.ColumnDef)
		cp.Constraints = kept
		out = cp
	}
	return sp, out, nil
}

// NextvalCall recognises DEFAULT nextval('name') (with or without a
// ::regclass cast) and returns the name as written.
func NextvalCall(n *pg.Node) (string, bool) {
	f := n.GetFuncCall()
	if f == nil || len(f.Args) != 1 {
		return "", false
	}
	names := planner.StrNodes(f.Funcname)
	if names[len(names)-1] != "nextval" {
		return "", false
	}
	arg := f.Args[0]
	if tc := arg.GetTypeCast(); tc != nil {
		if tn := planner.StrNodes(tc.TypeName.Names); tn[len(tn)-1] != "regclass" {
			return "", false
		}
		arg = tc.Arg
	}
	c := arg.GetAConst()
	if c == nil || c.GetSval() == nil {
		return "", false
	}
	return c.GetSval().Sval, true
}

func QuoteLiteralSQL(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// CreateTableWithSequences creates a table with serial or identity
// columns and their sequences in one commit.
func (s *State) CreateTableWithSequences(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata, sch *catalog.Schema, name string, cols []snapshot.ColumnDef, serials []*SerialSpec) (int64, error) {
	seqs, err := s.Sequences(ctx)
	if err != nil {
		return 0, err
	}
	taken := map[string]bool{}
	qualify := true
	for _, sp := range s.SearchPath() {
		if first, ok := meta.SchemaByName(sp); ok {
			qualify = first.ID != sch.ID
			break
		}
	}
	var items []*Item
	for _, sp := range serials {
		q := catalog.Sequence{ID: s.newSequenceID(), SchemaID: sch.ID, Identity: sp.identity}
		owned, hasOwned, _, err := seqOptions(&q, sp.options, true, sp.Typ)
		if err != nil {
			return 0, err
		}
		if hasOwned && len(owned) > 0 {
			return 0, pgerr.New(pgerr.SyntaxError, "invalid sequence option OWNED BY for an identity column")
		}
		for _, o := range sp.options {
			if d := o.GetDefElem(); d != nil && d.Defname == "sequence_name" {
				names := planner.StrNodes(d.Arg.GetList().Items)
				q.Name = names[len(names)-1]
			}
		}
		if q.Name == "" {
			base := name + "_" + sp.Col + "_seq"
			q.Name = base
			for k := 1; RelationExists(seqs, meta, sch.ID, q.Name) || taken[q.Name] || q.Name == name; k++ {
				q.Name = fmt.Sprintf("%s%d", base, k)
			}
		} else if RelationExists(seqs, meta, sch.ID, q.Name) || taken[q.Name] {
			return 0, pgerr.New(pgerr.DuplicateTable, "relation \"%s\" already exists", q.Name)
		}
		taken[q.Name] = true
		ref := PgIdent(q.Name)
		if qualify {
			ref = PgIdent(sch.Name) + "." + ref
		}
		def := "nextval(" + QuoteLiteralSQL(ref) + "::regclass)"
		cols[sp.Index].DefaultValue, cols[sp.Index].DefaultIsExpression = &def, true
		items = append(items, &Item{seq: q, isNew: true})
	}
	tableID := c.CreateTable(*sch, name, cols)
	colID := int64(1)
	for i, def := range cols {
		for k, sp := range serials {
			if sp.Index == i {
				items[k].seq.OwnerTable, items[k].seq.OwnerColumn = tableID, colID
			}
		}
		colID += columnWidth(def)
	}
	for _, it := range items {
		if err := s.stageSequence(ctx, c, it); err != nil {
			return 0, err
		}
	}
	return tableID, nil
}

// columnWidth is how many column ids a new column takes: its own and its
// children's (snapshot numbers them depth-first).
func columnWidth(def snapshot.ColumnDef) int64 {
	n := int64(1)
	for _, ch := range def.Children {
		n += columnWidth(ch)
	}
	return n
}

// PgIdent quotes an identifier as regclass output does: only when needed.
func PgIdent(s string) string {
	plain := s != ""
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			plain = false
		}
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// IdentityColumns maps the positions of t's identity columns to their
// kind ('a' or 'd').
func (s *State) IdentityColumns(ctx context.Context, t *catalog.Table) (map[int]string, error) {
	seqs, err := s.Sequences(ctx)
	if err != nil {
		return nil, err
	}
	var out map[int]string
	for _, q := range seqs {
		if q.Identity == "" || q.OwnerTable != t.ID {
			continue
		}
		for i, col := range t.Columns {
			if col.ID == q.OwnerColumn {
				if out == nil {
					out = map[int]string{}
				}
				out[i] = q.Identity
			}
		}
	}
	return out, nil
}

// IdentityInsertError is PostgreSQL's refusal of a value for a GENERATED
// ALWAYS column.
func IdentityInsertError(col string) error {
	e := pgerr.New(CodeGeneratedAlways, "cannot insert a non-DEFAULT value into column \"%s\"", col)
	e.Detail = fmt.Sprintf("Column \"%s\" is an identity column defined as GENERATED ALWAYS.", col)
	e.Hint = "Use OVERRIDING SYSTEM VALUE to override."
	return e
}
