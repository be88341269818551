package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

const bulkWriteTable = "CREATE TABLE bulk_writes (id bigint, v text, at timestamptz)"

// bulkResult is one system's two one-statement INSERTs of BulkRows rows each.
type bulkResult struct {
	system     string
	values     time.Duration // INSERT … VALUES with every row in the statement text
	selectTime time.Duration // INSERT … SELECT … FROM generate_series
}

// bulkValues is the INSERT … VALUES statement of n rows.
func bulkValues(n int) string {
	var b strings.Builder
	b.Grow(n * 48)
	b.WriteString("INSERT INTO bulk_writes VALUES ")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, 'value %d', '2024-01-01 00:00:00+00')", i, i)
	}
	return b.String()
}

func bulkSelect(n int) string {
	return fmt.Sprintf("INSERT INTO bulk_writes SELECT i, 'value ' || i::text, now() FROM generate_series(%d, %d) i", n, 2*n-1)
}

func (r *Runner) bulkWrites(ctx context.Context, system, dsn string) (bulkResult, error) {
	res := bulkResult{system: system}
	n := max(1, r.cfg.BulkRows)
	if err := execSQL(ctx, dsn, "DROP TABLE IF EXISTS bulk_writes", bulkWriteTable); err != nil {
		return res, fmt.Errorf("%s: %w", system, err)
	}
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return res, err
	}
	defer c.Close(context.Background())
	values := bulkValues(n) // built before the clock starts
	start := time.Now()
	if _, err := c.Exec(ctx, values); err != nil {
		return res, fmt.Errorf("%s: INSERT … VALUES of %d rows: %w", system, n, err)
	}
	res.values = time.Since(start)
	start = time.Now()
	if _, err := c.Exec(ctx, bulkSelect(n)); err != nil {
		return res, fmt.Errorf("%s: INSERT … SELECT of %d rows: %w", system, n, err)
	}
	res.selectTime = time.Since(start)
	var got int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM bulk_writes").Scan(&got); err != nil {
		return res, fmt.Errorf("%s: counting bulk_writes: %w", system, err)
	}
	if got != int64(2*n) {
		return res, fmt.Errorf("%s: bulk_writes has %d rows after two INSERTs of %d", system, got, n)
	}
	return res, nil
}

// printBulk reports the one-statement INSERTs.
func (r *Runner) printBulk(s *section, results []bulkResult) {
	n := max(1, r.cfg.BulkRows)
	s.printf("One statement of %d rows into an empty `%s`, in autocommit: `INSERT … VALUES` with every row in the "+
		"statement text (parsed and planned by each server), then `INSERT … SELECT i, 'value ' || i::text, now() FROM "+
		"generate_series(…)`. Times are the client's, from sending the statement to its completion.", n, bulkWriteTable)
	var rows [][]string
	for _, b := range results {
		rows = append(rows, []string{b.system,
			fmt.Sprintf("%.1f ms", b.values.Seconds()*1000), fmt.Sprintf("%.0f", float64(n)/b.values.Seconds()),
			fmt.Sprintf("%.1f ms", b.selectTime.Seconds()*1000), fmt.Sprintf("%.0f", float64(n)/b.selectTime.Seconds())})
	}
	s.table([]string{"system", fmt.Sprintf("INSERT … VALUES, %d rows", n), "rows/s", fmt.Sprintf("INSERT … SELECT, %d rows", n), "rows/s"}, rows)
}
