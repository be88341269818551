package integration

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"
)

// errorCases are statements PostgreSQL rejects with the given SQLSTATE (checked against
// PostgreSQL 15); write marks those that would change the lake had they succeeded.
var errorCases = []struct {
	sql   string
	code  string
	write bool
}{
	{"CREATE TABLE nosuch.t (a integer)", "3F000", true},
	{"DROP SCHEMA nosuch", "3F000", true},
	{"SELECT * FROM errs.nosuch", "42P01", false},
	{"SELECT * FROM nosuch_table", "42P01", false},
	{"INSERT INTO errs.nosuch VALUES (1)", "42P01", true},
	{"DROP TABLE errs.nosuch", "42P01", true},
	{"SELECT nosuch FROM errs.e", "42703", false},
	{"DELETE FROM errs.e WHERE nosuch = 1", "42703", true},
	{"UPDATE errs.e SET nosuch = 1", "42703", true},
	{"INSERT INTO errs.e (id) VALUES (true)", "42804", true},
	{"SELECT * FROM errs.e WHERE id", "42804", false},
	{"INSERT INTO errs.e (id) VALUES ('abc')", "22P02", true},
	{"SELECT * FROM errs.e WHERE id = 'abc'", "22P02", false},
	{"SELECT 1/0", "22012", false},
	{"SELECT id / 0 FROM errs.e", "22012", false},
	{"UPDATE errs.e SET id = id / (id - 2)", "22012", true},
	{"INSERT INTO errs.e (s) VALUES (40000)", "22003", true},
	{"SELECT 2147483647 + 1", "22003", false},
	{"UPDATE errs.e SET s = s * 20000", "22003", true}, // 20000 fits, 40000 does not
	{"SELEC 1", "42601", false},
	{"COMMENT ON SCHEMA errs IS 'x'", "0A000", true},
}

// syntaxCases are syntax errors with the 1-based cursor position PostgreSQL reports.
var syntaxCases = []struct {
	sql      string
	position int32
}{
	{"SELEC 1", 1},
	{"SELECT id FROM errs.e WHERE id IN (1,", 38},
	{"SELECT id, FROM errs.e", 12},
	{"INSERT INTO errs.e VALUES (1, 2, 'x'", 37},
}

// TestErrors checks the SQLSTATE of each kind of bad input in the simple and the extended
// protocol, the cursor position of syntax errors, that the session goes on after each
// error, and that a failed write leaves no snapshot and no partial change behind.
func TestErrors(t *testing.T) {
	srv := startServer(t, t.TempDir())
	setup := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, setup, "CREATE SCHEMA errs")
	mustExec(t, setup, "CREATE TABLE errs.e (id integer, s smallint, name text)")
	mustExec(t, setup, "INSERT INTO errs.e VALUES (1, 1, 'a'), (2, 2, 'b')")
	snapshots := snapshotCount(t, setup)

	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		t.Run(mode.String(), func(t *testing.T) {
			conn := srv.connect(t, mode)
			ctx := testCtx(t)
			for _, c := range errorCases {
				_, err := conn.Exec(ctx, c.sql)
				if err == nil {
					t.Errorf("%s: succeeded, want SQLSTATE %s", c.sql, c.code)
				} else {
					pe := pgError(t, c.sql, err)
					if pe.Code != c.code || pe.Severity != "ERROR" || pe.Message == "" {
						t.Errorf("%s: %s %s %q, want ERROR %s with a message", c.sql, pe.Severity, pe.Code, pe.Message, c.code)
					}
				}
				// The session goes on.
				if n := queryInt(t, conn, "SELECT 1"); n != 1 {
					t.Fatalf("SELECT 1 after %q returned %d", c.sql, n)
				}
				if c.write {
					if n := snapshotCount(t, conn); n != snapshots {
						t.Fatalf("after the failed %q: %d snapshots, want %d (nothing written)", c.sql, n, snapshots)
					}
				}
			}
			for _, c := range syntaxCases {
				_, err := conn.Exec(ctx, c.sql)
				if err == nil {
					t.Errorf("%s: succeeded, want a syntax error", c.sql)
					continue
				}
				pe := pgError(t, c.sql, err)
				if pe.Code != "42601" || pe.Position != c.position {
					t.Errorf("%s: SQLSTATE %s at position %d (%q), want 42601 at position %d", c.sql, pe.Code, pe.Position, pe.Message, c.position)
				}
			}
			if got := tableRows(t, conn, "SELECT id, s, name FROM errs.e ORDER BY id"); !reflect.DeepEqual(got, []string{"1 1 a", "2 2 b"}) {
				t.Errorf("errs.e after the failed writes: %q, want the two rows unchanged", got)
			}
			if n := snapshotCount(t, conn); n != snapshots {
				t.Errorf("%d snapshots after the failed writes, want %d", n, snapshots)
			}
		})
	}

	// Writes while the session reads an old snapshot are refused as read-only (25006).
	t.Run("ReadOnlySnapshot", func(t *testing.T) {
		conn := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
		mustExec(t, conn, fmt.Sprintf("SET lakepg.snapshot = %d", snapshots-1))
		for _, sql := range []string{
			"INSERT INTO errs.e VALUES (3, 3, 'c')",
			"DELETE FROM errs.e",
			"UPDATE errs.e SET s = 0",
			"CREATE TABLE errs.f (a integer)",
		} {
			_, err := conn.Exec(testCtx(t), sql)
			if pe := pgError(t, sql, err); pe.Code != "25006" {
				t.Errorf("%s under SET lakepg.snapshot: SQLSTATE %s (%s), want 25006", sql, pe.Code, pe.Message)
			}
		}
		mustExec(t, conn, "RESET lakepg.snapshot")
		if n := snapshotCount(t, conn); n != snapshots {
			t.Errorf("%d snapshots after the refused writes, want %d", n, snapshots)
		}
		if got := tableRows(t, conn, "SELECT id, s, name FROM errs.e ORDER BY id"); !reflect.DeepEqual(got, []string{"1 1 a", "2 2 b"}) {
			t.Errorf("errs.e after the refused writes: %q", got)
		}
	})
}

// tableRows runs a query and renders each row as its values separated by spaces.
func tableRows(t *testing.T, conn *pgx.Conn, sql string) []string {
	t.Helper()
	rows, err := conn.Query(testCtx(t), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		s := ""
		for i, v := range vals {
			if i > 0 {
				s += " "
			}
			s += fmt.Sprint(v)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}
