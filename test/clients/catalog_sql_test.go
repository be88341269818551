package clients

import (
	"fmt"
	"path/filepath"
	"testing"
)

// sqlChecks runs a file of a tool's own catalog queries (pgAdmin 4's, DBeaver's
// navigator's) through psycopg 3 on one server; testdata/sql_checks.py says how the file
// is written and what an answer holds.
func sqlChecks(t *testing.T, file, host string, port int, user, db string) map[string]string {
	t.Helper()
	need(t, pythonHas("psycopg"), "psycopg 3 (Python)", "pip install psycopg==3.3.9")
	dsn := fmt.Sprintf("host=%s port=%d user=%s dbname=%s", host, port, user, db)
	return parseLines(run(t, nil, "python3", filepath.Join("testdata", "sql_checks.py"), filepath.Join("testdata", file), dsn))
}
