"""psycopg 3 against lakepg: run as `python3 psycopg_check.py DSN`; exits 1 at the first mismatch."""
import datetime
import decimal
import sys
import uuid
import zoneinfo

import psycopg

dsn = sys.argv[1]
berlin = zoneinfo.ZoneInfo("Europe/Berlin")


def check(what, got, want):
    if got != want:
        sys.exit(f"{what}: got {got!r}, want {want!r}")


ORDER_1 = (1, "alice", decimal.Decimal("100.50"), 2, 5000000000, 1.5, 2.25, "first", True,
           datetime.date(2024, 1, 2), datetime.datetime(2024, 1, 2, 3, 4, 5),
           datetime.datetime(2024, 1, 2, 4, 4, 5, tzinfo=berlin), datetime.timedelta(days=1, hours=2),
           b"\x01\x02", uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"))

# Settings sent as startup options reach the session and come back as ParameterStatus.
with psycopg.connect(dsn, options="-c TimeZone=Europe/Berlin -c statement_timeout=5s", autocommit=True) as c:
    check("ParameterStatus TimeZone", c.info.parameter_status("TimeZone"), "Europe/Berlin")
    check("server_version", c.info.server_version // 10000, 15)
    check("SHOW statement_timeout", c.execute("SHOW statement_timeout").fetchone()[0], "5s")

    # Typed results of every supported type, in text and in binary.
    for binary in (False, True):
        cur = c.cursor(binary=binary)
        cur.execute("SELECT * FROM sales.orders ORDER BY id")
        rows = cur.fetchall()
        check(f"row 1 (binary={binary})", rows[0], ORDER_1)
        check(f"row 2 NULLs (binary={binary})", rows[1][3:8], (None,) * 5)
        oids = [d.type_code for d in cur.description]
        check("column type OIDs", oids[:4] + oids[5:7] + oids[8:], [23, 1043, 1700, 21, 700, 701, 16, 1082, 1114, 1184, 1186, 17, 2950])

    # Parameters of every type round-trip, sent as text and as binary.
    for binary in (False, True):
        got = c.execute("SELECT %s::int2, %s::int4, %s::int8, %s::float4, %s::float8, %s::numeric, %s::text, "
                        "%s::varchar, %s::bool, %s::date, %s::timestamp, %s::timestamptz, %s::interval, %s::bytea, %s::uuid",
                        (1, 2, 3, 1.5, 2.5, decimal.Decimal("-1.25"), "t", "v", True, datetime.date(2024, 1, 2),
                         datetime.datetime(2024, 1, 2, 3, 4, 5), datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
                         datetime.timedelta(days=1, hours=2), b"\x00\xff", uuid.UUID(int=7)), binary=binary).fetchone()
        check(f"parameters (binary={binary})", got, (1, 2, 3, 1.5, 2.5, decimal.Decimal("-1.25"), "t", "v", True, datetime.date(2024, 1, 2),
                                                     datetime.datetime(2024, 1, 2, 3, 4, 5), datetime.datetime(2024, 1, 2, 4, 4, 5, tzinfo=berlin),
                                                     datetime.timedelta(days=1, hours=2), b"\x00\xff", uuid.UUID(int=7)))

    c.execute("DROP TABLE IF EXISTS psy")
    c.execute("CREATE TABLE psy (a int, b text, t timestamptz)")

# executemany, COPY and named (server-side) cursors in transactions.
with psycopg.connect(dsn, options="-c TimeZone=Europe/Berlin") as c:
    cur = c.cursor()
    ts = datetime.datetime(2024, 6, 1, 12, 0, tzinfo=berlin)
    cur.executemany("INSERT INTO psy VALUES (%s, %s, %s)", [(i, f"row {i}", ts) for i in range(1, 6)])
    c.commit()
    with cur.copy("COPY psy (a, b, t) FROM STDIN") as cp:
        for i in range(6, 11):
            cp.write_row((i, f"copied\t{i}", ts))
    c.commit()
    check("count after executemany and COPY", cur.execute("SELECT count(*), sum(a) FROM psy").fetchone(), (10, 55))
    c.commit()
    with cur.copy("COPY (SELECT a, b FROM psy WHERE a IN (1, 6) ORDER BY a) TO STDOUT") as cp:
        out = [tuple(r) for r in cp.rows()]
    check("COPY TO STDOUT", out, [("1", "row 1"), ("6", "copied\t6")])
    c.commit()

    with c.cursor(name="big") as sc:
        sc.itersize = 3
        sc.execute("SELECT a, t FROM psy ORDER BY a")
        check("named cursor description", [d.name for d in sc.description], ["a", "t"])
        first = sc.fetchmany(4)
        rest = sc.fetchall()
    check("named cursor rows", [r[0] for r in first + rest], list(range(1, 11)))
    check("named cursor timestamptz", first[0][1], ts)
    c.commit()

    # An error carries its SQLSTATE, and the session goes on after ROLLBACK.
    try:
        cur.execute("SELECT 1/0")
        sys.exit("1/0 did not fail")
    except psycopg.errors.DivisionByZero as e:
        check("1/0 SQLSTATE", e.sqlstate, "22012")
    c.rollback()
    try:
        cur.execute("SELECT * FROM no_such_table")
        sys.exit("unknown table did not fail")
    except psycopg.errors.UndefinedTable as e:
        check("unknown table SQLSTATE", e.sqlstate, "42P01")
    c.rollback()
    check("after errors", cur.execute("SELECT count(*) FROM psy").fetchone()[0], 10)
    c.commit()

print("psycopg: all checks passed")
