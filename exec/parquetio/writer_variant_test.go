package parquetio

import (
	"testing"

	"github.com/parquet-go/parquet-go/variant"
)

// TestVariantEncode: json text encoded by the writer decodes back (with
// lakepg's own variant reader) to the same json, numbers in the types the
// writer picks.
func TestVariantEncode(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// a variant object keeps its fields in key order
		{`{"b": [1, "x", null, true], "a": {"c": -300}}`, `{"a": {"c": -300}, "b": [1, "x", null, true]}`},
		{`12345678901234`, `12345678901234`},
		{`2.25`, `2.25`},
		{`-0.001`, `-0.001`},
		{`-12.000`, `-12.000`},
		{`"a \"q\" ü\n"`, `"a \"q\" ü\n"`},
		{`[]`, `[]`},
		{`{}`, `{}`},
		{`false`, `false`},
	} {
		var b variant.Builder
		if err := jsonToVariant(&b, c.in); err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		meta, val, err := b.Finish()
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		m, err := parseVariantMeta(meta)
		if err != nil {
			t.Fatalf("%s: metadata: %v", c.in, err)
		}
		got, err := appendVariantJSON(nil, &m, val, 0)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: decoded %s %v, want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{`not json`, `{"a": }`, `[1, 2`, `1 2`} {
		var b variant.Builder
		if err := jsonToVariant(&b, bad); err == nil {
			t.Errorf("%q encoded", bad)
		}
	}
	if _, _, ok := decimalDigits("1.2345678901234567890"); ok {
		t.Errorf("a 20-digit decimal fits")
	}
}
