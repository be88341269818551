package catalog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/lakepg/lakepg/catalog/catalogtest"
)

// TestPostgresSchemaOption: with no schema the catalog lives in public, as
// DuckDB's does; a named schema (created on demand, any identifier) holds an
// independent catalog in the same database.
func TestPostgresSchemaOption(t *testing.T) {
	ctx := context.Background()
	dsn := catalogtest.NewDatabase(t, pgAdmin(t))
	dataA, dataB := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	a, err := Open(ctx, dsn, dataA)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	const odd = `Lake "Meta" 2`
	b, err := OpenWithOptions(ctx, dsn, dataB, Options{Schema: odd})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.Schema() != "public" || b.Schema() != odd {
		t.Errorf("schemas %q %q", a.Schema(), b.Schema())
	}
	if n := len(tableNames(t, a)); n != 28 {
		t.Errorf("public has %d tables", n)
	}
	if n := len(tableNames(t, b)); n != 28 {
		t.Errorf("%s has %d tables", odd, n)
	}
	// The two catalogs do not see each other's data paths or snapshots.
	if a.DataPath() == b.DataPath() {
		t.Errorf("both catalogs have data path %q", a.DataPath())
	}
	if _, err := a.SQL().ExecContext(ctx, `INSERT INTO ducklake_snapshot VALUES (1, now(), 0, 2, 0)`); err != nil {
		t.Fatal(err)
	}
	ha, _ := a.Head(ctx)
	hb, _ := b.Head(ctx)
	if ha.ID != 1 || hb.ID != 0 {
		t.Errorf("heads %d %d", ha.ID, hb.ID)
	}
	var n int
	if err := a.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename LIKE 'ducklake%'`, odd).Scan(&n); err != nil || n != 28 {
		t.Errorf("pg_tables lists %d ducklake tables in %q: %v", n, odd, err)
	}
	// Reopening finds each catalog where it was made.
	b2, err := OpenWithOptions(ctx, dsn, "", Options{Schema: odd})
	if err != nil {
		t.Fatal(err)
	}
	if b2.DataPath() != b.DataPath() {
		t.Errorf("reopened %q, want %q", b2.DataPath(), b.DataPath())
	}
	b2.Close()
	// A schema without a catalog is not one: opening it without a data
	// path fails instead of creating a catalog nobody asked for.
	if _, err := OpenWithOptions(ctx, dsn, "", Options{Schema: "empty"}); err == nil {
		t.Error("opened a missing catalog without a data path")
	}
}

// TestConcurrentBootstrap: several servers starting on one empty schema at
// once end up with one catalog (one snapshot 0), all of them opened.
func TestConcurrentBootstrap(t *testing.T) {
	admin := pgAdmin(t)
	schema := catalogtest.NewSchema(t, admin)
	data := t.TempDir()
	const n = 4
	var wg sync.WaitGroup
	dbs := make([]*DB, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dbs[i], errs[i] = OpenWithOptions(context.Background(), admin, data, Options{Schema: schema})
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("open %d: %v", i, errs[i])
		}
		defer dbs[i].Close()
	}
	snaps, err := dbs[0].Snapshots(context.Background())
	if err != nil || len(snaps) != 1 {
		t.Errorf("snapshots %+v %v", snaps, err)
	}
}

// TestLostRace classifies real errors of both backends: a second insert of
// the same snapshot id (PostgreSQL 23505 from a transaction that waited for
// the winner, SQLite's primary key failure) and a REPEATABLE READ update of
// a row a newer commit changed (40001) are races; other errors are not.
func TestLostRace(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, be backend) {
		db, _, _, _ := openNewOn(t, be)
		if LostRace(nil) || LostRace(errors.New("duplicate key value violates unique constraint")) {
			t.Error("LostRace without a driver error")
		}
		_, err := db.SQL().ExecContext(ctx, `INSERT INTO ducklake_snapshot VALUES (0, NULL, 0, 0, 0)`)
		if err == nil || !LostRace(fmt.Errorf("wrapped: %w", err)) {
			t.Errorf("duplicate snapshot id: %v not a race", err)
		}
		_, err = db.SQL().ExecContext(ctx, `INSERT INTO no_such_table VALUES (1)`)
		if err == nil || LostRace(err) {
			t.Errorf("missing table: %v", err)
		}
		if db.Dialect() != "postgres" {
			return
		}
		// Two writers that read the same head: the second inserter waits
		// for the first and then fails on the primary key.
		tx1, err := db.BeginWrite(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx1.Rollback()
		tx2, err := db.BeginWrite(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx2.Rollback()
		for _, tx := range []*Tx{tx1, tx2} {
			if h, err := tx.Head(ctx); err != nil || h.ID != 0 {
				t.Fatalf("head %+v %v", h, err)
			}
		}
		if _, err := tx1.ExecContext(ctx, `INSERT INTO ducklake_snapshot VALUES (?, ?, 0, 2, 0)`, 1, nil); err != nil {
			t.Fatal(err)
		}
		second := make(chan error, 1)
		go func() {
			_, err := tx2.ExecContext(ctx, `INSERT INTO ducklake_snapshot VALUES (?, ?, 0, 2, 0)`, 1, nil)
			second <- err
		}()
		if err := tx1.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := <-second; !LostRace(err) || !strings.Contains(err.Error(), "23505") {
			t.Errorf("second insert of snapshot 1: %v", err)
		}
		// REPEATABLE READ: updating a row a commit the transaction cannot
		// see has changed is a serialization failure.
		tx3, err := db.BeginWrite(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx3.Rollback()
		if _, err := tx3.Head(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := db.SQL().ExecContext(ctx, `UPDATE ducklake_schema SET end_snapshot = 1 WHERE schema_id = 1`); err != nil {
			t.Fatal(err)
		}
		_, err = tx3.ExecContext(ctx, `UPDATE ducklake_schema SET end_snapshot = ? WHERE schema_id = 1`, 2)
		if !LostRace(err) || !strings.Contains(err.Error(), "40001") {
			t.Errorf("update under a newer commit: %v", err)
		}
	})
}

// TestPostgresInlinedColumnTypes: for every inlined-data table in DuckDB's
// PostgreSQL catalog, the types lakepg would declare for the table's columns
// at that schema version are the ones DuckDB declared.
func TestPostgresInlinedColumnTypes(t *testing.T) {
	db, _ := loadFixturePostgres(t)
	ctx := context.Background()
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, `SELECT table_id, table_name, schema_version FROM ducklake_inlined_data_tables ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var regs []InlinedTable
	for rows.Next() {
		var it InlinedTable
		if err := rows.Scan(&it.TableID, &it.Name, &it.SchemaVersion); err != nil {
			t.Fatal(err)
		}
		regs = append(regs, it)
	}
	rows.Close()
	if len(regs) != 7 {
		t.Fatalf("fixture registers %d inlined tables", len(regs))
	}
	typeList := func(q string, args ...any) []string {
		t.Helper()
		rows, err := conn.QueryContext(ctx, q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var name, typ string
			if err := rows.Scan(&name, &typ); err != nil {
				t.Fatal(err)
			}
			out = append(out, name+" "+typ)
		}
		return out
	}
	const attrs = `SELECT attname, format_type(atttypid, atttypmod) FROM pg_catalog.pg_attribute
WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`
	checked := 0
	for _, reg := range regs {
		var snapID int64
		if err := conn.QueryRowContext(ctx, `SELECT MAX(snapshot_id) FROM ducklake_snapshot WHERE schema_version = $1`, reg.SchemaVersion).Scan(&snapID); err != nil {
			t.Fatal(err)
		}
		snap, err := db.SnapshotByID(ctx, snapID)
		if err != nil {
			t.Fatal(err)
		}
		m, err := db.Load(ctx, snap)
		if err != nil {
			t.Fatal(err)
		}
		tbl, ok := m.TableByID(reg.TableID)
		if !ok {
			t.Fatalf("table %d not visible at snapshot %d", reg.TableID, snapID)
		}
		defs := []string{"row_id BIGINT", "begin_snapshot BIGINT", "end_snapshot BIGINT"}
		for _, c := range tbl.Columns {
			typ, ok := db.InlinedColumnType(c.Type)
			if !ok {
				t.Fatalf("%s: lakepg would not inline column %s %s", reg.Name, c.Name, c.Type)
			}
			defs = append(defs, quoteIdent(c.Name)+" "+typ)
		}
		probe := "lakepg_probe_" + reg.Name
		if _, err := conn.ExecContext(ctx, "CREATE TEMP TABLE "+quoteIdent(probe)+" ("+strings.Join(defs, ", ")+")"); err != nil {
			t.Fatal(err)
		}
		want := typeList(attrs, reg.Name)
		got := typeList(attrs, "pg_temp."+probe)
		if strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("%s:\n lakepg %v\n DuckDB %v", reg.Name, got, want)
		}
		checked += len(want) - 3
	}
	if checked < 20 {
		t.Errorf("only %d columns compared", checked)
	}
	for _, c := range []string{"variant", "geometry"} {
		if _, ok := db.InlinedColumnType(c); ok {
			t.Errorf("%s inlined", c)
		}
	}
}

// TestChangesSincePlanUsesIndex: the commit's read of the snapshot changes
// since its base keeps using the key's index once PostgreSQL plans it
// generically (as it does for a statement prepared once and run many
// times): a plan that scans the whole table made each commit's cost grow
// with the lake's history. Its answers stay those after the base, in order.
func TestChangesSincePlanUsesIndex(t *testing.T) {
	ctx := context.Background()
	db, _, _, _ := openNewOn(t, testBackends[1])
	const n = 2300
	for _, q := range []string{
		`INSERT INTO ducklake_snapshot SELECT i, now(), 0, 1, 0 FROM generate_series(1, 2300) i`,
		// stored out of id order, as concurrent commits store them (a
		// correlation of 0.84 was measured after a two-server run)
		`INSERT INTO ducklake_snapshot_changes SELECT i, 'inlined_insert:' || (i % 7), NULL, NULL, NULL FROM generate_series(1, 2300) i ORDER BY random()`,
	} {
		if _, err := db.SQL().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{`ANALYZE ducklake_snapshot`, `ANALYZE ducklake_snapshot_changes`, `SET plan_cache_mode = force_generic_plan`,
		`PREPARE since(bigint) AS ` + db.Rebind(changesSinceQuery)} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rows, err := conn.QueryContext(ctx, `EXPLAIN EXECUTE since(2290)`)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	rows.Close()
	if p := strings.Join(plan, "\n"); strings.Contains(p, "Seq Scan on ducklake_snapshot_changes") || !strings.Contains(p, "ducklake_snapshot_changes_pkey") {
		t.Errorf("generic plan of the changes read does not use the key:\n%s", p)
	}
	tx, err := db.BeginWrite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	got, err := tx.ChangesSince(ctx, n-3)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{fmt.Sprintf("inlined_insert:%d", (n-2)%7), fmt.Sprintf("inlined_insert:%d", (n-1)%7), fmt.Sprintf("inlined_insert:%d", n%7)}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("changes since %d: %q, want %q", n-3, got, want)
	}
}

// TestCatalogIndexes: a catalog lakepg creates has each of its extra
// indexes, on both backends, among them the one every commit's read of a
// table's inlined-data tables uses. A catalog that lacks some (DuckDB made
// it, or an older lakepg) gets them when it is opened, once; on PostgreSQL
// an index a failed concurrent build left invalid is built again.
func TestCatalogIndexes(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, be backend) {
		db, dsn, opts, data := openNewOn(t, be)
		have := catalogIndexNames(t, db)
		for _, ddl := range catalogIndexes {
			if !have[indexName(ddl)] {
				t.Errorf("index %s missing", indexName(ddl))
			}
		}
		if !have["lakepg_inlined_data_tables_table"] {
			t.Error("no index on ducklake_inlined_data_tables (table_id)")
		}
		if added, err := db.IndexesAdded(); len(added) != 0 || err != nil {
			t.Errorf("a new catalog added indexes at open: %v, %v", added, err)
		}

		dropped := []string{"lakepg_inlined_data_tables_table", "lakepg_column_table", "lakepg_tag_end"}
		for _, n := range dropped {
			if _, err := db.SQL().ExecContext(ctx, `DROP INDEX `+n); err != nil {
				t.Fatal(err)
			}
		}
		invalid := ""
		if db.Dialect() == "postgres" {
			// what a concurrent build that failed leaves behind
			invalid = "lakepg_data_file_table"
			if _, err := db.SQL().ExecContext(ctx, `UPDATE pg_catalog.pg_index SET indisvalid = false WHERE indexrelid = $1::regclass`, invalid); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		db2, err := OpenWithOptions(ctx, dsn, data, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer db2.Close()
		added, err := db2.IndexesAdded()
		if err != nil {
			t.Fatal(err)
		}
		want := append([]string(nil), dropped...)
		if invalid != "" {
			want = append(want, invalid)
		}
		sort.Strings(added)
		sort.Strings(want)
		if strings.Join(added, ",") != strings.Join(want, ",") {
			t.Errorf("added at open: %v, want %v", added, want)
		}
		have = catalogIndexNames(t, db2)
		for _, ddl := range catalogIndexes {
			if !have[indexName(ddl)] {
				t.Errorf("index %s missing after open", indexName(ddl))
			}
		}
		db2.Close()
		db3, err := OpenWithOptions(ctx, dsn, data, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer db3.Close()
		if added, err := db3.IndexesAdded(); len(added) != 0 || err != nil {
			t.Errorf("a second open added indexes: %v, %v", added, err)
		}
	})
}

// catalogIndexNames lists the catalog's indexes that are usable.
func catalogIndexNames(t *testing.T, db *DB) map[string]bool {
	t.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'index'`
	if db.Dialect() == "postgres" {
		q = `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND i.indisvalid`
	}
	rows, err := db.SQL().QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		have[n] = true
	}
	return have
}
