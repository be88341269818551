"""SQLAlchemy 2 reflection (what Superset runs on a database) over psycopg 3:
`python3 sqlalchemy_reflect.py URL`. Prints one line per Inspector call, "name<TAB>answer"
or "name<TAB>ERROR <sqlstate> <message>", for TestBICatalog to compare with PostgreSQL."""
import sys

import sqlalchemy as sa

# Autocommit: SQLAlchemy's first connect otherwise wraps psycopg's type lookup in a SAVEPOINT.
insp = sa.inspect(sa.create_engine(sys.argv[1], isolation_level="AUTOCOMMIT"))
calls = [
    ("get_schema_names", lambda: sorted(insp.get_schema_names())),
    ("get_table_names", lambda: sorted(insp.get_table_names(schema="sales"))),
    ("has_table", lambda: insp.has_table("orders", schema="sales")),
    ("has_table.missing", lambda: insp.has_table("nope", schema="sales")),
    ("get_columns", lambda: [(c["name"], str(c["type"]), c["nullable"], c["default"]) for c in insp.get_columns("orders", schema="sales")]),
    ("get_columns.items", lambda: [(c["name"], str(c["type"]), c["nullable"], c["default"]) for c in insp.get_columns("items")]),
    ("get_pk_constraint", lambda: insp.get_pk_constraint("orders", schema="sales")),
    ("get_foreign_keys", lambda: insp.get_foreign_keys("orders", schema="sales")),
    ("get_indexes", lambda: insp.get_indexes("orders", schema="sales")),
    ("get_unique_constraints", lambda: insp.get_unique_constraints("orders", schema="sales")),
    ("get_check_constraints", lambda: insp.get_check_constraints("orders", schema="sales")),
    ("get_view_names", lambda: insp.get_view_names(schema="sales")),
    ("get_table_comment", lambda: insp.get_table_comment("orders", schema="sales")),
]
for name, f in calls:
    try:
        print(f"{name}\t{f()!r}")
    except sa.exc.DBAPIError as e:
        print(f"{name}\tERROR {getattr(e.orig, 'sqlstate', '')} {str(e.orig).splitlines()[0]}")
