"""Tableau's PostgreSQL connector through psqlODBC (unixODBC and pyodbc) against a server:
`python3 tableau_check.py HOST PORT USER DATABASE`. Prints one line per check,
"name<TAB>answer" or "name<TAB>ERROR <sqlstate> <message>", for TestBICatalog to compare
with PostgreSQL.

What Tableau sends, from its public sources: the connection string of its PostgreSQL ODBC
connector (tableau/connector-plugin-sdk, samples/plugins/postgres_odbc/connectionBuilder.js:
BOOLSASCHAR=0, LFCONVERSION=0, UseDeclareFetch=1, Fetch=2048); psqlODBC's own query on
connect as a Tableau session logged it (treasure-data/prestogres#29: the large-object type
lookup); the ODBC catalog calls it makes to list schemas, tables and columns (its manifest
suppresses SQLStatistics and information_schema tables); the zero-row query it reads a
relation's column metadata with (CAP_QUERY_WHERE_FALSE_METADATA); and queries written as
its PostgreSQL dialect (postgres_odbc/dialect.tdd) renders them: quoted aliases, GROUP BY
ordinals, CAST(EXTRACT(YEAR FROM …) AS INTEGER), STRPOS for CONTAINS, BTRIM for TRIM,
LIMIT for top N. A query's answer has its ODBC column descriptions (name, SQL type, display
size, internal size, precision, scale, nullable) and its rows, sorted."""
import sys

import pyodbc

host, port, user, db = sys.argv[1:5]
conn = pyodbc.connect(f"DRIVER={{PostgreSQL Unicode}};SERVER={host};PORT={port};UID={user};PWD=;DATABASE={db};"
                      "BOOLSASCHAR=0;LFCONVERSION=0;UseDeclareFetch=1;Fetch=2048", autocommit=True)


# OIDs of the fixture's tables differ between servers: answers name them.
names = {oid: f"oid of {schema}.{table}" for oid, schema, table in conn.cursor().execute(
    "SELECT c.oid::bigint, n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n"
    " ON n.oid = c.relnamespace WHERE n.nspname IN ('public', 'sales') AND c.relkind = 'r'").fetchall()}


def show(name, f, describe=False):
    try:
        cur = f()
        oid_cols = {i for i, d in enumerate(cur.description) if d[0] == "table oid"}
        if describe:
            cols = ",".join(f"{d[0]}:{d[1].__name__}:{d[2]}:{d[3]}:{d[4]}:{d[5]}:{d[6]}" for d in cur.description)
        else:
            cols = ",".join(f"{d[0]}:{d[1].__name__}" for d in cur.description)
        rows = sorted("|".join("" if v is None else str(names.get(v, v) if i in oid_cols else v) for i, v in enumerate(r))
                      for r in cur.fetchall())
        print(f"{name}\t{cols}\t{';'.join(rows)}")
    except pyodbc.Error as e:
        print(f"{name}\tERROR {e.args[0]} {str(e.args[1]).splitlines()[0] if len(e.args) > 1 else ''}")


def query(sql):
    return lambda: conn.cursor().execute(sql)


show("connect.lo_type", query("select oid, typbasetype from pg_type where typname = 'lo'"))
# SQL_ALL_SCHEMAS: an empty catalog and table name with schema "%" enumerate the schemas
show("SQLTables.schemas", lambda: conn.cursor().tables(catalog="", schema="%", table="", tableType=""))
show("SQLTables", lambda: conn.cursor().tables(schema="%", table="%", tableType="TABLE,VIEW"))
show("SQLColumns.orders", lambda: conn.cursor().columns(table="orders", schema="sales"))
show("SQLColumns.items", lambda: conn.cursor().columns(table="items", schema="public"))
show("metadata.orders", query('SELECT * FROM "sales"."orders" "orders" WHERE (1 = 0)'), describe=True)
show("metadata.items", query('SELECT * FROM "public"."items" "items" WHERE (1 = 0)'), describe=True)
show("query.aggregate", query('SELECT "orders"."customer" AS "customer",\n  SUM("orders"."amount") AS "sum:amount:ok"\n'
                              'FROM "sales"."orders" "orders"\nGROUP BY 1'), describe=True)
show("query.year", query('SELECT CAST(EXTRACT(YEAR FROM "orders"."day") AS INTEGER) AS "yr:day:ok",\n'
                         '  COUNT(DISTINCT "orders"."customer") AS "ctd:customer:ok"\nFROM "sales"."orders" "orders"\n'
                         'GROUP BY 1'), describe=True)
show("query.contains", query('SELECT "orders"."id" AS "id"\nFROM "sales"."orders" "orders"\n'
                             'WHERE (STRPOS(CAST("orders"."customer" AS TEXT),CAST(\'li\' AS TEXT)) > 0)\nGROUP BY 1'),
     describe=True)
show("query.top", query('SELECT BTRIM(CAST("orders"."customer" AS TEXT), \' \') AS "Calculation_1",\n'
                        '  "orders"."paid" AS "paid",\n  "orders"."created_tz" AS "created_tz",\n'
                        '  "orders"."ratio" AS "ratio"\nFROM "sales"."orders" "orders"\nORDER BY 1 ASC\nLIMIT 1000'),
     describe=True)
show("query.join", query('SELECT "items"."name" AS "name",\n  SUM("orders"."qty") AS "sum:qty:ok"\n'
                         'FROM "public"."items" "items"\n  INNER JOIN "sales"."orders" "orders" ON ("items"."item_id" = "orders"."id")\n'
                         'GROUP BY 1'), describe=True)
conn.close()
