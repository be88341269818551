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
# Superset's further Inspector calls (superset/db_engine_specs/base.py and
# superset/models/core.py: temporary tables and views, sequences, materialized views,
# schema and sequence lookups) and SQLAlchemy 2's batch reflection (get_multi_*), which
# Inspector.reflect_table and MetaData.reflect use: `sqlalchemy_reflect.py URL superset`.
superset = [
    ("get_temp_table_names", lambda: sorted(insp.get_temp_table_names())),
    ("get_temp_view_names", lambda: sorted(insp.get_temp_view_names())),
    ("get_sequence_names", lambda: sorted(insp.get_sequence_names(schema="sales"))),
    ("get_materialized_view_names", lambda: sorted(insp.get_materialized_view_names(schema="sales"))),
    ("get_view_names.public", lambda: sorted(insp.get_view_names())),
    ("has_schema", lambda: insp.has_schema("sales")),
    ("has_schema.missing", lambda: insp.has_schema("nope")),
    ("has_sequence", lambda: insp.has_sequence("nope", schema="sales")),
    ("get_table_options", lambda: insp.get_table_options("orders", schema="sales")),
    ("get_multi_columns", lambda: sorted((k, [(c["name"], str(c["type"]), c["nullable"], c["default"]) for c in v])
                                         for k, v in insp.get_multi_columns(schema="sales").items())),
    ("get_multi_columns.public", lambda: sorted((k, [(c["name"], str(c["type"]), c["nullable"], c["default"]) for c in v])
                                                for k, v in insp.get_multi_columns().items())),
    ("get_multi_pk_constraint", lambda: sorted(insp.get_multi_pk_constraint(schema="sales").items())),
    ("get_multi_foreign_keys", lambda: sorted(insp.get_multi_foreign_keys(schema="sales").items())),
    ("get_multi_indexes", lambda: sorted(insp.get_multi_indexes(schema="sales").items())),
    ("get_multi_unique_constraints", lambda: sorted(insp.get_multi_unique_constraints(schema="sales").items())),
    ("get_multi_check_constraints", lambda: sorted(insp.get_multi_check_constraints(schema="sales").items())),
    ("get_multi_table_comment", lambda: sorted(insp.get_multi_table_comment(schema="sales").items())),
    ("get_enums", lambda: insp.get_enums(schema="*")),
    ("get_domains", lambda: insp.get_domains(schema="*")),
    ("reflect_table", lambda: [(c.name, str(c.type), c.nullable) for c in
                               sa.Table("orders", sa.MetaData(), schema="sales", autoload_with=insp.bind).columns]),
]
if sys.argv[2:] == ["superset"]:
    calls = superset
for name, f in calls:
    try:
        print(f"{name}\t{f()!r}")
    except sa.exc.DBAPIError as e:
        print(f"{name}\tERROR {getattr(e.orig, 'sqlstate', '')} {str(e.orig).splitlines()[0]}")
    except sa.exc.SQLAlchemyError as e:
        print(f"{name}\tERROR {type(e).__name__} {str(e).splitlines()[0]}")
