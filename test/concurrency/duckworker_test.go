package concurrency

// duckWorkScript is DuckDB's client of the mixed workload: for the given seconds it inserts
// rows with ids of its own (a few at a time, which DuckDB inlines into the catalog, and
// hundreds at a time, which it writes as Parquet), deletes and updates some of them. Each
// statement commits on its own. It keeps the ledger of what succeeded (id -> table, v) and
// counts statements refused as conflicts; any other error is reported.
//
// It does not compact: DuckDB 1.5.5's ducklake_merge_adjacent_files commits over a concurrent
// inlined file delete (a DELETE of up to 10 rows of a Parquet file, token inlined_delete) of a
// file it merges, and the deleted row comes back. That happens with DuckDB alone (two
// connections on one PostgreSQL catalog: BEGIN; CALL ducklake_merge_adjacent_files('lk') on
// one, DELETE FROM lk.t WHERE id = 5 on the other, COMMIT: row 5 is back), so a ledger check
// would fail on DuckDB's bug, not lakepg's. lakepg's clients run lakepg's
// merge_adjacent_files, which does conflict with inlined deletes.
const duckWorkScript = duckPrelude + `
rnd = random.Random(inp["seed"])
client, tables = inp["client"], inp["tables"]
base = client * 1000000000
deadline = time.monotonic() + inp["seconds"]
seq = 0
live = {t: {} for t in tables}   # table -> id -> v
batches = []                     # (table, first id, last id) of successful inserts
st = {"commits": 0, "conflicts": 0, "errors": [], "ops": {}, "conflict_messages": {}}

def op(kind, sql, expect):
    o = st["ops"].setdefault(kind, [0, 0])
    try:
        r = c.execute(sql).fetchall()
    except duckdb.Error as e:
        if conflict(e):
            o[1] += 1
            st["conflicts"] += 1
            m = str(e).replace("\n", " | ")[:300]
            st["conflict_messages"][m] = st["conflict_messages"].get(m, 0) + 1
            return False
        st["errors"].append("%s: %s: %s: %s" % (kind, sql[:300], type(e).__name__, e))
        return False
    o[0] += 1
    st["commits"] += 1
    if expect is not None and (len(r) != 1 or r[0][0] != expect):
        st["errors"].append("%s: %s: DuckDB answered %r, want a count of %d" % (kind, sql[:300], r, expect))
    return True

def pick():
    # a stretch of ids of one earlier insert: (table, lo, hi)
    t, lo, hi = batches[rnd.randrange(len(batches))]
    a = rnd.randint(lo, hi)
    return t, a, min(hi, a + rnd.randint(0, 400))

while time.monotonic() < deadline and len(st["errors"]) < 20:
    r = rnd.random()
    t = tables[rnd.randrange(len(tables))]
    if r < 0.35 or not batches:
        n = rnd.randint(1, 5)
        ids = list(range(base + seq + 1, base + seq + n + 1))
        seq += n
        sql = "INSERT INTO lk.public.%s (id, client, v) VALUES %s" % (q(t), ", ".join("(%d, %d, 0)" % (i, client) for i in ids))
        if op("insert small", sql, n):
            for i in ids:
                live[t][i] = 0
            batches.append((t, ids[0], ids[-1]))
    elif r < 0.50:
        n = rnd.randint(200, 2000)
        lo = base + seq + 1
        seq += n
        sql = "INSERT INTO lk.public.%s (id, client, v) SELECT %d + i, %d, 0 FROM range(%d) r(i)" % (q(t), lo, client, n)
        if op("insert large", sql, n):
            for i in range(lo, lo + n):
                live[t][i] = 0
            batches.append((t, lo, lo + n - 1))
    elif r < 0.72:
        t, a, b = pick()
        if rnd.random() < 0.5:
            ids = sorted(set(rnd.randint(a, b) for _ in range(rnd.randint(1, 4))))
            where = "id IN (%s)" % ", ".join(str(i) for i in ids)
        else:
            ids = range(a, b + 1)
            where = "id BETWEEN %d AND %d" % (a, b)
        hit = [i for i in ids if i in live[t]]
        if op("delete", "DELETE FROM lk.public.%s WHERE %s" % (q(t), where), len(hit)):
            for i in hit:
                del live[t][i]
    else:
        t, a, b = pick()
        hit = [i for i in range(a, b + 1) if i in live[t]]
        if op("update", "UPDATE lk.public.%s SET v = v + 1 WHERE id BETWEEN %d AND %d" % (q(t), a, b), len(hit)):
            for i in hit:
                live[t][i] += 1

st["live"] = {t: [[i, v] for i, v in live[t].items()] for t in tables}
json.dump(st, sys.stdout)
`

// duckWork is what duckWorkScript reports.
type duckWork struct {
	Commits          int                   `json:"commits"`
	Conflicts        int                   `json:"conflicts"`
	Errors           []string              `json:"errors"`
	Ops              map[string][2]int     `json:"ops"`
	ConflictMessages map[string]int        `json:"conflict_messages"`
	Live             map[string][][2]int64 `json:"live"`
}
