package catalog

import (
	"context"
	"fmt"
	"testing"
)

// TestRoleMembers: memberships are granted (the admin option only ever
// added by a second GRANT), revoked whole or for the admin option only, and
// gone with either role when it is dropped.
func TestRoleMembers(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		db, _, _, _ := openNewOn(t, be)
		list := func() string {
			ms, err := db.RoleMembers(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(ms)
		}
		if got := list(); got != "[]" {
			t.Fatalf("before any GRANT: %s", got)
		}
		for _, r := range []string{"readers", "alice", "bob"} {
			if err := db.CreateRole(ctx, Role{Name: r}); err != nil {
				t.Fatal(err)
			}
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(db.GrantRole(ctx, RoleMember{Role: "readers", Member: "alice", Admin: true, Grantor: "admin"}))
		must(db.GrantRole(ctx, RoleMember{Role: "readers", Member: "alice"}))
		must(db.GrantRole(ctx, RoleMember{Role: "readers", Member: "bob"}))
		if got, want := list(), "[{readers alice admin true} {readers bob  false}]"; got != want {
			t.Fatalf("after GRANTs: %s, want %s", got, want)
		}
		if found, err := db.RevokeRole(ctx, "readers", "alice", true); err != nil || !found {
			t.Fatalf("REVOKE ADMIN OPTION: %v %v", found, err)
		}
		if found, err := db.RevokeRole(ctx, "readers", "nobody", false); err != nil || found {
			t.Fatalf("REVOKE of no membership: %v %v", found, err)
		}
		if got, want := list(), "[{readers alice admin false} {readers bob  false}]"; got != want {
			t.Fatalf("after REVOKE ADMIN OPTION: %s, want %s", got, want)
		}
		must(db.DropRole(ctx, "bob"))
		if got, want := list(), "[{readers alice admin false}]"; got != want {
			t.Fatalf("after DROP ROLE bob: %s, want %s", got, want)
		}
		must(db.DropRole(ctx, "readers"))
		if got := list(); got != "[]" {
			t.Fatalf("after DROP ROLE readers: %s", got)
		}
	})
}
