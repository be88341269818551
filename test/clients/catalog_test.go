package clients

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lakepg/lakepg/test/testserver"
)

var update = flag.Bool("update", false, "rewrite baseline.txt with the checks that agree with PostgreSQL")

// grafanaQueries are the catalog queries of Grafana's PostgreSQL data source
// (grafana/grafana, public/app/plugins/datasource/grafana-postgresql-datasource/
// postgresMetaQuery.ts: getVersion, getTimescaleDBVersion, showSchemas, showTables,
// getSchema), with the table names the fixture has.
var grafanaQueries = map[string]string{
	"version":   "SELECT current_setting('server_version_num')::int/100 as version",
	"timescale": "SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'",
	"showSchemas": `SELECT schema_name AS "name" FROM information_schema.schemata WHERE schema_name NOT IN ('information_schema',
 'pg_catalog', 'pg_toast', '_timescaledb_cache', '_timescaledb_catalog', '_timescaledb_internal', '_timescaledb_config',
 'timescaledb_information', 'timescaledb_experimental') ORDER BY schema_name`,
	"showTables.schema": `SELECT quote_ident(table_name) AS "table" FROM information_schema.tables WHERE quote_ident(table_schema) = 'sales' ORDER BY 1`,
	"showTables": `SELECT CASE WHEN ` + grafanaSchemaConstraint + ` THEN quote_ident(table_name)
 ELSE quote_ident(table_schema) || '.' || quote_ident(table_name) END AS "table"
 FROM information_schema.tables WHERE quote_ident(table_schema) NOT IN ('information_schema', 'pg_catalog', '_timescaledb_cache',
 '_timescaledb_catalog', '_timescaledb_internal', '_timescaledb_config', 'timescaledb_information', 'timescaledb_experimental')
 ORDER BY CASE WHEN ` + grafanaSchemaConstraint + ` THEN 0 ELSE 1 END, 1`,
	"getSchema.qualified": `SELECT quote_ident(column_name) AS "column", data_type AS "type" FROM information_schema.columns WHERE
 CASE WHEN array_length(parse_ident('sales.orders'),1) = 2 THEN quote_ident(table_schema) = (parse_ident('sales.orders'))[1]
 AND quote_ident(table_name) = (parse_ident('sales.orders'))[2] ELSE quote_ident(table_name) = 'sales.orders' AND ` + grafanaSchemaConstraint + ` END`,
	"getSchema": `SELECT quote_ident(column_name) AS "column", data_type AS "type" FROM information_schema.columns WHERE
 CASE WHEN array_length(parse_ident('items'),1) = 2 THEN quote_ident(table_schema) = (parse_ident('items'))[1]
 AND quote_ident(table_name) = (parse_ident('items'))[2] ELSE quote_ident(table_name) = 'items' AND ` + grafanaSchemaConstraint + ` END`,
}

const grafanaSchemaConstraint = `quote_ident(table_schema) IN (SELECT CASE WHEN trim(s[i]) = '"$user"' THEN user ELSE trim(s[i]) END
 FROM generate_series(array_lower(string_to_array(current_setting('search_path'),','),1),
 array_upper(string_to_array(current_setting('search_path'),','),1)) as i, string_to_array(current_setting('search_path'),',') s)`

// psqlCommands are psql meta-commands whose output must equal PostgreSQL's.
var psqlCommands = map[string][]string{
	"dt":           {`\dt`},
	"dt.sales":     {`\dt sales.*`},
	"dn":           {`\dn`},
	"d":            {`\d`},
	"d.orders":     {`\d sales.orders`},
	"d.items":      {`\d items`},
	"df":           {`\df`},
	"du":           {`\du :USER`}, // only the test's role: other packages create roles in the shared cluster
	"x":            {`\x`, `SELECT id, customer, amount FROM sales.orders ORDER BY id`},
	"dplus.orders": {`\d+ sales.orders`},
}

// TestBICatalog runs what BI tools and drivers ask a database about its tables against
// lakepg and against PostgreSQL holding the same tables, and compares the answers: Grafana's
// catalog queries, pgJDBC's DatabaseMetaData (DBeaver, Metabase, DataGrip go through it),
// SQLAlchemy's reflection and Superset's further Inspector calls (SQLAlchemy 2's batch
// reflection included), pgcli's startup completion queries and \d commands, psqlODBC's
// catalog calls (Power BI through ODBC) and Tableau's PostgreSQL connector over psqlODBC,
// psql's meta-commands, the catalog SQL of pgAdmin 4, DBeaver, DataGrip and Metabase, and
// the type loading of Npgsql (Power BI's PostgreSQL connector). baseline.txt lists the
// checks that agree; fewer fail.
func TestBICatalog(t *testing.T) {
	pgDSN := testserver.PostgresDatabase(t, "clients")
	exec1(t, pgDSN, "CREATE SCHEMA main;\n"+fixtureSQL(t))
	u, err := url.Parse(pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	dbName := strings.TrimPrefix(u.Path, "/")
	pgPort, _ := strconv.Atoi(u.Port())
	pgUser := u.User.Username()

	s := lakeServer(t)
	// The same user and database name on both, so owners and catalog names agree.
	lakeDSN := fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", pgUser, s.Port, dbName)

	type target struct {
		host string
		port int
		dsn  string
	}
	lakeT := target{"127.0.0.1", s.Port, lakeDSN}
	pgT := target{u.Hostname(), pgPort, pgDSN}

	answers := map[string][2]string{} // check → lakepg's answer, PostgreSQL's
	record := func(prefix string, lake, pg map[string]string) {
		for k, v := range pg {
			answers[prefix+"."+k] = [2]string{lake[k], v}
		}
	}

	// Grafana
	lakeG, pgG := map[string]string{}, map[string]string{}
	for name, q := range grafanaQueries {
		lakeG[name] = queryAnswer(t, lakeT.dsn, q)
		pgG[name] = queryAnswer(t, pgT.dsn, q)
	}
	record("grafana", lakeG, pgG)

	// psql
	lakeP, pgP := map[string]string{}, map[string]string{}
	for name, cmds := range psqlCommands {
		lakeP[name] = psqlAnswer(lakeT.dsn, cmds)
		pgP[name] = psqlAnswer(pgT.dsn, cmds)
	}
	record("psql", lakeP, pgP)

	// pgJDBC
	jar := pgjdbcJar(t)
	classes := compileJava(t, jar)
	jdbc := func(tg target) map[string]string {
		url := fmt.Sprintf("jdbc:postgresql://%s:%d/%s?user=%s", tg.host, tg.port, dbName, pgUser)
		return parseLines(run(t, nil, "java", "-cp", jar+string(filepath.ListSeparator)+classes, "JdbcCheck", url, "metadata"))
	}
	record("jdbc", jdbc(lakeT), jdbc(pgT))

	// SQLAlchemy
	need(t, pythonHas("sqlalchemy"), "SQLAlchemy 2", "pip install sqlalchemy==2.1.9")
	sa := func(tg target) map[string]string {
		url := fmt.Sprintf("postgresql+psycopg://%s@%s:%d/%s", pgUser, tg.host, tg.port, dbName)
		return parseLines(run(t, nil, "python3", filepath.Join("testdata", "sqlalchemy_reflect.py"), url))
	}
	record("sqlalchemy", sa(lakeT), sa(pgT))
	superset := func(tg target) map[string]string {
		url := fmt.Sprintf("postgresql+psycopg://%s@%s:%d/%s", pgUser, tg.host, tg.port, dbName)
		return parseLines(run(t, nil, "python3", filepath.Join("testdata", "sqlalchemy_reflect.py"), url, "superset"))
	}
	record("superset", superset(lakeT), superset(pgT))

	// pgcli: its completion refresh at startup and pgspecial's \d commands
	need(t, pythonHas("pgcli.pgexecute"), "pgcli", "pip install pgcli==4.7.1")
	pgcli := func(tg target) map[string]string {
		dsn := fmt.Sprintf("host=%s port=%d user=%s dbname=%s", tg.host, tg.port, pgUser, dbName)
		return parseLines(run(t, nil, "python3", filepath.Join("testdata", "pgcli_catalog.py"), dsn))
	}
	record("pgcli", pgcli(lakeT), pgcli(pgT))

	// psqlODBC
	need(t, odbcReady(), "psqlODBC with unixODBC and pyodbc", "apt-get install odbc-postgresql unixodbc; pip install pyodbc==5.5.0")
	record("odbc", odbcLines(t, lakeT.host, lakeT.port, pgUser, dbName), odbcLines(t, pgT.host, pgT.port, pgUser, dbName))
	// Tableau's PostgreSQL connector over psqlODBC, with its connection string
	tableau := func(tg target) map[string]string {
		return parseLines(run(t, nil, "python3", filepath.Join("testdata", "tableau_check.py"), tg.host, strconv.Itoa(tg.port), pgUser, dbName))
	}
	record("tableau", tableau(lakeT), tableau(pgT))

	// pgAdmin 4's, DBeaver's, DataGrip's and Metabase's own catalog SQL (beyond pgJDBC's
	// DatabaseMetaData), and Npgsql's type loading (Power BI)
	for _, tool := range []struct{ prefix, file string }{{"pgadmin", "pgadmin_queries.sql"}, {"dbeaver", "dbeaver_queries.sql"},
		{"npgsql", "npgsql_queries.sql"}, {"datagrip", "datagrip_queries.sql"}, {"metabase", "metabase_queries.sql"}} {
		record(tool.prefix, sqlChecks(t, tool.file, lakeT.host, lakeT.port, pgUser, dbName), sqlChecks(t, tool.file, pgT.host, pgT.port, pgUser, dbName))
	}

	passed := testserver.Baseline{}
	var keys []string
	for k := range answers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var report []string
	for _, k := range keys {
		a := answers[k]
		if a[0] == a[1] {
			passed[k] = 1
			report = append(report, "agree   "+k)
			continue
		}
		passed[k] = 0
		report = append(report, "DIFFER  "+k)
		t.Logf("%s:\n  lakepg:     %s\n  PostgreSQL: %s", k, clip(a[0]), clip(a[1]))
	}
	bc := testserver.BaselineCheck{Path: "baseline.txt", List: true, Update: *update,
		Header:     []string{"Checks of TestBICatalog whose answer on lakepg equals PostgreSQL's.", "Rewrite with: go test ./test/clients -run TestBICatalog -update"},
		UpdateHint: "go test ./test/clients -run TestBICatalog -update"}
	report = append(report, fmt.Sprintf("%d of %d checks agree with PostgreSQL", len(filterOnes(passed)), len(keys)))
	report = append(report, bc.Check(t, passed, nil)...)
	testserver.Report(t, "clients", strings.Join(report, "\n"))
}

func filterOnes(b testserver.Baseline) []string {
	var out []string
	for k, v := range b {
		if v == 1 {
			out = append(out, k)
		}
	}
	return out
}

func clip(s string) string {
	if len(s) > 1500 {
		return s[:1500] + "…"
	}
	return s
}

// queryAnswer is a query's column names and types and its rows, sorted, or its error.
func queryAnswer(t *testing.T, dsn, q string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer c.Close(context.Background())
	res := c.ExecParams(ctx, q, nil, nil, nil, nil).Read()
	if res.Err != nil {
		return "ERROR " + sqlstate(res.Err)
	}
	var b strings.Builder
	for _, f := range res.FieldDescriptions {
		fmt.Fprintf(&b, "%s:%d,", f.Name, f.DataTypeOID)
	}
	var rows []string
	for _, r := range res.Rows {
		var cells []string
		for _, v := range r {
			if v == nil {
				cells = append(cells, "NULL")
			} else {
				cells = append(cells, string(v))
			}
		}
		rows = append(rows, strings.Join(cells, "|"))
	}
	sort.Strings(rows)
	b.WriteString("\t" + strings.Join(rows, ";"))
	return b.String()
}

// psqlAnswer is what psql prints for the commands (errors included).
func psqlAnswer(dsn string, cmds []string) string {
	args := []string{"-X", "-d", dsn}
	for _, c := range cmds {
		args = append(args, "-c", c)
	}
	out, err := exec.Command("psql", args...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%s\n(exit: %v)", out, err)
	}
	return string(out)
}
