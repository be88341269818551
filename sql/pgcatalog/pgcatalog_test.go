package pgcatalog

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/catalog"
)

func strp(s string) *string { return &s }

// testContext is a lake with schemas main (0), public (1) and sales (3),
// public.items (2) and sales.orders (4), as DuckLake numbers them: one id
// counter for schemas and tables.
func testContext() *Context {
	meta := &catalog.Metadata{
		Schemas: []catalog.Schema{{ID: 0, Name: "main"}, {ID: 1, Name: "public"}, {ID: 3, Name: "sales"}},
		Tables: []catalog.Table{
			{ID: 2, SchemaID: 1, Name: "items", Columns: []catalog.Column{
				{ID: 1, Name: "id", Type: "int64"},
				{ID: 2, Name: "name", Type: "varchar", NullsAllowed: true},
				{ID: 3, Name: "price", Type: "decimal(10,2)", NullsAllowed: true},
				{ID: 4, Name: "created", Type: "timestamptz", NullsAllowed: true},
				{ID: 5, Name: "flag", Type: "boolean", NullsAllowed: true, DefaultValue: strp("true"), DefaultValueType: "literal"},
			}},
			{ID: 4, SchemaID: 3, Name: "orders", Columns: []catalog.Column{
				{ID: 1, Name: "order_id", Type: "int32", NullsAllowed: true},
				{ID: 2, Name: "qty", Type: "int32", NullsAllowed: true, DefaultValue: strp("1"), DefaultValueType: "literal"},
				{ID: 3, Name: "note", Type: "varchar", NullsAllowed: true, DefaultValue: strp("none"), DefaultValueType: "literal"},
				{ID: 4, Name: "amount", Type: "decimal(12,3)", NullsAllowed: true, DefaultValue: strp("0.000"), DefaultValueType: "literal"},
				{ID: 5, Name: "at", Type: "timestamptz", NullsAllowed: true, DefaultValue: strp("now()"), DefaultValueType: "expression"},
			}},
		},
	}
	return &Context{Meta: meta, User: "alice", Database: "lake", SearchPath: []string{"public"}, PID: 4242,
		Settings: map[string]string{"timezone": "UTC", "search_path": `"$user", public`, "application_name": "t",
			"datestyle": "ISO, MDY", "x.custom": "1"}}
}

// rows runs a system table and renders its rows as text (NULL as "∅"),
// keyed by column name.
func rows(t *testing.T, schema, name string, c *Context) []map[string]string {
	t.Helper()
	tab, ok := Lookup(schema, name)
	if !ok {
		t.Fatalf("%s.%s is not registered", schema, name)
	}
	b, err := tab.Rows(c)
	if err != nil {
		t.Fatalf("%s.%s: %v", schema, name, err)
	}
	var out []map[string]string
	for i := 0; i < b.N; i++ {
		row := map[string]string{}
		for k, col := range tab.Cols {
			v := b.Vecs[k]
			if v.IsNull(i) {
				row[col.Name] = "∅"
			} else {
				row[col.Name] = string(v.AppendText(nil, i, time.UTC))
			}
		}
		out = append(out, row)
	}
	return out
}

func pick(rs []map[string]string, cols ...string) []string {
	var out []string
	for _, r := range rs {
		var parts []string
		for _, c := range cols {
			parts = append(parts, r[c])
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

func filter(rs []map[string]string, col, val string) []map[string]string {
	var out []map[string]string
	for _, r := range rs {
		if r[col] == val {
			out = append(out, r)
		}
	}
	return out
}

func eq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestEveryTableIsRectangular(t *testing.T) {
	c := testContext()
	for key, tab := range tables {
		b, err := tab.Rows(c)
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		if len(b.Vecs) != len(tab.Cols) {
			t.Errorf("%s: %d vectors for %d columns", key, len(b.Vecs), len(tab.Cols))
			continue
		}
		for i, v := range b.Vecs {
			if v.Len() != b.N || (v.Nulls != nil && len(v.Nulls) != b.N) || v.Type != tab.Cols[i].Type {
				t.Errorf("%s.%s: %d values (%d nulls) of %s, batch has %d rows of %s", key, tab.Cols[i].Name, v.Len(), len(v.Nulls), v.Type, b.N, tab.Cols[i].Type)
			}
		}
	}
	// an empty lake works too
	for key, tab := range tables {
		if _, err := tab.Rows(&Context{User: "u", Database: "d"}); err != nil {
			t.Errorf("%s without metadata: %v", key, err)
		}
	}
}

func TestOIDsAreDistinctAndStable(t *testing.T) {
	c := testContext()
	seen := map[string]string{}
	for _, r := range rows(t, "pg_catalog", "pg_namespace", c) {
		seen[r["oid"]] = "namespace " + r["nspname"]
	}
	for _, r := range rows(t, "pg_catalog", "pg_class", c) {
		if prev, dup := seen[r["oid"]]; dup {
			t.Errorf("oid %s of relation %s is also %s", r["oid"], r["relname"], prev)
		}
		seen[r["oid"]] = "relation " + r["relname"]
	}
	want := map[string]string{"11": "namespace pg_catalog", "13207": "namespace information_schema",
		"16384": "namespace main", "16385": "namespace public", "16386": "relation items",
		"16387": "namespace sales", "16388": "relation orders", "1259": "relation pg_class",
		"13295": "relation columns"}
	for oid, what := range want {
		if seen[oid] != what {
			t.Errorf("oid %s is %q, want %q", oid, seen[oid], what)
		}
	}
	if RelationOID(2) != 16386 || NamespaceOID(3) != 16387 {
		t.Errorf("RelationOID(2) = %d, NamespaceOID(3) = %d", RelationOID(2), NamespaceOID(3))
	}
	// a second run gives the same rows
	a := pick(rows(t, "pg_catalog", "pg_class", c), "oid", "relname")
	b := pick(rows(t, "pg_catalog", "pg_class", testContext()), "oid", "relname")
	eq(t, "pg_class twice", a, b)
}

func TestNamespacesAndClasses(t *testing.T) {
	c := testContext()
	eq(t, "pg_namespace", pick(rows(t, "pg_catalog", "pg_namespace", c), "oid", "nspname", "nspowner", "nspacl"), []string{
		"11|pg_catalog|10|{alice=UC/alice,=U/alice}", "99|pg_toast|10|∅", "13207|information_schema|10|{alice=UC/alice,=U/alice}",
		"16384|main|10|∅", "16385|public|6171|{pg_database_owner=UC/pg_database_owner,=U/pg_database_owner}", "16387|sales|10|∅"})
	lake := []string{}
	for _, r := range rows(t, "pg_catalog", "pg_class", c) {
		if r["relnamespace"] != "11" && r["relnamespace"] != "13207" {
			lake = append(lake, strings.Join([]string{r["oid"], r["relname"], r["relnamespace"], r["relkind"],
				r["relnatts"], r["relam"], r["relowner"], r["relpersistence"], r["relhasindex"], r["reltoastrelid"]}, "|"))
		}
	}
	// both tables have a varchar column without a length: PostgreSQL gives them a TOAST table
	eq(t, "lake pg_class rows", lake, []string{"16386|items|16385|r|5|2|10|p|f|1610629122", "16388|orders|16387|r|5|2|10|p|f|1610629124",
		"1610629122|pg_toast_16386|99|t|3|2|10|p|f|0", "1610629124|pg_toast_16388|99|t|3|2|10|p|f|0"})
	cls := filter(rows(t, "pg_catalog", "pg_class", c), "relname", "pg_settings")
	eq(t, "pg_settings in pg_class", pick(cls, "oid", "relnamespace", "relkind", "relam"), []string{"12104|11|v|0"})
	var user []string
	for _, r := range rows(t, "pg_catalog", "pg_tables", c) {
		if r["schemaname"] != "pg_catalog" {
			user = append(user, r["schemaname"]+"."+r["tablename"]+" "+r["tableowner"])
		}
	}
	eq(t, "pg_tables", user, []string{"public.items alice", "sales.orders alice"})
}

func TestAttributes(t *testing.T) {
	c := testContext()
	attrs := filter(rows(t, "pg_catalog", "pg_attribute", c), "attrelid", "16386")
	eq(t, "pg_attribute of items", pick(attrs, "attnum", "attname", "atttypid", "atttypmod", "attlen", "attbyval",
		"attalign", "attnotnull", "atthasdef", "attisdropped", "attcollation"), []string{
		"-6|tableoid|26|-1|4|t|i|t|f|f|0",
		"-5|cmax|29|-1|4|t|i|t|f|f|0",
		"-4|xmax|28|-1|4|t|i|t|f|f|0",
		"-3|cmin|29|-1|4|t|i|t|f|f|0",
		"-2|xmin|28|-1|4|t|i|t|f|f|0",
		"-1|ctid|27|-1|6|f|s|t|f|f|0",
		"1|id|20|-1|8|t|d|t|f|f|0",
		"2|name|1043|-1|-1|f|i|f|f|f|100",
		"3|price|1700|655366|-1|f|i|f|f|f|0",
		"4|created|1184|-1|8|t|d|f|f|f|0",
		"5|flag|16|-1|1|t|c|f|t|f|0",
	})
	sys := filter(rows(t, "pg_catalog", "pg_attribute", c), "attrelid", "2615")
	eq(t, "pg_attribute of pg_namespace", pick(sys, "attnum", "attname", "atttypid"), []string{
		"-6|tableoid|26", "-5|cmax|29", "-4|xmax|28", "-3|cmin|29", "-2|xmin|28", "-1|ctid|27",
		"1|oid|26", "2|nspname|19", "3|nspowner|26", "4|nspacl|1034"})
	eq(t, "pg_attrdef", pick(rows(t, "pg_catalog", "pg_attrdef", c), "adrelid", "adnum", "adbin"), []string{
		"16386|5|true", "16388|2|1", "16388|3|'none'::character varying", "16388|4|0", "16388|5|now()"})
}

func TestInformationSchema(t *testing.T) {
	c := testContext()
	var sch []string
	for _, r := range rows(t, "information_schema", "schemata", c) {
		sch = append(sch, r["catalog_name"]+"|"+r["schema_name"]+"|"+r["schema_owner"])
	}
	eq(t, "schemata", sch, []string{"lake|pg_catalog|alice", "lake|pg_toast|alice", "lake|information_schema|alice",
		"lake|main|alice", "lake|public|pg_database_owner", "lake|sales|alice"})
	var tabs []string
	for _, r := range rows(t, "information_schema", "tables", c) {
		if r["table_schema"] != "pg_catalog" && r["table_schema"] != "information_schema" {
			tabs = append(tabs, strings.Join([]string{r["table_catalog"], r["table_schema"], r["table_name"], r["table_type"], r["is_insertable_into"], r["is_typed"]}, "|"))
		}
	}
	eq(t, "tables", tabs, []string{"lake|public|items|BASE TABLE|YES|NO", "lake|sales|orders|BASE TABLE|YES|NO"})
	// expected values are what PostgreSQL 15 answers for the same tables
	cols := filter(rows(t, "information_schema", "columns", c), "table_schema", "public")
	cols = append(cols, filter(rows(t, "information_schema", "columns", c), "table_schema", "sales")...)
	eq(t, "columns", pick(cols, "table_name", "column_name", "ordinal_position", "column_default", "is_nullable",
		"data_type", "character_maximum_length", "character_octet_length", "numeric_precision",
		"numeric_precision_radix", "numeric_scale", "datetime_precision", "udt_schema", "udt_name", "dtd_identifier",
		"is_identity", "is_generated", "is_updatable"), []string{
		"items|id|1|∅|NO|bigint|∅|∅|64|2|0|∅|pg_catalog|int8|1|NO|NEVER|YES",
		"items|name|2|∅|YES|character varying|∅|1073741824|∅|∅|∅|∅|pg_catalog|varchar|2|NO|NEVER|YES",
		"items|price|3|∅|YES|numeric|∅|∅|10|10|2|∅|pg_catalog|numeric|3|NO|NEVER|YES",
		"items|created|4|∅|YES|timestamp with time zone|∅|∅|∅|∅|∅|6|pg_catalog|timestamptz|4|NO|NEVER|YES",
		"items|flag|5|true|YES|boolean|∅|∅|∅|∅|∅|∅|pg_catalog|bool|5|NO|NEVER|YES",
		"orders|order_id|1|∅|YES|integer|∅|∅|32|2|0|∅|pg_catalog|int4|1|NO|NEVER|YES",
		"orders|qty|2|1|YES|integer|∅|∅|32|2|0|∅|pg_catalog|int4|2|NO|NEVER|YES",
		"orders|note|3|'none'::character varying|YES|character varying|∅|1073741824|∅|∅|∅|∅|pg_catalog|varchar|3|NO|NEVER|YES",
		"orders|amount|4|0|YES|numeric|∅|∅|12|10|3|∅|pg_catalog|numeric|4|NO|NEVER|YES",
		"orders|at|5|now()|YES|timestamp with time zone|∅|∅|∅|∅|∅|6|pg_catalog|timestamptz|5|NO|NEVER|YES",
	})
	eq(t, "table_constraints", pick(rows(t, "information_schema", "table_constraints", c), "constraint_schema",
		"constraint_name", "table_name", "constraint_type", "enforced"), []string{"public|16385_16386_1_not_null|items|CHECK|YES"})
	eq(t, "check_constraints", pick(rows(t, "information_schema", "check_constraints", c), "check_clause"), []string{"id IS NOT NULL"})
}

func TestFormatType(t *testing.T) {
	// answers of PostgreSQL 15's format_type
	for _, tc := range []struct {
		oid    int64
		typmod int32
		given  bool
		want   string
	}{
		{23, 0, false, "integer"}, {1043, 24, true, "character varying(20)"}, {1043, -1, true, "character varying"},
		{1700, 655366, true, "numeric(10,2)"}, {1042, 0, false, "character"}, {1042, -1, true, "bpchar"},
		{1184, 3, true, "timestamp(3) with time zone"}, {1114, -1, true, "timestamp without time zone"},
		{1007, -1, true, "integer[]"}, {1015, 24, true, "character varying(20)[]"}, {18, 0, false, `"char"`},
		{0, 0, false, "-"}, {2276, 0, false, `"any"`}, {19, -1, true, "name"}, {22, -1, true, "int2vector"},
		{2950, -1, true, "uuid"}, {1186, -1, true, "interval"}, {17, -1, true, "bytea"}, {99999, -1, true, "???"},
	} {
		if got := FormatType(tc.oid, tc.typmod, tc.given); got != tc.want {
			t.Errorf("format_type(%d, %d given=%v) = %q, want %q", tc.oid, tc.typmod, tc.given, got, tc.want)
		}
	}
}

func TestColumnType(t *testing.T) {
	for duck, want := range map[string]string{
		"int64": "20/-1", "varchar": "1043/-1", "decimal(10,2)": "1700/655366", "decimal(38,6)": "1700/2490378",
		"boolean": "16/-1", "timestamptz": "1184/-1", "timestamp": "1114/-1", "blob": "17/-1", "uuid": "2950/-1",
		"int8": "21/-1", "float32": "700/-1", "date": "1082/-1", "time": "1083/-1", "hugeint": "1700/-1",
		"struct": "25/-1", "interval": "1186/-1",
	} {
		oid, mod := ColumnType(duck)
		if got := fmt.Sprintf("%d/%d", oid, mod); got != want {
			t.Errorf("ColumnType(%q) = %s, want %s", duck, got, want)
		}
	}
}

func TestDefaultExpr(t *testing.T) {
	// what pg_get_expr prints for the DEFAULT a user most likely wrote
	for _, tc := range []struct {
		v, kind string
		oid     int64
		typmod  int32
		want    string
	}{
		{"true", "literal", 16, -1, "true"},
		{"1", "literal", 23, -1, "1"},
		{"-5", "literal", 20, -1, "'-5'::integer"},
		{"5000000000", "literal", 20, -1, "'5000000000'::bigint"},
		{"0.000", "literal", 1700, 786439, "0"},
		{"1.500", "literal", 1700, 786439, "1.5"},
		{"-1.5", "literal", 701, -1, "'-1.5'::numeric"},
		{"none", "literal", 1043, -1, "'none'::character varying"},
		{"it's", "literal", 25, -1, "'it''s'::text"},
		{"2024-01-01", "literal", 1082, -1, "'2024-01-01'::date"},
		{"NaN", "literal", 701, -1, "'NaN'::double precision"},
		{"now()", "expression", 1184, -1, "now()"},
	} {
		if got := defaultExpr(tc.v, tc.kind, tc.oid, tc.typmod); got != tc.want {
			t.Errorf("defaultExpr(%q, %s, %d) = %q, want %q", tc.v, tc.kind, tc.oid, got, tc.want)
		}
	}
}

func TestVisibilityAndNames(t *testing.T) {
	c := testContext()
	vis := RelationVisibility(c)
	for oid, want := range map[int64]bool{16386: true, 16388: false, 1259: true, 13425: false} {
		if got, ok := vis[oid]; !ok || got != want {
			t.Errorf("visible(%d) = %v (known %v), want %v", oid, got, ok, want)
		}
	}
	if _, ok := vis[16387]; ok {
		t.Errorf("a namespace OID is reported as a relation")
	}
	names := RelationNames(c)
	if names[16386] != "items" || names[16388] != "sales.orders" || names[1259] != "pg_class" || names[13425] != "information_schema.tables" {
		t.Errorf("RelationNames = %v", names)
	}
	for name, want := range map[string]int64{"items": 16386, "public.items": 16386, `"items"`: 16386, "ITEMS": 16386,
		"sales.orders": 16388, "pg_class": 1259, "pg_catalog.pg_type": 1247, "information_schema.columns": 13295, "16386": 16386} {
		got, err := RelationOIDByName(c, name)
		if err != nil || got != want {
			t.Errorf("%q::regclass = %d, %v; want %d", name, got, err, want)
		}
	}
	for _, bad := range []string{"orders", "nope", `"Items"`, "nosuch.items"} {
		if _, err := RelationOIDByName(c, bad); err == nil {
			t.Errorf("%q::regclass succeeded", bad)
		}
	}
	// the search path decides which of two same-named tables is visible
	c2 := testContext()
	c2.Meta.Tables = append(c2.Meta.Tables, catalog.Table{ID: 5, SchemaID: 3, Name: "items"})
	c2.SearchPath = []string{"sales", "public"}
	vis = RelationVisibility(c2)
	if vis[16386] || !vis[16389] || !vis[16388] {
		t.Errorf("with search_path sales, public: %v", vis)
	}
	for name, want := range map[string]int64{"int4": 23, "integer": 23, "character varying": 1043, "varchar(20)": 1043,
		"double precision": 701, "text[]": 1009, "pg_catalog.int8": 20, "timestamp with time zone": 1184} {
		if got, err := TypeOIDByName(name); err != nil || got != want {
			t.Errorf("%q::regtype = %d, %v; want %d", name, got, err, want)
		}
	}
	if TypeName(1043) != "character varying" || ProcName(42) != "int4in" || ProcName(0) != "-" {
		t.Errorf("TypeName/ProcName: %q %q %q", TypeName(1043), ProcName(42), ProcName(0))
	}
	if oid, err := ProcOIDByName("pg_catalog.array_in"); err != nil || oid != 750 {
		t.Errorf("array_in::regproc = %d, %v", oid, err)
	}
	if oid, err := NamespaceOIDByName(c, "sales"); err != nil || oid != 16387 || NamespaceName(c, 11) != "pg_catalog" {
		t.Errorf("regnamespace: %d, %v, %q", oid, err, NamespaceName(c, 11))
	}
	if UserName(c, 10) != "alice" || UserName(c, 6171) != "pg_database_owner" || UserName(c, 7) != "unknown (OID=7)" {
		t.Errorf("UserName: %q %q %q", UserName(c, 10), UserName(c, 6171), UserName(c, 7))
	}
}

func TestSessionTables(t *testing.T) {
	c := testContext()
	eq(t, "pg_database", pick(rows(t, "pg_catalog", "pg_database", c), "oid", "datname", "encoding", "datcollate", "datistemplate", "datallowconn"),
		[]string{"536870912|lake|6|C|f|t", "1|template1|6|C|t|t", "4|template0|6|C|t|f"})
	eq(t, "pg_roles", pick(rows(t, "pg_catalog", "pg_roles", c), "oid", "rolname", "rolsuper", "rolcanlogin"),
		[]string{"10|alice|t|t", "6171|pg_database_owner|f|f"})
	eq(t, "pg_user", pick(rows(t, "pg_catalog", "pg_user", c), "usename", "usesysid", "usesuper"), []string{"alice|10|t"})
	eq(t, "pg_stat_activity (no registry)", pick(rows(t, "pg_catalog", "pg_stat_activity", c), "pid", "usename", "datname", "application_name", "state", "backend_type"),
		[]string{"4242|alice|lake|t|active|client backend"})
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c.Backends = []Backend{{PID: 1, User: "alice", Database: "lake", State: "idle", Query: "SELECT 1", BackendStart: start}, {PID: 2, User: "bob", Database: "lake", State: "active", Query: "SELECT 2"}}
	eq(t, "pg_stat_activity", pick(rows(t, "pg_catalog", "pg_stat_activity", c), "pid", "usename", "state", "query", "backend_start", "wait_event"),
		[]string{"1|alice|idle|SELECT 1|2026-01-02 03:04:05+00|ClientRead", "2|bob|active|SELECT 2|∅|∅"})
	set := rows(t, "pg_catalog", "pg_settings", c)
	eq(t, "pg_settings", pick(filter(set, "name", "TimeZone"), "name", "setting", "category", "context", "vartype", "source", "boot_val"),
		[]string{"TimeZone|UTC|Client Connection Defaults / Locale and Formatting|user|string|session|GMT"})
	eq(t, "pg_settings custom", pick(filter(set, "name", "x.custom"), "setting", "category", "vartype"), []string{"1|Customized Options|string"})
	eq(t, "pg_settings fixed", pick(filter(set, "name", "block_size"), "setting", "context", "min_val", "max_val", "source"), []string{"8192|internal|8192|8192|default"})
	if len(filter(set, "name", "is_superuser")) != 0 {
		t.Errorf("pg_settings shows is_superuser, which PostgreSQL hides")
	}
	kw, _ := TableFunction("pg_get_keywords")
	b, err := kw.Rows(c)
	if err != nil || b.N < 400 {
		t.Fatalf("pg_get_keywords: %d rows, %v", b.N, err)
	}
}

func TestHelpers(t *testing.T) {
	// pg_size_pretty answers of PostgreSQL 15
	for n, want := range map[int64]string{0: "0 bytes", 10239: "10239 bytes", 10240: "10 kB", 20000000: "19 MB",
		1099511627776: "1024 GB", -20000: "-20 kB"} {
		if got := SizePretty(n); got != want {
			t.Errorf("SizePretty(%d) = %q, want %q", n, got, want)
		}
	}
	for in, want := range map[string]string{`{a,"b c",NULL,"x\"y"}`: `a|b c|∅|x"y`, "{}": "", `{"NULL", b}`: "NULL|b"} {
		es, ok := ArrayElements(in)
		var parts []string
		for _, e := range es {
			if e == nil {
				parts = append(parts, "∅")
			} else {
				parts = append(parts, *e)
			}
		}
		if got := strings.Join(parts, "|"); !ok || got != want {
			t.Errorf("ArrayElements(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := ArrayElements("{a"); ok {
		t.Errorf("ArrayElements accepted a malformed array")
	}
	for in, want := range map[string]string{"abc": "abc", "Abc": `"Abc"`, "a b": `"a b"`, "select": `"select"`,
		"name": "name", "1x": `"1x"`, `a"b`: `"a""b"`} {
		if got := QuoteIdent(in); got != want {
			t.Errorf("QuoteIdent(%q) = %q, want %q", in, got, want)
		}
	}
	if EncodingName(6) != "UTF8" || EncodingName(0) != "SQL_ASCII" || EncodingName(99) != "" {
		t.Errorf("EncodingName")
	}
}
