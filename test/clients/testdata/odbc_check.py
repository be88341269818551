"""psqlODBC (through unixODBC and pyodbc) against a server:
`python3 odbc_check.py HOST PORT USER DATABASE [statement-rollback]`. Prints one line per ODBC
catalog call and query, "name<TAB>answer" or "name<TAB>ERROR <sqlstate> <message>", for TestODBC
and TestBICatalog to compare with PostgreSQL: the calls Tableau and Power BI make through ODBC.
With statement-rollback it also writes in a transaction in which statements fail: psqlODBC's
default statement-level rollback wraps each statement in SAVEPOINT _EXEC_SVP_… and answers an
error with ROLLBACK TO it, so the transaction goes on and commits the statements that worked."""
import sys

import pyodbc

host, port, user, db = sys.argv[1:5]
conn = pyodbc.connect(f"DRIVER={{PostgreSQL Unicode}};SERVER={host};PORT={port};UID={user};DATABASE={db};"
                      "UseDeclareFetch=1;Fetch=2", autocommit=False)


# OIDs of the fixture's tables differ between servers: answers name them.
names = {oid: f"oid of {schema}.{table}" for oid, schema, table in conn.cursor().execute(
    "SELECT c.oid::bigint, n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n"
    " ON n.oid = c.relnamespace WHERE n.nspname IN ('public', 'sales') AND c.relkind = 'r'").fetchall()}
conn.rollback()


def show(name, f):
    try:
        cur = f()
        cols = ",".join(f"{d[0]}:{d[1].__name__}" for d in cur.description)
        oid_cols = {i for i, d in enumerate(cur.description) if d[0] == "table oid"}
        rows = sorted("|".join("" if v is None else str(names.get(v, v) if i in oid_cols else v) for i, v in enumerate(r))
                      for r in cur.fetchall())
        print(f"{name}\t{cols}\t{';'.join(rows)}")
    except pyodbc.Error as e:
        print(f"{name}\tERROR {e.args[0]} {str(e.args[1]).splitlines()[0] if len(e.args) > 1 else ''}")
    conn.rollback()


show("SQLTables", lambda: conn.cursor().tables(schema="sales", tableType="TABLE"))
show("SQLTables.all", lambda: conn.cursor().tables(table="%", tableType="TABLE,VIEW"))
show("SQLColumns", lambda: conn.cursor().columns(table="orders", schema="sales"))
show("SQLColumns.items", lambda: conn.cursor().columns(table="items", schema="public"))
show("SQLPrimaryKeys", lambda: conn.cursor().primaryKeys(table="orders", schema="sales"))
show("SQLStatistics", lambda: conn.cursor().statistics(table="orders", schema="sales"))
show("SQLGetTypeInfo", lambda: conn.cursor().getTypeInfo())
# UseDeclareFetch=1 makes the driver read through DECLARE/FETCH, two rows at a time.
show("query", lambda: conn.cursor().execute("SELECT id, customer, amount, day FROM sales.orders ORDER BY id"))
show("query.params", lambda: conn.cursor().execute("SELECT id FROM sales.orders WHERE customer = ? AND amount > ?", "alice", 1.5))
show("query.error", lambda: conn.cursor().execute("SELECT 1/0"))
show("query.after_error", lambda: conn.cursor().execute("SELECT count(*) FROM sales.orders"))
conn.close()

if sys.argv[5:] == ["statement-rollback"]:
    conn = pyodbc.connect(f"DRIVER={{PostgreSQL Unicode}};SERVER={host};PORT={port};UID={user};DATABASE={db};"
                          "UseDeclareFetch=1;Fetch=2", autocommit=False)
    cur = conn.cursor()
    errors = []

    def attempt(sql, *params):
        try:
            cur.execute(sql, *params)
            if cur.description:
                cur.fetchall()
        except pyodbc.Error as e:
            errors.append(e.args[0])

    cur.execute("CREATE TABLE public.odbc_svp (id integer, v text)")
    cur.execute("INSERT INTO public.odbc_svp VALUES (1, 'a')")
    attempt("INSERT INTO public.odbc_svp VALUES ('x', 'bad')")
    cur.execute("INSERT INTO public.odbc_svp VALUES (?, ?)", 2, "b")
    attempt("SELECT 1/0")
    cur.execute("UPDATE public.odbc_svp SET v = 'B' WHERE id = 2")
    attempt("DELETE FROM public.odbc_nosuch")
    cur.execute("DELETE FROM public.odbc_svp WHERE id = 1")
    cur.execute("INSERT INTO public.odbc_svp VALUES (3, 'c')")
    print(f"rollback.inside\t{cur.execute('SELECT id, v FROM public.odbc_svp ORDER BY id').fetchall()}")
    conn.commit()
    print(f"rollback.errors\t{','.join(errors)}")
    print(f"rollback.committed\t{cur.execute('SELECT id, v FROM public.odbc_svp ORDER BY id').fetchall()}")
    cur.execute("DROP TABLE public.odbc_svp")
    conn.commit()
    conn.close()
