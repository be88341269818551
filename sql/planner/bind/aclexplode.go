package bind

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/types"
)

// aclexplode(aclitem[]) lists the privileges of an ACL, one row per
// grantee and privilege: (grantor, grantee, privilege_type, is_grantable).
// pgAdmin reads a table's and a schema's grants through it. The lake's
// catalog ACLs are NULL (every object keeps its owner's default
// privileges), which gives no rows, as in PostgreSQL; an ACL in
// PostgreSQL's text form ('{alice=arw/postgres,=r/postgres}') is read as
// aclitem_in reads it.

// AclPrivileges are the privilege letters of an aclitem in PostgreSQL's bit
// order, which is the order aclexplode returns them in.
var AclPrivileges = []struct {
	Letter byte
	name   string
}{
	{'a', "INSERT"}, {'r', "SELECT"}, {'w', "UPDATE"}, {'d', "DELETE"}, {'D', "TRUNCATE"},
	{'x', "REFERENCES"}, {'t', "TRIGGER"}, {'X', "EXECUTE"}, {'U', "USAGE"}, {'C', "CREATE"},
	{'T', "TEMPORARY"}, {'c', "CONNECT"}, {'s', "SET"}, {'A', "ALTER SYSTEM"},
}

// aclGrant is one privilege of one aclitem.
type aclGrant struct {
	grantor, grantee int64
	privilege        string
	grantable        bool
}

func (b *Binder) aclexplode(fc *pg.FuncCall, sc *Scope) (*Srf, error) {
	if len(fc.Args) != 1 {
		return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "function aclexplode with %d arguments does not exist", len(fc.Args)), fc.Location)
	}
	arg, err := b.Bind(fc.Args[0], sc)
	if err != nil {
		return nil, err
	}
	switch arg.Type().ID {
	case types.Text, types.Unknown, types.Array:
		if arg, err = b.Cast(arg, types.TextT, false, fc.Location); err != nil {
			return nil, err
		}
	default:
		return nil, ErrAt(noFunction("aclexplode", arg.Type().String()), fc.Location)
	}
	c, err := b.CatalogContext()
	if err != nil {
		return nil, err
	}
	f := &Srf{name: "aclexplode", args: []exec.Expr{arg}, strict: true, Record: true, Cols: []Column{
		{Name: "grantor", Type: types.Int64T}, {Name: "grantee", Type: types.Int64T},
		{Name: "privilege_type", Type: types.TextT}, {Name: "is_grantable", Type: types.BoolT}}}
	f.start = func(a []*vec.Vector, row int) (srfIter, error) {
		grants, err := parseACL(c, a[0].S[row])
		if err != nil {
			return nil, err
		}
		k := 0
		return func(outs []*vec.Vector, max int) (int, bool, error) {
			n := 0
			for ; n < max && k < len(grants); n, k = n+1, k+1 {
				g := grants[k]
				outs[0].AppendInt(g.grantor)
				outs[1].AppendInt(g.grantee)
				outs[2].AppendString(g.privilege)
				outs[3].AppendBool(g.grantable)
			}
			return n, k >= len(grants), nil
		}, nil
	}
	return f, nil
}

// parseACL reads an aclitem[] in its text form.
func parseACL(c *pgcatalog.Context, s string) ([]aclGrant, error) {
	ta, ok := parseTextArray(s)
	if !ok {
		return nil, malformedArray(s)
	}
	var out []aclGrant
	for _, e := range ta.elems {
		if e == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ACL arrays must not contain null values")
		}
		item := *e
		grantee, rest, ok := aclName(item)
		if !ok || !strings.HasPrefix(rest, "=") {
			return nil, pgerr.New(pgerr.InvalidTextRepr, "missing \"=\" sign")
		}
		privs, grantorText, _ := strings.Cut(rest[1:], "/")
		grantorName, tail, _ := aclName(grantorText)
		if strings.TrimSpace(tail) != "" {
			return nil, pgerr.New(pgerr.InvalidTextRepr, "extra garbage at the end of the ACL specification")
		}
		var granteeOID, grantorOID int64
		var err error
		if grantee != "" { // empty: PUBLIC, OID 0
			if granteeOID, err = pgcatalog.RoleOIDByName(c, quoteRole(grantee)); err != nil {
				return nil, err
			}
		}
		if grantorName == "" {
			grantorOID = 10 // aclitem_in takes the bootstrap superuser when none is given
		} else if grantorOID, err = pgcatalog.RoleOIDByName(c, quoteRole(grantorName)); err != nil {
			return nil, err
		}
		has := map[byte]bool{}
		option := map[byte]bool{}
		for i := 0; i < len(privs); i++ {
			ch := privs[i]
			known := false
			for _, p := range AclPrivileges {
				known = known || p.Letter == ch
			}
			if !known {
				return nil, pgerr.New(pgerr.InvalidTextRepr, "invalid mode character: must be one of \"arwdDxtXUCTcsA\"")
			}
			has[ch] = true
			if i+1 < len(privs) && privs[i+1] == '*' {
				option[ch] = true
				i++
			}
		}
		for _, p := range AclPrivileges {
			if has[p.Letter] {
				out = append(out, aclGrant{grantor: grantorOID, grantee: granteeOID, privilege: p.name, grantable: option[p.Letter]})
			}
		}
	}
	return out, nil
}

// aclName reads a role name at the start of s, double-quoted or bare (up
// to '=', '/' or the end), and returns it with the rest of s.
func aclName(s string) (name, rest string, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		i := strings.IndexAny(s, "=/")
		if i < 0 {
			return s, "", true
		}
		return s[:i], s[i:], true
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '"' {
			if i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			return b.String(), s[i+1:], true
		}
		b.WriteByte(s[i])
	}
	return "", "", false
}

// quoteRole quotes a role name for RoleOIDByName, which reads SQL
// identifiers, when it is not a plain lower-case one (that one is left
// bare for error messages).
func quoteRole(name string) string {
	plain := name != ""
	for _, r := range name {
		plain = plain && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
	}
	if plain {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
