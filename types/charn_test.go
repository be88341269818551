package types

import "testing"

func TestPGTypeTagRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		t      T
		tag    string
		str    string
		oid    uint32
		typmod int32
	}{
		{VarcharN(40), "varchar(40)", "character varying(40)", OIDVarchar, 44},
		{BpcharN(10), "bpchar(10)", "character(10)", OIDBpchar, 14},
		{BpcharT, "bpchar", "bpchar", OIDBpchar, -1},
		{VarcharT, "", "character varying", OIDVarchar, -1},
		{TextT, "text", "text", OIDText, -1},
	} {
		if got := PGTypeTag(tc.t); got != tc.tag {
			t.Errorf("PGTypeTag(%v) = %q, want %q", tc.t, got, tc.tag)
		}
		back := ApplyPGTypeTag(VarcharT, tc.tag)
		if back != tc.t {
			t.Errorf("ApplyPGTypeTag(varchar, %q) = %+v, want %+v", tc.tag, back, tc.t)
		}
		if back.String() != tc.str || back.OID() != tc.oid || back.Typmod() != tc.typmod {
			t.Errorf("%q: got %s oid %d typmod %d, want %s %d %d", tc.tag, back, back.OID(), back.Typmod(), tc.str, tc.oid, tc.typmod)
		}
		if dl, err := back.DuckLake(); err != nil || dl != "varchar" {
			t.Errorf("%q: DuckLake type %q, %v; want varchar", tc.tag, dl, err)
		}
	}
	// tags that do not parse, or sit on a non-text column, change nothing
	for _, bad := range []string{"varchar(x)", "bpchar(0)", "varchar(3", "int4", "varchar", "text(3)"} {
		if got := ApplyPGTypeTag(VarcharT, bad); got != VarcharT {
			t.Errorf("ApplyPGTypeTag(varchar, %q) = %+v, want varchar", bad, got)
		}
	}
	if got := ApplyPGTypeTag(Int32T, "varchar(3)"); got != Int32T {
		t.Errorf("tag on an int column applied: %+v", got)
	}
}

func TestBpcharPadTrim(t *testing.T) {
	if got := PadBpchar("é", 3); got != "é  " {
		t.Errorf("PadBpchar = %q", got)
	}
	if got := PadBpchar("abcd", 3); got != "abcd" {
		t.Errorf("PadBpchar longer = %q", got)
	}
	if got := TrimBpchar(" a  "); got != " a" {
		t.Errorf("TrimBpchar = %q", got)
	}
	if ft, ok := FromOID(OIDBpchar); !ok || ft != BpcharT {
		t.Errorf("FromOID(bpchar) = %+v, %v", ft, ok)
	}
}
