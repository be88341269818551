"""dlt loading into one server: `python3 dlt_check.py HOST PORT USER DBNAME OUT.json`. A pipeline
with the postgres destination (psycopg2) loads a few hundred generated rows with the replace,
append and merge (primary key, nested lists in a child table) write dispositions, loads again
(changed and new rows, a smaller replace), and reads every table back through its SQL client.
Exits non-zero at the first mismatch; writes the tables' rows (without dlt's random load and row
ids) to OUT.json for tools_test.go to compare between lakepg and PostgreSQL, and prints "all
checks passed"."""
import datetime
import decimal
import json
import os
import shutil
import sys
import tempfile

host, port, user, dbname, out_path = sys.argv[1:6]
work = tempfile.mkdtemp(prefix="dlt_check_")
os.environ.update({
    "RUNTIME__DLTHUB_TELEMETRY": "false", "RUNTIME__LOG_LEVEL": "WARNING",
    "DLT_DATA_DIR": os.path.join(work, "data"), "DLT_PROJECT_DIR": work,
})

import dlt  # noqa: E402

D = decimal.Decimal


def fail(msg):
    sys.exit(f"dlt_check.py ({host}:{port}/{dbname}): {msg}")


def check(what, got, want):
    if got != want:
        fail(f"{what}: got {got!r}, want {want!r}")


def customers(n):
    for i in range(1, n + 1):
        yield {"id": i, "name": f"customer {i}", "city": ["Oslo", "Lima", "Pune"][i % 3],
               "signed_up": datetime.date(2024, 1, 1) + datetime.timedelta(days=i)}


def events(batch):
    base = datetime.datetime(2024, 5, 1, tzinfo=datetime.timezone.utc)
    for i in range(200):
        yield {"event_id": batch * 1000 + i, "kind": ["view", "click", "buy"][i % 3],
               "at": base + datetime.timedelta(minutes=batch * 1000 + i), "value": i * 0.5}


def products(ids, version):
    for i in ids:
        yield {"id": i, "title": f"product {i} v{version}", "price": D(i) / 4 + version,
               "in_stock": (i + version) % 2 == 0, "tags": [f"t{i % 5}", f"v{version}"][: 1 + i % 2]}


# dlt wants a password; the test servers trust loopback connections and ignore it
credentials = f"postgresql://{user}:unused@{host}:{port}/{dbname}"
pipeline = dlt.pipeline(pipeline_name="lakepg_check", pipelines_dir=os.path.join(work, "pipelines"),
                        destination=dlt.destinations.postgres(credentials=credentials),
                        dataset_name="dlt_check")


def run(data, **kw):
    info = pipeline.run(data, **kw)
    if info.has_failed_jobs:
        fail(f"load of {kw.get('table_name')} has failed jobs: {info}")
    return info


run(customers(300), table_name="customers", write_disposition="replace")
run(events(1), table_name="events", write_disposition="append")
run(products(range(1, 301), 1), table_name="products", write_disposition="merge", primary_key="id")

# second round: append more, merge changed and new rows, replace with fewer
run(events(2), table_name="events", write_disposition="append")
run(products(list(range(1, 301, 3)) + list(range(301, 351)), 2), table_name="products",
    write_disposition="merge", primary_key="id")
run(customers(120), table_name="customers", write_disposition="replace")


def read(sql):
    with pipeline.sql_client() as c:
        with c.execute_query(sql) as cur:
            return [list(r) for r in cur.fetchall()]


def norm(v):
    if isinstance(v, D):
        return format(v.normalize(), "f")
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    return v


out = {}
out["customers"] = [[norm(v) for v in r] for r in read("SELECT id, name, city, signed_up FROM customers ORDER BY id")]
out["events"] = [[norm(v) for v in r] for r in read("SELECT event_id, kind, at, value FROM events ORDER BY event_id")]
out["products"] = [[norm(v) for v in r] for r in read("SELECT id, title, price, in_stock FROM products ORDER BY id")]
out["product_tags"] = [[norm(v) for v in r] for r in read(
    "SELECT p.id, t.value, t._dlt_list_idx FROM products p JOIN products__tags t ON t._dlt_parent_id = p._dlt_id "
    "ORDER BY p.id, t._dlt_list_idx")]
out["tables"] = sorted(r[0] for r in read(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'dlt_check'"))
out["loads"] = read("SELECT count(*), min(status), max(status) FROM _dlt_loads")

check("customers", len(out["customers"]), 120)
check("events", len(out["events"]), 400)
check("products", len(out["products"]), 350)
check("product 4 merged", out["products"][3], [4, "product 4 v2", "3", True])
check("product 5 kept", out["products"][4], [5, "product 5 v1", "2.25", True])
check("product 4 tags", [r[1] for r in out["product_tags"] if r[0] == 4], ["t4"])
check("product 7 tags", [r[1] for r in out["product_tags"] if r[0] == 7], ["t2", "v2"])
check("tags of all products", len({r[0] for r in out["product_tags"]}), 350)
check("loads", out["loads"], [[6, 0, 0]])

with open(out_path, "w") as f:
    json.dump(out, f, indent=0, sort_keys=True)
shutil.rmtree(work, ignore_errors=True)
print("all checks passed")
