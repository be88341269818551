package catalog

import (
	"context"
	"errors"
	"testing"
)

func TestRoles(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		db, _, _, _ := openNewOn(t, be)

		// Nothing is created until the first write.
		if has, err := db.HasPasswords(ctx); err != nil || has {
			t.Fatalf("HasPasswords on a new catalog: %v %v", has, err)
		}
		if ok, err := db.tableExists(ctx, db.sql, "lakepg_role"); err != nil || ok {
			t.Fatalf("lakepg_role exists before any role: %v %v", ok, err)
		}
		if rs, err := db.Roles(ctx); err != nil || len(rs) != 0 {
			t.Fatalf("Roles: %v %v", rs, err)
		}
		if _, ok, err := db.Role(ctx, "x"); err != nil || ok {
			t.Fatalf("Role: %v %v", ok, err)
		}

		if err := db.CreateRole(ctx, Role{Name: "reader"}); err != nil {
			t.Fatal(err)
		}
		if has, err := db.HasPasswords(ctx); err != nil || has {
			t.Fatalf("HasPasswords with a role without one: %v %v", has, err)
		}
		if err := db.CreateRole(ctx, Role{Name: "admin", Superuser: true, Login: true, Verifier: "SCRAM-SHA-256$4096:x$y:z"}); err != nil {
			t.Fatal(err)
		}
		if err := db.CreateRole(ctx, Role{Name: "admin"}); !errors.Is(err, ErrRoleExists) {
			t.Fatalf("duplicate: %v", err)
		}
		if has, err := db.HasPasswords(ctx); err != nil || !has {
			t.Fatalf("HasPasswords: %v %v", has, err)
		}
		rs, err := db.Roles(ctx)
		if err != nil || len(rs) != 2 || rs[0] != (Role{Name: "admin", Superuser: true, Login: true, Verifier: "SCRAM-SHA-256$4096:x$y:z"}) ||
			rs[1] != (Role{Name: "reader"}) {
			t.Fatalf("Roles: %+v %v", rs, err)
		}

		err = db.UpdateRole(ctx, "reader", func(r *Role) error { r.Login, r.Verifier = true, "v"; return nil })
		if err != nil {
			t.Fatal(err)
		}
		if r, ok, err := db.Role(ctx, "reader"); err != nil || !ok || r != (Role{Name: "reader", Login: true, Verifier: "v"}) {
			t.Fatalf("after UpdateRole: %+v %v %v", r, ok, err)
		}
		if err := db.UpdateRole(ctx, "ghost", func(*Role) error { return nil }); !errors.Is(err, ErrRoleNotFound) {
			t.Fatalf("UpdateRole ghost: %v", err)
		}
		// An error from change leaves the role alone.
		boom := errors.New("boom")
		if err := db.UpdateRole(ctx, "reader", func(r *Role) error { r.Verifier = ""; return boom }); !errors.Is(err, boom) {
			t.Fatalf("UpdateRole with an error: %v", err)
		}
		if r, _, _ := db.Role(ctx, "reader"); r.Verifier != "v" {
			t.Fatalf("failed UpdateRole changed the role: %+v", r)
		}

		if err := db.DropRole(ctx, "admin"); err != nil {
			t.Fatal(err)
		}
		if err := db.DropRole(ctx, "admin"); !errors.Is(err, ErrRoleNotFound) {
			t.Fatalf("second DropRole: %v", err)
		}
		if err := db.UpdateRole(ctx, "reader", func(r *Role) error { r.Verifier = ""; return nil }); err != nil {
			t.Fatal(err)
		}
		if has, err := db.HasPasswords(ctx); err != nil || has {
			t.Fatalf("HasPasswords after clearing: %v %v", has, err)
		}
	})
}
