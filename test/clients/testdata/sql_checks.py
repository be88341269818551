"""Runs a file of a tool's catalog queries (pgadmin_queries.sql, dbeaver_queries.sql,
npgsql_queries.sql, datagrip_queries.sql, metabase_queries.sql) through psycopg 3, pgAdmin 4's driver, in one autocommit session, as the tool sends them:
`python3 sql_checks.py FILE DSN`. Prints one line per query, "name<TAB>answer": the
column names and the rows (sorted) as the driver hands them to the tool, or
"ERROR <sqlstate> <message>". A value's Python type is in its repr, so a column that the
driver reads as a different kind of value (a number as text, a bool as a string) differs;
OID against bigint or "char" against text does not, as neither tool can tell them apart.

The file holds queries headed by "-- name: NAME", optionally "-- keep: COLUMN=V1|V2"
(compare only rows whose COLUMN is one of the values: PostgreSQL lists template databases
and predefined roles a lake has not), or "-- drop: COLUMN=V1|V2" (leave out rows whose
COLUMN is one of the values: types PostgreSQL has and lakepg has not). In the SQL,
{{did}}, {{scid}} and {{tid}} are the OIDs the tool took from the rows it listed before (the database, schema sales, table
sales.orders); {{db}} and {{user}} the database and user names. OIDs of the fixture's
objects (and of their row types and TOAST tables) differ between servers, so answers
show them by name.

A check may hold several statements, sent in one simple-protocol Query as Npgsql sends its
type-loading batch: its answer lists every result, and "-- shape: N" shows the first N
results only by column names and row count (version() differs between servers), and
"-- ignore: COLUMN..." shows those columns' values as * (xmin, a transaction id). Comment
lines inside a check's SQL are sent with it, as the tool sends them."""
import sys

import psycopg

LAKE_OBJECTS = """SELECT oid::bigint, 'database ' || datname FROM pg_catalog.pg_database WHERE datname = current_database()
UNION ALL SELECT oid::bigint, 'schema ' || nspname FROM pg_catalog.pg_namespace WHERE nspname IN ('main', 'public', 'sales')
UNION ALL SELECT c.oid::bigint, 'table ' || c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname IN ('public', 'sales') AND c.relkind = 'r'
UNION ALL SELECT t.oid::bigint, 'rowtype ' || t.typname FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
 WHERE n.nspname IN ('public', 'sales') AND t.typtype = 'c'
UNION ALL SELECT c.reltoastrelid::bigint, 'toast of ' || c.relname FROM pg_catalog.pg_class c
 JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('public', 'sales') AND c.reltoastrelid <> 0"""


def load(path):
    checks, cur = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("-- name: "):
                cur = {"name": line[len("-- name: "):].strip(), "sql": "", "keep": None, "drop": None, "shape": 0, "ignore": []}
                checks.append(cur)
            elif cur is None:
                continue
            elif line.startswith("-- keep: ") and not cur["sql"].strip():
                col, vals = line[len("-- keep: "):].strip().split("=", 1)
                cur["keep"] = (col, vals.split("|"))
            elif line.startswith("-- drop: ") and not cur["sql"].strip():
                col, vals = line[len("-- drop: "):].strip().split("=", 1)
                cur["drop"] = (col, vals.split("|"))
            elif line.startswith("-- ignore: ") and not cur["sql"].strip():
                cur["ignore"] = line[len("-- ignore: "):].split()
            elif line.startswith("-- shape: ") and not cur["sql"].strip():
                cur["shape"] = int(line[len("-- shape: "):])
            elif line.startswith("--") and not cur["sql"].strip():
                continue
            else:
                cur["sql"] += line
    for ch in checks:
        # comments after the last statement belong to the file, not to the check
        lines = ch["sql"].rstrip().split("\n")
        while lines and lines[-1].startswith("--"):
            lines.pop()
        ch["sql"] = "\n".join(lines) + "\n"
    return checks


def main():
    path, dsn = sys.argv[1], sys.argv[2]
    conn = psycopg.connect(dsn, autocommit=True)

    def one(q):
        return conn.execute(q).fetchone()[0]

    names = {oid: name for oid, name in conn.execute(LAKE_OBJECTS).fetchall()}
    subst = {
        "{{db}}": one("SELECT current_database()"),
        "{{user}}": one("SELECT current_user"),
        "{{did}}": str(one("SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()")),
        "{{scid}}": str(one("SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'sales'")),
        "{{tid}}": str(one("SELECT c.oid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                           " WHERE n.nspname = 'sales' AND c.relname = 'orders'")),
    }

    def fill(s):
        for k, v in subst.items():
            s = s.replace(k, v)
        return s

    def result(cur, ch, shape_only):
        if cur.description is None:
            return repr(cur.statusmessage)
        cols = [d.name for d in cur.description]
        rows = cur.fetchall()
        if shape_only:
            return f"{cols!r} {len(rows)} rows"
        if ch["keep"]:
            col, vals = ch["keep"]
            at = cols.index(col)
            rows = [r for r in rows if str(r[at]) in {fill(v) for v in vals}]
        if ch["drop"] and ch["drop"][0] in cols:
            col, vals = ch["drop"]
            at = cols.index(col)
            rows = [r for r in rows if str(r[at]) not in vals]
        skip = {cols.index(c) for c in ch["ignore"]}
        rows = [tuple("*" if i in skip else v for i, v in enumerate(r)) for r in rows]
        rows = sorted(repr(tuple(names.get(v, v) if isinstance(v, int) and not isinstance(v, bool) else v for v in r))
                      for r in rows)
        return f"{cols!r} {rows!r}"

    for ch in load(path):
        try:
            cur = conn.execute(fill(ch["sql"]))
            answers = []
            while True:
                answers.append(result(cur, ch, len(answers) < ch["shape"]))
                if not cur.nextset():
                    break
        except psycopg.Error as e:
            print(f"{ch['name']}\tERROR {e.sqlstate} {str(e).splitlines()[0]}")
            continue
        print(f"{ch['name']}\t{' || '.join(answers)}")


main()
