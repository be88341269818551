#!/usr/bin/env python3
"""TPC-H side by side: lakepg (through psycopg, text protocol) and DuckDB over the
same Parquet files with the same thread count, in one run. Prints per-query medians and
the ratio lakepg/DuckDB, plus geometric means. Not a test: figures only.

usage: bench/tpch_vs_duckdb.py --parquet DIR --dsn postgresql://u@127.0.0.1:5433/lake
       [--runs 3] [--threads 2] [--load] [--queries 1,6]
--load creates the lakepg tables with CREATE TABLE … AS SELECT * FROM read_parquet(…).
"""
import argparse, glob, math, os, statistics, sys, time

import duckdb
import psycopg

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.abspath(os.path.join(HERE, "..", "..", "shared", "tpch"))
TABLES = ["nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]


def timed(fn, runs):
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), min(ts), max(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--parquet", required=True)
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--load", action="store_true")
    ap.add_argument("--queries", default=",".join(str(i) for i in range(1, 23)))
    a = ap.parse_args()
    pq = os.path.abspath(a.parquet)

    lake = psycopg.connect(a.dsn, autocommit=True)
    if a.load:
        for t in TABLES:
            st = time.perf_counter()
            lake.execute(f"DROP TABLE IF EXISTS {t}")
            lake.execute(f"CREATE TABLE {t} AS SELECT * FROM read_parquet('{pq}/{t}.parquet')")
            print(f"load {t}: {time.perf_counter() - st:.2f}s", file=sys.stderr)

    duck = duckdb.connect()
    duck.execute(f"SET threads={a.threads}")
    for t in TABLES:
        duck.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{pq}/{t}.parquet')")

    print(f"| query | lakepg median s | DuckDB median s | lakepg/DuckDB |")
    print(f"|---|---|---|---|")
    ratios, lt, dt = [], [], []
    for q in [int(x) for x in a.queries.split(",")]:
        sql = open(os.path.join(SHARED, "queries", f"q{q:02d}.sql")).read()
        try:
            lm, _, _ = timed(lambda: lake.execute(sql).fetchall(), a.runs)
        except Exception as e:  # report and go on
            print(f"| Q{q} | error: {str(e).splitlines()[0]} | | |")
            lake.rollback() if not lake.autocommit else None
            continue
        dm, _, _ = timed(lambda: duck.execute(sql).fetchall(), a.runs)
        ratios.append(lm / dm)
        lt.append(lm)
        dt.append(dm)
        print(f"| Q{q} | {lm:.3f} | {dm:.3f} | {lm / dm:.2f} |", flush=True)
    g = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
    if ratios:
        print(f"| geomean | {g(lt):.3f} | {g(dt):.3f} | {g(ratios):.2f} |")
        print(f"| sum | {sum(lt):.2f} | {sum(dt):.2f} | {sum(lt) / sum(dt):.2f} |")


if __name__ == "__main__":
    main()
