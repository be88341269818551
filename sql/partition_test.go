package sql

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// catalogRows runs a query on the catalog database and returns "a|b" lines.
func catalogRows(t *testing.T, s *Session, q string) []string {
	t.Helper()
	db := s.eng.DB
	rows, err := db.SQL().QueryContext(context.Background(), db.Rebind(q))
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var cells []string
		for _, v := range vals {
			switch x := v.(type) {
			case nil:
				cells = append(cells, "NULL")
			case []byte:
				cells = append(cells, string(x))
			default:
				cells = append(cells, fmt.Sprint(x))
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return out
}

// explainFiles is the "Files:" line of EXPLAIN q.
func explainFiles(t *testing.T, s *Session, q string) string {
	t.Helper()
	rows, _, err := run(t, s, "EXPLAIN "+q)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", q, err)
	}
	for _, r := range rows {
		if f := strings.TrimSpace(r); strings.HasPrefix(f, "Files:") {
			return f
		}
	}
	t.Fatalf("EXPLAIN %s: no Files line in %q", q, rows)
	return ""
}

// TestPartitionedTable: SET PARTITIONED BY writes the catalog rows DuckDB writes; INSERT and
// UPDATE split rows into hive directories with one partition value row per key; queries prune
// files by partition values with the same answers as without; changing or resetting the
// keys keeps old files readable; merge_adjacent_files merges only within a partition.
func TestPartitionedTable(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE p (id integer, ts timestamp, region text, amount numeric(10,2))`)
	must(t, s, `ALTER TABLE p SET PARTITIONED BY (year(ts), month(ts), region)`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "altered_table:2")
	// the same keys again: nothing to do, no snapshot
	must(t, s, `ALTER TABLE p SET PARTITIONED BY (year(ts), month(ts), region)`)
	must(t, s, `SELECT count(*) FROM lakepg.snapshots`, "3")
	mustFail(t, s, `ALTER TABLE p DROP COLUMN region`, "42P16")
	mustFail(t, s, `ALTER TABLE p SET PARTITIONED BY (nope)`, "42703")
	mustFail(t, s, `ALTER TABLE p SET PARTITIONED BY (lower(region))`, "0A000")
	mustFail(t, s, `ALTER TABLE p SET PARTITIONED BY (year(region))`, "42804")
	mustFail(t, s, `ALTER TABLE p SET PARTITIONED BY (bucket(0, id))`, "22023")
	mustFail(t, s, `ALTER TABLE p SET (fillfactor = 70)`, "0A000")
	must(t, s, `SELECT count(*) FROM lakepg.snapshots`, "3")
	if got := catalogRows(t, s, `SELECT pi.partition_id, pi.begin_snapshot, pi.end_snapshot, pc.partition_key_index, pc.column_id, pc.transform
		FROM ducklake_partition_info pi JOIN ducklake_partition_column pc USING (partition_id) ORDER BY 4`); strings.Join(got, ";") !=
		"3|2|NULL|0|2|year;3|2|NULL|1|2|month;3|2|NULL|2|3|identity" {
		t.Errorf("partition rows: %q", got)
	}
	if got := catalogRows(t, s, `SELECT schema_version, next_catalog_id FROM ducklake_snapshot ORDER BY snapshot_id DESC LIMIT 1`); got[0] != "2|4" {
		t.Errorf("snapshot after SET PARTITIONED BY: schema_version|next_catalog_id = %s, want 2|4", got[0])
	}

	must(t, s, `INSERT INTO p SELECT i, TIMESTAMP '2024-01-01' + i * interval '100 hours',
		CASE WHEN i % 5 = 0 THEN NULL ELSE 'r' || (i % 3)::text END, i / 4.0 FROM generate_series(0, 199) i`)
	files := catalogRows(t, s, `SELECT count(*), count(DISTINCT partition_id) FROM ducklake_data_file`)
	// one file per (year, month, region) value set the rows have
	must(t, s, `SELECT count(*) FROM (SELECT DISTINCT extract(year FROM ts), extract(month FROM ts), region FROM p) x`, strings.Split(files[0], "|")[0])
	if got := catalogRows(t, s, `SELECT count(*) FROM ducklake_data_file WHERE partition_id = 3`); got[0] != strings.Split(files[0], "|")[0] {
		t.Errorf("files with partition_id 3: %s of %s", got[0], files[0])
	}
	// every file: its hive directory and its three values agree with its rows
	for _, r := range catalogRows(t, s, `SELECT df.path, y.partition_value, m.partition_value, coalesce(g.partition_value, 'NULL')
		FROM ducklake_data_file df
		JOIN ducklake_file_partition_value y ON y.data_file_id = df.data_file_id AND y.partition_key_index = 0
		JOIN ducklake_file_partition_value m ON m.data_file_id = df.data_file_id AND m.partition_key_index = 1
		JOIN ducklake_file_partition_value g ON g.data_file_id = df.data_file_id AND g.partition_key_index = 2`) {
		f := strings.Split(r, "|")
		region := f[3]
		dir := "year=" + f[1] + "/month=" + f[2] + "/region=" + region + "/"
		if region == "NULL" {
			dir = "year=" + f[1] + "/month=" + f[2] + "/region=__HIVE_DEFAULT_PARTITION__/"
		}
		if !strings.HasPrefix(f[0], dir) || !strings.HasSuffix(f[0], ".parquet") {
			t.Errorf("file %s has values %s", f[0], dir)
		}
	}

	queries := []string{
		`SELECT count(*), sum(amount) FROM p WHERE ts >= '2024-06-01' AND ts < '2024-08-01'`,
		`SELECT count(*), sum(amount) FROM p WHERE region = 'r1'`,
		`SELECT count(*), sum(amount) FROM p WHERE region IN ('r0', 'r2') AND ts > '2025-01-01'`,
		`SELECT count(*) FROM p WHERE ts = '2024-01-05 04:00:00'`,
		`SELECT count(*) FROM p WHERE region IS NULL`,
	}
	answers := make([][]string, len(queries))
	for i, q := range queries {
		answers[i], _, _ = run(t, s, q)
	}
	for _, q := range queries[:4] {
		if f := explainFiles(t, s, q); !strings.Contains(f, "by partition values") {
			t.Errorf("EXPLAIN %s: %s, want files pruned by partition values", q, f)
		}
	}
	must(t, s, `SET lakepg.partition_pruning = off`)
	for i, q := range queries {
		must(t, s, q, answers[i]...)
		if f := explainFiles(t, s, q); strings.Contains(f, "by partition values") {
			t.Errorf("pruning off: EXPLAIN %s: %s", q, f)
		}
	}
	must(t, s, `RESET lakepg.partition_pruning`)

	// UPDATE moves rows between partitions: the new versions go to their new directories
	must(t, s, `UPDATE p SET region = 'moved', ts = ts + interval '1 year' WHERE id < 10`)
	must(t, s, `SELECT count(*) FROM p WHERE region = 'moved' AND ts >= '2025-01-01'`, "10")
	if got := catalogRows(t, s, `SELECT count(*) FROM ducklake_data_file df JOIN ducklake_file_partition_value v
		ON v.data_file_id = df.data_file_id AND v.partition_key_index = 2 WHERE v.partition_value = 'moved' AND df.path LIKE 'year=2025/month=1/region=moved/%'`); got[0] != "1" {
		t.Errorf("files of the moved rows: %s", got)
	}
	for i, q := range queries[:1] {
		must(t, s, q, answers[i]...)
	}

	r1, _, _ := run(t, s, `SELECT count(*) FROM p WHERE region = 'r1'`)

	// new keys: old files keep theirs and stay readable and prunable
	must(t, s, `ALTER TABLE p SET PARTITIONED BY (bucket(4, id))`)
	must(t, s, `INSERT INTO p SELECT i, TIMESTAMP '2030-01-01', 'late', 1 FROM generate_series(1000, 1019) i`)
	if got := catalogRows(t, s, `SELECT count(DISTINCT path) FROM ducklake_data_file WHERE partition_id = 4 AND path LIKE 'bucket=_/%'`); got[0] != "4" {
		t.Errorf("bucket files: %s", got)
	}
	must(t, s, `SELECT count(*) FROM p`, "220")
	must(t, s, `SELECT id, region FROM p WHERE id = 1007`, "1007|late")
	if f := explainFiles(t, s, `SELECT * FROM p WHERE id = 1007`); !strings.Contains(f, "by partition values") {
		t.Errorf("bucket pruning: %s", f)
	}
	must(t, s, `SELECT count(*) FROM p WHERE region = 'r1'`, r1...)
	if f := explainFiles(t, s, `SELECT count(*) FROM p WHERE region = 'r1'`); !strings.Contains(f, "by partition values") {
		t.Errorf("old files after new keys: %s", f)
	}
	must(t, s, `ALTER TABLE p RESET PARTITIONED BY`)
	if got := catalogRows(t, s, `SELECT partition_id, end_snapshot IS NULL, (SELECT count(*) FROM ducklake_partition_column pc WHERE pc.partition_id = pi.partition_id)
		FROM ducklake_partition_info pi ORDER BY 1`); strings.Join(got, ";") != "3|0|3;4|0|1;5|1|0" {
		t.Errorf("partition_info after RESET: %q", got)
	}
	must(t, s, `ALTER TABLE p RESET PARTITIONED BY`) // nothing to reset: no snapshot
	must(t, s, `INSERT INTO p VALUES (2000, '2031-01-01', 'flat', 1), (2001, NULL, NULL, NULL)`)
	if got := catalogRows(t, s, `SELECT path NOT LIKE '%/%', partition_id IS NULL FROM ducklake_data_file ORDER BY data_file_id DESC LIMIT 1`); got[0] != "1|1" {
		t.Errorf("file after RESET: %s", got)
	}
	must(t, s, `SELECT count(*) FROM p`, "222")
}

// TestPartitionedMerge: merge_adjacent_files merges small files of one partition only; the
// merged file stays in the partition's directory with its partition values, and every
// snapshot reads what it read before.
func TestPartitionedMerge(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE m (id integer, g text)`)
	must(t, s, `ALTER TABLE m SET PARTITIONED BY (g)`)
	for i := 0; i < 3; i++ {
		must(t, s, fmt.Sprintf(`INSERT INTO m SELECT i, CASE WHEN i %% 2 = 0 THEN 'a' ELSE 'b' END FROM generate_series(%d, %d) i`, i*10, i*10+9))
	}
	must(t, s, `INSERT INTO m VALUES (100, NULL), (101, NULL)`)
	must(t, s, `INSERT INTO m VALUES (102, NULL)`)
	before, _, _ := run(t, s, `SELECT g, count(*), sum(id) FROM m GROUP BY g ORDER BY g`)
	old, _, _ := run(t, s, `SELECT count(*) FROM lakepg.at_version('m', 4)`)
	must(t, s, `CALL ducklake_merge_adjacent_files('lake', 'public.m')`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "merge_adjacent:2")
	got := catalogRows(t, s, `SELECT df.path, coalesce(v.partition_value, 'NULL'), df.partition_id FROM ducklake_data_file df
		JOIN ducklake_file_partition_value v ON v.data_file_id = df.data_file_id ORDER BY 2`)
	if len(got) != 3 {
		t.Fatalf("files after merging: %q, want one per partition", got)
	}
	for _, r := range got {
		f := strings.Split(r, "|")
		dir := "g=" + f[1] + "/"
		if f[1] == "NULL" {
			dir = "g=__HIVE_DEFAULT_PARTITION__/"
		}
		if !strings.HasPrefix(f[0], dir) || f[2] != "3" {
			t.Errorf("merged file %s, value %s, partition_id %s", f[0], f[1], f[2])
		}
	}
	must(t, s, `SELECT g, count(*), sum(id) FROM m GROUP BY g ORDER BY g`, before...)
	must(t, s, `SELECT count(*) FROM lakepg.at_version('m', 4)`, old...)
	if f := explainFiles(t, s, `SELECT * FROM m WHERE g = 'a'`); !strings.HasPrefix(f, "Files: 1 scanned, 2 pruned (2 by partition values)") {
		t.Errorf("after merging: %s", f)
	}

	// rewrite_data_files keeps the file in its partition
	must(t, s, `DELETE FROM m WHERE g = 'a' AND id > 2`)
	must(t, s, `CALL lakepg.rewrite_data_files('m', 0.5)`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "rewrite_delete:2")
	if got := catalogRows(t, s, `SELECT df.path LIKE 'g=a/%', v.partition_value, df.partition_id, df.record_count FROM ducklake_data_file df
		JOIN ducklake_file_partition_value v ON v.data_file_id = df.data_file_id WHERE df.end_snapshot IS NULL AND v.partition_value = 'a'`); strings.Join(got, ";") != "1|a|3|2" {
		t.Errorf("rewritten file of partition a: %q", got)
	}
	must(t, s, `SELECT id FROM m WHERE g = 'a' ORDER BY id`, "0", "2")

	// inlined rows of a partitioned table, flushed: one file per partition, as DuckDB's
	// flush writes them
	must(t, s, `SET lakepg.data_inlining_row_limit = 10`)
	must(t, s, `INSERT INTO m VALUES (200, 'a'), (201, 'z')`)
	must(t, s, `SELECT changes FROM lakepg.snapshots ORDER BY snapshot_id DESC LIMIT 1`, "inlined_insert:2")
	must(t, s, `CALL lakepg.flush_inlined_data('m')`)
	if got := catalogRows(t, s, `SELECT df.partition_id, v.partition_value, df.path LIKE 'g=' || v.partition_value || '/%', df.record_count
		FROM ducklake_data_file df JOIN ducklake_file_partition_value v ON v.data_file_id = df.data_file_id
		WHERE df.begin_snapshot = (SELECT max(begin_snapshot) FROM ducklake_data_file) ORDER BY df.data_file_id`); strings.Join(got, ";") != "3|a|1|1;3|z|1|1" {
		t.Errorf("flushed files: %q", got)
	}
	must(t, s, `SELECT id FROM m WHERE g IN ('a', 'z') ORDER BY id`, "0", "2", "200", "201")
	if f := explainFiles(t, s, `SELECT * FROM m WHERE g = 'z'`); !strings.HasPrefix(f, "Files: 1 scanned") || !strings.Contains(f, "by partition values") {
		t.Errorf("after the flush, WHERE g = 'z': %s", f)
	}
}

// TestPartitionedRewriteInBlock: rows a transaction block wrote and then
// updates are rewritten into the partitions their new values belong to
// (an UPDATE of the key moves them), deletes of them rewrite their file;
// after COMMIT every file's partition value matches its rows.
func TestPartitionedRewriteInBlock(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	must(t, s, `CREATE TABLE pr (id integer, region text)`)
	must(t, s, `ALTER TABLE pr SET PARTITIONED BY (region)`)
	must(t, s, `BEGIN`)
	must(t, s, `INSERT INTO pr SELECT i, CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END FROM generate_series(1, 10) i`)
	must(t, s, `UPDATE pr SET region = 'c' WHERE id IN (1, 2, 3)`)
	must(t, s, `DELETE FROM pr WHERE id = 10`)
	must(t, s, `SELECT region, count(*) FROM pr GROUP BY 1 ORDER BY 1`, "a|3", "b|3", "c|3")
	must(t, s, `COMMIT`)
	must(t, s, `SELECT region, count(*) FROM pr GROUP BY 1 ORDER BY 1`, "a|3", "b|3", "c|3")
	// each of the two staged files had rows moved to c: two files there
	got := catalogRows(t, s, `SELECT v.partition_value, sum(df.record_count), min(CASE WHEN df.path LIKE 'region=' || v.partition_value || '/%' THEN 1 ELSE 0 END)
		FROM ducklake_data_file df JOIN ducklake_file_partition_value v ON v.data_file_id = df.data_file_id
		WHERE df.end_snapshot IS NULL GROUP BY 1 ORDER BY 1`)
	if strings.Join(got, ";") != "a|3|1;b|3|1;c|3|1" {
		t.Errorf("files after the block (value|rows|all in its directory): %q", got)
	}
	if n := catalogRows(t, s, `SELECT count(*) FROM ducklake_data_file WHERE partition_id IS NULL`); n[0] != "0" {
		t.Errorf("%s unpartitioned files", n[0])
	}
	if f := explainFiles(t, s, `SELECT * FROM pr WHERE region = 'c'`); !strings.Contains(f, "by partition values") {
		t.Errorf("pruning the rewritten rows: %s", f)
	}
}
