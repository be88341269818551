# The benchmark's DuckDB driver: one DuckDB connection per process, driven by JSON lines
# on stdin, one JSON reply per line on stdout. Arguments: the database (":memory:" or a
# file) and a scratch directory. The Go side times nothing itself: each
# reply carries the seconds DuckDB took to run the statement and fetch its result.
import json, os, shutil, sys, threading, time

import duckdb


def ext_path(name):
    mod = __import__("duckdb_extension_" + name)
    p = os.path.join(os.path.dirname(mod.__file__), "extensions", "v" + duckdb.__version__, name + ".duckdb_extension")
    if name == "sqlite":
        # The extension's entry point is named after sqlite_scanner: load it under that name,
        # from the run's scratch directory (removed with it).
        q = os.path.join(sys.argv[2], "sqlite_scanner.duckdb_extension")
        if not os.path.exists(q):
            shutil.copyfile(p, q + ".tmp")
            os.replace(q + ".tmp", q)
        p = q
    return p


def reply(**kw):
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()


con = duckdb.connect(sys.argv[1] if len(sys.argv) > 1 else ":memory:")
con.execute("SET autoinstall_known_extensions=false")
con.execute("SET autoload_known_extensions=false")
con.execute("SET enable_progress_bar=false")  # stdout carries the JSON replies
reply(ok=True, version=duckdb.__version__, pid=os.getpid())

for line in sys.stdin:
    req = json.loads(line)
    try:
        if req["op"] == "load":
            for name in req["extensions"]:
                con.execute("LOAD '%s'" % ext_path(name).replace("'", "''"))
            reply(ok=True)
            continue
        timer = None
        if req.get("timeout"):
            timer = threading.Timer(req["timeout"], con.interrupt)
            timer.start()
        t = time.perf_counter()
        try:
            cur = con.execute(req["sql"])
            # fetch in chunks and keep only the first row: a big result is
            # read as a client reads it, without holding it all as Python
            # objects (which dwarfs DuckDB's own memory)
            rows, first_row = 0, None
            while req.get("fetch"):
                chunk = cur.fetchmany(65536)
                if not chunk:
                    break
                if first_row is None:
                    first_row = chunk[0]
                rows += len(chunk)
        finally:
            el = time.perf_counter() - t
            if timer:
                timer.cancel()
        first = [None if v is None else str(v) for v in first_row] if first_row is not None else []
        reply(ok=True, seconds=el, rows=rows, first=first)
    except duckdb.InterruptException as e:
        reply(ok=False, timeout=True, error=str(e))
    except Exception as e:
        reply(ok=False, error="%s: %s" % (type(e).__name__, e))
