package parquetio

import "testing"

// TestVariantJSON decodes hand-built values of Parquet's variant encoding.
func TestVariantJSON(t *testing.T) {
	// metadata: version 1, offsets of 1 byte, keys "a", "bc"
	meta := []byte{0x01, 2, 0, 1, 3, 'a', 'b', 'c'}
	m, err := parseVariantMeta(meta)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		v    []byte
		want string
	}{
		{[]byte{0x00}, `null`},
		{[]byte{1 << 2}, `true`},
		{[]byte{3 << 2, 0xfe}, `-2`},
		{[]byte{5 << 2, 0x40, 0xe2, 0x01, 0x00}, `123456`},
		{[]byte{8 << 2, 2, 0x39, 0x30, 0, 0}, `123.45`},
		{[]byte{8 << 2, 3, 0xff, 0xff, 0xff, 0xff}, `-0.001`},
		{[]byte{11 << 2, 0x01, 0, 0, 0}, `"1970-01-02"`},
		{append([]byte{2<<2 | 1}, "hi"...), `"hi"`},
		{append([]byte{16 << 2, 3, 0, 0, 0}, `a"b`...), `"a\"b"`},
		// object {bc: 1, a: "x"}: 1-byte ids and offsets
		{[]byte{2, 2, 1, 0, 0, 2, 4, 3 << 2, 1, 1<<2 | 1, 'x'}, `{"bc": 1, "a": "x"}`},
		// array [true, null]
		{[]byte{3, 2, 0, 1, 2, 1 << 2, 0}, `[true, null]`},
	}
	for _, c := range cases {
		got, err := appendVariantJSON(nil, &m, c.v, 0)
		if err != nil || string(got) != c.want {
			t.Errorf("% x: %s %v, want %s", c.v, got, err, c.want)
		}
	}
	for _, bad := range [][]byte{{}, {2, 9}, {3, 5, 0}, {16 << 2, 9, 0, 0, 0}, {63 << 2}} {
		if _, err := appendVariantJSON(nil, &m, bad, 0); err == nil {
			t.Errorf("% x decoded", bad)
		}
	}
}

func FuzzVariantJSON(f *testing.F) {
	f.Add([]byte{0x01, 2, 0, 1, 3, 'a', 'b', 'c'}, []byte{2, 2, 1, 0, 0, 2, 4, 3 << 2, 1, 1<<2 | 1, 'x'})
	f.Add([]byte{0x01, 0, 0}, []byte{3, 2, 0, 1, 2, 1 << 2, 0})
	f.Fuzz(func(t *testing.T, meta, v []byte) {
		m, err := parseVariantMeta(meta)
		if err != nil {
			return
		}
		_, _ = appendVariantJSON(nil, &m, v, 0)
	})
}
