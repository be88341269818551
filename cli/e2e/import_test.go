package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/test/testserver"
	"github.com/lakepg/lakepg/types"
)

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestImportCSV: --create infers the types, all files land in one
// snapshot, a malformed row names its file and line and commits nothing,
// --skip-bad-rows reports it and loads the rest.
func TestImportCSV(t *testing.T) {
	l := newLake(t)
	l.sh(t, nil, "CREATE SCHEMA sales")
	a := writeFile(t, filepath.Join(l.dir, "a.csv"), "id,name,amount,day,paid,at\n1,alice,10.5,2024-01-02,true,2024-01-02 10:00:00\n2,\"bob, jr\",7,2024-01-03,false,2024-01-03 11:30:00\n3,,,2024-01-04,,\n")
	b := writeFile(t, filepath.Join(l.dir, "b.csv"), "name,id,amount,day,paid,at\nzed,4,1.25,2024-02-01,t,2024-02-01 00:00:01\n")
	before := l.snapshotCount(t)
	r := run(t, l.dir, "", append(append([]string{"import"}, l.args...), "sales.orders", a, b, "--create")...)
	if r.code != 0 {
		t.Fatalf("import: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "imported 4 rows into sales.orders from 2 CSV file(s)") {
		t.Errorf("import said %q", r.stdout)
	}
	// not a terminal: plain progress lines, with rows, bytes and rate
	if !strings.Contains(r.stderr, "import: 4 rows, ") || !strings.Contains(r.stderr, "rows/s") {
		t.Errorf("progress lines: %q", r.stderr)
	}
	if after := l.snapshotCount(t); after != fmt.Sprint(atoi(t, before)+1) {
		t.Errorf("snapshots %s → %s, want one more", before, after)
	}
	got := l.sh(t, []string{"--format", "csv"},
		"SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'orders' ORDER BY ordinal_position",
		"SELECT * FROM sales.orders ORDER BY id")
	want := `column_name,data_type
id,bigint
name,text
amount,double precision
day,date
paid,boolean
at,timestamp without time zone
id,name,amount,day,paid,at
1,alice,10.5,2024-01-02,t,2024-01-02 10:00:00
2,"bob, jr",7,2024-01-03,f,2024-01-03 11:30:00
3,,,2024-01-04,,
4,zed,1.25,2024-02-01,t,2024-02-01 00:00:01
`
	if got != want {
		t.Errorf("imported table:\ngot\n%s\nwant\n%s", got, want)
	}

	// a bad value on line 3 of the second file: nothing is committed
	c := writeFile(t, filepath.Join(l.dir, "c.csv"), "id,name,amount,day,paid,at\n5,eve,5,2024-03-01,t,2024-03-01 00:00:00\n")
	bad := writeFile(t, filepath.Join(l.dir, "bad.csv"), "id,name,amount,day,paid,at\n6,fay,6,2024-03-02,t,2024-03-02 00:00:00\n7,gus,lots,2024-03-03,f,2024-03-03 00:00:00\n8,hal,8,2024-03-04,f,2024-03-04 00:00:00\n9,\"ivy\n")
	before = l.snapshotCount(t)
	r = run(t, l.dir, "", append(append([]string{"import"}, l.args...), "sales.orders", c, bad)...)
	if r.code == 0 {
		t.Fatalf("import of a bad row exited 0: %s", r.stdout)
	}
	wantErr := fmt.Sprintf(`lakepg import: %s line 3: column "amount": invalid input syntax for type double precision: "lots"; nothing was imported`, bad)
	if !strings.Contains(r.stderr, wantErr) {
		t.Errorf("error:\n%s\nwant a line\n%s", r.stderr, wantErr)
	}
	if after := l.snapshotCount(t); after != before {
		t.Errorf("a failed import changed the snapshot count %s → %s", before, after)
	}
	if got := l.sh(t, []string{"--format", "csv"}, "SELECT count(*) AS n FROM sales.orders"); got != "n\n4\n" {
		t.Errorf("rows after the failed import: %q", got)
	}

	// --skip-bad-rows: the bad value and the unterminated quote are reported, the rest loads
	r = run(t, l.dir, "", append(append([]string{"import", "--skip-bad-rows"}, l.args...), "sales.orders", c, bad)...)
	if r.code != 0 {
		t.Fatalf("import --skip-bad-rows: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, w := range []string{
		fmt.Sprintf(`skipped %s line 3: column "amount": invalid input syntax for type double precision: "lots"`, bad),
		fmt.Sprintf(`skipped %s line 5: `, bad),
	} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	if !strings.Contains(r.stdout, "imported 3 rows") || !strings.Contains(r.stdout, "skipped 2 bad row(s)") {
		t.Errorf("stdout %q", r.stdout)
	}
	if after := l.snapshotCount(t); after != fmt.Sprint(atoi(t, before)+1) {
		t.Errorf("snapshots %s → %s, want one more", before, after)
	}
	if got := l.sh(t, []string{"--format", "csv"}, "SELECT string_agg(name, ',' ORDER BY id) AS names FROM sales.orders WHERE id >= 5"); got != "names\n\"eve,fay,hal\"\n" {
		t.Errorf("rows after --skip-bad-rows: %q", got)
	}

	// a header column the table lacks
	d := writeFile(t, filepath.Join(l.dir, "d.csv"), "id,colour\n1,red\n")
	r = run(t, l.dir, "", append(append([]string{"import"}, l.args...), "sales.orders", d)...)
	if r.code == 0 || !strings.Contains(r.stderr, `column "colour" of the header is not a column of sales.orders`) {
		t.Errorf("unknown column: exit %d %q", r.code, r.stderr)
	}
}

func atoi(t *testing.T, s string) int {
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

// writeParquet writes rows (id bigint, name text) as a Parquet file.
func writeParquet(t *testing.T, path string, first, n int) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := parquetio.NewWriter(f, []parquetio.Column{{FieldID: 1, Name: "id", Type: types.Int64T}, {FieldID: 2, Name: "name", Type: types.TextT}}, parquetio.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := vec.NewBatch([]types.T{types.Int64T, types.TextT}, n)
	for i := first; i < first+n; i++ {
		b.Vecs[0].AppendInt(int64(i))
		b.Vecs[1].AppendString(fmt.Sprintf("name %d", i))
	}
	b.N = n
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestImportParquet loads Parquet files with read_parquet: --create, then
// into the existing table, embedded and through a server; one snapshot each.
func TestImportParquet(t *testing.T) {
	l := newLake(t)
	p1 := writeParquet(t, filepath.Join(l.dir, "p1.parquet"), 1, 100)
	p2 := writeParquet(t, filepath.Join(l.dir, "p2.parquet"), 101, 50)
	before := atoi(t, l.snapshotCount(t))
	r := run(t, l.dir, "", append(append([]string{"import", "--create"}, l.args...), "items", p1, p2)...)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "imported 150 rows into items from 2 Parquet file(s)") {
		t.Fatalf("import --create: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if after := atoi(t, l.snapshotCount(t)); after != before+1 {
		t.Errorf("snapshots %d → %d, want one more", before, after)
	}
	r = run(t, l.dir, "", append(append([]string{"import"}, l.args...), "items", p2)...)
	if r.code != 0 {
		t.Fatalf("import: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := l.sh(t, []string{"--format", "csv"}, "SELECT count(*) AS n, sum(id) AS s, count(DISTINCT name) AS d FROM items"); got != "n,s,d\n200,17600,150\n" {
		t.Errorf("items: %q", got)
	}

	// the same through a running server (--connect): Parquet by read_parquet,
	// CSV by COPY FROM STDIN, a bad CSV row ends the COPY with nothing written
	srv := testserver.Start(t, testserver.Binary(t), t.TempDir())
	dsn := srv.DSN()
	r = run(t, l.dir, "", "import", "--connect", dsn, "--create", "remote", p1)
	if r.code != 0 {
		t.Fatalf("import --connect --create: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	csvFile := writeFile(t, filepath.Join(l.dir, "more.csv"), "name,id\nx,1000\ny,1001\n")
	r = run(t, l.dir, "", "import", "--connect", dsn, "remote", csvFile)
	if r.code != 0 {
		t.Fatalf("import --connect CSV: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	badFile := writeFile(t, filepath.Join(l.dir, "bad.csv"), "name,id\nz,1002\nw,many\n")
	r = run(t, l.dir, "", "import", "--connect", dsn, "remote", badFile)
	if r.code == 0 || !strings.Contains(r.stderr, badFile+` line 3: column "id": invalid input syntax for type bigint: "many"`) {
		t.Errorf("import --connect of a bad row: exit %d %q", r.code, r.stderr)
	}
	r = run(t, l.dir, "", "shell", "--connect", dsn, "--format", "csv", "-c", "SELECT count(*) AS n, max(id) AS m FROM remote")
	if r.code != 0 || r.stdout != "n,m\n102,1001\n" {
		t.Errorf("remote table: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
}
