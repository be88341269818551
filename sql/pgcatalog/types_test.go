package pgcatalog

import "testing"

// pg_type holds PostgreSQL 15's geometric, range and multirange types with
// their OIDs, arrays and categories, and pg_range describes the ranges.
func TestBuiltinTypes(t *testing.T) {
	c := testContext()
	got := pick(rows(t, "pg_catalog", "pg_type", c), "oid", "typname", "typtype", "typcategory", "typarray", "typnamespace")
	want := map[string]bool{
		"600|point|b|G|1017|11": true, "603|box|b|G|1020|11": true, "3904|int4range|r|R|3905|11": true,
		"3910|tstzrange|r|R|3911|11": true, "4451|int4multirange|m|R|6150|11": true,
		"13221|cardinal_number|d|N|13220|13207": true,
	}
	for _, r := range got {
		delete(want, r)
	}
	for r := range want {
		t.Errorf("pg_type has no row %s", r)
	}
	eq(t, "pg_range int4range", pick(filter(rows(t, "pg_catalog", "pg_range", c), "rngtypid", "3904"), "rngtypid", "rngsubtype", "rngmultitypid"),
		[]string{"3904|23|4451"})
	visible := TypeVisibility(c)
	if !visible(600) || visible(13221) {
		t.Errorf("pg_type_is_visible: point %v (want true), cardinal_number %v (want false)", visible(600), visible(13221))
	}
}
