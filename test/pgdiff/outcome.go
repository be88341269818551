package pgdiff

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Outcome is what a statement produced, as text to compare: the psql -A rendering of a
// result, the command tag, or "ERROR <SQLSTATE>".
type Outcome struct {
	Text string
	// Err is set when the statement did not complete at the protocol level (a timeout, a
	// broken connection): the outcome is then unknown, not an SQL error.
	Err error
	// Message is the message of an SQL error, for the report.
	Message string
}

// Run sends sql as one simple-protocol Query message and renders its outcome.
func Run(ctx context.Context, conn *pgconn.PgConn, sql string, rowSort bool) Outcome {
	results, err := conn.Exec(ctx, sql).ReadAll()
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return Outcome{Text: "ERROR " + pe.Code, Message: pe.Message}
	}
	if err != nil {
		return Outcome{Err: err}
	}
	var parts []string
	for _, r := range results {
		if r.Err != nil {
			if errors.As(r.Err, &pe) {
				return Outcome{Text: "ERROR " + pe.Code, Message: pe.Message}
			}
			return Outcome{Err: r.Err}
		}
		parts = append(parts, Render(r, rowSort))
	}
	return Outcome{Text: strings.Join(parts, "\n")}
}

// Render prints a result as psql -A (unaligned) does: for a statement returning rows, the
// column names and then each row, fields separated by '|', NULL as the empty string, and the
// footer "(N rows)"; otherwise the command tag.
func Render(r *pgconn.Result, rowSort bool) string {
	if len(r.FieldDescriptions) == 0 {
		return r.CommandTag.String()
	}
	var sb strings.Builder
	names := make([]string, len(r.FieldDescriptions))
	for i, fd := range r.FieldDescriptions {
		names[i] = fd.Name
	}
	sb.WriteString(strings.Join(names, "|") + "\n")
	rows := make([]string, len(r.Rows))
	for i, row := range r.Rows {
		fields := make([]string, len(row))
		for j, v := range row {
			fields[j] = string(v) // nil (NULL) prints as ""
		}
		rows[i] = strings.Join(fields, "|")
	}
	if rowSort {
		sort.Strings(rows)
	}
	for _, row := range rows {
		sb.WriteString(row + "\n")
	}
	if len(r.Rows) == 1 {
		sb.WriteString("(1 row)")
	} else {
		sb.WriteString("(" + strconv.Itoa(len(r.Rows)) + " rows)")
	}
	return sb.String()
}
