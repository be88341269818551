package cli

import (
	"reflect"
	"testing"
)

func TestSplitter(t *testing.T) {
	cases := []struct {
		name   string
		pieces []string
		want   []string
		rest   string
	}{
		{"two on a line", []string{"select 1; select 2;\n"}, []string{"select 1;", "select 2;"}, ""},
		{"across lines", []string{"select\n", "  1\n", ";\n"}, []string{"select\n  1\n;"}, ""},
		{"semicolon in literal", []string{"select 'a;b', 'it''s;';\n"}, []string{"select 'a;b', 'it''s;';"}, ""},
		{"literal across lines", []string{"select 'a\n", ";b';\n"}, []string{"select 'a\n;b';"}, ""},
		{"quoted identifier", []string{`select 1 as "x;y";` + "\n"}, []string{`select 1 as "x;y";`}, ""},
		{"dollar quote", []string{"select $$a;b$$, $t$ ; $t$;\n"}, []string{"select $$a;b$$, $t$ ; $t$;"}, ""},
		{"dollar quote across lines", []string{"select $body$\n", "x;\n", "$body$;\n"}, []string{"select $body$\nx;\n$body$;"}, ""},
		{"parameter is no dollar quote", []string{"select $1; select 2;\n"}, []string{"select $1;", "select 2;"}, ""},
		{"line comment", []string{"select 1 -- no; split\n", ";\n"}, []string{"select 1 -- no; split\n;"}, ""},
		{"nested block comment", []string{"select /* a /* b; */ c; */ 1;\n"}, []string{"select /* a /* b; */ c; */ 1;"}, ""},
		{"escape string", []string{`select E'a\';b';` + "\n"}, []string{`select E'a\';b';`}, ""},
		{"no escape in plain string", []string{`select 'a\'; select 2;` + "\n"}, []string{`select 'a\';`, "select 2;"}, ""},
		{"empty statements", []string{";;select 1;;\n"}, []string{"select 1;"}, ""},
		{"last without semicolon", []string{"select 1; select 2"}, []string{"select 1;"}, "select 2"},
		{"only a comment left", []string{"select 1; -- done\n"}, []string{"select 1;"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s splitter
			var got []string
			for _, p := range c.pieces {
				got = append(got, s.feed(p)...)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("statements %q, want %q", got, c.want)
			}
			if r := s.rest(); r != c.rest {
				t.Errorf("rest %q, want %q", r, c.rest)
			}
		})
	}
}

func TestSplitterEmpty(t *testing.T) {
	var s splitter
	if !s.empty() {
		t.Fatal("new splitter not empty")
	}
	s.feed("-- a comment\n")
	if !s.empty() {
		t.Error("a comment line left the splitter non-empty")
	}
	s.feed("select\n")
	if s.empty() {
		t.Error("pending SQL reported empty")
	}
	s.feed("1;\n")
	if !s.empty() {
		t.Error("finished statement left the splitter non-empty")
	}
	s.feed("select 'open\n")
	if s.empty() {
		t.Error("open literal reported empty")
	}
}
