"""psycopg2 against lakepg: `python3 psycopg2_check.py DSN`. Exits non-zero with a message at the
first mismatch; prints "all checks passed" at the end. Covers what psycopg2 applications lean on:
its implicit transaction blocks, typed results, server-side (named) cursors paging through a
result, COPY through copy_expert in both directions, and errors with their SQLSTATE."""
import datetime
import decimal
import io
import sys
import uuid

import psycopg2
import psycopg2.errors
import psycopg2.extras


def check(what, got, want):
    if got != want:
        sys.exit(f"{what}: got {got!r}, want {want!r}")


conn = psycopg2.connect(sys.argv[1])
cur = conn.cursor()

# Typed results (psycopg2 opens a transaction block before the first statement).
cur.execute("SELECT id, customer, amount, qty, big, ratio, paid, day, created, created_tz, span, payload, ref "
            "FROM sales.orders WHERE id = %s", (1,))
row = cur.fetchone()
check("status in a block", conn.get_transaction_status(), psycopg2.extensions.TRANSACTION_STATUS_INTRANS)
check("row", row[:5], (1, "alice", decimal.Decimal("100.50"), 2, 5000000000))
check("real", row[5], 1.5)
check("bool/date", (row[6], row[7]), (True, datetime.date(2024, 1, 2)))
check("timestamp", row[8], datetime.datetime(2024, 1, 2, 3, 4, 5))
check("timestamptz", row[9].astimezone(datetime.timezone.utc), datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc))
check("interval", row[10], datetime.timedelta(days=1, hours=2))
check("bytea", bytes(row[11]), b"\x01\x02")
check("uuid", uuid.UUID(row[12]), uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"))
check("description", [d.name for d in cur.description][:3], ["id", "customer", "amount"])
conn.commit()

# A server-side cursor pages through a result without fetching it whole.
conn.autocommit = False
named = conn.cursor(name="big_scan")
named.itersize = 1000
named.execute("SELECT g, g * 2 FROM generate_series(1, 25000) g ORDER BY g")
total, count, first = 0, 0, None
while True:
    rows = named.fetchmany(4096)
    if not rows:
        break
    if first is None:
        first = rows[0]
    count += len(rows)
    total += sum(r[1] for r in rows)
check("named cursor rows", count, 25000)
check("named cursor first", first, (1, 2))
check("named cursor sum", total, 25000 * 25001)
named.close()
conn.commit()
cur.execute("SELECT count(*) FROM pg_cursors")
check("cursor closed", cur.fetchone()[0], 0)
conn.rollback()

# COPY through copy_expert, into a new table and back out.
conn.autocommit = True
cur.execute("DROP TABLE IF EXISTS public.p2_copy")
cur.execute("CREATE TABLE public.p2_copy (id integer, label text, price numeric(10,2))")
data = io.StringIO("1\tone\t1.50\n2\t\\N\t2.25\n3\tthree, quoted\t\\N\n")
cur.copy_expert("COPY public.p2_copy FROM STDIN", data)
check("copy in rowcount", cur.rowcount, 3)
out = io.StringIO()
cur.copy_expert("COPY (SELECT * FROM public.p2_copy ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)", out)
check("copy out", out.getvalue(), 'id,label,price\n1,one,1.50\n2,,2.25\n3,"three, quoted",\n')
bad = io.StringIO("4\tfour\tnot-a-number\n")
try:
    cur.copy_expert("COPY public.p2_copy FROM STDIN", bad)
    sys.exit("a malformed COPY line was accepted")
except psycopg2.Error as e:
    check("bad copy sqlstate", e.pgcode, "22P02")
cur.execute("SELECT count(*) FROM public.p2_copy")
check("bad copy committed nothing", cur.fetchone()[0], 3)

# executemany and a transaction block committed as one.
conn.autocommit = False
cur.executemany("INSERT INTO public.p2_copy VALUES (%s, %s, %s)", [(10, "ten", decimal.Decimal("10")), (11, None, None)])
conn.commit()
cur.execute("SELECT id, label FROM public.p2_copy WHERE id >= 10 ORDER BY id")
check("executemany", cur.fetchall(), [(10, "ten"), (11, None)])
conn.rollback()

# Errors carry the SQLSTATE, the block fails until ROLLBACK, then the session goes on.
try:
    cur.execute("SELECT 1 / 0")
    sys.exit("division by zero succeeded")
except psycopg2.errors.DivisionByZero as e:
    check("error sqlstate", e.pgcode, "22012")
try:
    cur.execute("SELECT 1")
    sys.exit("a failed block ran a statement")
except psycopg2.errors.InFailedSqlTransaction:
    pass
conn.rollback()
cur.execute("SELECT 2")
check("after rollback", cur.fetchone()[0], 2)
dict_cur = conn.cursor(cursor_factory=psycopg2.extras.RealDictCursor)
dict_cur.execute("SELECT item_id, name FROM public.items ORDER BY item_id")
check("dict cursor", [dict(r) for r in dict_cur.fetchall()], [{"item_id": 1, "name": "widget"}, {"item_id": 2, "name": "gadget"}])
conn.rollback()
conn.autocommit = True
cur.execute("DROP TABLE public.p2_copy")
conn.close()
print("all checks passed")
