# The benchmark's DuckDB driver: one DuckDB connection per process, driven by JSON lines
# on stdin, one JSON reply per line on stdout. Arguments: the database (":memory:" or a
# file) and a scratch directory. The Go side times nothing itself: each
# reply carries the seconds DuckDB took to run the statement and fetch its result.
import ctypes, json, os, shutil, sys, threading, time

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


# The Arrow C stream interface (arrow.apache.org/docs/format/CStreamInterface.html),
# declared here so that a result can be read as Arrow record batches and dropped
# without pyarrow: DuckDB exports the stream through __arrow_c_stream__.
class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("buffers", ctypes.c_void_p), ("children", ctypes.c_void_p), ("dictionary", ctypes.c_void_p),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))), ("private_data", ctypes.c_void_p)]


class ArrowArrayStream(ctypes.Structure):
    pass


ArrowArrayStream._fields_ = [
    ("get_schema", ctypes.c_void_p),
    ("get_next", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowArray))),
    ("get_last_error", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))), ("private_data", ctypes.c_void_p)]

capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
capsule_pointer.restype = ctypes.c_void_p
capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def drain_arrow(sql):
    """Runs sql and reads its result as Arrow record batches, dropping each:
    the rows cross into this process in DuckDB's own columnar form, and none
    becomes a Python object. Returns the row count."""
    rel = con.sql(sql)
    if rel is None:
        return 0
    cap = rel.__arrow_c_stream__()
    st = ctypes.cast(capsule_pointer(cap, b"arrow_array_stream"), ctypes.POINTER(ArrowArrayStream))
    rows, arr = 0, ArrowArray()
    while True:
        if st.contents.get_next(st, ctypes.byref(arr)) != 0:
            msg = st.contents.get_last_error(st)
            raise RuntimeError(msg.decode() if msg else "Arrow stream failed")
        if not arr.release:
            return rows  # end of stream; the capsule releases the stream
        rows += arr.length
        arr.release(ctypes.byref(arr))


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
    fired = []
    try:
        if req["op"] == "load":
            for name in req["extensions"]:
                con.execute("LOAD '%s'" % ext_path(name).replace("'", "''"))
            reply(ok=True)
            continue
        timer = None

        def interrupt():
            fired.append(True)
            con.interrupt()

        if req.get("timeout"):
            timer = threading.Timer(req["timeout"], interrupt)
            timer.start()
        t = time.perf_counter()
        try:
            rows, first_row = 0, None
            if req.get("fetch") == "arrow":
                rows = drain_arrow(req["sql"])
            else:
                cur = con.execute(req["sql"])
                # fetch in chunks and keep only the first row: a big result is
                # read as a client reads it, without holding it all as Python
                # objects (which dwarfs DuckDB's own memory)
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
        if fired:  # interrupted while the Arrow stream was read
            reply(ok=False, timeout=True, error=str(e))
        else:
            reply(ok=False, error="%s: %s" % (type(e).__name__, e))
