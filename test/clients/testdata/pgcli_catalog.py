"""pgcli's catalog queries (its completion refresh at startup, PGExecute in pgcli/pgexecute.py)
and pgspecial's backslash commands (pgcli's \\d family), run by pgcli's own code:
`python3 pgcli_catalog.py DSN`. Prints one line per call, "name<TAB>answer" or
"name<TAB>ERROR <sqlstate> <message>", for TestBICatalog to compare with PostgreSQL."""
import sys

import psycopg
from pgcli.pgexecute import PGExecute
from pgspecial.main import PGSpecial

ex = PGExecute(dsn=sys.argv[1])
lake = {"main", "public", "sales"}  # what both servers hold alike; PostgreSQL has more built-ins


def special(cmd):
    out = []
    for title, cur, headers, status, *_ in ex.run(cmd, pgspecial=PGSpecial()):
        rows = [tuple(r) for r in cur] if cur is not None else []
        out.append((title, list(headers or []), rows, status))
    return out


calls = [
    ("schemata", lambda: sorted(ex.schemata())),
    ("search_path", lambda: ex.search_path()),
    ("tables", lambda: sorted(t for t in ex.tables() if t[0] in lake)),
    ("views", lambda: sorted(t for t in ex.views() if t[0] in lake)),
    ("table_columns", lambda: sorted(t for t in ex.table_columns() if t[0] in lake)),
    ("view_columns", lambda: sorted(t for t in ex.view_columns() if t[0] in lake)),
    ("foreignkeys", lambda: sorted(ex.foreignkeys())),
    ("functions", lambda: sorted(f for f in ex.functions() if f.schema_name in lake)),
    ("datatypes", lambda: sorted(t for t in ex.datatypes() if t[0] in lake)),
    ("databases.current", lambda: [d for d in ex.databases() if d == ex.dbname]),
    ("special.dt", lambda: special("\\dt")),
    ("special.dn", lambda: special("\\dn")),
    ("special.d.orders", lambda: special("\\d sales.orders")),
    ("special.d.items", lambda: special("\\d items")),
    ("special.dv", lambda: special("\\dv")),
]
for name, f in calls:
    try:
        print(f"{name}\t{f()!r}")
    except psycopg.Error as e:
        ex.conn.rollback()
        print(f"{name}\tERROR {e.sqlstate} {str(e).splitlines()[0]}")
