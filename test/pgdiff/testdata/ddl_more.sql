-- DDL that schema tools and ORMs write: SELECT … INTO, CREATE TABLE (LIKE …), the catalog
-- functions dbt's catalog query calls.
CREATE TABLE src (id integer NOT NULL, name varchar(10) DEFAULT 'x', amt numeric(8,2), tags text[]);
INSERT INTO src VALUES (1, 'a', 1.50, ARRAY['p', 'q']), (2, NULL, NULL, NULL), (3, 'c', -2.25, '{}');
SELECT id, name INTO copy1 FROM src WHERE id < 3;
SELECT * FROM copy1 ORDER BY id;
SELECT * INTO TABLE copy2 FROM src ORDER BY id DESC LIMIT 1;
SELECT * FROM copy2;
SELECT count(*) AS n, sum(amt) AS total INTO copy3 FROM src;
SELECT * FROM copy3;
-- @error
SELECT 1 AS x INTO copy1;
-- @error
SELECT nosuch INTO copy4 FROM src;
CREATE TABLE like1 (LIKE src);
INSERT INTO like1 (id) VALUES (7);
SELECT * FROM like1;
-- @error
INSERT INTO like1 (name) VALUES ('no id');
CREATE TABLE like2 (LIKE src INCLUDING DEFAULTS, extra integer);
INSERT INTO like2 (id, extra) VALUES (8, 80);
SELECT * FROM like2;
CREATE TABLE like3 (LIKE src INCLUDING ALL);
INSERT INTO like3 (id) VALUES (9);
SELECT * FROM like3;
SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_name = 'like2' ORDER BY ordinal_position;
-- @error
CREATE TABLE like4 (id integer, LIKE src);
-- @error
CREATE TABLE like5 (LIKE nosuch);
CREATE VIEW src_v AS SELECT id, upper(name) AS uname FROM src;
CREATE TABLE like6 (LIKE src_v);
SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'like6' ORDER BY ordinal_position;
SELECT count(*) FROM pg_namespace WHERE pg_is_other_temp_schema(oid);
SELECT nspname FROM pg_namespace WHERE nspname = 'public' AND NOT pg_is_other_temp_schema(oid);
-- TRUNCATE: every row goes, several tables at once, in blocks
CREATE TABLE tr1 (a integer);
CREATE TABLE tr2 (b text);
INSERT INTO tr1 SELECT g FROM generate_series(1, 1000) g;
INSERT INTO tr2 VALUES ('x'), ('y');
TRUNCATE tr1;
SELECT count(*) FROM tr1;
INSERT INTO tr1 VALUES (5);
TRUNCATE TABLE tr1, tr2;
SELECT (SELECT count(*) FROM tr1), (SELECT count(*) FROM tr2);
INSERT INTO tr1 VALUES (6), (7);
BEGIN;
TRUNCATE tr1;
SELECT count(*) FROM tr1;
ROLLBACK;
SELECT count(*) FROM tr1;
BEGIN;
INSERT INTO tr2 VALUES ('z');
TRUNCATE ONLY tr2 CONTINUE IDENTITY RESTRICT;
INSERT INTO tr2 VALUES ('after');
COMMIT;
SELECT * FROM tr2;
-- @error
TRUNCATE tr1, nosuch;
SELECT count(*) FROM tr1;
-- @error
TRUNCATE src_v;
CREATE TABLE ser (id serial, v text);
INSERT INTO ser (v) VALUES ('a'), ('b');
TRUNCATE ser RESTART IDENTITY;
INSERT INTO ser (v) VALUES ('c') RETURNING id;
TRUNCATE ser;
INSERT INTO ser (v) VALUES ('d') RETURNING id, v;
BEGIN;
TRUNCATE ser RESTART IDENTITY;
ROLLBACK;
INSERT INTO ser (v) VALUES ('e') RETURNING id;
SELECT * FROM ser ORDER BY id;
-- ALTER COLUMN … TYPE that rewrites the table
CREATE TABLE at1 (id integer, code text NOT NULL, amt numeric(10,2), note text, n integer DEFAULT 5, d text DEFAULT 'x');
INSERT INTO at1 (id, code, amt, note) VALUES (1, '10', 1.50, 'a'), (2, '20', 2.25, NULL);
-- @error
ALTER TABLE at1 ALTER COLUMN code TYPE integer;
ALTER TABLE at1 ALTER COLUMN code TYPE integer USING code::integer;
SELECT * FROM at1 ORDER BY id;
SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 'at1' ORDER BY ordinal_position;
INSERT INTO at1 (id, code, amt) VALUES (3, 30, 9.99);
SELECT * FROM at1 ORDER BY id;
ALTER TABLE at1 ALTER COLUMN amt TYPE text;
ALTER TABLE at1 ALTER COLUMN id SET DATA TYPE varchar(10) USING 'k' || id;
SELECT * FROM at1 ORDER BY id;
ALTER TABLE at1 ALTER COLUMN amt TYPE numeric(12,3) USING amt::numeric * 2;
SELECT * FROM at1 ORDER BY id;
-- @error
ALTER TABLE at1 ALTER COLUMN note TYPE integer USING note::integer;
SELECT count(*) FROM at1;
ALTER TABLE at1 ALTER COLUMN n TYPE text;
SELECT column_name, column_default FROM information_schema.columns WHERE table_name = 'at1' AND column_name = 'n';
INSERT INTO at1 (id, code) VALUES ('k4', 4);
SELECT id, n FROM at1 ORDER BY id;
-- @error
ALTER TABLE at1 ALTER COLUMN d TYPE integer USING 0;
BEGIN;
ALTER TABLE at1 ALTER COLUMN code TYPE bigint;
ALTER TABLE at1 ALTER COLUMN code TYPE text USING code || '!';
SELECT * FROM at1 ORDER BY id;
ROLLBACK;
SELECT * FROM at1 ORDER BY id;
UPDATE at1 SET note = 'n' WHERE note IS NULL;
ALTER TABLE at1 ALTER COLUMN note TYPE char(3);
SELECT id, '[' || note || ']' FROM at1 ORDER BY id;
ALTER TABLE at1 ALTER COLUMN note TYPE varchar(1);
SELECT id, note FROM at1 ORDER BY id;
-- defaults that call functions are evaluated per row, not when the table is made
CREATE TABLE dflt (id integer, ts timestamptz DEFAULT now(), d date DEFAULT current_date, u text DEFAULT upper('x'), c timestamptz DEFAULT '2024-01-01 10:00+02');
INSERT INTO dflt (id) VALUES (1);
INSERT INTO dflt (id) VALUES (2);
SELECT id, ts IS NOT NULL, ts <= now(), d = current_date, u, c FROM dflt ORDER BY id;
SELECT count(DISTINCT ts) FROM dflt;
SELECT column_name, column_default FROM information_schema.columns WHERE table_name = 'dflt' AND column_name IN ('ts', 'c') ORDER BY 1;
