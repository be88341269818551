package pgcatalog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/types"
)

// pgType is a pg_type row (the columns lakepg does not vary are implied).
type pgType struct {
	oid                int64
	name               string
	len                int16
	byval              bool
	typtype, category  string
	preferred          bool
	delim              string
	elem, array        int64
	input, output      int64
	receive, send      int64
	modin, modout      int64
	analyze, subscript int64
	align, storage     string
	collation          int64
	ns                 int64 // typnamespace; 0 for pg_catalog
	basetype           int64 // of a domain
	typmod             int32 // of a domain's base type
	notnull            bool
}

// pgProc is a pg_proc row.
type pgProc struct {
	oid            int64
	name           string
	kind           string
	strict, retset bool
	volatile       string
	parallel       string
	nargs          int16
	rettype        int64
	argtypes       string // oidvector text form: space-separated OIDs
	src            string
	lang           int64
}

// settingDesc is what pg_settings says about a setting besides its value.
type settingDesc struct {
	name, unit, category, short, extra, context, vartype, min, max string
	enumvals                                                       []string
	boot                                                           string
}

// keyword is a pg_get_keywords() row.
type keyword struct {
	word      string
	catcode   byte
	barelabel bool
}

var (
	typeByOID  = map[int64]*pgType{}
	typeByName = map[string]*pgType{}
	procByOID  = map[int64]*pgProc{}
	settingBy  = map[string]*settingDesc{} // by lower-case name
	keywordBy  = map[string]*keyword{}
)

func init() {
	for i := range builtinTypes {
		t := &builtinTypes[i]
		typeByOID[t.oid] = t
		typeByName[t.name] = t
	}
	for i := range builtinProcs {
		procByOID[builtinProcs[i].oid] = &builtinProcs[i]
	}
	settingInfo = append(settingInfo, settingDesc{name: "lakepg.snapshot", category: "Customized Options",
		short:   "The lake snapshot statements read: a snapshot id or a timestamp, empty for the latest.",
		context: "user", vartype: "string"})
	for i := range settingInfo {
		settingBy[strings.ToLower(settingInfo[i].name)] = &settingInfo[i]
	}
	for i := range keywords {
		keywordBy[keywords[i].word] = &keywords[i]
	}
}

// Well-known OIDs.
const (
	catalogNamespace = 11      // pg_catalog
	toastNamespace   = 99      // pg_toast
	infoNamespace    = 13207   // information_schema
	superuserOID     = 10      // the session user
	dbOwnerRoleOID   = 6171    // pg_database_owner
	databaseOID      = 1 << 29 // above 16383, where admin GUIs draw the line to system databases
	heapAM           = 2
	defaultTblspc    = 1663
	firstLakeOID     = 16384
	defaultColl      = 100
	encodingUTF8     = 6
)

// NamespaceOID is the pg_namespace OID of the lake schema with schema_id id.
func NamespaceOID(schemaID int64) int64 { return firstLakeOID + schemaID }

// RelationOID is the pg_class OID of the lake table with table_id id;
// RowDescription's table OID should be the same number.
func RelationOID(tableID int64) int64 { return firstLakeOID + tableID }

// SequenceOID is the pg_class OID of the sequence with sequence_id id
// (lakepg_sequence): between relation OIDs (below 2^28) and databaseOID.
func SequenceOID(id int64) int64 { return 1<<28 + id }

// SequenceID is the sequence_id of a sequence OID; ok is false for other
// OIDs.
func SequenceID(oid int64) (int64, bool) {
	if oid > 1<<28 && oid < databaseOID {
		return oid - 1<<28, true
	}
	return 0, false
}

// attrdefOID is the pg_attrdef OID of a lake column's default.
func attrdefOID(tableID int64, attnum int) int64 { return 1<<31 + tableID*2048 + int64(attnum) }

// rowTypeOID is the OID of the row type of the lake relation relOID.
func rowTypeOID(relOID int64) int64 { return 1<<30 + relOID }

// rowArrayOID is the OID of the array type of that row type, which
// PostgreSQL makes with every table's row type. It lies between row types
// and TOAST relations (toast.go), as relation OIDs stay below 2^28.
func rowArrayOID(relOID int64) int64 { return 1<<30 + 1<<28 + relOID }

// ColumnType is the PostgreSQL type OID and typmod of a lake column of
// DuckLake type duck. Types lakepg reads report what lakepg sends for them,
// except that a plain varchar is character varying (DuckLake has no text
// type); other DuckLake types report the nearest PostgreSQL type.
func ColumnType(duck string) (oid int64, typmod int32) {
	n := strings.ToLower(strings.TrimSpace(duck))
	if n == "varchar" {
		return types.OIDVarchar, -1
	}
	if t, err := types.FromDuckLake(n); err == nil {
		return int64(t.OID()), t.Typmod()
	}
	switch n {
	case "time", "time_ns":
		return 1083, -1
	case "timetz":
		return 1266, -1
	case "int128", "uint64", "uint128", "hugeint", "uhugeint":
		return types.OIDNumeric, -1
	case "float", "double":
		return types.OIDFloat8, -1
	}
	if strings.HasPrefix(n, "decimal(") && strings.HasSuffix(n, ")") {
		if p, s, ok := strings.Cut(n[len("decimal("):len(n)-1], ","); ok {
			pi, err1 := strconv.Atoi(strings.TrimSpace(p))
			si, err2 := strconv.Atoi(strings.TrimSpace(s))
			if err1 == nil && err2 == nil {
				return types.OIDNumeric, int32(pi<<16|si) + 4
			}
		}
	}
	return types.OIDText, -1
}

// isArray reports a true array type (format_type's test: an element type
// and not plain storage, which leaves out name, int2vector and oidvector).
func (t *pgType) isArray() bool { return t.elem != 0 && t.storage != "p" }

// FormatType renders a type as format_type(oid, typmod) does. hasTypmod is
// false for format_type(oid, NULL). An unknown OID gives "???".
func FormatType(oid int64, typmod int32, hasTypmod bool) string {
	if oid == 0 {
		return "-"
	}
	t, ok := typeByOID[oid]
	if !ok {
		return "???"
	}
	withMod := hasTypmod && typmod >= 0
	if t.isArray() {
		e, ok := typeByOID[t.elem]
		if !ok {
			return "???[]"
		}
		return formatBase(e, typmod, withMod, hasTypmod) + "[]"
	}
	return formatBase(t, typmod, withMod, hasTypmod)
}

func formatBase(t *pgType, typmod int32, withMod, modGiven bool) string {
	prec := func(name, suffix string) string {
		if withMod {
			return fmt.Sprintf("%s(%d)%s", name, typmod, suffix)
		}
		return name + suffix
	}
	switch t.oid {
	case 16:
		return "boolean"
	case 21:
		return "smallint"
	case 23:
		return "integer"
	case 20:
		return "bigint"
	case 700:
		return "real"
	case 701:
		return "double precision"
	case 1042:
		if withMod {
			return fmt.Sprintf("character(%d)", typmod-4)
		}
		if modGiven {
			return "bpchar"
		}
		return "character"
	case 1043:
		if withMod {
			return fmt.Sprintf("character varying(%d)", typmod-4)
		}
		return "character varying"
	case 1560:
		if withMod {
			return fmt.Sprintf("bit(%d)", typmod)
		}
		if modGiven {
			return `"bit"`
		}
		return "bit"
	case 1562:
		return prec("bit varying", "")
	case 1700:
		if withMod {
			m := typmod - 4
			return fmt.Sprintf("numeric(%d,%d)", (m>>16)&0xffff, int32(int16(m&0xffff)))
		}
		return "numeric"
	case 1083:
		return prec("time", " without time zone")
	case 1266:
		return prec("time", " with time zone")
	case 1114:
		return prec("timestamp", " without time zone")
	case 1184:
		return prec("timestamp", " with time zone")
	case 1186:
		if withMod {
			if p := typmod & 0xffff; p != 0xffff {
				return fmt.Sprintf("interval(%d)", p)
			}
		}
		return "interval"
	}
	return QuoteIdent(t.name)
}

// QuoteIdent quotes an identifier when PostgreSQL's quote_ident would: it
// is not all lower-case letters, digits and underscores starting with a
// letter or underscore, or it is a keyword that cannot be a bare name.
func QuoteIdent(s string) string {
	safe := s != ""
	for i := 0; i < len(s) && safe; i++ {
		c := s[i]
		safe = c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9'
	}
	if safe {
		if k, ok := keywordBy[s]; ok && k.catcode != 'U' {
			safe = false
		}
	}
	if safe {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// KeywordCategory is pg_get_keywords()'s catcode of the lower-case word
// (U unreserved, C column name, T type or function name, R reserved); ok
// is false for a word that is no keyword.
func KeywordCategory(word string) (cat byte, ok bool) {
	k, ok := keywordBy[word]
	if !ok {
		return 0, false
	}
	return k.catcode, true
}

// typeOIDByName resolves a type name as regtype input does: PostgreSQL's
// SQL spellings ("integer", "character varying", "double precision") and
// pg_type names, optionally qualified with pg_catalog, with a trailing []
// for arrays and a typmod in parentheses ignored.
func typeOIDByName(name string) (int64, bool) {
	s := strings.TrimSpace(strings.ToLower(name))
	array := false
	if strings.HasSuffix(s, "[]") {
		array, s = true, strings.TrimSpace(strings.TrimSuffix(s, "[]"))
	}
	if i := strings.IndexByte(s, '('); i >= 0 {
		if j := strings.IndexByte(s[i:], ')'); j >= 0 {
			s = strings.TrimSpace(s[:i] + s[i+j+1:])
		}
	}
	s = strings.TrimPrefix(s, "pg_catalog.")
	s = strings.Trim(s, `"`)
	s = strings.Join(strings.Fields(s), " ")
	alias := map[string]string{
		"boolean": "bool", "smallint": "int2", "integer": "int4", "int": "int4", "bigint": "int8",
		"real": "float4", "double precision": "float8", "float": "float8", "decimal": "numeric",
		"character varying": "varchar", "character": "bpchar", "char": "bpchar",
		"timestamp without time zone": "timestamp", "timestamp with time zone": "timestamptz",
		"time without time zone": "time", "time with time zone": "timetz", "bit varying": "varbit",
	}
	if a, ok := alias[s]; ok {
		s = a
	}
	t, ok := typeByName[s]
	if !ok {
		return 0, false
	}
	if array {
		if t.array == 0 {
			return 0, false
		}
		return t.array, true
	}
	return t.oid, true
}

// EncodingName is pg_encoding_to_char: the name of a PostgreSQL encoding
// number, "" for an unknown one.
func EncodingName(n int64) string {
	names := []string{"SQL_ASCII", "EUC_JP", "EUC_CN", "EUC_KR", "EUC_TW", "EUC_JIS_2004", "UTF8",
		"MULE_INTERNAL", "LATIN1", "LATIN2", "LATIN3", "LATIN4", "LATIN5", "LATIN6", "LATIN7", "LATIN8",
		"LATIN9", "LATIN10", "WIN1256", "WIN1258", "WIN866", "WIN874", "KOI8R", "WIN1251", "WIN1252",
		"ISO_8859_5", "ISO_8859_6", "ISO_8859_7", "ISO_8859_8", "WIN1250", "WIN1253", "WIN1254",
		"WIN1255", "WIN1257", "KOI8U", "SJIS", "BIG5", "GBK", "UHC", "GB18030", "JOHAB", "SHIFT_JIS_2004"}
	if n < 0 || n >= int64(len(names)) {
		return ""
	}
	return names[n]
}

// SizePretty is pg_size_pretty(bigint): bytes below 10 kB, then the
// largest of kB, MB, GB, TB, PB keeping the figure under 20480, rounded
// half away from zero.
func SizePretty(size int64) string {
	units := []struct {
		name  string
		limit int64
		round bool
		bits  uint
	}{{"bytes", 10 * 1024, false, 0}, {"kB", 20*1024 - 1, true, 10}, {"MB", 20*1024 - 1, true, 20},
		{"GB", 20*1024 - 1, true, 30}, {"TB", 20*1024 - 1, true, 40}, {"PB", 20*1024 - 1, true, 50}}
	abs := func(x int64) int64 {
		if x < 0 {
			return -x
		}
		return x
	}
	for i, u := range units {
		if i == len(units)-1 || abs(size) < u.limit {
			if u.round {
				if size < 0 {
					size = (size - 1) / 2
				} else {
					size = (size + 1) / 2
				}
			}
			return strconv.FormatInt(size, 10) + " " + u.name
		}
		next := units[i+1]
		bits := next.bits - u.bits
		if next.round {
			bits--
		}
		if u.round {
			bits++
		}
		size /= int64(1) << bits
	}
	return ""
}

// LakeTableID is the DuckLake table_id of a relation OID, when the OID is a
// lake table of c's snapshot.
func LakeTableID(c *Context, oid int64) (int64, bool) {
	if c.Meta == nil || oid < firstLakeOID {
		return 0, false
	}
	t, ok := c.Meta.TableByID(oid - firstLakeOID)
	if !ok {
		return 0, false
	}
	for _, s := range c.Meta.Schemas {
		if s.ID == t.SchemaID {
			return t.ID, true
		}
	}
	return 0, false
}

// ArrayElements parses PostgreSQL's text form of a one-dimensional array
// ("{a,"b c",NULL}"); NULL elements are reported as nil.
func ArrayElements(s string) ([]*string, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, false
	}
	body := s[1 : len(s)-1]
	var out []*string
	if strings.TrimSpace(body) == "" {
		return out, true
	}
	for i := 0; i <= len(body); {
		for i < len(body) && body[i] == ' ' {
			i++
		}
		var elem strings.Builder
		quoted := false
		if i < len(body) && body[i] == '"' {
			quoted = true
			i++
			for i < len(body) && body[i] != '"' {
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				elem.WriteByte(body[i])
				i++
			}
			if i >= len(body) {
				return nil, false
			}
			i++ // closing quote
			for i < len(body) && body[i] == ' ' {
				i++
			}
		} else {
			for i < len(body) && body[i] != ',' {
				elem.WriteByte(body[i])
				i++
			}
		}
		v := elem.String()
		if !quoted {
			v = strings.TrimSpace(v)
		}
		if !quoted && strings.EqualFold(v, "NULL") {
			out = append(out, nil)
		} else {
			out = append(out, &v)
		}
		if i < len(body) && body[i] != ',' {
			return nil, false
		}
		i++
	}
	return out, true
}

// FormatArray is PostgreSQL's text form of a one-dimensional array of
// the elements (nil: NULL), the inverse of ArrayElements.
func FormatArray(elems []*string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case e == nil:
			b.WriteString("NULL")
		case *e != "" && !strings.EqualFold(*e, "null") && !strings.ContainsAny(*e, " ,{}\"\\\t\n"):
			b.WriteString(*e)
		default:
			b.WriteByte('"')
			b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(*e))
			b.WriteByte('"')
		}
	}
	b.WriteByte('}')
	return b.String()
}

// SettingValue is current_setting(name) for settings the session does not
// keep itself (block_size, max_index_keys, ...); ok is false for others.
func SettingValue(name string) (string, bool) {
	v, ok := fixedSettings[strings.ToLower(name)]
	return v, ok
}

// TypeVisibility is pg_type_is_visible over the session's search path:
// the types of pg_catalog always are, information_schema's domains only
// where the path names that schema, a lake table's row type and its array
// where the table is (they share its schema and name). Other OIDs answer
// true.
func TypeVisibility(c *Context) func(oid int64) bool {
	info := false
	for _, s := range c.SearchPath {
		info = info || s == "information_schema"
	}
	m := newModel(c)
	relVisible := m.visibility()
	byType := map[int64]int64{}
	for _, rel := range m.rels {
		if rel.lake != nil {
			byType[rel.rowType()] = rel.oid
			byType[rowArrayOID(rel.oid)] = rel.oid
		}
	}
	return func(oid int64) bool {
		if t, ok := typeByOID[oid]; ok {
			return t.ns == 0 || info
		}
		if rel, ok := byType[oid]; ok {
			return relVisible[rel]
		}
		return true
	}
}
