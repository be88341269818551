package sql

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

// Login is what the server needs to authenticate a user.
type Login struct {
	// Trust: no role has a password, so nobody needs one.
	Trust bool
	// Verifier of the role; "" for an unknown role or one without a password.
	Verifier  string
	CanLogin  bool
	Superuser bool
}

// Login looks up how user logs in. Asked at every connection, so that
// servers sharing a catalog see each other's role changes at once.
func (e *Engine) Login(ctx context.Context, user string) (Login, error) {
	has, err := e.DB.HasPasswords(ctx)
	if err != nil {
		return Login{}, err
	}
	if !has {
		return Login{Trust: true, CanLogin: true, Superuser: true}, nil
	}
	r, ok, err := e.DB.Role(ctx, user)
	if err != nil || !ok {
		return Login{}, err
	}
	return Login{Verifier: r.Verifier, CanLogin: r.Login, Superuser: r.Superuser}, nil
}

// HasPasswords reports whether any role has a password.
func (e *Engine) HasPasswords(ctx context.Context) (bool, error) { return e.DB.HasPasswords(ctx) }

// BootstrapRole makes name a superuser that can log in with password,
// unless a role of that name exists already (then nothing changes and
// created is false: the password of an existing role is changed with ALTER
// ROLE, not by restarting the server).
func (e *Engine) BootstrapRole(ctx context.Context, name, password string) (created bool, err error) {
	if _, ok, err := e.DB.Role(ctx, name); err != nil || ok {
		return false, err
	}
	v, err := PasswordVerifier(password)
	if err != nil {
		return false, err
	}
	err = e.DB.CreateRole(ctx, catalog.Role{Name: name, Superuser: true, Login: true, Verifier: v})
	if errors.Is(err, catalog.ErrRoleExists) {
		return false, nil // another server made it a moment ago
	}
	return err == nil, err
}

// SetSuperuser records whether the session logged in as a superuser: what
// it may do when its user is not a role (a login trusted while no role had
// a password).
func (s *Session) SetSuperuser(b bool) { s.superuser = b }

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
func (s *Session) verifierFor(o roleOptions) (string, error) {
	if o.password == nil || *o.password == "" {
		if o.password != nil {
			s.notice("empty string is not a valid password, clearing password")
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
// Roles change at once, outside any transaction block: they live beside the
// lake, not in its snapshots.
func (s *Session) executeRoleStmt(ctx context.Context, n *pg.Node) (*Result, error) {
	switch x := n.Node.(type) {
	case *pg.Node_CreateRoleStmt:
		return s.createRole(ctx, x.CreateRoleStmt)
	case *pg.Node_AlterRoleStmt:
		return s.alterRole(ctx, x.AlterRoleStmt)
	case *pg.Node_DropRoleStmt:
		return s.dropRole(ctx, x.DropRoleStmt)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "statement %s is not supported yet", stmtName(n))
}

// isSuperuser: a role's own attribute when the session user is a role, else
// what the session logged in as.
func (s *Session) isSuperuser(ctx context.Context) (bool, error) {
	r, ok, err := s.eng.DB.Role(ctx, s.CurrentRole()) // SET ROLE counts (privileges.go)
	if err != nil {
		return false, err
	}
	if ok {
		return r.Superuser, nil
	}
	if s.priv.authSet {
		return s.priv.authSuper, nil
	}
	return s.superuser, nil
}

// mayManageRoles: anyone while no role has a password (every login is
// trusted then), afterwards superusers.
func (s *Session) mayManageRoles(ctx context.Context) (bool, error) {
	has, err := s.eng.DB.HasPasswords(ctx)
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

func (s *Session) createRole(ctx context.Context, st *pg.CreateRoleStmt) (*Result, error) {
	if ok, err := s.mayManageRoles(ctx); err != nil {
		return nil, err
	} else if !ok {
		return nil, permissionDenied("create role", "Only roles with the SUPERUSER attribute may create roles.")
	}
	if err := checkRoleName(st.Role); err != nil {
		return nil, err
	}
	o, err := parseRoleOptions(st.Options)
	if err != nil {
		return nil, err
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
			return nil, err
		}
	}
	if err := s.eng.DB.CreateRole(ctx, r); err != nil {
		if errors.Is(err, catalog.ErrRoleExists) {
			return nil, pgerr.New(codeRoleExists, "role \"%s\" already exists", st.Role)
		}
		return nil, err
	}
	return tagResult("CREATE ROLE"), nil
}

// roleSpecName resolves a role specification to a name.
func (s *Session) roleSpecName(rs *pg.RoleSpec) (string, error) {
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

func (s *Session) alterRole(ctx context.Context, st *pg.AlterRoleStmt) (*Result, error) {
	name, err := s.roleSpecName(st.Role)
	if err != nil {
		return nil, err
	}
	o, err := parseRoleOptions(st.Options)
	if err != nil {
		return nil, err
	}
	may, err := s.mayManageRoles(ctx)
	if err != nil {
		return nil, err
	}
	// Everyone may change their own password, as in PostgreSQL.
	ownPassword := name == s.User && o.login == nil && o.superuser == nil
	if !may && !ownPassword {
		return nil, permissionDenied("alter role", "Only roles with the SUPERUSER attribute may alter roles other than their own password.")
	}
	verifier := ""
	if o.passwordSet {
		if verifier, err = s.verifierFor(o); err != nil {
			return nil, err
		}
	}
	err = s.eng.DB.UpdateRole(ctx, name, func(r *catalog.Role) error {
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
		return nil, pgerr.New(pgerr.UndefinedObject, "role \"%s\" does not exist", name)
	}
	if err != nil {
		return nil, err
	}
	return tagResult("ALTER ROLE"), nil
}

func (s *Session) dropRole(ctx context.Context, st *pg.DropRoleStmt) (*Result, error) {
	if ok, err := s.mayManageRoles(ctx); err != nil {
		return nil, err
	} else if !ok {
		return nil, permissionDenied("drop role", "Only roles with the SUPERUSER attribute may drop roles.")
	}
	for _, n := range st.Roles {
		rs := n.GetRoleSpec()
		if rs.GetRoletype() != pg.RoleSpecType_ROLESPEC_CSTRING {
			return nil, pgerr.New(pgerr.SyntaxError, "cannot use special role specifier in DROP ROLE")
		}
		name := rs.Rolename
		if name == s.User {
			return nil, pgerr.New(codeRoleInUse, "current user cannot be dropped")
		}
		if busy, err := s.roleHasObjects(ctx, name); err != nil { // privileges_stmt.go
			return nil, err
		} else if busy {
			return nil, pgerr.New(codeDependentObjects, "role \"%s\" cannot be dropped because some objects depend on it", name)
		}
		err := s.eng.DB.DropRole(ctx, name)
		if errors.Is(err, catalog.ErrRoleNotFound) {
			if st.MissingOk {
				s.notice("role \"%s\" does not exist, skipping", name)
				continue
			}
			return nil, pgerr.New(pgerr.UndefinedObject, "role \"%s\" does not exist", name)
		}
		if err != nil {
			return nil, err
		}
	}
	return tagResult("DROP ROLE"), nil
}

// CatalogRoles is pgcatalog's role loader for one statement: read at most
// once, and with verifiers only for a superuser, as only superusers may read
// pg_authid in PostgreSQL.
func (s *Session) CatalogRoles() func() []catalog.Role {
	var once sync.Once
	var roles []catalog.Role
	return func() []catalog.Role {
		once.Do(func() {
			ctx := context.Background()
			rs, err := s.eng.DB.Roles(ctx)
			if err != nil {
				s.eng.Log.Warn("reading roles for the catalog views", "err", err)
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
