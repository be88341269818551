package integration

import (
	"crypto/md5"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteRowsSpillUnderMemoryLimit: the rows a write keeps for later —
// INSERT … RETURNING's rows, sent once the write is done, and the rows a
// MERGE or an INSERT … ON CONFLICT takes two passes over — outgrow
// --memory-limit and go to --temp-dir (before, each failed with 53200),
// giving what the same statements give without a limit and leaving the
// temp directory empty.
func TestWriteRowsSpillUnderMemoryLimit(t *testing.T) {
	tmp := filepath.Join(t.TempDir(), "tmp")
	run := func(limit string) []string {
		t.Helper()
		srv := startLimited(t, t.TempDir(), limit, tmp, "0")
		defer srv.stop(t)
		srv.mustPsql(t, "create table src as select g, md5(g::text) as h from generate_series(1, 600000) g")
		srv.mustPsql(t, "create table dst (g int, h text)")
		srv.mustPsql(t, "create table up (g int primary key, h text)")
		srv.mustPsql(t, "insert into up select g, 'old' from generate_series(1, 600000, 2) g")
		var out []string
		for _, sql := range []string{
			"insert into dst select g, h from src returning g, h, length(h)",
			"merge into dst using src on dst.g = src.g when matched and src.g % 3 = 0 then delete when matched then update set h = src.h || 'x'",
			"select g, h from dst order by g",
			"insert into up select g, h from src on conflict (g) do update set h = excluded.h || 'u' returning g, h",
			"select g, h from up order by g",
		} {
			r := srv.psql(t, "-At", "-c", sql)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("under %s: %s: exit %d: %s", limit, sql, r.code, r.stderr)
			}
			res := strings.TrimSpace(r.stdout)
			if len(res) > 1000 {
				res = fmt.Sprintf("%d lines, md5 %x", strings.Count(r.stdout, "\n"), md5.Sum([]byte(r.stdout)))
			}
			out = append(out, res)
		}
		return out
	}
	want := run("4GiB")
	if !strings.HasPrefix(want[0], "600001 lines") { // the rows and the command tag
		t.Fatalf("RETURNING gave %s", want[0])
	}
	got := run("24MiB")
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("statement %d under 24MiB: %s, want %s", i, got[i], want[i])
		}
	}
	requireNoSpillFiles(t, tmp)
}
