package tablelayout

import "testing"

// TestPartitionDDLRewrite: DuckDB's SET/RESET PARTITIONED BY becomes the storage-parameter
// form PostgreSQL's grammar parses, wherever it is in a multi-statement query, and nothing
// else is touched.
func TestPartitionDDLRewrite(t *testing.T) {
	cases := []struct{ in, want string }{
		{`ALTER TABLE t SET PARTITIONED BY (year(ts), region)`, `ALTER TABLE t SET (lakepg.partitioned_by = 'year(ts), region')`},
		{`alter table if exists s."T" set  partitioned  by (bucket(4, id)); SELECT 'set partitioned by (x)'`,
			`alter table if exists s."T" SET (lakepg.partitioned_by = 'bucket(4, id)'); SELECT 'set partitioned by (x)'`},
		{`ALTER TABLE t RESET PARTITIONED BY; ALTER TABLE u /* c */ SET PARTITIONED BY ("it's")`,
			`ALTER TABLE t RESET (lakepg.partitioned_by); ALTER TABLE u /* c */ SET (lakepg.partitioned_by = '"it''s"')`},
	}
	for _, c := range cases {
		got, ok := RewritePartitionDDL(c.in)
		if !ok || got != c.want {
			t.Errorf("rewrite %q\n got %q (%v)\nwant %q", c.in, got, ok, c.want)
		}
	}
	for _, q := range []string{`SELECT 'partitioned'`, `UPDATE t SET partitioned = 1`, `SELECT partitioned FROM t`} {
		if got, ok := RewritePartitionDDL(q); ok {
			t.Errorf("rewrite %q changed it to %q", q, got)
		}
	}
}
