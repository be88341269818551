package sql

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/lakepg/lakepg/catalog/catalogtest"
)

// eagerBITables are a fact table and three dimensions shaped as TPC-DS's
// store_sales, item, store and date_dim, for a BI query grouping by item
// category and class, store and year: the estimates take the partial
// groups (class, store and sale date) to be no more than the dates, but
// almost every row is a group of its own. NULL categories, prices and
// quantities included.
var eagerBITables = []string{
	`CREATE TABLE sales AS SELECT n AS id, 1 + (n::int8 * 7919) % 2000 AS item, 1 + n % 12 AS store, n % 3650 AS day,
		CASE WHEN n % 17 = 0 THEN NULL ELSE (((n * 31) % 100000) * 0.01)::numeric(9,2) END AS paid,
		CASE WHEN n % 23 = 0 THEN NULL ELSE (n % 50)::int4 END AS qty
		FROM generate_series(1, 300000) g(n)`,
	`CREATE TABLE item AS SELECT n AS item, CASE WHEN n % 11 = 0 THEN NULL ELSE 'cat ' || (n % 10) END AS category,
		'class ' || (n % 97) AS class FROM generate_series(1, 2000) g(n)`,
	`CREATE TABLE store AS SELECT n AS store, 'store ' || (n % 7) AS sname FROM generate_series(1, 12) g(n)`,
	`CREATE TABLE dates AS SELECT n AS day, 1998 + n / 365 AS year FROM generate_series(0, 3649) g(n)`,
}

const eagerBIQuery = `SELECT category, class, sname, year, sum(paid), sum(qty), count(*), count(paid), min(paid), max(qty)
	FROM sales JOIN item ON sales.item = item.item JOIN store ON sales.store = store.store JOIN dates ON sales.day = dates.day
	GROUP BY 1, 2, 3, 4`

// TestEagerAggregationPassesThrough: the BI query's partial aggregation
// finds about as many groups as rows and passes them through, and its
// answers equal PostgreSQL's and those of the plan without the rule.
func TestEagerAggregationPassesThrough(t *testing.T) {
	s := lake(t)
	must(t, s, `CALL lakepg.set_option('data_inlining_row_limit', '0')`)
	for _, q := range eagerBITables {
		must(t, s, q)
	}
	want := pgAnswer(t, eagerBITables, eagerBIQuery)
	if len(want) < 10000 {
		t.Fatalf("PostgreSQL: %d rows", len(want))
	}
	var passed, workers, passing int64
	found := false
	for _, l := range explainLines(t, s, "EXPLAIN ANALYZE "+eagerBIQuery) {
		if _, rest, ok := strings.Cut(l, "Actual: "); ok && strings.Contains(l, "passed through ungrouped") {
			var grouped, groups int64
			if _, err := fmt.Sscanf(rest, "%d rows grouped into %d groups, then %d rows passed through ungrouped (%d of %d workers)",
				&grouped, &groups, &passed, &passing, &workers); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			found = true
			t.Log(strings.TrimSpace(l))
		}
	}
	if !found {
		t.Fatal("no partial aggregation in the plan")
	}
	if passed < 100000 || passing == 0 {
		t.Errorf("%d rows passed through by %d of %d workers; want most of the 300,000", passed, passing, workers)
	}
	for _, rules := range []string{"", "eager_aggregation"} {
		must(t, s, `SET lakepg.disabled_rules = '`+rules+`'`)
		got, _, err := run(t, s, eagerBIQuery)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("disabled rules %q: %d rows, PostgreSQL %d; first differing:\n%s", rules, len(got), len(want), firstDiff(got, want))
		}
	}
}

// pgAnswer runs the statements and then q on a new database of the test
// PostgreSQL and returns q's rows as run formats them ("|" between
// values, NULL), sorted.
func pgAnswer(t *testing.T, setup []string, q string) []string {
	t.Helper()
	admin := catalogtest.PostgresDSN(t)
	if admin == "" {
		t.Fatal("LAKEPG_TEST_PG_DSN is not set")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, catalogtest.NewDatabase(t, admin))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, st := range setup {
		if _, err := conn.Exec(ctx, st); err != nil {
			t.Fatalf("PostgreSQL: %s: %v", st, err)
		}
	}
	rows, err := conn.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var cells []string
		for _, v := range rows.RawValues() {
			if v == nil {
				cells = append(cells, "NULL")
			} else {
				cells = append(cells, string(v))
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// firstDiff shows the first rows where sorted got and want part.
func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf(" got %s\nwant %s", got[i], want[i])
		}
	}
	return fmt.Sprintf("(one is a prefix of the other, %d vs %d rows)", len(got), len(want))
}
