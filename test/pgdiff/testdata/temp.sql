-- Temporary tables: private to the session, searched before the lake's
-- schemas, ending with the session or their ON COMMIT action.

CREATE TABLE lake (k integer, v text, n numeric(10,2));
INSERT INTO lake VALUES (1, 'one', 1.50), (2, 'two', 2.50), (3, 'three', 3.50), (4, 'four', 4.50);

-- CREATE, INSERT, SELECT, DROP
CREATE TEMP TABLE t (k integer NOT NULL, v text DEFAULT 'dflt', ts timestamp DEFAULT now());
INSERT INTO t (k, v) VALUES (1, 'a'), (2, 'b');
INSERT INTO t (k) VALUES (3);
SELECT k, v, ts IS NOT NULL AS has_ts FROM t ORDER BY k;
SELECT count(*) FROM t;
INSERT INTO t SELECT k + 10, v FROM lake WHERE k <= 2;
SELECT k, v FROM t ORDER BY k;
INSERT INTO t (k, v) VALUES (20, 'r') RETURNING k, v, upper(v) AS u;
-- @error
INSERT INTO t (k, v) VALUES (NULL, 'x');
-- @error
INSERT INTO t (nope) VALUES (1);
-- @error
CREATE TEMP TABLE t (x int);
CREATE TEMP TABLE IF NOT EXISTS t (x int);
CREATE TEMPORARY TABLE t2 (a int, b text);
DROP TABLE t2;
-- @error
SELECT * FROM t2;
-- @error
DROP TABLE t2;
DROP TABLE IF EXISTS t2;

-- joins with lake tables
SELECT t.k, t.v, lake.v AS lake_v FROM t JOIN lake ON lake.k = t.k ORDER BY t.k;
SELECT lake.k, t.v FROM lake LEFT JOIN t USING (k) ORDER BY lake.k;
SELECT k FROM lake WHERE k IN (SELECT k FROM t) ORDER BY k;
SELECT k FROM t WHERE EXISTS (SELECT 1 FROM lake WHERE lake.k = t.k) ORDER BY k;

-- UPDATE and DELETE on the temp table
UPDATE t SET v = v || '!' WHERE k < 3;
SELECT k, v FROM t ORDER BY k;
UPDATE t SET v = lake.v FROM lake WHERE lake.k = t.k;
SELECT k, v FROM t ORDER BY k;
UPDATE t SET v = DEFAULT WHERE k = 3;
UPDATE t SET k = k + 100 WHERE k = 20 RETURNING k, v;
-- @error
UPDATE t SET k = NULL WHERE k = 1;
-- @error
UPDATE t SET nope = 1;
DELETE FROM t WHERE k > 100;
DELETE FROM t WHERE k IN (SELECT k FROM lake WHERE v = 'three') RETURNING k, v;
DELETE FROM t USING lake WHERE lake.k + 10 = t.k;
SELECT k, v FROM t ORDER BY k;
DELETE FROM t WHERE false;
UPDATE t SET v = 'x' WHERE k = 999;

-- the lake table from the temp table: dbt's delete+insert
CREATE TEMP TABLE stage AS SELECT k, v || '_new' AS v, n * 2 AS n FROM lake WHERE k >= 3;
SELECT k, v, n FROM stage ORDER BY k;
DELETE FROM lake WHERE (k) IN (SELECT k FROM stage);
INSERT INTO lake SELECT * FROM stage;
SELECT k, v, n FROM lake ORDER BY k;
UPDATE lake SET v = s.v || '+' FROM stage s WHERE s.k = lake.k;
SELECT k, v FROM lake ORDER BY k;
INSERT INTO lake (k, v, n) SELECT k + 100, v, 0 FROM t;
SELECT count(*) FROM lake;

-- SELECT INTO TEMP, CREATE TEMP TABLE AS with column names, WITH NO DATA
SELECT k, v INTO TEMP sel_into FROM lake WHERE k < 3;
SELECT * FROM sel_into ORDER BY k;
CREATE TEMP TABLE named (a, b) AS SELECT k, v FROM lake WHERE k = 1;
SELECT a, b FROM named;
CREATE TEMP TABLE empty_copy AS SELECT * FROM lake WITH NO DATA;
SELECT count(*) FROM empty_copy;
INSERT INTO empty_copy SELECT * FROM lake WHERE k = 1;
SELECT k, v, n FROM empty_copy;

-- a temp table shadows a lake table of the same name; pg_temp names it
CREATE TABLE shadow (x integer);
INSERT INTO shadow VALUES (1);
CREATE TEMP TABLE shadow (x integer, y text);
INSERT INTO shadow VALUES (2, 'temp');
SELECT * FROM shadow;
SELECT * FROM pg_temp.shadow;
SELECT * FROM public.shadow;
DROP TABLE shadow;
SELECT * FROM shadow;
DROP TABLE shadow;

-- creating in another schema
-- @error
CREATE TEMP TABLE public.bad (x int);
CREATE TABLE pg_temp.in_temp (x int);
INSERT INTO in_temp VALUES (7);
SELECT * FROM pg_temp.in_temp;

-- ALTER TABLE on a temp table
ALTER TABLE in_temp RENAME TO renamed;
SELECT * FROM renamed;
-- @error
SELECT * FROM in_temp;
ALTER TABLE renamed ADD COLUMN extra text DEFAULT 'e';
SELECT * FROM renamed;
ALTER TABLE renamed RENAME COLUMN extra TO extra2;
SELECT x, extra2 FROM renamed;
TRUNCATE renamed;
SELECT count(*) FROM renamed;

-- ON COMMIT
CREATE TEMP TABLE keep_rows (x int) ON COMMIT PRESERVE ROWS;
INSERT INTO keep_rows VALUES (1);
SELECT count(*) FROM keep_rows;
CREATE TEMP TABLE del_rows (x int) ON COMMIT DELETE ROWS;
INSERT INTO del_rows VALUES (1), (2);
SELECT count(*) FROM del_rows;
BEGIN;
INSERT INTO del_rows VALUES (1), (2);
SELECT count(*) FROM del_rows;
COMMIT;
SELECT count(*) FROM del_rows;
BEGIN;
CREATE TEMP TABLE drop_me (x int) ON COMMIT DROP;
INSERT INTO drop_me VALUES (1);
SELECT count(*) FROM drop_me;
COMMIT;
-- @error
SELECT * FROM drop_me;
CREATE TEMP TABLE drop_now (x int) ON COMMIT DROP;
-- @error
SELECT * FROM drop_now;
BEGIN;
CREATE TEMP TABLE ctas_del ON COMMIT DELETE ROWS AS SELECT k FROM lake;
SELECT count(*) FROM ctas_del;
COMMIT;
SELECT count(*) FROM ctas_del;

-- transaction blocks and savepoints
BEGIN;
CREATE TEMP TABLE rolled (x int);
INSERT INTO rolled VALUES (1);
ROLLBACK;
-- @error
SELECT * FROM rolled;
CREATE TEMP TABLE tx (x int);
INSERT INTO tx VALUES (1);
BEGIN;
INSERT INTO tx VALUES (2);
SELECT x FROM tx ORDER BY x;
ROLLBACK;
SELECT x FROM tx ORDER BY x;
BEGIN;
INSERT INTO tx VALUES (2);
SAVEPOINT a;
INSERT INTO tx VALUES (3);
DELETE FROM tx WHERE x = 1;
SELECT x FROM tx ORDER BY x;
ROLLBACK TO SAVEPOINT a;
SELECT x FROM tx ORDER BY x;
SAVEPOINT b;
DROP TABLE tx;
-- @error
SELECT * FROM tx;
ROLLBACK TO b;
SELECT x FROM tx ORDER BY x;
UPDATE tx SET x = x * 10;
RELEASE a;
COMMIT;
SELECT x FROM tx ORDER BY x;
BEGIN;
INSERT INTO tx VALUES (5);
-- @error
SELECT 1 / 0;
ROLLBACK;
SELECT x FROM tx ORDER BY x;
BEGIN;
DROP TABLE tx;
ROLLBACK;
SELECT x FROM tx ORDER BY x;
BEGIN;
ALTER TABLE tx RENAME TO tx2;
ROLLBACK;
SELECT x FROM tx ORDER BY x;

-- catalogs
SELECT c.relname, c.relpersistence, c.relkind FROM pg_class c WHERE c.relname IN ('t', 'stage', 'lake') ORDER BY 1;
SELECT n.nspname LIKE 'pg_temp_%' AS is_temp FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = 't';
SELECT pg_table_is_visible('t'::regclass);
SELECT c.relnamespace = pg_my_temp_schema() FROM pg_class c WHERE c.relname = 't';
SELECT pg_is_other_temp_schema(pg_my_temp_schema());
SELECT attname, format_type(atttypid, atttypmod), attnotnull FROM pg_attribute WHERE attrelid = 't'::regclass AND attnum > 0 ORDER BY attnum;
SELECT table_name, table_type FROM information_schema.tables WHERE table_name IN ('t', 'lake') ORDER BY 1;
SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 't' ORDER BY ordinal_position;
SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pg_toast_temp_%';

-- COPY
CREATE TEMP TABLE loaded (id int, name text);
COPY loaded TO STDOUT;
INSERT INTO loaded VALUES (1, 'x'), (2, NULL);
COPY loaded TO STDOUT;
COPY loaded (name) TO STDOUT;
COPY (SELECT id FROM loaded ORDER BY id DESC) TO STDOUT;

-- DISCARD TEMP drops them all
DISCARD TEMP;
-- @error
SELECT * FROM t;
-- @error
SELECT * FROM stage;
SELECT k FROM lake WHERE k < 3 ORDER BY k;
