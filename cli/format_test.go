package cli

import (
	"bufio"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/types"
)

func render(t *testing.T, f Format, cols []Column, rows [][]string, tag string) string {
	t.Helper()
	var sb strings.Builder
	w := bufio.NewWriter(&sb)
	p := newPrinter(f, w, false)
	if cols != nil {
		if err := p.Columns(cols); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range rows {
		vals := make([][]byte, len(r))
		for i, v := range r {
			if v != "NULL" {
				vals[i] = []byte(v)
			}
		}
		if err := p.Row(vals); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Finish(tag, 0); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

var orderCols = []Column{{"id", types.Int32T}, {"name", types.VarcharT}, {"amount", types.Float64T}}

func TestTableFormat(t *testing.T) {
	got := render(t, FormatTable, orderCols, [][]string{{"1", "alice", "100.5"}}, "SELECT 1")
	want := `┌────┬───────┬────────┐
│ id │ name  │ amount │
├────┼───────┼────────┤
│  1 │ alice │  100.5 │
└────┴───────┴────────┘
(1 row)
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	got = render(t, FormatTable, []Column{{"n", types.Int64T}, {"s", types.TextT}}, [][]string{{"10", "a\nbb"}, {"NULL", "日本"}, {"-3", "NULL"}}, "SELECT 3")
	want = `┌────┬──────┐
│ n  │ s    │
├────┼──────┤
│ 10 │ a    │
│    │ bb   │
│    │ 日本 │
│ -3 │      │
└────┴──────┘
(3 rows)
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	if got := render(t, FormatTable, nil, nil, "CREATE TABLE"); got != "CREATE TABLE\n" {
		t.Errorf("command tag: got %q", got)
	}
}

func TestTableFormatChunks(t *testing.T) {
	var sb strings.Builder
	w := bufio.NewWriter(&sb)
	p := &tablePrinter{w: w, chunk: 2}
	p.Columns([]Column{{"x", types.Int64T}})
	for _, v := range []string{"1", "22", "333"} {
		p.Row([][]byte{[]byte(v)})
	}
	p.Finish("SELECT 3", 0)
	want := `┌────┐
│ x  │
├────┤
│  1 │
│ 22 │
└────┘
┌─────┐
│ x   │
├─────┤
│ 333 │
└─────┘
(3 rows)
`
	if sb.String() != want {
		t.Errorf("got\n%s\nwant\n%s", sb.String(), want)
	}
}

func TestCSVFormat(t *testing.T) {
	got := render(t, FormatCSV, orderCols, [][]string{{"1", "alice, jr", "100.5"}, {"2", "NULL", "NULL"}}, "SELECT 2")
	want := "id,name,amount\n1,\"alice, jr\",100.5\n2,,\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestJSONFormat(t *testing.T) {
	cols := []Column{{"id", types.Int32T}, {"name", types.TextT}, {"f", types.Float64T}, {"b", types.BoolT}}
	got := render(t, FormatJSON, cols, [][]string{{"1", `a"b`, "NaN", "t"}, {"2", "NULL", "1.5", "f"}}, "SELECT 2")
	want := "[\n  {\"id\": 1, \"name\": \"a\\\"b\", \"f\": \"NaN\", \"b\": true},\n  {\"id\": 2, \"name\": null, \"f\": 1.5, \"b\": false}\n]\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := render(t, FormatJSON, cols, nil, "SELECT 0"); got != "[]\n" {
		t.Errorf("empty: got %q", got)
	}
}
