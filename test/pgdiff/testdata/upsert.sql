-- INSERT … ON CONFLICT (DO NOTHING, DO UPDATE with excluded, WHERE, RETURNING, ON CONSTRAINT,
-- a key proposed twice, no matching key) and MERGE (several WHEN clauses, conditions, DELETE,
-- DO NOTHING, a target row matched twice), autocommit and in blocks.
CREATE TABLE kv (k integer PRIMARY KEY, v text, n integer DEFAULT 0);
CREATE TABLE pair (a integer, b text, c integer, note text, PRIMARY KEY (a, b), CONSTRAINT pair_c_uq UNIQUE (c));
CREATE TABLE plain (x integer, y text);
INSERT INTO kv VALUES (1, 'a'), (2, 'b') ON CONFLICT DO NOTHING;
INSERT INTO kv VALUES (1, 'x'), (3, 'c') ON CONFLICT DO NOTHING;
INSERT INTO kv VALUES (4, 'd'), (4, 'e') ON CONFLICT DO NOTHING;
INSERT INTO kv VALUES (1, 'y') ON CONFLICT (k) DO NOTHING;
SELECT k, v, n FROM kv ORDER BY k;
INSERT INTO kv VALUES (1, 'A'), (5, 'E') ON CONFLICT (k) DO UPDATE SET v = excluded.v, n = kv.n + 1;
SELECT k, v, n FROM kv ORDER BY k;
INSERT INTO kv (k, v) VALUES (2, 'B') ON CONFLICT (k) DO UPDATE SET v = kv.v || excluded.v RETURNING k, v, n;
INSERT INTO kv AS t VALUES (3, 'C'), (6, 'F') ON CONFLICT ON CONSTRAINT kv_pkey DO UPDATE SET v = excluded.v, n = t.n + 10 WHERE t.k > 2 RETURNING *;
INSERT INTO kv VALUES (1, 'Z') ON CONFLICT (k) DO UPDATE SET v = excluded.v WHERE kv.v = 'nope' RETURNING *;
INSERT INTO kv VALUES (1, 'Z') ON CONFLICT (k) DO NOTHING RETURNING *;
INSERT INTO kv VALUES (1, 'q'), (7, 'g') ON CONFLICT DO NOTHING RETURNING k, v;
INSERT INTO kv SELECT g, 'gen' || g FROM generate_series(5, 9) g ON CONFLICT (k) DO UPDATE SET n = excluded.k * 100;
SELECT k, v, n FROM kv ORDER BY k;
-- RETURNING gives updated and inserted rows in input order
INSERT INTO kv VALUES (11, 'new'), (1, 'upd'), (10, 'new2'), (2, 'upd2'), (12, 'new3') ON CONFLICT (k) DO UPDATE SET v = excluded.v RETURNING k, v;
WITH r AS (INSERT INTO kv SELECT g, 'many' FROM generate_series(5000, 1, -1) g ON CONFLICT (k) DO UPDATE SET n = kv.n + 1 RETURNING k) SELECT count(*), count(*) FILTER (WHERE k <> 5001 - rn) FROM (SELECT k, row_number() OVER () AS rn FROM r) x;
DELETE FROM kv WHERE k > 20;
-- @error
INSERT INTO kv VALUES (1, 'A'), (1, 'B') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
-- @error
INSERT INTO kv VALUES (20, 'A'), (20, 'B') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
-- a key proposed again after a row whose DO UPDATE WHERE failed is no error
INSERT INTO kv VALUES (1, 'x1'), (1, 'y1') ON CONFLICT (k) DO UPDATE SET v = excluded.v WHERE excluded.v LIKE 'y%' RETURNING k, v;
INSERT INTO kv VALUES (2, 'x2'), (2, 'y2'), (3, 'z3') ON CONFLICT (k) DO UPDATE SET v = excluded.v WHERE false;
-- @error
INSERT INTO kv VALUES (1, 'x1'), (1, 'y1') ON CONFLICT (k) DO UPDATE SET v = excluded.v WHERE excluded.v LIKE 'x%';
-- @error
INSERT INTO kv VALUES (1, 'y1'), (1, 'y2'), (1, 'x1') ON CONFLICT (k) DO UPDATE SET v = excluded.v WHERE kv.v = 'y1';
-- @error
INSERT INTO kv VALUES (1, 'A') ON CONFLICT (v) DO NOTHING;
-- @error
INSERT INTO kv VALUES (1, 'A') ON CONFLICT (nope) DO NOTHING;
-- @error
INSERT INTO kv VALUES (1, 'A') ON CONFLICT ON CONSTRAINT nope DO NOTHING;
-- @error
INSERT INTO kv VALUES (1, 'A') ON CONFLICT DO UPDATE SET v = 'x';
-- @error
INSERT INTO kv VALUES (1, 'A') ON CONFLICT (k) DO UPDATE SET nope = 'x';
-- @error
INSERT INTO plain VALUES (1, 'a') ON CONFLICT (x) DO NOTHING;
INSERT INTO plain VALUES (1, 'a'), (1, 'a') ON CONFLICT DO NOTHING;
SELECT count(*) FROM plain;
-- @error
INSERT INTO kv VALUES (NULL, 'null') ON CONFLICT DO NOTHING;
SELECT count(*) FROM kv WHERE v LIKE 'A%' OR v = 'Z';
-- composite key, a second unique key
INSERT INTO pair VALUES (1, 'x', 10, 'one'), (1, 'y', 11, 'two'), (2, 'x', 12, 'three');
INSERT INTO pair VALUES (1, 'x', 20, 'dup'), (3, 'x', 21, 'new') ON CONFLICT (b, a) DO UPDATE SET note = pair.note || '+' || excluded.note RETURNING a, b, c, note;
-- @error
INSERT INTO pair VALUES (9, 'x', 10, 'c taken') ON CONFLICT (a, b) DO NOTHING;
INSERT INTO pair VALUES (9, 'x', 10, 'c taken') ON CONFLICT DO NOTHING;
INSERT INTO pair VALUES (9, 'z', 10, 'c taken') ON CONFLICT (c) DO UPDATE SET note = 'by c';
INSERT INTO pair VALUES (4, 'w', 30, 'p'), (5, 'w', 30, 'q') ON CONFLICT DO NOTHING;
-- @error
INSERT INTO pair VALUES (2, 'x', 11, 'c of another') ON CONFLICT (a, b) DO UPDATE SET c = excluded.c;
INSERT INTO pair VALUES (2, 'x', 99, 'moved') ON CONFLICT (a, b) DO UPDATE SET c = excluded.c, note = excluded.note;
SELECT a, b, c, note FROM pair ORDER BY a, b;
-- in a block: rows the block wrote conflict too, and a rollback undoes both parts
BEGIN;
INSERT INTO kv VALUES (30, 'blk') ON CONFLICT DO NOTHING;
INSERT INTO kv VALUES (30, 'blk2'), (31, 'blk3') ON CONFLICT (k) DO UPDATE SET v = excluded.v, n = kv.n + 1;
INSERT INTO kv VALUES (1, 'in block') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
SELECT k, v, n FROM kv WHERE k IN (1, 30, 31) ORDER BY k;
COMMIT;
SELECT k, v, n FROM kv WHERE k IN (1, 30, 31) ORDER BY k;
BEGIN;
INSERT INTO kv VALUES (1, 'rolled back'), (40, 'rolled back') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
ROLLBACK;
SELECT k, v FROM kv WHERE k IN (1, 40) ORDER BY k;
BEGIN;
-- @error
INSERT INTO kv VALUES (1, 'x'), (1, 'y') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
ROLLBACK;
-- a serial key and defaults
CREATE TABLE acct (id serial PRIMARY KEY, email text UNIQUE, visits integer NOT NULL DEFAULT 1);
INSERT INTO acct (email) VALUES ('a@x'), ('b@x') ON CONFLICT (email) DO UPDATE SET visits = acct.visits + 1 RETURNING id, email, visits;
INSERT INTO acct (email) VALUES ('a@x') ON CONFLICT (email) DO UPDATE SET visits = acct.visits + 1 RETURNING id, email, visits;
INSERT INTO acct (email) VALUES ('c@x') ON CONFLICT (email) DO UPDATE SET visits = acct.visits + 1 RETURNING id, email, visits;
INSERT INTO acct (email, visits) VALUES ('a@x', 5) ON CONFLICT (email) DO UPDATE SET visits = excluded.visits + acct.visits;
SELECT id, email, visits FROM acct ORDER BY id;
-- @error
INSERT INTO acct (email, visits) VALUES ('a@x', NULL) ON CONFLICT (email) DO NOTHING;
WITH up AS (INSERT INTO kv VALUES (2, 'cte'), (50, 'cte') ON CONFLICT (k) DO UPDATE SET v = excluded.v RETURNING k, v) SELECT * FROM up ORDER BY k;
-- MERGE
CREATE TABLE stock (item text PRIMARY KEY, qty integer NOT NULL, price numeric(8,2), updated boolean DEFAULT false);
INSERT INTO stock VALUES ('apple', 10, 1.00), ('pear', 5, 2.00), ('plum', 0, 3.00), ('fig', 7, 4.00);
CREATE TABLE delta (item text, change integer, price numeric(8,2));
INSERT INTO delta VALUES ('apple', 5, NULL), ('pear', -5, 2.50), ('plum', 3, NULL), ('kiwi', 4, 0.50), ('lime', 0, 0.25);
MERGE INTO stock s USING delta d ON s.item = d.item
  WHEN MATCHED AND s.qty + d.change <= 0 THEN DELETE
  WHEN MATCHED AND d.price IS NOT NULL THEN UPDATE SET qty = s.qty + d.change, price = d.price, updated = true
  WHEN MATCHED THEN UPDATE SET qty = s.qty + d.change, updated = true
  WHEN NOT MATCHED AND d.change > 0 THEN INSERT (item, qty, price) VALUES (d.item, d.change, d.price)
  WHEN NOT MATCHED THEN DO NOTHING;
SELECT item, qty, price, updated FROM stock ORDER BY item;
MERGE INTO stock USING (SELECT 'fig' AS item, 1 AS q UNION ALL SELECT 'grape', 2) AS n ON stock.item = n.item
  WHEN MATCHED THEN DO NOTHING
  WHEN NOT MATCHED THEN INSERT VALUES (n.item, n.q);
MERGE INTO stock USING (VALUES ('nothing', 1)) AS v(item, q) ON stock.item = v.item WHEN MATCHED THEN DELETE;
MERGE INTO stock t USING (VALUES ('apple')) AS v(item) ON true WHEN MATCHED AND t.item <> v.item THEN UPDATE SET qty = t.qty * 2;
MERGE INTO stock t USING (VALUES ('melon', 3)) AS v(item, q) ON t.item = v.item WHEN NOT MATCHED THEN INSERT (item, qty, updated) VALUES (v.item, v.q, DEFAULT);
SELECT item, qty, price, updated FROM stock ORDER BY item;
-- @error
MERGE INTO stock t USING (VALUES ('apple', 1), ('apple', 2)) AS v(item, q) ON t.item = v.item WHEN MATCHED THEN UPDATE SET qty = v.q;
-- @error
MERGE INTO stock t USING (VALUES ('apple', 1), ('apple', 2)) AS v(item, q) ON t.item = v.item WHEN MATCHED THEN DELETE;
MERGE INTO stock t USING (VALUES ('apple', 1), ('apple', 2)) AS v(item, q) ON t.item = v.item WHEN MATCHED THEN DO NOTHING;
-- @error
MERGE INTO stock t USING (VALUES ('x1', 1), ('x1', 2)) AS v(item, q) ON t.item = v.item WHEN NOT MATCHED THEN INSERT VALUES (v.item, v.q);
-- @error
MERGE INTO stock t USING (VALUES ('plum', 1)) AS v(item, q) ON t.item = v.item WHEN MATCHED THEN UPDATE SET item = 'apple';
-- @error
MERGE INTO stock t USING (VALUES ('zz', NULL::integer)) AS v(item, q) ON t.item = v.item WHEN NOT MATCHED THEN INSERT VALUES (v.item, v.q);
-- @error
MERGE INTO stock t USING (VALUES ('zz', 1)) AS v(item, q) ON t.item = v.item WHEN NOT MATCHED THEN INSERT VALUES (v.item, t.qty);
-- @error
MERGE INTO stock t USING (VALUES ('zz', 1)) AS v(item, q) ON t.item = v.item WHEN MATCHED THEN UPDATE SET nope = 1;
-- @error
MERGE INTO stock t USING (VALUES ('zz', 1)) AS v(item, q) ON t.item = v.item WHEN MATCHED THEN UPDATE SET qty = v.nope;
-- @error
MERGE INTO stock t USING (VALUES ('zz', 1)) AS v(item, q) ON t.item = v.item WHEN NOT MATCHED THEN INSERT (item, nope) VALUES (v.item, 1);
-- @error
MERGE INTO stock t USING (VALUES ('zz', 1)) AS v(item, q) ON t.item = v.item AND t.nope = 1 WHEN MATCHED THEN DELETE;
-- @error
MERGE INTO nope t USING (VALUES ('zz', 1)) AS v(item, q) ON t.item = v.item WHEN MATCHED THEN DELETE;
SELECT item, qty, price, updated FROM stock ORDER BY item;
BEGIN;
MERGE INTO stock t USING delta d ON t.item = d.item WHEN MATCHED THEN UPDATE SET qty = t.qty + 100 WHEN NOT MATCHED THEN INSERT (item, qty) VALUES (d.item, 1);
SELECT item, qty FROM stock ORDER BY item;
ROLLBACK;
BEGIN;
UPDATE stock SET qty = qty + 1 WHERE item = 'apple';
MERGE INTO stock t USING delta d ON t.item = d.item WHEN MATCHED AND t.item = 'apple' THEN UPDATE SET qty = t.qty + 1000 WHEN MATCHED THEN DELETE;
SELECT item, qty FROM stock ORDER BY item;
COMMIT;
SELECT item, qty, price FROM stock ORDER BY item;
-- a serial key filled by MERGE's inserts
CREATE TABLE people (id serial PRIMARY KEY, name text UNIQUE, seen integer DEFAULT 1);
MERGE INTO people p USING (VALUES ('ann'), ('bob')) AS v(name) ON p.name = v.name WHEN MATCHED THEN UPDATE SET seen = p.seen + 1 WHEN NOT MATCHED THEN INSERT (name) VALUES (v.name);
MERGE INTO people p USING (VALUES ('bob'), ('cy')) AS v(name) ON p.name = v.name WHEN MATCHED THEN UPDATE SET seen = p.seen + 1 WHEN NOT MATCHED THEN INSERT (name) VALUES (v.name);
SELECT id, name, seen FROM people ORDER BY id;
