package privileges

import "testing"

func TestPrivilegesACLText(t *testing.T) {
	a := parseACLText(`{alice=arwdDxt/alice,"b c"=r*w/alice,=a/alice}`)
	if len(a) != 3 || a[1].grantee != "b c" || a[1].grants != "r" || a[2].grantee != "" {
		t.Fatalf("parsed %+v", a)
	}
	if got := formatACL(a); got != `{alice=arwdDxt/alice,"\"b c\"=r*w/alice",=a/alice}` {
		t.Fatalf("formatted %s", got)
	}
	a = aclUpdate(a, "bob", "alice", "r", true, false)
	a = aclUpdate(a, "", "alice", "a", false, false)
	if got := formatACL(a); got != `{alice=arwdDxt/alice,"\"b c\"=r*w/alice",bob=r/alice}` {
		t.Fatalf("updated %s", got)
	}
}
