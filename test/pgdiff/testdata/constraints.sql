-- PRIMARY KEY and UNIQUE constraints: declared in CREATE TABLE (column and table
-- constraints, named and unnamed), ALTER TABLE ADD/DROP CONSTRAINT, enforcement by INSERT,
-- UPDATE and transaction blocks (23505, NULLs distinct, primary keys NOT NULL), and the
-- catalog views clients read them from.
CREATE TABLE t (id integer PRIMARY KEY, code text UNIQUE, qty integer);
CREATE TABLE pair (a integer, b text, c integer, PRIMARY KEY (a, b), CONSTRAINT pair_c_uq UNIQUE (c));
CREATE TABLE dup (x integer UNIQUE, y integer, UNIQUE (y, x));
-- @error
CREATE TABLE bad (a integer PRIMARY KEY, b integer PRIMARY KEY);
-- @error
CREATE TABLE bad (a integer, PRIMARY KEY (nope));
-- @error
CREATE TABLE t_pkey (a integer);
SELECT conname, contype, conkey FROM pg_constraint WHERE conrelid IN ('t'::regclass, 'pair'::regclass, 'dup'::regclass) ORDER BY conname;
SELECT c.relname, c.relkind, i.indisprimary, i.indisunique, i.indnatts, i.indkey FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid IN ('t'::regclass, 'pair'::regclass, 'dup'::regclass) ORDER BY 1;
SELECT t.relname, t.relhasindex FROM pg_class t WHERE t.relname IN ('t', 'pair', 'dup') ORDER BY 1;
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'pair'::regclass ORDER BY 1;
SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('t', 'pair') ORDER BY 1;
SELECT constraint_name, table_name, constraint_type, is_deferrable, initially_deferred FROM information_schema.table_constraints WHERE table_name IN ('t', 'pair', 'dup') AND constraint_type IN ('PRIMARY KEY', 'UNIQUE') ORDER BY 1;
SELECT constraint_name, table_name, column_name, ordinal_position FROM information_schema.key_column_usage WHERE table_name IN ('t', 'pair', 'dup') ORDER BY 1, 4;
SELECT constraint_name, table_name, column_name FROM information_schema.constraint_column_usage WHERE table_name IN ('t', 'pair') ORDER BY 1, 3;
SELECT column_name, is_nullable FROM information_schema.columns WHERE table_name = 'pair' ORDER BY ordinal_position;
-- the pgJDBC getPrimaryKeys query
SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM, ct.relname AS TABLE_NAME, a.attname AS COLUMN_NAME, (information_schema._pg_expandarray(i.indkey)).n AS KEY_SEQ, ci.relname AS PK_NAME, information_schema._pg_expandarray(i.indkey) AS KEYS, a.attnum AS A_ATTNUM FROM pg_catalog.pg_class ct JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid) JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid) JOIN pg_catalog.pg_index i ON (a.attrelid = i.indrelid) JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid) WHERE true AND ct.relname = 'pair' AND i.indisprimary ORDER BY 4;
INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20), (3, NULL, 30);
-- @error
INSERT INTO t VALUES (1, 'z', 0);
-- @error
INSERT INTO t VALUES (4, 'a', 0);
-- @error
INSERT INTO t VALUES (5, 'q', 0), (5, 'r', 0);
-- @error
INSERT INTO t VALUES (NULL, 'n', 0);
INSERT INTO t VALUES (4, NULL, 40), (5, NULL, 50);
INSERT INTO t SELECT g, 'g' || g, g FROM generate_series(10, 200) g;
-- @error
INSERT INTO t SELECT g, 'h' || g, g FROM generate_series(200, 210) g;
SELECT count(*), min(id), max(id) FROM t;
UPDATE t SET qty = qty + 1 WHERE id < 5;
-- @error
UPDATE t SET id = 2 WHERE id = 1;
-- @error
UPDATE t SET code = 'b' WHERE id = 1;
UPDATE t SET id = 1000 WHERE id = 1;
-- @error
UPDATE t SET code = 'a' WHERE id = 2;
UPDATE t SET code = 'tmp' WHERE id = 1000;
UPDATE t SET code = 'a' WHERE id = 2;
UPDATE t SET code = 'b' WHERE id = 1000;
SELECT * FROM t WHERE id < 10 OR id = 1000 ORDER BY id;
INSERT INTO pair VALUES (1, 'x', 1), (1, 'y', 2), (2, 'x', NULL), (3, 'x', NULL);
-- @error
INSERT INTO pair VALUES (1, 'x', 9);
-- @error
INSERT INTO pair VALUES (9, 'x', 1);
-- @error
INSERT INTO pair VALUES (9, NULL, 7);
SELECT * FROM pair ORDER BY a, b;
BEGIN;
INSERT INTO t VALUES (500, 'five hundred', 0);
-- @error
INSERT INTO t VALUES (500, 'again', 0);
ROLLBACK;
BEGIN;
INSERT INTO t VALUES (600, 'six hundred', 0);
DELETE FROM t WHERE id = 600;
INSERT INTO t VALUES (600, 'six hundred again', 1);
COMMIT;
SELECT * FROM t WHERE id >= 500 ORDER BY id;
DELETE FROM t WHERE id = 2;
INSERT INTO t VALUES (2, 'b2', 0);
ALTER TABLE t DROP CONSTRAINT t_code_key;
INSERT INTO t VALUES (700, 'b2', 0);
-- @error
ALTER TABLE t ADD CONSTRAINT t_code_key UNIQUE (code);
-- @error
ALTER TABLE t DROP CONSTRAINT nope;
ALTER TABLE t DROP CONSTRAINT IF EXISTS nope;
DELETE FROM t WHERE id = 700;
ALTER TABLE t ADD CONSTRAINT t_code_key UNIQUE (code);
-- @error
INSERT INTO t VALUES (701, 'b2', 0);
-- @error
ALTER TABLE t ADD PRIMARY KEY (qty);
CREATE TABLE k (a integer, b integer);
INSERT INTO k VALUES (1, 1), (2, NULL);
-- @error
ALTER TABLE k ADD PRIMARY KEY (b);
ALTER TABLE k ADD PRIMARY KEY (a);
ALTER TABLE k ADD UNIQUE (b);
SELECT column_name, is_nullable FROM information_schema.columns WHERE table_name = 'k' ORDER BY ordinal_position;
SELECT conname, contype FROM pg_constraint WHERE conrelid = 'k'::regclass ORDER BY 1;
-- @error
INSERT INTO k VALUES (1, 5);
INSERT INTO k VALUES (3, NULL), (4, NULL);
ALTER TABLE k RENAME COLUMN a TO aa;
ALTER TABLE k RENAME TO kk;
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'kk'::regclass ORDER BY 1;
-- @error
INSERT INTO kk VALUES (1, 6);
ALTER TABLE kk DROP COLUMN b;
SELECT conname FROM pg_constraint WHERE conrelid = 'kk'::regclass ORDER BY 1;
DROP TABLE kk;
SELECT count(*) FROM pg_constraint WHERE conname LIKE 'k%';
CREATE TABLE kk (aa integer PRIMARY KEY);
INSERT INTO kk VALUES (1);
SELECT * FROM kk;
