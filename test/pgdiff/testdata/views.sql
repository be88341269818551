-- Views: CREATE [OR REPLACE] VIEW, reading them (joins, aggregates, views over views, WITH
-- names that must not leak into a view), ALTER … RENAME, DROP VIEW, DROP SCHEMA CASCADE,
-- catalog views, and the errors PostgreSQL gives.
CREATE TABLE emp (id integer, name text, dept text, salary numeric(10,2));
INSERT INTO emp VALUES (1, 'ann', 'eng', 100.00), (2, 'bob', 'eng', 80.50), (3, 'cid', 'ops', 60.00), (4, 'dan', NULL, 10.00);
CREATE VIEW eng AS SELECT id, name, salary FROM emp WHERE dept = 'eng';
SELECT * FROM eng ORDER BY id;
SELECT e.name, e.salary * 2 AS twice FROM eng e WHERE e.salary > 90;
CREATE VIEW dept_pay (dept, total, heads) AS SELECT dept, sum(salary), count(*) FROM emp GROUP BY dept;
SELECT * FROM dept_pay ORDER BY dept NULLS FIRST;
CREATE VIEW rich AS SELECT d.dept, d.total FROM dept_pay d WHERE d.total > 50;
SELECT * FROM rich ORDER BY dept;
SELECT r.dept, e.name FROM rich r JOIN emp e ON e.dept = r.dept ORDER BY 1, 2;
SELECT count(*) FROM eng, dept_pay;
WITH emp AS (SELECT 99 AS id, 'zed' AS name, 'eng' AS dept, 1.00 AS salary) SELECT * FROM eng ORDER BY id;
SELECT name FROM eng WHERE id IN (SELECT id FROM emp WHERE salary < 90);
SELECT (SELECT max(total) FROM dept_pay) AS top;
SELECT * FROM eng a JOIN eng b ON a.id = b.id ORDER BY a.id;
CREATE OR REPLACE VIEW eng AS SELECT id, name, salary, upper(name) AS shout FROM emp WHERE dept = 'eng';
SELECT * FROM eng ORDER BY id;
-- @error
CREATE OR REPLACE VIEW eng AS SELECT id, name FROM emp;
-- @error
CREATE OR REPLACE VIEW eng AS SELECT id, length(name) AS name, salary, name AS shout FROM emp;
-- @error
CREATE OR REPLACE VIEW eng AS SELECT id, name AS nm, salary, name AS shout FROM emp;
-- @error
CREATE OR REPLACE VIEW eng AS SELECT id::bigint, name, salary, name AS shout FROM emp;
-- @error
CREATE VIEW eng AS SELECT 1;
-- @error
CREATE VIEW emp AS SELECT 1;
-- @error
CREATE OR REPLACE VIEW emp AS SELECT 1;
-- @error
CREATE TABLE eng (a integer);
-- @error
CREATE VIEW bad AS SELECT nosuch FROM emp;
-- @error
CREATE VIEW bad AS SELECT * FROM nosuch;
-- @error
CREATE VIEW bad (a, b, c) AS SELECT 1, 2;
-- @error
CREATE VIEW bad AS SELECT 1 AS a, 2 AS a;
CREATE VIEW some_cols (x) AS SELECT 1, 2 AS y;
SELECT * FROM some_cols;
-- @error
DROP TABLE eng;
-- @error
DROP VIEW emp;
-- @error
DROP VIEW nosuch;
DROP VIEW IF EXISTS nosuch;
DROP VIEW IF EXISTS nosuch, some_cols;
ALTER TABLE rich RENAME TO rich2;
SELECT * FROM rich2 ORDER BY dept;
ALTER VIEW rich2 RENAME TO rich;
-- @error
ALTER VIEW rich RENAME TO emp;
-- @error
SELECT * FROM rich2;
BEGIN;
CREATE VIEW in_tx AS SELECT count(*) AS n FROM emp;
SELECT * FROM in_tx;
INSERT INTO emp VALUES (5, 'eve', 'ops', 70.00);
SELECT * FROM in_tx;
ROLLBACK;
-- @error
SELECT * FROM in_tx;
BEGIN;
CREATE VIEW kept AS SELECT name FROM emp WHERE id = 1;
COMMIT;
SELECT * FROM kept;
CREATE SCHEMA rpt;
CREATE VIEW rpt.eng_names AS SELECT name FROM eng;
SELECT * FROM rpt.eng_names ORDER BY name;
SET search_path = rpt;
SELECT * FROM eng_names ORDER BY name;
RESET search_path;
-- @error
DROP SCHEMA rpt;
DROP SCHEMA rpt CASCADE;
-- @error
SELECT * FROM rpt.eng_names;
SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name;
SELECT table_name, is_updatable FROM information_schema.views WHERE table_schema = 'public' ORDER BY table_name;
SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' AND table_name IN ('eng', 'dept_pay') ORDER BY table_name, ordinal_position;
SELECT c.relname, c.relkind, c.relnatts FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' ORDER BY c.relname;
SELECT viewname FROM pg_views WHERE schemaname = 'public' ORDER BY viewname;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'dept_pay'::regclass AND attnum > 0 ORDER BY attnum;
SELECT pg_get_viewdef('emp'::regclass) IS NULL;
DROP VIEW rich, eng, dept_pay, kept;
SELECT count(*) FROM pg_views WHERE schemaname = 'public';
-- PostgreSQL writes through a simple view; lakepg's views are read-only (README)
CREATE VIEW ops AS SELECT id, name, dept FROM emp WHERE dept = 'ops';
INSERT INTO ops VALUES (9, 'ivy', 'ops');
SELECT count(*) FROM emp;
