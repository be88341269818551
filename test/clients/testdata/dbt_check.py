"""Runs the dbt project in testdata/dbt against one server: `python3 dbt_check.py HOST PORT USER
DBNAME OUT.json`. The project is copied to a temporary directory; then `dbt seed`, `run`, `test`,
`snapshot` and `docs generate`, the seeds replaced by seeds_v2/ (changed and new rows), and
`dbt seed`, `run`, `snapshot`, `test` again (the incremental and snapshot paths). Every step must
succeed; the rows of every seed, model and snapshot are checked where the outcome is known and
written to OUT.json, with the columns docs generate found, for tools_test.go to compare between
lakepg and PostgreSQL. Exits non-zero with the failing step and dbt's message; prints "all checks
passed" at the end."""
import datetime
import decimal
import json
import os
import shutil
import sys
import tempfile

SCHEMA = "analytics"
# check strategy: validity and ids come from the time the snapshot ran
RUN_TIME_COLS = ("dbt_scd_id", "dbt_updated_at", "dbt_valid_from")


class Check:
    def __init__(self, host, port, user, dbname):
        import psycopg2
        from dbt.cli.main import dbtRunner
        self.where = f"{host}:{port}/{dbname}"
        self.runner = dbtRunner
        self.work = tempfile.mkdtemp(prefix="dbt_check_")
        self.project = os.path.join(self.work, "project")
        shutil.copytree(os.path.join(os.path.dirname(os.path.abspath(__file__)), "dbt"), self.project)
        self.conn = psycopg2.connect(host=host, port=int(port), user=user, dbname=dbname)
        self.conn.autocommit = True

    def fail(self, msg):
        sys.exit(f"dbt_check.py ({self.where}): {msg}")

    def check(self, what, got, want):
        if got != want:
            self.fail(f"{what}: got {got!r}, want {want!r}")

    def dbt(self, *args):
        argv = list(args) + ["--project-dir", self.project, "--profiles-dir", self.project,
                             "--target-path", os.path.join(self.work, "target"),
                             "--log-path", os.path.join(self.work, "logs")]
        res = self.runner().invoke(argv)
        if res.success:
            return res
        lines = [f"`dbt {' '.join(args)}` failed (log: {self.work}/logs/dbt.log)"]
        if res.exception is not None:
            lines.append(f"exception: {res.exception!r}")
        for r in getattr(res.result, "results", None) or []:
            status = str(getattr(r, "status", ""))
            if status not in ("success", "pass"):
                lines.append(f"  {r.node.unique_id}: {status}: {getattr(r, 'message', '')}")
        self.fail("\n".join(lines))

    def rows(self, rel, drop=(), null_flags=()):
        """The rows of rel without the columns in drop, those in null_flags replaced by whether
        they are NULL, sorted."""
        with self.conn.cursor() as cur:
            cur.execute(f'select * from "{SCHEMA}"."{rel}"')
            data, cols = cur.fetchall(), [d[0] for d in cur.description]
        keep = [i for i, c in enumerate(cols) if c not in drop]
        out = [[(r[i] is None) if cols[i] in null_flags else norm(r[i]) for i in keep] for r in data]
        out.sort(key=lambda r: json.dumps(r, default=str))
        return {"columns": [cols[i] for i in keep], "rows": out}

    def state(self):
        state = {}
        for rel in ("customers", "orders", "stg_customers", "customer_orders", "orders_delete_insert",
                    "orders_merge", "orders_append"):
            state[rel] = self.rows(rel)
        state["customers_check"] = self.rows("customers_check", drop=RUN_TIME_COLS, null_flags=("dbt_valid_to",))
        # timestamp strategy: validity comes from updated_at; dbt_scd_id hashes it, but the text
        # of a timestamp differs between servers' casts, so it is left out too
        state["customers_timestamp"] = self.rows("customers_timestamp", drop=("dbt_scd_id",))
        return state

    def docs(self):
        with open(os.path.join(self.work, "target", "catalog.json")) as f:
            catalog = json.load(f)
        docs = {}
        for uid, node in sorted(catalog["nodes"].items()):
            cols = sorted(node["columns"].values(), key=lambda c: c["index"])
            # lakepg stores an unconstrained numeric (sum, avg, round of one) as numeric(38,10)
            # (README, "SQL"): the one type that differs by design
            docs[uid] = [[c["name"], "numeric" if c["type"] == "numeric(38,10)" else c["type"]] for c in cols]
        for uid in ("model.lakepg_check.customer_orders", "model.lakepg_check.stg_customers",
                    "seed.lakepg_check.orders", "snapshot.lakepg_check.customers_check"):
            if not docs.get(uid):
                self.fail(f"docs generate: catalog.json has no columns for {uid}: {sorted(docs)}")
        return docs


def norm(v):
    if isinstance(v, decimal.Decimal):  # lakepg's unconstrained numeric prints 10 places
        v = v.normalize()
        return format(v, "f")
    if isinstance(v, (datetime.datetime, datetime.date)):
        return v.isoformat()
    return v


def main():
    host, port, user, dbname, out_path = sys.argv[1:6]
    os.environ.update({
        "DBT_CHECK_HOST": host, "DBT_CHECK_PORT": port, "DBT_CHECK_USER": user, "DBT_CHECK_DBNAME": dbname,
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DBT_VERSION_CHECK": "false",
        "DBT_PARTIAL_PARSE": "true", "DBT_USE_COLORS": "false", "DBT_PRINTER_WIDTH": "120",
    })
    c = Check(host, port, user, dbname)
    result = {}

    c.dbt("seed")
    c.dbt("run")
    c.dbt("test")
    c.dbt("snapshot")
    c.dbt("docs", "generate")
    first = c.state()
    c.check("customer_orders rows", len(first["customer_orders"]["rows"]), 5)
    c.check("orders_merge rows", len(first["orders_merge"]["rows"]), 7)
    c.check("customers_check rows", len(first["customers_check"]["rows"]), 5)
    result["first"] = first
    result["docs"] = c.docs()

    # the second run, over changed seeds
    for name in os.listdir(os.path.join(c.project, "seeds_v2")):
        shutil.copy(os.path.join(c.project, "seeds_v2", name), os.path.join(c.project, "seeds", name))
    c.dbt("seed")
    c.dbt("run")
    c.dbt("snapshot")
    c.dbt("test")
    second = c.state()
    c.check("customers rows", len(second["customers"]["rows"]), 6)
    for rel in ("orders_delete_insert", "orders_merge"):
        got = {r[0]: r for r in second[rel]["rows"]}
        c.check(f"{rel} rows", sorted(got), list(range(100, 109)))
        c.check(f"{rel} order 102 status", got[102][3], "shipped")
        c.check(f"{rel} order 103 amount", got[103][2], "4.25")
    c.check("orders_append rows", len(second["orders_append"]["rows"]), 11)
    c.check("customers_check versions", len(second["customers_check"]["rows"]), 8)
    c.check("customers_check current", sum(1 for r in second["customers_check"]["rows"] if r[-1]), 6)
    c.check("customers_timestamp versions", len(second["customers_timestamp"]["rows"]), 9)
    result["second"] = second

    with open(out_path, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True, default=str)
    shutil.rmtree(c.work, ignore_errors=True)
    print("all checks passed")


if __name__ == "__main__":  # dbt starts processes that import this file again
    main()
