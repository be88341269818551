"""psycopg 3 through PgBouncer: python3 psycopg_pool.py SESSION_DSN TRANSACTION_DSN BASE.

Inserts rows into drv (id bigint, client text) with ids from BASE on, through a session pool
(every statement prepared server-side, twice in a row, so that the second connection's
statement names clash unless the pooler's DISCARD ALL dropped the first one's) and through a
transaction pool (no prepared statements, as psycopg documents for PgBouncer): autocommit
rows, a transaction of two rows, a rolled-back transaction, executemany in a transaction.
After each part it counts its own rows. Prints "acked ID..." and "rolledback ID...";
exits 1 at the first mismatch.
"""
import sys

import psycopg

session_dsn, tx_dsn, base = sys.argv[1], sys.argv[2], int(sys.argv[3])
acked, rolled = [], []


def own_rows(c):
    return c.execute("SELECT count(*) FROM drv WHERE id >= %s AND id < %s", (base, base + 1000)).fetchone()[0]


def check(what, got, want):
    if got != want:
        sys.exit(f"{what}: got {got!r}, want {want!r}")


for round_ in range(2):
    with psycopg.connect(session_dsn, autocommit=True, prepare_threshold=0) as c:
        for i in range(5):
            k = base + 10 * round_ + i
            c.execute("INSERT INTO drv VALUES (%s, %s)", (k, "psycopg/session"))
            acked.append(k)
        check(f"session round {round_}: own rows", own_rows(c), len(acked))

with psycopg.connect(tx_dsn, prepare_threshold=None) as c:
    with c.transaction():
        c.execute("INSERT INTO drv VALUES (%s, %s)", (base + 100, "psycopg/transaction"))
        c.execute("INSERT INTO drv VALUES (%s, %s)", (base + 101, "psycopg/transaction"))
    acked += [base + 100, base + 101]
    try:
        with c.transaction():
            c.execute("INSERT INTO drv VALUES (%s, %s)", (base + 200, "psycopg/transaction"))
            raise psycopg.Rollback()
    finally:
        rolled.append(base + 200)
    with c.transaction():
        c.cursor().executemany("INSERT INTO drv VALUES (%s, %s)",
                               [(base + 300 + i, "psycopg/transaction") for i in range(20)])
    acked += [base + 300 + i for i in range(20)]
    c.commit()
    check("transaction pool: own rows", own_rows(c), len(acked))
    c.commit()

with psycopg.connect(tx_dsn, prepare_threshold=None, autocommit=True) as c:
    for i in range(10):
        c.execute("INSERT INTO drv VALUES (%s, %s)", (base + 400 + i, "psycopg/autocommit"))
        acked.append(base + 400 + i)
        check("autocommit: own rows", own_rows(c), len(acked))

print("acked", *acked)
print("rolledback", *rolled)
