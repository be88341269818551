package duckdb

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestPartitionTimeZoneLikeDuckDB: year, month, day and hour keys of a
// timestamptz column are taken in the writing session's TimeZone, as
// DuckDB takes them in its own: lakepg and DuckDB each write the same rows
// into a table partitioned that way, with TimeZone America/New_York and
// then Asia/Kolkata (a half-hour offset), and the files' partition values
// are the same; an identity key is written in UTC by both. Each reads the
// other's table with the same rows, pruning included.
func TestPartitionTimeZoneLikeDuckDB(t *testing.T) {
	lk := partLakes(t)["sqlite"](t)
	srv := lk.launch(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatalf("connecting to lakepg: %v", err)
	}
	defer conn.Close(context.Background())

	rows := `(1, '2024-01-01 02:00:00+00'), (2, '2024-03-10 06:30:00+00'), (3, '2024-06-30 18:45:00+00'), (4, '2024-12-31 23:59:59+00'), (5, NULL)`
	query(t, ctx, conn, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	for _, tbl := range []string{"cal", "ident"} {
		query(t, ctx, conn, `CREATE TABLE `+tbl+` (id integer, ts timestamptz)`)
	}
	query(t, ctx, conn, `ALTER TABLE cal SET PARTITIONED BY (year(ts), month(ts), day(ts), hour(ts))`)
	query(t, ctx, conn, `ALTER TABLE ident SET PARTITIONED BY (ts)`)
	for _, tz := range []string{"America/New_York", "Asia/Kolkata"} {
		query(t, ctx, conn, `SET TimeZone = '`+tz+`'`)
		query(t, ctx, conn, `INSERT INTO cal VALUES `+rows)
		query(t, ctx, conn, `INSERT INTO ident VALUES `+rows)
	}

	in := lk.duck
	in.Steps = []string{`CALL lk.set_option('data_inlining_row_limit', 0)`}
	for _, tbl := range []string{"dcal", "dident"} {
		in.Steps = append(in.Steps, `CREATE TABLE lk.public.`+tbl+` (id INTEGER, ts TIMESTAMPTZ)`)
	}
	in.Steps = append(in.Steps, `ALTER TABLE lk.public.dcal SET PARTITIONED BY (year(ts), month(ts), day(ts), hour(ts))`,
		`ALTER TABLE lk.public.dident SET PARTITIONED BY (ts)`)
	for _, tz := range []string{"America/New_York", "Asia/Kolkata"} {
		in.Steps = append(in.Steps, `SET TimeZone = '`+tz+`'`,
			`INSERT INTO lk.public.dcal VALUES `+rows, `INSERT INTO lk.public.dident VALUES `+rows)
	}
	in.Steps = append(in.Steps, `SET TimeZone = 'UTC'`)
	filter := `ts >= '2024-03-10 06:30:00+00' AND ts < '2024-07-01 00:00:00+00'`
	in.Queries = []duckQuery{
		{From: "lk.public.cal", Order: "id"},
		{From: "(SELECT * FROM lk.public.cal WHERE " + filter + ")", Order: "id"},
	}
	out := runDuckDB(t, in)

	values := func(table string) []string {
		var vs []string
		for _, f := range catalogFiles(t, lk, "public", table) {
			var parts []string
			for _, p := range f.Partition {
				if p.Value == nil {
					parts = append(parts, "NULL")
				} else {
					parts = append(parts, *p.Value)
				}
			}
			vs = append(vs, strings.Join(parts, "/"))
		}
		sort.Strings(vs)
		return vs
	}
	for _, pair := range [][2]string{{"cal", "dcal"}, {"ident", "dident"}} {
		ours, theirs := values(pair[0]), values(pair[1])
		if fmt.Sprint(ours) != fmt.Sprint(theirs) {
			t.Errorf("partition values of %s (lakepg) %v\n  of %s (DuckDB) %v", pair[0], ours, pair[1], theirs)
		}
		if len(ours) != 10 {
			t.Errorf("%s: %d files, want 10 (five rows, two inserts)", pair[0], len(ours))
		}
	}
	// New York: 2024-01-01 02:00Z is 2023-12-31 21:00; Kolkata: 07:30 the same day
	want := map[string]bool{"2023/12/31/21": true, "2024/1/1/7": true}
	for _, v := range values("cal") {
		delete(want, v)
	}
	if len(want) != 0 {
		t.Errorf("partition values of cal lack %v", want)
	}

	query(t, ctx, conn, `SET TimeZone = 'UTC'`)
	compareResult(t, "cal as DuckDB reads it", query(t, ctx, conn, `SELECT * FROM cal ORDER BY id`), out.Results[0])
	compareResult(t, "cal WHERE "+filter, query(t, ctx, conn, `SELECT * FROM cal WHERE `+filter+` ORDER BY id`), out.Results[1])
	theirs, ours := query(t, ctx, conn, `SELECT * FROM dcal WHERE `+filter+` ORDER BY id`), query(t, ctx, conn, `SELECT * FROM cal WHERE `+filter+` ORDER BY id`)
	render := func(r result) string {
		var lines []string
		for _, row := range r.Rows {
			var cells []string
			for _, c := range row {
				cells = append(cells, fmtVal(c))
			}
			lines = append(lines, strings.Join(cells, "|"))
		}
		return strings.Join(lines, "\n")
	}
	if render(theirs) != render(ours) || len(ours.Rows) != 4 {
		t.Errorf("lakepg WHERE %s: DuckDB's table\n%s\nlakepg's\n%s\nwant the same 4 rows", filter, render(theirs), render(ours))
	}
}
