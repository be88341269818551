package pgcatalog

import (
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/catalog"
)

// A lake table's PRIMARY KEY and UNIQUE constraints (catalog/constraints.go)
// appear as PostgreSQL shows them: a pg_constraint row (contype p or u)
// with the unique btree index PostgreSQL builds for it, a pg_index row plus
// a pg_class row of relkind 'i' named like the constraint, and rows in
// information_schema's table_constraints, key_column_usage and
// constraint_column_usage. The index's pg_class OID is RelationOID of the
// constraint id (a catalog id, so no table or view has it); the
// constraint's own OID lies above every relation OID.

// ConstraintOID is the pg_constraint OID of lake constraint id.
func ConstraintOID(id int64) int64 { return 1<<29 + RelationOID(id) }

// lakeKey is one constraint with its table.
type lakeKey struct {
	con   *catalog.Constraint
	rel   *relation
	attno []int // key columns' attnums
	names []string
}

func lakeKeys(c *Context) []lakeKey {
	if c.Meta == nil || len(c.Meta.Constraints) == 0 {
		return nil
	}
	byTable := map[int64]*relation{}
	for _, rel := range newModel(c).rels {
		if rel.lake != nil {
			byTable[rel.lake.ID] = rel
		}
	}
	var out []lakeKey
	for i := range c.Meta.Constraints {
		con := &c.Meta.Constraints[i]
		rel, ok := byTable[con.TableID]
		if !ok {
			continue
		}
		k := lakeKey{con: con, rel: rel}
		for _, id := range con.Columns {
			for j, col := range rel.lake.Columns {
				if col.ID == id {
					k.attno = append(k.attno, j+1)
					k.names = append(k.names, col.Name)
				}
			}
		}
		if len(k.attno) == len(con.Columns) {
			out = append(out, k)
		}
	}
	return out
}

// indexedTables are the ids of the lake tables with a constraint
// (relhasindex), looked up per table: a scan of the constraints per table
// grew with both.
func indexedTables(c *Context) map[int64]bool {
	out := map[int64]bool{}
	if c.Meta == nil {
		return out
	}
	for _, con := range c.Meta.Constraints {
		out[con.TableID] = true
	}
	return out
}

func (k lakeKey) def() string {
	quoted := make([]string, len(k.names))
	for i, n := range k.names {
		quoted[i] = QuoteIdent(n)
	}
	kind := "UNIQUE"
	if k.con.Primary() {
		kind = "PRIMARY KEY"
	}
	return kind + " (" + strings.Join(quoted, ", ") + ")"
}

func (k lakeKey) indexDef() string {
	quoted := make([]string, len(k.names))
	for i, n := range k.names {
		quoted[i] = QuoteIdent(n)
	}
	return "CREATE UNIQUE INDEX " + QuoteIdent(k.con.Name) + " ON " + QuoteIdent(k.rel.ns.name) + "." + QuoteIdent(k.rel.name) +
		" USING btree (" + strings.Join(quoted, ", ") + ")"
}

func int2vector(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, " ")
}

func int2array(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// LakeConstraintDef is pg_get_constraintdef of a lake constraint.
func LakeConstraintDef(c *Context, oid int64) (string, bool) {
	for _, k := range lakeKeys(c) {
		if ConstraintOID(k.con.ID) == oid {
			return k.def(), true
		}
	}
	return "", false
}

// LakeIndexDef is pg_get_indexdef of a lake constraint's index; column
// (1-based) gives that key column's name alone, as PostgreSQL does.
func LakeIndexDef(c *Context, oid int64, column int) (string, bool) {
	for _, k := range lakeKeys(c) {
		if RelationOID(k.con.ID) == oid {
			if column > 0 {
				if column > len(k.names) {
					return "", true
				}
				return QuoteIdent(k.names[column-1]), true
			}
			return k.indexDef(), true
		}
	}
	return "", false
}

func lakeConstraintRows(c *Context, r *rowSet) {
	for _, k := range lakeKeys(c) {
		r.add(vals{"oid": ConstraintOID(k.con.ID), "conname": k.con.Name, "connamespace": k.rel.ns.oid, "contype": k.con.Type,
			"condeferrable": false, "condeferred": false, "convalidated": true, "conrelid": k.rel.oid, "contypid": 0,
			"conindid": RelationOID(k.con.ID), "conparentid": 0, "confrelid": 0, "confupdtype": " ", "confdeltype": " ",
			"confmatchtype": " ", "conislocal": true, "coninhcount": 0, "connoinherit": true, "conkey": int2array(k.attno),
			xminColumn: SnapshotXID(k.con.BeginSnapshot)})
	}
}

func constraintRows(c *Context, r *rowSet) {
	domainConstraintRows(c, r)
	lakeConstraintRows(c, r)
}

func indexRows(c *Context, r *rowSet) {
	for _, k := range lakeKeys(c) {
		zeros := make([]int, len(k.attno))
		class := make([]string, len(k.attno))
		coll := make([]string, len(k.attno))
		for i := range class {
			class[i] = "1978" // int8_ops: one opclass for every column is enough for clients
			coll[i] = "0"
		}
		r.add(vals{"indexrelid": RelationOID(k.con.ID), "indrelid": k.rel.oid, "indnatts": len(k.attno), "indnkeyatts": len(k.attno),
			"indisunique": true, "indnullsnotdistinct": false, "indisprimary": k.con.Primary(), "indisexclusion": false,
			"indimmediate": true, "indisclustered": false, "indisvalid": true, "indcheckxmin": false, "indisready": true,
			"indislive": true, "indisreplident": false, "indkey": int2vector(k.attno), "indcollation": strings.Join(coll, " "),
			"indclass": strings.Join(class, " "), "indoption": int2vector(zeros), xminColumn: SnapshotXID(k.con.BeginSnapshot)})
	}
}

// indexClassRows are the pg_class rows of the constraints' indexes.
func indexClassRows(c *Context, r *rowSet) {
	for _, k := range lakeKeys(c) {
		r.add(vals{"oid": RelationOID(k.con.ID), "relname": k.con.Name, "relnamespace": k.rel.ns.oid, "reltype": 0,
			"reloftype": 0, "relowner": superuserOID, "relam": 403, "relfilenode": RelationOID(k.con.ID),
			"reltablespace": 0, "relpages": 1, "reltuples": -1, "relallvisible": 0, "reltoastrelid": 0,
			"relhasindex": false, "relisshared": false, "relpersistence": "p", "relkind": "i",
			"relnatts": len(k.attno), "relchecks": 0, "relhasrules": false, "relhastriggers": false,
			"relhassubclass": false, "relrowsecurity": false, "relforcerowsecurity": false,
			"relispopulated": true, "relreplident": "n", "relispartition": false, "relrewrite": 0,
			"relfrozenxid": 0, "relminmxid": 0, xminColumn: SnapshotXID(k.con.BeginSnapshot)})
	}
}

// indexAttributeRows are the pg_attribute rows of the indexes' columns.
func indexAttributeRows(c *Context, r *rowSet) {
	for _, k := range lakeKeys(c) {
		cols := attributes(k.rel)
		for i, at := range k.attno {
			a := cols[at-1]
			t := typeByOID[a.typ]
			if t == nil {
				t = typeByOID[25]
			}
			r.add(vals{"attrelid": RelationOID(k.con.ID), "attname": a.name, "atttypid": a.typ, "attstattarget": -1,
				"attlen": t.len, "attnum": i + 1, "attndims": 0, "attcacheoff": -1, "atttypmod": a.typmod,
				"attbyval": t.byval, "attalign": t.align, "attstorage": t.storage, "attcompression": "",
				"attnotnull": false, "atthasdef": false, "atthasmissing": false, "attidentity": "",
				"attgenerated": "", "attisdropped": false, "attislocal": true, "attinhcount": 0,
				"attcollation": t.collation, xminColumn: SnapshotXID(k.con.BeginSnapshot)})
		}
	}
}

func pgIndexesRows(c *Context, r *rowSet) {
	for _, k := range lakeKeys(c) {
		r.add(vals{"schemaname": k.rel.ns.name, "tablename": k.rel.name, "indexname": k.con.Name, "indexdef": k.indexDef()})
	}
}

func keyConstraintType(k lakeKey) string {
	if k.con.Primary() {
		return "PRIMARY KEY"
	}
	return "UNIQUE"
}

func tableConstraintRows(c *Context, r *rowSet) {
	for _, k := range lakeKeys(c) {
		r.add(vals{"constraint_catalog": c.Database, "constraint_schema": k.rel.ns.name, "constraint_name": k.con.Name,
			"table_catalog": c.Database, "table_schema": k.rel.ns.name, "table_name": k.rel.name,
			"constraint_type": keyConstraintType(k), "is_deferrable": "NO", "initially_deferred": "NO", "enforced": "YES",
			"nulls_distinct": "YES"})
	}
}

func keyColumnUsageRows(c *Context, r *rowSet) {
	for _, k := range lakeKeys(c) {
		for i, n := range k.names {
			r.add(vals{"constraint_catalog": c.Database, "constraint_schema": k.rel.ns.name, "constraint_name": k.con.Name,
				"table_catalog": c.Database, "table_schema": k.rel.ns.name, "table_name": k.rel.name,
				"column_name": n, "ordinal_position": i + 1})
		}
	}
}

func constraintColumnUsageRows(c *Context, r *rowSet) {
	for _, k := range lakeKeys(c) {
		for _, n := range k.names {
			r.add(vals{"table_catalog": c.Database, "table_schema": k.rel.ns.name, "table_name": k.rel.name,
				"column_name": n, "constraint_catalog": c.Database, "constraint_schema": k.rel.ns.name,
				"constraint_name": k.con.Name})
		}
	}
}
