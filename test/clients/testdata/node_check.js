// node-postgres against lakepg: `node node_check.js HOST PORT USER DATABASE`;
// exits 1 at the first mismatch.
'use strict';
const { Client } = require('pg');
const assert = require('assert/strict');

async function main() {
  const [host, port, user, database] = process.argv.slice(2);
  const c = new Client({ host, port: +port, user, database, options: '-c TimeZone=UTC' });
  await c.connect();
  try {
    assert.equal(Object.values((await c.query('SHOW TimeZone')).rows[0])[0], 'UTC');
    assert.match((await c.query('SHOW server_version')).rows[0].server_version, /^15\./);

    // Typed results of every supported type.
    const r = await c.query('SELECT * FROM sales.orders ORDER BY id');
    assert.deepEqual(r.fields.map((f) => f.dataTypeID),
      [23, 1043, 1700, 21, 20, 700, 701, 25, 16, 1082, 1114, 1184, 1186, 17, 2950]);
    const o = r.rows[0];
    assert.equal(o.id, 1);
    assert.equal(o.customer, 'alice');
    assert.equal(o.amount, '100.50');
    assert.equal(o.qty, 2);
    assert.equal(o.big, '5000000000');
    assert.equal(o.ratio, 1.5);
    assert.equal(o.score, 2.25);
    assert.equal(o.paid, true);
    assert.equal(o.created_tz.toISOString(), '2024-01-02T03:04:05.000Z');
    assert.deepEqual({ ...o.span }, { days: 1, hours: 2 });
    assert.deepEqual([...o.payload], [1, 2]);
    assert.equal(o.ref, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    assert.equal(r.rows[1].qty, null);

    // Untyped $n parameters take their types from the context, as in PostgreSQL.
    assert.deepEqual((await c.query('SELECT $1 + 1 AS a', [41])).rows, [{ a: 42 }]);
    assert.deepEqual((await c.query("SELECT id FROM sales.orders WHERE customer = $1 AND amount > $2", ['alice', '1.5'])).rows, [{ id: 1 }]);
    assert.deepEqual((await c.query('SELECT $1::int4 + 1 AS a, $2 AS b', [41, 'x'])).rows, [{ a: 42, b: 'x' }]);
    const typed = await c.query('SELECT $1::int2 a, $2::int8 b, $3::float8 c, $4::numeric d, $5::bool e, $6::date f, $7::timestamptz g, $8::bytea h, $9::uuid i',
      [1, '9000000000', 2.5, '1.25', true, '2024-01-02', new Date('2024-01-02T03:04:05Z'), Buffer.from([0, 255]), '00000000-0000-0000-0000-000000000007']);
    const t = typed.rows[0];
    assert.deepEqual([t.a, t.b, t.c, t.d, t.e], [1, '9000000000', 2.5, '1.25', true]);
    assert.equal(t.g.toISOString(), '2024-01-02T03:04:05.000Z');
    assert.deepEqual([...t.h], [0, 255]);
    assert.equal(t.i, '00000000-0000-0000-0000-000000000007');

    // Named prepared statements, executed again with other values.
    for (const v of ['x', 'y']) {
      assert.deepEqual((await c.query({ name: 'echo', text: 'SELECT $1::text AS t', values: [v] })).rows, [{ t: v }]);
    }

    // Many inserts through a prepared statement, in a transaction.
    await c.query('DROP TABLE IF EXISTS nodepg');
    await c.query('CREATE TABLE nodepg (a int, b text)');
    await c.query('BEGIN');
    for (let i = 1; i <= 5; i++) {
      await c.query({ name: 'ins', text: 'INSERT INTO nodepg VALUES ($1, $2)', values: [i, `n${i}`] });
    }
    await c.query('COMMIT');
    assert.deepEqual((await c.query('SELECT count(*)::int n, sum(a)::int s FROM nodepg')).rows, [{ n: 5, s: 15 }]);

    // Errors carry their SQLSTATE, and the connection goes on.
    await assert.rejects(c.query('SELECT 1/0'), (e) => e.code === '22012');
    await assert.rejects(c.query('SELECT * FROM no_such_table'), (e) => e.code === '42P01');
    await assert.rejects(c.query('SELECT $1::int', ['nope']), (e) => e.code === '22P02');
    assert.deepEqual((await c.query('SELECT 1 AS ok')).rows, [{ ok: 1 }]);
  } finally {
    await c.end();
  }
  console.log('node-postgres: all checks passed');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
