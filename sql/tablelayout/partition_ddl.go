package tablelayout

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/partitioning"
)

// DuckDB's partitioning DDL is not PostgreSQL grammar:
//
//	ALTER TABLE t SET PARTITIONED BY (region, year(ts), bucket(8, id))
//	ALTER TABLE t RESET PARTITIONED BY
//
// When a query does not parse, RewritePartitionDDL turns these clauses
// into the PostgreSQL storage-parameter form the parser accepts,
//
//	ALTER TABLE t SET (lakepg.partitioned_by = 'region, year(ts), bucket(8, id)')
//	ALTER TABLE t RESET (lakepg.partitioned_by)
//
// which alterTable then handles (and which clients may also write).

const partitionOption = "partitioned_by" // in namespace lakepg

// RewritePartitionDDL rewrites every SET/RESET PARTITIONED BY clause of an
// ALTER TABLE in query; ok is false when there is none.
func RewritePartitionDDL(query string) (string, bool) {
	if lq := strings.ToLower(query); !strings.Contains(lq, "partitioned") && !strings.Contains(lq, "sorted") {
		return "", false
	}
	scan, err := pg.Scan(query)
	if err != nil {
		return "", false
	}
	var toks []*pg.ScanToken
	for _, t := range scan.Tokens {
		if t.Token != pg.Token_SQL_COMMENT && t.Token != pg.Token_C_COMMENT {
			toks = append(toks, t)
		}
	}
	var b strings.Builder
	last := 0 // bytes of query copied so far
	changed := false
	stmtStart := true
	alterTable := false
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.Token == pg.Token_ASCII_59: // ';'
			stmtStart, alterTable = true, false
			continue
		case stmtStart:
			stmtStart = false
			alterTable = t.Token == pg.Token_ALTER && i+1 < len(toks) && toks[i+1].Token == pg.Token_TABLE
			continue
		}
		if !alterTable || (t.Token != pg.Token_SET && t.Token != pg.Token_RESET) || i+2 >= len(toks) ||
			toks[i+1].Token != pg.Token_IDENT || toks[i+2].Token != pg.Token_BY {
			continue
		}
		// SET/RESET SORTED BY takes the same form (sorted.go)
		option := partitionOption
		switch word := query[toks[i+1].Start:toks[i+1].End]; {
		case strings.EqualFold(word, "partitioned"):
		case strings.EqualFold(word, "sorted"):
			option = sortOption
		default:
			continue
		}
		end := int(toks[i+2].End)
		var repl string
		if t.Token == pg.Token_RESET {
			repl = "RESET (lakepg." + option + ")"
			i += 2
		} else {
			// the parenthesised key list, up to its matching ')'
			if i+3 >= len(toks) || toks[i+3].Token != pg.Token_ASCII_40 {
				continue
			}
			depth, j := 0, i+3
			for ; j < len(toks); j++ {
				if toks[j].Token == pg.Token_ASCII_40 {
					depth++
				} else if toks[j].Token == pg.Token_ASCII_41 {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			if j == len(toks) {
				continue
			}
			keys := query[toks[i+3].End:toks[j].Start]
			end = int(toks[j].End)
			repl = "SET (lakepg." + option + " = '" + strings.ReplaceAll(keys, "'", "''") + "')"
			i = j
		}
		b.WriteString(query[last:t.Start])
		b.WriteString(repl)
		last = end
		changed = true
	}
	if !changed {
		return "", false
	}
	b.WriteString(query[last:])
	return b.String(), true
}

// partitionOptionCmd reports whether an ALTER TABLE SET/RESET (...) is
// lakepg's partitioning option; keys is the SET's key list text.
func partitionOptionCmd(cmd *pg.AlterTableCmd) (keys string, reset, ok bool, err error) {
	if cmd.Subtype != pg.AlterTableType_AT_SetRelOptions && cmd.Subtype != pg.AlterTableType_AT_ResetRelOptions {
		return "", false, false, nil
	}
	items := cmd.Def.GetList().GetItems()
	var found *pg.DefElem
	for _, it := range items {
		d := it.GetDefElem()
		if d != nil && d.Defnamespace == "lakepg" && d.Defname == partitionOption {
			found = d
		}
	}
	if found == nil {
		return "", false, false, nil
	}
	if len(items) > 1 {
		return "", false, true, pgerr.New(pgerr.FeatureNotSupported, "lakepg.%s cannot be combined with other storage parameters", partitionOption)
	}
	if cmd.Subtype == pg.AlterTableType_AT_ResetRelOptions {
		return "", true, true, nil
	}
	s := found.Arg.GetString_()
	if s == nil {
		return "", false, true, pgerr.New(pgerr.InvalidParameterValue, "lakepg.%s takes a list of partition keys as a string", partitionOption)
	}
	return s.Sval, false, true, nil
}

// partitionKeyDefs parses a partition key list (the text between the
// parentheses of SET PARTITIONED BY) against table t: column names,
// year(col), month(col), day(col), hour(col) and bucket(N, col), as DuckDB
// accepts them.
func partitionKeyDefs(t *catalog.Table, text string) ([]snapshot.PartitionKeyDef, error) {
	tree, err := pg.Parse("SELECT " + text)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return nil, pgerr.New(pgerr.SyntaxError, "invalid partition key list \"%s\"", text)
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if len(sel.FromClause) > 0 || sel.WhereClause != nil || len(sel.TargetList) == 0 {
		return nil, pgerr.New(pgerr.SyntaxError, "invalid partition key list \"%s\"", text)
	}
	var out []snapshot.PartitionKeyDef
	for _, tn := range sel.TargetList {
		rt := tn.GetResTarget()
		if rt.Name != "" {
			return nil, pgerr.New(pgerr.SyntaxError, "invalid partition key list \"%s\"", text)
		}
		def, err := partitionKeyDef(t, rt.Val)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, def) {
			return nil, pgerr.New(pgerr.DuplicateColumn, "partition key %s is given more than once", def.Transform)
		}
		out = append(out, def)
	}
	return out, nil
}

func partitionKeyDef(t *catalog.Table, n *pg.Node) (snapshot.PartitionKeyDef, error) {
	column := func(n *pg.Node) (*catalog.Column, error) {
		names := planner.StrNodes(n.GetColumnRef().GetFields())
		if len(names) != 1 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "a partition key must be a column of the table or year/month/day/hour(column), epoch_year/epoch_month/epoch_day/epoch_hour(column) or bucket(n, column)")
		}
		c, ok := t.ColumnByName(names[0])
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", names[0], t.Name)
		}
		return c, nil
	}
	if n.GetColumnRef() != nil {
		c, err := column(n)
		if err != nil {
			return snapshot.PartitionKeyDef{}, err
		}
		return checkedKey(c, "identity")
	}
	fc := n.GetFuncCall()
	if fc == nil {
		return snapshot.PartitionKeyDef{}, pgerr.New(pgerr.FeatureNotSupported, "a partition key must be a column of the table or year/month/day/hour(column), epoch_year/epoch_month/epoch_day/epoch_hour(column) or bucket(n, column)")
	}
	name := strings.ToLower(planner.StrNodes(fc.Funcname)[len(fc.Funcname)-1])
	switch name {
	case "year", "month", "day", "hour", "epoch_year", "epoch_month", "epoch_day", "epoch_hour":
		if len(fc.Args) != 1 || fc.Args[0].GetColumnRef() == nil {
			return snapshot.PartitionKeyDef{}, pgerr.New(pgerr.FeatureNotSupported, "partition transform %s takes one column", name)
		}
		c, err := column(fc.Args[0])
		if err != nil {
			return snapshot.PartitionKeyDef{}, err
		}
		return checkedKey(c, name)
	case "bucket":
		if len(fc.Args) != 2 || fc.Args[0].GetAConst() == nil || fc.Args[1].GetColumnRef() == nil {
			return snapshot.PartitionKeyDef{}, pgerr.New(pgerr.FeatureNotSupported, "partition transform bucket takes a bucket count and a column: bucket(n, column)")
		}
		iv := fc.Args[0].GetAConst().GetIval()
		if iv == nil || iv.Ival <= 0 {
			return snapshot.PartitionKeyDef{}, pgerr.New(pgerr.InvalidParameterValue, "the bucket count of a partition key must be a positive integer")
		}
		c, err := column(fc.Args[1])
		if err != nil {
			return snapshot.PartitionKeyDef{}, err
		}
		return checkedKey(c, "bucket("+strconv.Itoa(int(iv.Ival))+")")
	}
	return snapshot.PartitionKeyDef{}, pgerr.New(pgerr.FeatureNotSupported, "partition transform %s is not supported (identity, year, month, day, hour, bucket and, on DuckLake 1.1 catalogs, epoch_year, epoch_month, epoch_day and epoch_hour are)", name)
}

// checkedKey refuses keys lakepg could not write.
func checkedKey(c *catalog.Column, transform string) (snapshot.PartitionKeyDef, error) {
	def := snapshot.PartitionKeyDef{ColumnID: c.ID, Transform: transform}
	probe := &catalog.Table{Name: "", Columns: []catalog.Column{*c}}
	keys, err := partitioning.Keys(probe, &catalog.PartitionSpec{Keys: []catalog.PartitionKey{{ColumnID: c.ID, Transform: transform}}})
	if err != nil {
		return def, err
	}
	return def, keys[0].CheckWritable(c.Name)
}

// setPartitioning stages SET (keys non-nil) or RESET PARTITIONED BY. Like
// DuckDB, setting the keys a table already has, or resetting a table
// without keys, changes nothing and makes no snapshot.
func setPartitioning(c *snapshot.Commit, t *catalog.Table, keys []snapshot.PartitionKeyDef) {
	var cur []snapshot.PartitionKeyDef
	if t.Partition != nil {
		for _, k := range t.Partition.Keys {
			cur = append(cur, snapshot.PartitionKeyDef{ColumnID: k.ColumnID, Transform: k.Transform})
		}
	}
	if slices.Equal(cur, keys) {
		return
	}
	c.SetPartitionKeys(*t, keys)
}

// AlterPartitioning runs ALTER TABLE SET/RESET (lakepg.partitioned_by),
// the form SET/RESET PARTITIONED BY is rewritten to. Other storage
// parameters do not exist in DuckLake.
func (s *Layouts) AlterPartitioning(ctx context.Context, c *snapshot.Commit, t *catalog.Table, cmd *pg.AlterTableCmd) error {
	if ok, err := s.alterSorting(ctx, c, t, cmd); ok { // sorted.go
		return err
	}
	text, reset, ok, err := partitionOptionCmd(cmd)
	if err != nil {
		return err
	}
	if !ok {
		return pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE SET/RESET of storage parameters is not supported; DuckLake tables take SET PARTITIONED BY (...) and RESET PARTITIONED BY")
	}
	if reset {
		setPartitioning(c, t, nil)
		return nil
	}
	keys, err := partitionKeyDefs(t, text)
	if err != nil {
		return err
	}
	if err := s.checkEpochKeys(ctx, keys); err != nil {
		return err
	}
	setPartitioning(c, t, keys)
	return nil
}

// checkEpochKeys refuses the epoch transforms on a DuckLake 1.0 catalog:
// they are new in 1.1, and DuckDB 1.5 could neither read their values
// right nor prune by them. The catalog is asked again, as it may have
// been migrated since this server read its version.
func (s *Layouts) checkEpochKeys(ctx context.Context, keys []snapshot.PartitionKeyDef) error {
	for _, k := range keys {
		if !partitioning.IsEpochTransform(k.Transform) {
			continue
		}
		db := s.DB
		if db.Format() == catalog.Format11 {
			return nil
		}
		if f, err := db.RecheckFormat(ctx, db.SQL()); err == nil && f == catalog.Format11 {
			return nil
		}
		e := pgerr.New(pgerr.FeatureNotSupported, "partition transform %s needs a DuckLake 1.1 catalog, and this one is %s", k.Transform, db.Format())
		e.Hint = "Migrate the catalog with lakepg migrate --to 1.1 (DuckDB 1.5 cannot open it afterwards), or use year/month/day/hour."
		return e
	}
	return nil
}

// invalidTableDefinition is PostgreSQL's SQLSTATE for dropping a column
// of the partition key.
const invalidTableDefinition = "42P16"

// CheckNotPartitionKey refuses to drop a column the table is partitioned
// by, as DuckDB and PostgreSQL do: new files could not be split by it.
func CheckNotPartitionKey(t *catalog.Table, col *catalog.Column) error {
	if !t.Partition.Partitioned() {
		return nil
	}
	for _, k := range t.Partition.Keys {
		if k.ColumnID == col.ID {
			e := pgerr.New(invalidTableDefinition, "cannot drop column \"%s\" because it is part of the partition key of relation \"%s\"", col.Name, t.Name)
			e.Hint = "Change the partition keys (ALTER TABLE ... SET or RESET PARTITIONED BY) first."
			return e
		}
	}
	return nil
}
