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
-- @error
INSERT INTO kv VALUES (1, 'A'), (1, 'B') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
-- @error
INSERT INTO kv VALUES (20, 'A'), (20, 'B') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
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
