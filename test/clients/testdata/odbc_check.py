"""psqlODBC (through unixODBC and pyodbc) against a server:
`python3 odbc_check.py HOST PORT USER DATABASE`. Prints one line per ODBC catalog call and
query, "name<TAB>answer" or "name<TAB>ERROR <sqlstate> <message>", for TestODBC and
TestBICatalog to compare with PostgreSQL: the calls Tableau and Power BI make through ODBC."""
import sys

import pyodbc

host, port, user, db = sys.argv[1:5]
conn = pyodbc.connect(f"DRIVER={{PostgreSQL Unicode}};SERVER={host};PORT={port};UID={user};DATABASE={db};"
                      "UseDeclareFetch=1;Fetch=2", autocommit=False)


def show(name, f):
    try:
        cur = f()
        cols = ",".join(f"{d[0]}:{d[1].__name__}" for d in cur.description)
        rows = sorted("|".join("" if v is None else str(v) for v in r) for r in cur.fetchall())
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
