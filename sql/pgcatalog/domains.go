package pgcatalog

// information_schema's domains (pg_type rows in pgdata.go) carry what
// PostgreSQL 15 gives them besides the type: time_stamp's default and the
// CHECK constraints of cardinal_number and yes_or_no. SQLAlchemy's
// get_domains (and so Superset) and pgAdmin's domain nodes read them. The
// node trees are PostgreSQL's own text, as pg_constraint.conbin and
// pg_type.typdefaultbin show it.

// domainDefault is a domain's typdefault and typdefaultbin.
type domainDefault struct{ text, bin string }

var domainDefaults = map[int64]domainDefault{
	13232: {"CURRENT_TIMESTAMP(2)", "{SQLVALUEFUNCTION :op 4 :type 1184 :typmod 2 :location 105}"},
}

// domainCheck is a CHECK constraint of a built-in domain.
type domainCheck struct {
	oid, typ    int64
	name        string
	def, pretty string // pg_get_constraintdef(oid) and (oid, true)
	bin         string
}

var domainChecks = []domainCheck{
	{13222, 13221, "cardinal_number_domain_check", "CHECK ((VALUE >= 0))", "CHECK (VALUE >= 0)",
		"{OPEXPR :opno 525 :opfuncid 150 :opresulttype 16 :opretset false :opcollid 0 :inputcollid 0 :args " +
			"({COERCETODOMAINVALUE :typeId 23 :typeMod -1 :collation 0 :location 195} {CONST :consttype 23 " +
			":consttypmod -1 :constcollid 0 :constlen 4 :constbyval true :constisnull false :location 204 " +
			":constvalue 4 [ 0 0 0 0 0 0 0 0 ]}) :location 201}"},
	{13235, 13234, "yes_or_no_check",
		"CHECK (((VALUE)::text = ANY ((ARRAY['YES'::character varying, 'NO'::character varying])::text[])))",
		"CHECK (VALUE::text = ANY (ARRAY['YES'::character varying, 'NO'::character varying]::text[]))",
		"{SCALARARRAYOPEXPR :opno 98 :opfuncid 67 :hashfuncid 0 :negfuncid 0 :useOr true :inputcollid 100 :args " +
			"({RELABELTYPE :arg {COERCETODOMAINVALUE :typeId 1043 :typeMod 7 :collation 100 :location 133} " +
			":resulttype 25 :resulttypmod -1 :resultcollid 100 :relabelformat 2 :location -1} {ARRAYCOERCEEXPR " +
			":arg {ARRAYEXPR :array_typeid 1015 :array_collid 100 :element_typeid 1043 :elements ({CONST " +
			":consttype 1043 :consttypmod -1 :constcollid 100 :constlen -1 :constbyval false :constisnull false " +
			":location 143 :constvalue 7 [ 28 0 0 0 89 69 83 ]} {CONST :consttype 1043 :consttypmod -1 " +
			":constcollid 100 :constlen -1 :constbyval false :constisnull false :location 150 :constvalue 6 " +
			"[ 24 0 0 0 78 79 ]}) :multidims false :location -1} :elemexpr {RELABELTYPE :arg {CASETESTEXPR " +
			":typeId 1043 :typeMod -1 :collation 0} :resulttype 25 :resulttypmod -1 :resultcollid 100 " +
			":relabelformat 2 :location -1} :resulttype 1009 :resulttypmod -1 :resultcollid 100 :coerceformat 2 " +
			":location -1}) :location 139}"},
}

func domainConstraintRows(c *Context, r *rowSet) {
	for _, d := range domainChecks {
		r.add(vals{"oid": d.oid, "conname": d.name, "connamespace": int64(infoNamespace), "contype": "c",
			"condeferrable": false, "condeferred": false, "convalidated": true, "conrelid": 0, "contypid": d.typ,
			"conindid": 0, "conparentid": 0, "confrelid": 0, "confupdtype": " ", "confdeltype": " ",
			"confmatchtype": " ", "conislocal": true, "coninhcount": 0, "connoinherit": false, "conbin": d.bin})
	}
}

// ConstraintDef is pg_get_constraintdef(oid, pretty) of a constraint the
// catalogs hold; ok is false for any other OID (the lake has no
// constraints of its own to describe).
func ConstraintDef(oid int64, pretty bool) (def string, ok bool) {
	for _, d := range domainChecks {
		if d.oid == oid {
			if pretty {
				return d.pretty, true
			}
			return d.def, true
		}
	}
	return "", false
}
