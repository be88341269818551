package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestJoinSpillUnderFullPool: hash joins whose build side spills while
// other sessions' temporary tables hold --memory-limit up to the share
// spilling operators may use (four sessions of a quarter each, the last
// refused at 7/8) give the answers the server gives without a limit, and
// leave no file. Before partition joins had a floor of memory, each
// partition under the full pool spilled again at its first batch down to
// partitions of a row or two: the first of these joins ran for more than
// five minutes, and statement_timeout ends such a join here.
func TestJoinSpillUnderFullPool(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	srv := startLimited(t, dir, "", tmp, "0")
	srv.mustPsql(t, "create table a as select g, md5(g::text) as h from generate_series(1, 200000) g")
	srv.mustPsql(t, "create table b as select g, md5(g::text) as h from generate_series(100001, 300000) g union all select null, null")
	queries := []string{
		"select count(*), sum(a.g), sum(b.g) from a join b on a.h = b.h",
		"select count(*), count(b.g), sum(a.g) from a left join b on a.h = b.h",
		"select count(*), count(a.g), count(b.g) from a full join b on a.h = b.h",
		"select count(*), sum(g) from a where not exists (select 1 from b where b.h = a.h)",
		"select count(*), sum(g) from a where g not in (select g from b where g is not null)",
	}
	want := make([]string, len(queries))
	for i, q := range queries {
		want[i] = srv.psqlValue(t, q)
	}
	srv.stop(t)

	srv = startLimited(t, dir, "32MiB", tmp, "0")
	for i := 0; i < 4; i++ {
		conn := srv.connect(t, pgx.QueryExecModeSimpleProtocol)
		q := fmt.Sprintf("create temp table t%d as select g, md5(g::text) as h from generate_series(1, 150000) g", i)
		if _, err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for i, q := range queries {
		r := srv.psql(t, "-At", "-c", "set statement_timeout = '60s'", "-c", q)
		if got := strings.TrimSpace(strings.TrimPrefix(r.stdout, "SET\n")); r.code != 0 || r.stderr != "" || got != want[i] {
			t.Errorf("%s beside the temporary tables: exit %d, %q %q; without a limit %q", q, r.code, got, r.stderr, want[i])
		}
	}
	srv.stop(t)
	requireNoSpillFiles(t, tmp)
}
