"""asyncpg against lakepg: `python3 asyncpg_check.py HOST PORT USER DB`. Exits non-zero with a
message at the first mismatch; prints "all checks passed" at the end. asyncpg speaks only the
extended protocol with binary results, introspects parameter and result types by OID, and bulk
loads with COPY … FROM STDIN (FORMAT binary)."""
import asyncio
import datetime
import decimal
import sys
import uuid

import asyncpg


def check(what, got, want):
    if got != want:
        sys.exit(f"{what}: got {got!r}, want {want!r}")


async def main(host, port, user, db):
    conn = await asyncpg.connect(host=host, port=int(port), user=user, database=db)
    try:
        # Binary results of every fixture type.
        row = await conn.fetchrow(
            "SELECT id, customer, amount, qty, big, ratio, score, note, paid, day, created, created_tz, span, payload, ref "
            "FROM sales.orders WHERE id = $1", 1)
        check("ints", (row["id"], row["qty"], row["big"]), (1, 2, 5000000000))
        check("text", (row["customer"], row["note"]), ("alice", "first"))
        check("numeric", row["amount"], decimal.Decimal("100.50"))
        check("floats", (row["ratio"], row["score"]), (1.5, 2.25))
        check("bool/date", (row["paid"], row["day"]), (True, datetime.date(2024, 1, 2)))
        check("timestamp", row["created"], datetime.datetime(2024, 1, 2, 3, 4, 5))
        check("timestamptz", row["created_tz"], datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc))
        check("interval", row["span"], datetime.timedelta(days=1, hours=2))
        check("bytea", row["payload"], b"\x01\x02")
        check("uuid", row["ref"], uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"))
        nulls = await conn.fetchrow("SELECT qty, ratio, day, span, ref FROM sales.orders WHERE id = 2")
        check("nulls", tuple(nulls), (None, None, None, None, None))

        # A prepared statement: parameter types from the server, run many times.
        stmt = await conn.prepare("SELECT customer, amount * $2 FROM sales.orders WHERE id = $1")
        check("parameter types", [t.name for t in stmt.get_parameters()], ["int4", "numeric"])
        check("result columns", [a.name for a in stmt.get_attributes()], ["customer", "?column?"])
        check("prepared 1", tuple(await stmt.fetchrow(1, decimal.Decimal(2))), ("alice", decimal.Decimal("201.00")))
        check("prepared 2", tuple(await stmt.fetchrow(2, decimal.Decimal(1))), ("bob", decimal.Decimal("-7.25")))
        check("typed parameters", await conn.fetchval(
            "SELECT $1::bigint + 1 || ' ' || $2::text || ' ' || $3::date || ' ' || $4::boolean",
            41, "x", datetime.date(2024, 5, 6), False), "42 x 2024-05-06 false")

        # A cursor inside a transaction pages through a result.
        async with conn.transaction():
            n = 0
            async for r in conn.cursor("SELECT g FROM generate_series(1, 10000) g", prefetch=1000):
                n += r["g"]
            check("cursor sum", n, 10000 * 10001 // 2)

        # copy_records_to_table: binary COPY FROM STDIN; the rows come back typed.
        await conn.execute("DROP TABLE IF EXISTS public.apg_copy")
        await conn.execute("CREATE TABLE public.apg_copy (id bigint, label text, price numeric(10,2), seen timestamptz, ok boolean)")
        ts = datetime.datetime(2024, 3, 4, 5, 6, 7, tzinfo=datetime.timezone.utc)
        records = [(i, f"item {i}" if i % 3 else None, decimal.Decimal(i) / 4, ts, i % 2 == 0) for i in range(1, 501)]
        res = await conn.copy_records_to_table("apg_copy", records=records, schema_name="public")
        check("copy result", res, "COPY 500")
        got = await conn.fetch("SELECT id, label, price, seen, ok FROM public.apg_copy WHERE id IN (1, 3, 500) ORDER BY id")
        check("copied rows", [tuple(r) for r in got],
              [(1, "item 1", decimal.Decimal("0.25"), ts, False), (3, None, decimal.Decimal("0.75"), ts, False),
               (500, "item 500", decimal.Decimal("125.00"), ts, True)])
        check("copied count", await conn.fetchval("SELECT count(*) FROM public.apg_copy"), 500)

        # executemany, and an error with its SQLSTATE; the connection goes on.
        await conn.executemany("INSERT INTO public.apg_copy (id, label) VALUES ($1, $2)", [(1001, "a"), (1002, "b")])
        check("executemany", await conn.fetchval("SELECT count(*) FROM public.apg_copy WHERE id > 1000"), 2)
        try:
            await conn.fetchval("SELECT 1 / $1::int", 0)
            sys.exit("division by zero succeeded")
        except asyncpg.exceptions.DivisionByZeroError as e:
            check("error sqlstate", e.sqlstate, "22012")
        check("after the error", await conn.fetchval("SELECT 7"), 7)
        await conn.execute("DROP TABLE public.apg_copy")
    finally:
        await conn.close()
    print("all checks passed")


asyncio.run(main(*sys.argv[1:5]))
