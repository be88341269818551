package sql

import (
	"context"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

// verifierRE is PostgreSQL's stored form of a SCRAM-SHA-256 password.
var verifierRE = regexp.MustCompile(`^SCRAM-SHA-256\$4096:[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=$`)

func wantCode(t *testing.T, what string, err error, code, msg string) {
	t.Helper()
	pe, ok := pgerr.As(err)
	if !ok || pe.Code != code || (msg != "" && pe.Message != msg) {
		t.Errorf("%s: got %v, want %s %q", what, err, code, msg)
	}
}

func TestRoleStatements(t *testing.T) {
	s := lake(t)
	s.SetSuperuser(true) // as the server says of a trusted login
	ctx := context.Background()
	var notices []Notice
	s.SetNoticeHandler(func(n Notice) { notices = append(notices, n) })

	if l, err := s.eng.Login(ctx, "anyone"); err != nil || !l.Trust {
		t.Fatalf("no roles yet: %+v %v", l, err)
	}
	for _, q := range []string{
		"CREATE ROLE reader",
		"CREATE USER writer WITH PASSWORD 'w pw'",
		"CREATE ROLE boss WITH SUPERUSER LOGIN ENCRYPTED PASSWORD 'b'",
	} {
		if _, tag, err := run(t, s, q); err != nil || tag != "CREATE ROLE" {
			t.Fatalf("%s: %q %v", q, tag, err)
		}
	}
	roles, err := s.eng.DB.Roles(ctx)
	if err != nil || len(roles) != 3 {
		t.Fatalf("roles %+v %v", roles, err)
	}
	byName := map[string]int{}
	for i, r := range roles {
		byName[r.Name] = i
	}
	reader, writer, boss := roles[byName["reader"]], roles[byName["writer"]], roles[byName["boss"]]
	if reader.Login || reader.Superuser || reader.Verifier != "" {
		t.Errorf("reader %+v", reader)
	}
	if !writer.Login || writer.Superuser || !verifierRE.MatchString(writer.Verifier) {
		t.Errorf("writer %+v", writer)
	}
	if !boss.Login || !boss.Superuser || !verifierRE.MatchString(boss.Verifier) {
		t.Errorf("boss %+v", boss)
	}
	// Passwords exist now: logins need them.
	if l, err := s.eng.Login(ctx, "writer"); err != nil || l.Trust || l.Verifier != writer.Verifier || !l.CanLogin || l.Superuser {
		t.Errorf("Login(writer) %+v %v", l, err)
	}
	if l, err := s.eng.Login(ctx, "nobody"); err != nil || l.Trust || l.Verifier != "" {
		t.Errorf("Login(nobody) %+v %v", l, err)
	}

	// An already-hashed verifier is stored as given.
	v := "SCRAM-SHA-256$4096:" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef")) + "$" +
		base64.StdEncoding.EncodeToString(make([]byte, 32)) + ":" + base64.StdEncoding.EncodeToString(make([]byte, 32))
	if _, _, err := run(t, s, "ALTER ROLE reader LOGIN PASSWORD '"+v+"'"); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := s.eng.DB.Role(ctx, "reader"); r.Verifier != v || !r.Login {
		t.Errorf("reader after ALTER %+v", r)
	}
	// A new password gets a new salt.
	run(t, s, "ALTER USER writer WITH PASSWORD 'w pw'")
	if r, _, _ := s.eng.DB.Role(ctx, "writer"); r.Verifier == writer.Verifier || !verifierRE.MatchString(r.Verifier) {
		t.Errorf("writer after ALTER: %q", r.Verifier)
	}
	// PASSWORD NULL and '' clear; '' says so.
	notices = nil
	run(t, s, "ALTER ROLE reader PASSWORD NULL")
	run(t, s, "ALTER ROLE writer PASSWORD ''")
	for _, name := range []string{"reader", "writer"} {
		if r, _, _ := s.eng.DB.Role(ctx, name); r.Verifier != "" {
			t.Errorf("%s keeps a password", name)
		}
	}
	if len(notices) != 1 || notices[0].Message != "empty string is not a valid password, clearing password" || notices[0].Code != "00000" {
		t.Errorf("notices %+v", notices)
	}

	_, _, err = run(t, s, "CREATE ROLE boss")
	wantCode(t, "duplicate", err, "42710", `role "boss" already exists`)
	_, _, err = run(t, s, "CREATE ROLE pg_mine")
	wantCode(t, "reserved", err, "42939", `role name "pg_mine" is reserved`)
	_, _, err = run(t, s, "ALTER ROLE ghost PASSWORD 'x'")
	wantCode(t, "alter missing", err, "42704", `role "ghost" does not exist`)
	_, _, err = run(t, s, "DROP ROLE ghost")
	wantCode(t, "drop missing", err, "42704", `role "ghost" does not exist`)
	_, _, err = run(t, s, "CREATE ROLE x CREATEDB")
	wantCode(t, "createdb", err, "0A000", "role option CREATEDB is not supported")
	_, _, err = run(t, s, "CREATE ROLE x PASSWORD 'md5"+strings.Repeat("a", 32)+"'")
	wantCode(t, "md5", err, "0A000", "MD5-hashed passwords are not supported")

	notices = nil
	if _, tag, err := run(t, s, "DROP ROLE IF EXISTS ghost, reader"); err != nil || tag != "DROP ROLE" {
		t.Fatalf("drop: %q %v", tag, err)
	}
	if len(notices) != 1 || notices[0].Message != `role "ghost" does not exist, skipping` {
		t.Errorf("notices %+v", notices)
	}
	if _, ok, _ := s.eng.DB.Role(ctx, "reader"); ok {
		t.Error("reader survived DROP ROLE")
	}
}

func TestRolePrivileges(t *testing.T) {
	admin := lake(t)
	// A trusted login: superuser, and not a role.
	admin.SetSuperuser(true)
	for _, q := range []string{"CREATE ROLE boss SUPERUSER LOGIN PASSWORD 'b'", "CREATE USER plain PASSWORD 'p'", "CREATE USER other PASSWORD 'o'"} {
		if _, _, err := run(t, admin, q); err != nil {
			t.Fatal(err)
		}
	}
	// The trusted superuser session keeps its rights after passwords exist.
	if _, _, err := run(t, admin, "CREATE ROLE more"); err != nil {
		t.Errorf("trusted superuser: %v", err)
	}
	plain, err := admin.eng.NewSession("plain", "lake", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = run(t, plain, "CREATE ROLE x")
	wantCode(t, "plain creates", err, "42501", "permission denied to create role")
	_, _, err = run(t, plain, "DROP ROLE other")
	wantCode(t, "plain drops", err, "42501", "permission denied to drop role")
	_, _, err = run(t, plain, "ALTER ROLE other PASSWORD 'mine now'")
	wantCode(t, "plain alters other", err, "42501", "permission denied to alter role")
	_, _, err = run(t, plain, "ALTER ROLE plain SUPERUSER")
	wantCode(t, "plain promotes itself", err, "42501", "permission denied to alter role")
	if _, _, err := run(t, plain, "ALTER ROLE CURRENT_USER PASSWORD 'p2'"); err != nil {
		t.Errorf("own password: %v", err)
	}
	// pg_authid shows verifiers to superusers only.
	rows, _, err := run(t, plain, "SELECT rolname, rolpassword IS NULL FROM pg_authid WHERE rolname IN ('boss', 'plain') ORDER BY 1")
	if err != nil || strings.Join(rows, ";") != "boss|t;plain|t" {
		t.Errorf("pg_authid for plain: %q %v", rows, err)
	}
	boss, _ := admin.eng.NewSession("boss", "lake", nil)
	rows, _, err = run(t, boss, "SELECT rolname, rolpassword LIKE 'SCRAM-SHA-256$4096:%' FROM pg_authid WHERE rolname IN ('boss', 'plain') ORDER BY 1")
	if err != nil || strings.Join(rows, ";") != "boss|t;plain|t" {
		t.Errorf("pg_authid for boss: %q %v", rows, err)
	}
	rows, _, err = run(t, boss, "SELECT usename, usesuper FROM pg_user ORDER BY 1")
	if err != nil || strings.Join(rows, ";") != "boss|t;other|f;plain|f" {
		t.Errorf("pg_user: %q %v", rows, err)
	}
	rows, _, err = run(t, boss, "SELECT current_user, session_user, pg_get_userbyid(oid) FROM pg_roles WHERE rolname = 'more'")
	if err != nil || strings.Join(rows, ";") != "boss|boss|more" {
		t.Errorf("current_user: %q %v", rows, err)
	}
	if _, _, err := run(t, boss, "DROP ROLE other"); err != nil {
		t.Errorf("boss drops: %v", err)
	}
	_, _, err = run(t, boss, "DROP ROLE boss")
	wantCode(t, "drop self", err, "55006", "current user cannot be dropped")
}

func TestNoticesAndClientMinMessages(t *testing.T) {
	s := lake(t)
	var got []string
	s.SetNoticeHandler(func(n Notice) { got = append(got, n.Severity+" "+n.Code+" "+n.Message) })
	run(t, s, "DROP TABLE IF EXISTS missing")
	run(t, s, "DROP TABLE IF EXISTS nosuchschema.t")
	run(t, s, "DROP SCHEMA IF EXISTS nope")
	run(t, s, "CREATE SCHEMA IF NOT EXISTS public")
	want := []string{
		`NOTICE 00000 table "missing" does not exist, skipping`,
		`NOTICE 00000 schema "nosuchschema" does not exist, skipping`,
		`NOTICE 00000 schema "nope" does not exist, skipping`,
		`NOTICE 00000 schema "public" already exists, skipping`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("notices:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = nil
	run(t, s, "SET client_min_messages = warning")
	run(t, s, "DROP TABLE IF EXISTS missing")
	if len(got) != 0 {
		t.Errorf("client_min_messages=warning let through %q", got)
	}
	for _, c := range []struct {
		sev, min string
		want     bool
	}{
		{"NOTICE", "notice", true}, {"WARNING", "notice", true}, {"NOTICE", "warning", false},
		{"INFO", "error", true}, {"LOG", "notice", false}, {"LOG", "debug1", true}, {"DEBUG", "log", false},
		{"NOTICE", "bogus", true},
	} {
		if got := wanted(c.sev, c.min); got != c.want {
			t.Errorf("wanted(%s, %s) = %v", c.sev, c.min, got)
		}
	}
}
