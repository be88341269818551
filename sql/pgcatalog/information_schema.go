package pgcatalog

import (
	"strconv"
)

// The information_schema views, over the same model as pg_catalog. Their
// OIDs are those of PostgreSQL's information_schema views.

// TableGrant is one privilege on a table or view as
// information_schema.table_privileges lists it.
type TableGrant struct {
	Grantor, Grantee, Schema, Table, Privilege string
	Grantable                                  bool
}

func tableGrantRows(c *Context, r *rowSet, role bool) {
	if c.TableGrants == nil {
		return
	}
	for _, g := range c.TableGrants(role) {
		hier := "NO"
		if g.Privilege == "SELECT" {
			hier = "YES"
		}
		grantable := "NO"
		if g.Grantable {
			grantable = "YES"
		}
		r.add(vals{"grantor": g.Grantor, "grantee": g.Grantee, "table_catalog": c.Database, "table_schema": g.Schema,
			"table_name": g.Table, "privilege_type": g.Privilege, "is_grantable": grantable, "with_hierarchy": hier})
	}
}

func init() {
	const grantCols = "grantor sql_identifier, grantee sql_identifier, table_catalog sql_identifier, " +
		"table_schema sql_identifier, table_name sql_identifier, privilege_type character_data, " +
		"is_grantable yes_or_no, with_hierarchy yes_or_no"
	register("information_schema", "table_privileges", 13416, "v", grantCols,
		func(c *Context, r *rowSet) { tableGrantRows(c, r, false) })
	register("information_schema", "role_table_grants", 13421, "v", grantCols,
		func(c *Context, r *rowSet) { tableGrantRows(c, r, true) })

	register("information_schema", "schemata", 13382, "v",
		"catalog_name sql_identifier, schema_name sql_identifier, schema_owner sql_identifier, "+
			"default_character_set_catalog sql_identifier, default_character_set_schema sql_identifier, "+
			"default_character_set_name sql_identifier, sql_path character_data",
		func(c *Context, r *rowSet) {
			m := newModel(c)
			for _, ns := range m.nss {
				owner, _ := m.roleName(ns.owner)
				r.add(vals{"catalog_name": c.Database, "schema_name": ns.name, "schema_owner": owner})
			}
		})

	register("information_schema", "tables", 13425, "v",
		"table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, "+
			"table_type character_data, self_referencing_column_name sql_identifier, "+
			"reference_generation character_data, user_defined_type_catalog sql_identifier, "+
			"user_defined_type_schema sql_identifier, user_defined_type_name sql_identifier, "+
			"is_insertable_into yes_or_no, is_typed yes_or_no, commit_action character_data",
		func(c *Context, r *rowSet) {
			for _, rel := range newModel(c).rels {
				if rel.seq != nil || rel.kind == "m" {
					continue // PostgreSQL lists no sequences or materialized views here
				}
				typ, ins := "BASE TABLE", "YES"
				if rel.kind == "v" {
					typ, ins = "VIEW", "NO"
				}
				if rel.temp {
					typ = "LOCAL TEMPORARY"
				}
				r.add(vals{"table_catalog": c.Database, "table_schema": rel.ns.name, "table_name": rel.name,
					"table_type": typ, "is_insertable_into": ins, "is_typed": "NO"})
			}
		})

	register("information_schema", "columns", 13295, "v",
		"table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, "+
			"column_name sql_identifier, ordinal_position cardinal_number, column_default character_data, "+
			"is_nullable yes_or_no, data_type character_data, character_maximum_length cardinal_number, "+
			"character_octet_length cardinal_number, numeric_precision cardinal_number, "+
			"numeric_precision_radix cardinal_number, numeric_scale cardinal_number, "+
			"datetime_precision cardinal_number, interval_type character_data, interval_precision cardinal_number, "+
			"character_set_catalog sql_identifier, character_set_schema sql_identifier, "+
			"character_set_name sql_identifier, collation_catalog sql_identifier, collation_schema sql_identifier, "+
			"collation_name sql_identifier, domain_catalog sql_identifier, domain_schema sql_identifier, "+
			"domain_name sql_identifier, udt_catalog sql_identifier, udt_schema sql_identifier, "+
			"udt_name sql_identifier, scope_catalog sql_identifier, scope_schema sql_identifier, "+
			"scope_name sql_identifier, maximum_cardinality cardinal_number, dtd_identifier sql_identifier, "+
			"is_self_referencing yes_or_no, is_identity yes_or_no, identity_generation character_data, "+
			"identity_start character_data, identity_increment character_data, identity_maximum character_data, "+
			"identity_minimum character_data, identity_cycle yes_or_no, is_generated character_data, "+
			"generation_expression character_data, is_updatable yes_or_no",
		func(c *Context, r *rowSet) {
			for _, rel := range newModel(c).rels {
				if rel.seq != nil || rel.kind == "m" {
					continue // PostgreSQL lists no sequences or materialized views here
				}
				upd := "YES"
				if rel.kind == "v" {
					upd = "NO"
				}
				for i, a := range attributesIn(c, rel) {
					row := vals{"table_catalog": c.Database, "table_schema": rel.ns.name, "table_name": rel.name,
						"column_name": a.name, "ordinal_position": i + 1, "is_nullable": yesOrNo(!a.notNull),
						"udt_catalog": c.Database, "udt_schema": "pg_catalog", "dtd_identifier": strconv.Itoa(i + 1),
						"is_self_referencing": "NO", "is_identity": "NO", "identity_cycle": "NO",
						"is_generated": "NEVER", "is_updatable": upd}
					if a.def != nil {
						row["column_default"] = *a.def
					}
					if a.identity != "" {
						identityColumn(c, rel, i, row)
					}
					describeColumnType(row, a.typ, a.typmod)
					r.add(row)
				}
			}
		})

	register("information_schema", "views", 13483, "v",
		"table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, "+
			"view_definition character_data, check_option character_data, is_updatable yes_or_no, "+
			"is_insertable_into yes_or_no, is_trigger_updatable yes_or_no, is_trigger_deletable yes_or_no, "+
			"is_trigger_insertable_into yes_or_no",
		func(c *Context, r *rowSet) {
			for _, rel := range newModel(c).rels {
				if rel.kind == "v" {
					def := ""
					if rel.view != nil {
						def = ViewDefinition(rel.view)
					}
					r.add(vals{"table_catalog": c.Database, "table_schema": rel.ns.name, "table_name": rel.name,
						"view_definition": def, "check_option": "NONE", "is_updatable": "NO", "is_insertable_into": "NO",
						"is_trigger_updatable": "NO", "is_trigger_deletable": "NO", "is_trigger_insertable_into": "NO"})
				}
			}
		})

	// PostgreSQL (through 17) lists each NOT NULL column as a CHECK
	// constraint named <namespace oid>_<relation oid>_<attnum>_not_null.
	register("information_schema", "table_constraints", 13411, "v",
		"constraint_catalog sql_identifier, constraint_schema sql_identifier, constraint_name sql_identifier, "+
			"table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, "+
			"constraint_type character_data, is_deferrable yes_or_no, initially_deferred yes_or_no, "+
			"enforced yes_or_no, nulls_distinct yes_or_no",
		func(c *Context, r *rowSet) {
			forNotNull(c, func(rel *relation, name string, _ attribute) {
				r.add(vals{"constraint_catalog": c.Database, "constraint_schema": rel.ns.name, "constraint_name": name,
					"table_catalog": c.Database, "table_schema": rel.ns.name, "table_name": rel.name,
					"constraint_type": "CHECK", "is_deferrable": "NO", "initially_deferred": "NO", "enforced": "YES"})
			})
			tableConstraintRows(c, r) // constraints.go
		})
	register("information_schema", "check_constraints", 13260, "v",
		"constraint_catalog sql_identifier, constraint_schema sql_identifier, constraint_name sql_identifier, "+
			"check_clause character_data",
		func(c *Context, r *rowSet) {
			forNotNull(c, func(rel *relation, name string, a attribute) {
				r.add(vals{"constraint_catalog": c.Database, "constraint_schema": rel.ns.name, "constraint_name": name,
					"check_clause": QuoteIdent(a.name) + " IS NOT NULL"})
			})
		})

	// No keys, foreign keys, routines or sequences in a lake: empty.
	register("information_schema", "key_column_usage", 13329, "v",
		"constraint_catalog sql_identifier, constraint_schema sql_identifier, constraint_name sql_identifier, "+
			"table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, "+
			"column_name sql_identifier, ordinal_position cardinal_number, "+
			"position_in_unique_constraint cardinal_number", keyColumnUsageRows) // constraints.go
	register("information_schema", "constraint_column_usage", 13300, "v",
		"table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, "+
			"column_name sql_identifier, constraint_catalog sql_identifier, constraint_schema sql_identifier, "+
			"constraint_name sql_identifier", constraintColumnUsageRows) // constraints.go
	register("information_schema", "referential_constraints", 13339, "v",
		"constraint_catalog sql_identifier, constraint_schema sql_identifier, constraint_name sql_identifier, "+
			"unique_constraint_catalog sql_identifier, unique_constraint_schema sql_identifier, "+
			"unique_constraint_name sql_identifier, match_option character_data, update_rule character_data, "+
			"delete_rule character_data", nil)
	register("information_schema", "routines", 13377, "v",
		"specific_catalog sql_identifier, specific_schema sql_identifier, specific_name sql_identifier, "+
			"routine_catalog sql_identifier, routine_schema sql_identifier, routine_name sql_identifier, "+
			"routine_type character_data, module_catalog sql_identifier, module_schema sql_identifier, "+
			"module_name sql_identifier, udt_catalog sql_identifier, udt_schema sql_identifier, "+
			"udt_name sql_identifier, data_type character_data, character_maximum_length cardinal_number, "+
			"character_octet_length cardinal_number, character_set_catalog sql_identifier, "+
			"character_set_schema sql_identifier, character_set_name sql_identifier, "+
			"collation_catalog sql_identifier, collation_schema sql_identifier, collation_name sql_identifier, "+
			"numeric_precision cardinal_number, numeric_precision_radix cardinal_number, "+
			"numeric_scale cardinal_number, datetime_precision cardinal_number, interval_type character_data, "+
			"interval_precision cardinal_number, type_udt_catalog sql_identifier, type_udt_schema sql_identifier, "+
			"type_udt_name sql_identifier, scope_catalog sql_identifier, scope_schema sql_identifier, "+
			"scope_name sql_identifier, maximum_cardinality cardinal_number, dtd_identifier sql_identifier, "+
			"routine_body character_data, routine_definition character_data, external_name character_data, "+
			"external_language character_data, parameter_style character_data, is_deterministic yes_or_no, "+
			"sql_data_access character_data, is_null_call yes_or_no, sql_path character_data, "+
			"schema_level_routine yes_or_no, max_dynamic_result_sets cardinal_number, "+
			"is_user_defined_cast yes_or_no, is_implicitly_invocable yes_or_no, security_type character_data, "+
			"to_sql_specific_catalog sql_identifier, to_sql_specific_schema sql_identifier, "+
			"to_sql_specific_name sql_identifier, as_locator yes_or_no, created time_stamp, "+
			"last_altered time_stamp, new_savepoint_level yes_or_no, is_udt_dependent yes_or_no, "+
			"result_cast_from_data_type character_data, result_cast_as_locator yes_or_no, "+
			"result_cast_char_max_length cardinal_number, result_cast_char_octet_length cardinal_number, "+
			"result_cast_char_set_catalog sql_identifier, result_cast_char_set_schema sql_identifier, "+
			"result_cast_char_set_name sql_identifier, result_cast_collation_catalog sql_identifier, "+
			"result_cast_collation_schema sql_identifier, result_cast_collation_name sql_identifier, "+
			"result_cast_numeric_precision cardinal_number, result_cast_numeric_precision_radix cardinal_number, "+
			"result_cast_numeric_scale cardinal_number, result_cast_datetime_precision cardinal_number, "+
			"result_cast_interval_type character_data, result_cast_interval_precision cardinal_number, "+
			"result_cast_type_udt_catalog sql_identifier, result_cast_type_udt_schema sql_identifier, "+
			"result_cast_type_udt_name sql_identifier, result_cast_scope_catalog sql_identifier, "+
			"result_cast_scope_schema sql_identifier, result_cast_scope_name sql_identifier, "+
			"result_cast_maximum_cardinality cardinal_number, result_cast_dtd_identifier sql_identifier", nil)
	register("information_schema", "parameters", 13334, "v",
		"specific_catalog sql_identifier, specific_schema sql_identifier, specific_name sql_identifier, "+
			"ordinal_position cardinal_number, parameter_mode character_data, is_result yes_or_no, "+
			"as_locator yes_or_no, parameter_name sql_identifier, data_type character_data, "+
			"character_maximum_length cardinal_number, character_octet_length cardinal_number, "+
			"character_set_catalog sql_identifier, character_set_schema sql_identifier, "+
			"character_set_name sql_identifier, collation_catalog sql_identifier, collation_schema sql_identifier, "+
			"collation_name sql_identifier, numeric_precision cardinal_number, "+
			"numeric_precision_radix cardinal_number, numeric_scale cardinal_number, "+
			"datetime_precision cardinal_number, interval_type character_data, interval_precision cardinal_number, "+
			"udt_catalog sql_identifier, udt_schema sql_identifier, udt_name sql_identifier, "+
			"scope_catalog sql_identifier, scope_schema sql_identifier, scope_name sql_identifier, "+
			"maximum_cardinality cardinal_number, dtd_identifier sql_identifier, parameter_default character_data", nil)
	register("information_schema", "sequences", 13386, "v",
		"sequence_catalog sql_identifier, sequence_schema sql_identifier, sequence_name sql_identifier, "+
			"data_type character_data, numeric_precision cardinal_number, numeric_precision_radix cardinal_number, "+
			"numeric_scale cardinal_number, start_value character_data, minimum_value character_data, "+
			"maximum_value character_data, increment character_data, cycle_option yes_or_no",
		func(c *Context, r *rowSet) {
			for _, rel := range newModel(c).rels {
				q := rel.seq
				if q == nil || q.Identity != "" { // PostgreSQL leaves identity sequences out
					continue
				}
				prec := map[string]int{"smallint": 16, "integer": 32, "bigint": 64}[q.DataType]
				r.add(vals{"sequence_catalog": c.Database, "sequence_schema": rel.ns.name, "sequence_name": q.Name,
					"data_type": q.DataType, "numeric_precision": prec, "numeric_precision_radix": 2,
					"numeric_scale": 0, "start_value": itoa(q.Start), "minimum_value": itoa(q.Min),
					"maximum_value": itoa(q.Max), "increment": itoa(q.Inc), "cycle_option": yesOrNo(q.Cycle)})
			}
		})
}

// identityColumn fills the identity columns of information_schema.columns
// for column i of rel from the sequence behind it.
func identityColumn(c *Context, rel *relation, i int, row vals) {
	col := rel.lake.Columns[i]
	for _, q := range c.sequences() {
		if q.Identity == "" || q.OwnerTable != rel.lake.ID || q.OwnerColumn != col.ID {
			continue
		}
		gen := "BY DEFAULT"
		if q.Identity == "a" {
			gen = "ALWAYS"
		}
		row["is_identity"], row["identity_generation"] = "YES", gen
		row["identity_start"], row["identity_increment"] = itoa(q.Start), itoa(q.Inc)
		row["identity_maximum"], row["identity_minimum"] = itoa(q.Max), itoa(q.Min)
		row["identity_cycle"] = yesOrNo(q.Cycle)
	}
}

// seqTypeOID is the type OID of a sequence data type.
func seqTypeOID(typ string) int64 {
	switch typ {
	case "smallint":
		return 21
	case "integer":
		return 23
	}
	return 20
}

func yesOrNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

// forNotNull calls f for each NOT NULL column of a lake table.
func forNotNull(c *Context, f func(rel *relation, name string, a attribute)) {
	for _, rel := range newModel(c).rels {
		if rel.lake == nil {
			continue
		}
		for i, a := range attributes(rel) {
			if a.notNull {
				f(rel, strconv.FormatInt(rel.ns.oid, 10)+"_"+strconv.FormatInt(rel.oid, 10)+"_"+strconv.Itoa(i+1)+"_not_null", a)
			}
		}
	}
}

// describeColumnType fills information_schema.columns' type columns the
// way PostgreSQL's view computes them from atttypid and atttypmod.
func describeColumnType(row vals, oid int64, typmod int32) {
	t := typeByOID[oid]
	if t == nil {
		t = typeByOID[25]
	}
	switch {
	case t.isArray():
		row["data_type"] = "ARRAY"
	default:
		row["data_type"] = FormatType(oid, -1, false)
	}
	row["udt_name"] = t.name
	switch oid {
	case 1042, 1043: // bpchar, varchar
		if typmod >= 0 {
			row["character_maximum_length"] = int(typmod - 4)
			row["character_octet_length"] = int(typmod-4) * 4
		} else {
			row["character_octet_length"] = 1073741824
		}
	case 25:
		row["character_octet_length"] = 1073741824
	case 21:
		row["numeric_precision"], row["numeric_precision_radix"], row["numeric_scale"] = 16, 2, 0
	case 23:
		row["numeric_precision"], row["numeric_precision_radix"], row["numeric_scale"] = 32, 2, 0
	case 20:
		row["numeric_precision"], row["numeric_precision_radix"], row["numeric_scale"] = 64, 2, 0
	case 700:
		row["numeric_precision"], row["numeric_precision_radix"] = 24, 2
	case 701:
		row["numeric_precision"], row["numeric_precision_radix"] = 53, 2
	case 1700:
		row["numeric_precision_radix"] = 10
		if typmod >= 0 {
			m := typmod - 4
			row["numeric_precision"], row["numeric_scale"] = int((m>>16)&0xffff), int(int16(m&0xffff))
		}
	case 1082:
		row["datetime_precision"] = 0
	case 1083, 1266, 1114, 1184:
		if typmod >= 0 {
			row["datetime_precision"] = int(typmod)
		} else {
			row["datetime_precision"] = 6
		}
	case 1186:
		p := 6
		if typmod >= 0 && typmod&0xffff != 0xffff {
			p = int(typmod & 0xffff)
		}
		row["datetime_precision"] = p
	}
}
