package privileges

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/pgerr"
)

// SQLSTATEs of role management that pgerr does not name.
const (
	codeRoleExists    = "42710"
	codeRolePrivilege = "42501"
	codeRoleReserved  = "42939"
	codeRoleInUse     = "55006"
	// DROP ROLE of a role that owns objects
	codeDependentObjects = "2BP01"
)

// SCRAM parameters of new verifiers: PostgreSQL's defaults
// (scram_iterations, SCRAM_DEFAULT_SALT_LEN).
const (
	scramIterations = 4096
	scramSaltLen    = 16
)

// PasswordVerifier turns a password into the SCRAM-SHA-256 verifier that is
// stored instead of it, in PostgreSQL's format
// SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>, with a fresh
// random salt.
func PasswordVerifier(password string) (string, error) {
	salt := make([]byte, scramSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	return scramVerifier(password, salt, scramIterations)
}

func scramVerifier(password string, salt []byte, iters int) (string, error) {
	salted, err := pbkdf2.Key(sha256.New, saslPrep(password), salt, iters, sha256.Size)
	if err != nil {
		return "", err
	}
	clientKey := hmacSum(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	serverKey := hmacSum(salted, "Server Key")
	b64 := base64.StdEncoding.EncodeToString
	return "SCRAM-SHA-256$" + strconv.Itoa(iters) + ":" + b64(salt) + "$" + b64(stored[:]) + ":" + b64(serverKey), nil
}

func hmacSum(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// isSCRAMVerifier reports whether s is already a verifier, which PostgreSQL
// stores as given when it appears as a password.
func isSCRAMVerifier(s string) bool {
	rest, ok := strings.CutPrefix(s, "SCRAM-SHA-256$")
	if !ok {
		return false
	}
	params, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return false
	}
	iters, salt, ok1 := strings.Cut(params, ":")
	stored, server, ok2 := strings.Cut(keys, ":")
	if !ok1 || !ok2 {
		return false
	}
	if n, err := strconv.Atoi(iters); err != nil || n < 1 {
		return false
	}
	dec := base64.StdEncoding
	if b, err := dec.DecodeString(salt); err != nil || len(b) == 0 {
		return false
	}
	for _, k := range []string{stored, server} {
		if b, err := dec.DecodeString(k); err != nil || len(b) != sha256.Size {
			return false
		}
	}
	return true
}

// isMD5Hash is PostgreSQL's test for an MD5-hashed password.
func isMD5Hash(s string) bool {
	if len(s) != 35 || !strings.HasPrefix(s, "md5") {
		return false
	}
	for _, c := range s[3:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// roleOptions are the options of CREATE ROLE / ALTER ROLE lakepg keeps.
type roleOptions struct {
	login, superuser *bool
	passwordSet      bool
	password         *string // nil: PASSWORD NULL
}

func parseRoleOptions(opts []*pg.Node) (roleOptions, error) {
	var o roleOptions
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "password":
			o.passwordSet = true
			if d.Arg != nil {
				pw := d.Arg.GetString_().GetSval()
				o.password = &pw
			}
		case "canlogin":
			b := d.Arg.GetBoolean().GetBoolval()
			o.login = &b
		case "superuser":
			b := d.Arg.GetBoolean().GetBoolval()
			o.superuser = &b
		case "inherit":
			// Roles have no members in lakepg, so there is nothing to inherit.
		default:
			return o, pgerr.New(pgerr.FeatureNotSupported, "role option %s is not supported", roleOptionName(d.Defname))
		}
	}
	return o, nil
}

func roleOptionName(defname string) string {
	switch defname {
	case "isreplication":
		return "REPLICATION"
	case "connectionlimit":
		return "CONNECTION LIMIT"
	case "validUntil":
		return "VALID UNTIL"
	case "addroleins":
		return "IN ROLE"
	case "rolemembers":
		return "ROLE"
	case "adminmembers":
		return "ADMIN"
	}
	return strings.ToUpper(defname)
}

// verifierFor turns the PASSWORD option into what is stored: "" for NULL or
// an empty password.
func (s *State) verifierFor(o roleOptions) (string, error) {
	if o.password == nil || *o.password == "" {
		if o.password != nil {
			s.Noticef("empty string is not a valid password, clearing password")
		}
		return "", nil
	}
	pw := *o.password
	switch {
	case isSCRAMVerifier(pw):
		return pw, nil
	case isMD5Hash(pw):
		e := pgerr.New(pgerr.FeatureNotSupported, "MD5-hashed passwords are not supported")
		e.Hint = "Give the password itself, or a SCRAM-SHA-256 verifier."
		return "", e
	}
	return PasswordVerifier(pw)
}

// executeRoleStmt runs CREATE ROLE/USER, ALTER ROLE/USER and DROP ROLE/USER.
// isSuperuser: a role's own attribute when the session user is a role, else
// what the session logged in as.
func (s *State) isSuperuser(ctx context.Context) (bool, error) {
	r, ok, err := s.DB.Role(ctx, s.CurrentRole()) // SET ROLE counts (privileges.go)
	if err != nil {
		return false, err
	}
	if ok {
		return r.Superuser, nil
	}
	if s.priv.authSet {
		return s.priv.authSuper, nil
	}
	return s.Superuser(), nil
}

// mayManageRoles: anyone while no role has a password (every login is
// trusted then), afterwards superusers.
func (s *State) mayManageRoles(ctx context.Context) (bool, error) {
	has, err := s.DB.HasPasswords(ctx)
	if err != nil || !has {
		return !has, err
	}
	return s.isSuperuser(ctx)
}

func permissionDenied(what, detail string) error {
	e := pgerr.New(codeRolePrivilege, "permission denied to %s", what)
	e.Detail = detail
	return e
}

func checkRoleName(name string) error {
	if strings.HasPrefix(name, "pg_") {
		e := pgerr.New(codeRoleReserved, "role name \"%s\" is reserved", name)
		e.Detail = "Role names starting with \"pg_\" are reserved."
		return e
	}
	return nil
}

func (s *State) CreateRole(ctx context.Context, st *pg.CreateRoleStmt) (string, error) {
	if ok, err := s.mayManageRoles(ctx); err != nil {
		return "", err
	} else if !ok {
		return "", permissionDenied("create role", "Only roles with the SUPERUSER attribute may create roles.")
	}
	if err := checkRoleName(st.Role); err != nil {
		return "", err
	}
	o, err := parseRoleOptions(st.Options)
	if err != nil {
		return "", err
	}
	// CREATE USER is CREATE ROLE with LOGIN by default.
	r := catalog.Role{Name: st.Role, Login: st.StmtType == pg.RoleStmtType_ROLESTMT_USER}
	if o.login != nil {
		r.Login = *o.login
	}
	if o.superuser != nil {
		r.Superuser = *o.superuser
	}
	if o.passwordSet {
		if r.Verifier, err = s.verifierFor(o); err != nil {
			return "", err
		}
	}
	if err := s.DB.CreateRole(ctx, r); err != nil {
		if errors.Is(err, catalog.ErrRoleExists) {
			return "", pgerr.New(codeRoleExists, "role \"%s\" already exists", st.Role)
		}
		return "", err
	}
	return "CREATE ROLE", nil
}

// roleSpecName resolves a role specification to a name.
func (s *State) roleSpecName(rs *pg.RoleSpec) (string, error) {
	switch rs.GetRoletype() {
	case pg.RoleSpecType_ROLESPEC_CSTRING:
		return rs.Rolename, nil
	case pg.RoleSpecType_ROLESPEC_CURRENT_USER, pg.RoleSpecType_ROLESPEC_CURRENT_ROLE:
		return s.CurrentRole(), nil // the role SET ROLE chose
	case pg.RoleSpecType_ROLESPEC_SESSION_USER:
		return s.User, nil
	}
	return "", pgerr.New(pgerr.UndefinedObject, "role \"public\" does not exist")
}

func (s *State) AlterRole(ctx context.Context, st *pg.AlterRoleStmt) (string, error) {
	name, err := s.roleSpecName(st.Role)
	if err != nil {
		return "", err
	}
	o, err := parseRoleOptions(st.Options)
	if err != nil {
		return "", err
	}
	may, err := s.mayManageRoles(ctx)
	if err != nil {
		return "", err
	}
	// Everyone may change their own password, as in PostgreSQL.
	ownPassword := name == s.User && o.login == nil && o.superuser == nil
	if !may && !ownPassword {
		return "", permissionDenied("alter role", "Only roles with the SUPERUSER attribute may alter roles other than their own password.")
	}
	verifier := ""
	if o.passwordSet {
		if verifier, err = s.verifierFor(o); err != nil {
			return "", err
		}
	}
	err = s.DB.UpdateRole(ctx, name, func(r *catalog.Role) error {
		if o.login != nil {
			r.Login = *o.login
		}
		if o.superuser != nil {
			r.Superuser = *o.superuser
		}
		if o.passwordSet {
			r.Verifier = verifier
		}
		return nil
	})
	if errors.Is(err, catalog.ErrRoleNotFound) {
		return "", pgerr.New(pgerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	if err != nil {
		return "", err
	}
	return "ALTER ROLE", nil
}

func (s *State) DropRole(ctx context.Context, st *pg.DropRoleStmt) (string, error) {
	if ok, err := s.mayManageRoles(ctx); err != nil {
		return "", err
	} else if !ok {
		return "", permissionDenied("drop role", "Only roles with the SUPERUSER attribute may drop roles.")
	}
	for _, n := range st.Roles {
		rs := n.GetRoleSpec()
		if rs.GetRoletype() != pg.RoleSpecType_ROLESPEC_CSTRING {
			return "", pgerr.New(pgerr.SyntaxError, "cannot use special role specifier in DROP ROLE")
		}
		name := rs.Rolename
		if name == s.User {
			return "", pgerr.New(codeRoleInUse, "current user cannot be dropped")
		}
		if busy, err := s.roleHasObjects(ctx, name); err != nil { // privileges_stmt.go
			return "", err
		} else if busy {
			return "", pgerr.New(codeDependentObjects, "role \"%s\" cannot be dropped because some objects depend on it", name)
		}
		err := s.DB.DropRole(ctx, name)
		if errors.Is(err, catalog.ErrRoleNotFound) {
			if st.MissingOk {
				s.Noticef("role \"%s\" does not exist, skipping", name)
				continue
			}
			return "", pgerr.New(pgerr.UndefinedObject, "role \"%s\" does not exist", name)
		}
		if err != nil {
			return "", err
		}
	}
	return "DROP ROLE", nil
}

// CatalogRoles is pgcatalog's role loader for one statement: read at most
// once, and with verifiers only for a superuser, as only superusers may read
// pg_authid in PostgreSQL.
func (s *State) CatalogRoles() func() []catalog.Role {
	var once sync.Once
	var roles []catalog.Role
	return func() []catalog.Role {
		once.Do(func() {
			ctx := context.Background()
			rs, err := s.DB.Roles(ctx)
			if err != nil {
				s.Log().Warn("reading roles for the catalog views", "err", err)
				return
			}
			su, err := s.isSuperuser(ctx)
			if err != nil || !su {
				for i := range rs {
					rs[i].Verifier = ""
				}
			}
			roles = rs
		})
		return roles
	}
}
