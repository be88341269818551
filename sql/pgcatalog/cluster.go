package pgcatalog

// What every PostgreSQL 15 cluster has besides the database a client is in:
// the template databases initdb makes, and the procedural languages and
// extension every database has. Tools read them unconditionally (DBeaver
// lists templates, pgJDBC's getCatalogs lists every database that allows
// connections, pgAdmin lists installed extensions), so lakepg shows the
// rows PostgreSQL would. A lake is one database: the name a client
// connected with is the lake, and no other user database is listed.

// Template databases, with the OIDs, ACL and comments initdb gives them.
var templateDatabases = []struct {
	oid         int64
	name        string
	allowConn   bool
	description string
}{
	{1, "template1", true, "default template for new databases"},
	{4, "template0", false, "unmodifiable empty database"},
}

func databaseRows(c *Context, r *rowSet) {
	row := func(oid int64, name string, template, allowConn bool) vals {
		return vals{"oid": oid, "datname": name, "datdba": superuserOID, "encoding": encodingUTF8,
			"datlocprovider": "c", "datistemplate": template, "datallowconn": allowConn, "datconnlimit": -1,
			"datfrozenxid": frozenXID, "datminmxid": 1, "dattablespace": defaultTblspc, "datcollate": "C", "datctype": "C"}
	}
	lake := row(databaseOID, c.Database, false, true)
	lake["datctype"] = "C.UTF-8" // as SHOW lc_ctype: Unicode case mapping, byte-order collation
	r.add(lake)
	owner := aclRole(UserName(c, superuserOID))
	for _, t := range templateDatabases {
		if t.name == c.Database {
			continue // connected under a template's name: that is the lake
		}
		v := row(t.oid, t.name, true, t.allowConn)
		v["datacl"] = "{=c/" + owner + "," + owner + "=CTc/" + owner + "}"
		r.add(v)
	}
}

func shdescriptionRows(c *Context, r *rowSet) {
	for _, t := range templateDatabases {
		if t.name != c.Database {
			r.add(vals{"objoid": t.oid, "classoid": int64(1262), "description": t.description})
		}
	}
}

// frozenXID is FrozenTransactionId: the lake has no transaction ids, and
// every row it shows is as visible as a frozen one.
const frozenXID = 2

// Procedural languages: PostgreSQL's three built-in ones and plpgsql,
// which initdb installs in every database (as an extension). lakepg runs
// no functions in any of them; the rows are there because tools read
// them to label functions and to offer what a database has.
const (
	plpgsqlLanguage  = 13563
	plpgsqlExtension = 13559
)

var languages = []struct {
	oid                        int64
	name                       string
	pl, trusted                bool
	handler, inline, validator int64
	description                string
}{
	{12, "internal", false, false, 0, 0, 2246, "built-in functions"},
	{13, "c", false, false, 0, 0, 2247, "dynamically-loaded C functions"},
	{14, "sql", false, true, 0, 0, 2248, "SQL-language functions"},
	{plpgsqlLanguage, "plpgsql", true, true, 13560, 13561, 13562, "PL/pgSQL procedural language"},
}

func languageRows(c *Context, r *rowSet) {
	for _, l := range languages {
		r.add(vals{"oid": l.oid, "lanname": l.name, "lanowner": superuserOID, "lanispl": l.pl,
			"lanpltrusted": l.trusted, "lanplcallfoid": l.handler, "laninline": l.inline, "lanvalidator": l.validator})
	}
}

func extensionRows(c *Context, r *rowSet) {
	r.add(vals{"oid": int64(plpgsqlExtension), "extname": "plpgsql", "extowner": superuserOID,
		"extnamespace": catalogNamespace, "extrelocatable": false, "extversion": "1.0"})
}

// availableExtensionRows lists plpgsql only: the other extensions a
// PostgreSQL server offers are the contrib packages of its host, which
// a lake has none of.
func availableExtensionRows(c *Context, r *rowSet) {
	r.add(vals{"name": "plpgsql", "default_version": "1.0", "installed_version": "1.0",
		"comment": "PL/pgSQL procedural language"})
}

// languageDescriptions are pg_description's rows for the languages and the
// plpgsql extension.
func languageDescriptions(add func(oid, classoid int64, text string)) {
	for _, l := range languages {
		add(l.oid, 2612, l.description)
	}
	add(plpgsqlExtension, 3079, "PL/pgSQL procedural language")
}
