package sql

import (
	"context"
	"errors"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/sql/privileges"
)

// RedactPasswords returns query with the string literal after every
// PASSWORD keyword replaced by '********', for logs
// (sql/privileges/redact.go).
func RedactPasswords(query string) string { return privileges.RedactPasswords(query) }

// PasswordVerifier turns a password into the SCRAM-SHA-256 verifier that is
// stored instead of it (sql/privileges/roles.go).
func PasswordVerifier(password string) (string, error) { return privileges.PasswordVerifier(password) }

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
