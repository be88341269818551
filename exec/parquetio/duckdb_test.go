package parquetio

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// TestDuckDBReadsOurFiles has the real DuckDB (Python package, installed by
// the project's test setup) read files our Writer produced: the schema must
// carry the field ids and types DuckLake expects, and every value must come
// back as written. Skipped where DuckDB is not installed.
func TestDuckDBReadsOurFiles(t *testing.T) {
	if err := exec.Command("python3", "-c", "import duckdb").Run(); err != nil {
		t.Fatal("python3 with duckdb 1.5.5 is not available: run make test, which installs it")
	}
	dir := t.TempDir()
	gens := allTypeGens()
	const n = 3000
	data, _ := writeRows(t, allTypeCols, gens, n, 500, WriterOptions{RowGroupRows: 1000})
	dataPath := filepath.Join(dir, "data.parquet")
	if err := os.WriteFile(dataPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var del bytes.Buffer
	if _, err := WriteDeleteFile(&del, dataPath, []int64{1, 5, 2999}); err != nil {
		t.Fatal(err)
	}
	ivCols := []Column{{FieldID: 7, Name: "iv", Type: types.IntervalT}}
	ivs := []cell{types.IntervalValue{Days: 1, Micros: 1_000_000}, nil, types.IntervalValue{Months: 14, Days: 3, Micros: 4*types.MicrosPerHour + 5_500_000}}
	ivData, _ := writeRows(t, ivCols, []genFunc{func(i int) cell { return ivs[i] }}, len(ivs), 10, WriterOptions{})
	ivPath := filepath.Join(dir, "iv.parquet")
	if err := os.WriteFile(ivPath, ivData, 0o644); err != nil {
		t.Fatal(err)
	}
	delPath := filepath.Join(dir, "delete.parquet")
	if err := os.WriteFile(delPath, del.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	script := `
import duckdb, sys
c = duckdb.connect()
# no progress bar on stdout when a query runs long on a busy machine
c.execute("SET enable_progress_bar=false")
try:
    c.sql("SET TimeZone='UTC'")
except Exception:
    pass
d, dl = sys.argv[1], sys.argv[2]
for r in c.sql(f"select name, field_id, type, logical_type, repetition_type from parquet_schema('{d}') where name <> 'duckdb_schema'").fetchall():
    print("S", *r, sep="|")
cols = [r[0] for r in c.sql(f"describe select * from '{d}'").fetchall()]
q = ", ".join(f"coalesce(cast(\"{x}\" as varchar), 'NULL')" for x in cols)
for r in c.sql(f"select {q} from '{d}'").fetchall():
    print("R", *r, sep="\x1f")
for r in c.sql(f"select field_id, name from parquet_schema('{dl}') where name <> 'duckdb_schema'").fetchall():
    print("D", *r, sep="|")
print("P", *[r[0] for r in c.sql(f"select pos from '{dl}' order by pos").fetchall()], sep="|")
print("M", *c.sql(f"select count(*), sum(row_group_num_rows) from parquet_metadata('{d}') where column_id = 0").fetchone(), sep="|")
print("I", *[r[0] for r in c.sql(f"select coalesce(cast(iv as varchar), 'NULL') from '{sys.argv[3]}'").fetchall()], sep="|")
`
	out, err := exec.Command("python3", "-c", script, dataPath, delPath, ivPath).CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, out)
	}
	var schema, rows []string
	other := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		switch line[0] {
		case 'S':
			schema = append(schema, line[2:])
		case 'R':
			rows = append(rows, line[2:])
		default:
			other[line[:1]] += line[2:] + ";"
		}
	}
	wantSchema := map[string]string{
		"b": "11|BOOLEAN", "i16": "12|INT32", "i32": "13|INT32", "i64": "14|INT64", "f32": "15|FLOAT",
		"f64": "16|DOUBLE", "d9": "17|INT32", "d18": "18|INT64", "s": "19|BYTE_ARRAY", "bl": "20|BYTE_ARRAY",
		"dt": "21|INT32", "ts": "22|INT64", "tz": "23|INT64", "u": "24|FIXED_LEN_BYTE_ARRAY",
	}
	if len(schema) != len(allTypeCols) {
		t.Fatalf("schema %v", schema)
	}
	for i, s := range schema {
		f := strings.Split(s, "|")
		if f[0] != allTypeCols[i].Name || f[1]+"|"+f[2] != wantSchema[f[0]] || f[4] != "OPTIONAL" {
			t.Errorf("schema %d: %s", i, s)
		}
	}
	if len(rows) != n {
		t.Fatalf("DuckDB read %d rows", len(rows))
	}
	for i, line := range rows {
		got := strings.Split(line, "\x1f")
		for c, col := range allTypeCols {
			v := vec.New(col.Type, 1)
			appendCell(v, gens[c](i))
			want := "NULL"
			if !v.IsNull(0) {
				want = duckText(col.Type, v, 0)
				if col.Type.ID == types.UUID || col.Type.ID == types.Timestamptz {
					// DuckDB's own spellings: canonical uuid; '+00' zone.
					want, _ = StatText(col.Type, v, 0)
				}
			}
			if got[c] != want {
				t.Fatalf("row %d %s: DuckDB %q, wrote %q", i, col.Name, got[c], want)
			}
		}
	}
	if other["D"] != "2147483646|file_path;2147483645|pos;" || other["P"] != "1|5|2999;" {
		t.Errorf("delete file as DuckDB sees it: %v", other)
	}
	if other["I"] != "1 day 00:00:01|NULL|1 year 2 months 3 days 04:00:05.5;" {
		t.Errorf("intervals as DuckDB reads them: %q", other["I"])
	}
	if other["M"] != "3|3000;" {
		t.Errorf("row groups: %v", other["M"])
	}
}
