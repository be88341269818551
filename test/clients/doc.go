// Package clients proves that real PostgreSQL drivers and the catalog
// queries of BI tools work against the built lakepg binary, each driver in
// the language it lives in: psycopg 3, psycopg2 and asyncpg (Python),
// SQLAlchemy 2 (reflection and an ORM round trip), node-postgres, pgJDBC,
// psqlODBC through unixODBC and pyodbc, psql's meta-commands, pgcli, and the
// protocol features drivers depend on (statement_timeout, CancelRequest,
// pg_cancel_backend, pg_terminate_backend, --max-connections).
//
// The driver checks are scripts in testdata/ that assert on what the driver
// returns and exit non-zero with a message on the first mismatch; the Go
// tests run them against a lakepg started for the package. The BI catalog
// checks (TestBICatalog) run the same introspection, through the same
// drivers, against lakepg and against a real PostgreSQL holding the same
// tables (LAKEPG_TEST_PG_DSN), compare the answers, and hold the checks
// that agree in baseline.txt: fewer agreeing checks fail the test.
// pgAdmin 4's, DBeaver's, DataGrip's and Metabase's own catalog SQL and the
// type-loading batch of Npgsql (the .NET driver of Power BI's PostgreSQL
// connector; there is no .NET here, so its SQL is replayed) sit in
// testdata/*_queries.sql and run through psycopg 3 (testdata/sql_checks.py
// says how). Tableau's PostgreSQL connector runs through psqlODBC with its
// connection string (testdata/tableau_check.py), Superset's further
// SQLAlchemy Inspector calls through sqlalchemy_reflect.py's superset mode.
// TestSavepointsMatchPostgres and TestRowDescriptionOrigins compare protocol
// answers with PostgreSQL the same way, through pgx: a script of savepoints
// (tags, errors, rows and the ReadyForQuery status after each statement),
// and the table OID and attnum RowDescription gives each result column.
//
// The tools that build and feed a lake (tools_test.go: dbt, SQLAlchemy with Alembic, Django,
// dlt) run their own scripts in testdata/ against a lakepg started for the test and a fresh
// PostgreSQL database at once; each script asserts on its own and writes what the tool built
// to a JSON file, the two files must be equal, and DuckDB must read the lake the tool built.
//
// scripts/test.sh installs the drivers when missing (see its ensure_*
// steps) and exports where they are: LAKEPG_TEST_NODE_PATH (node_modules
// holding pg) and LAKEPG_TEST_PGJDBC_JAR. A missing driver fails the test
// that needs it, with the command that installs it.
package clients
