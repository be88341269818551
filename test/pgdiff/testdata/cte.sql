-- WITH: plain CTEs (referenced once or several times, chained), WITH RECURSIVE (series,
-- tree walks, UNION versus UNION ALL), CTEs in subqueries.
CREATE TABLE tree (id integer, parent integer, name text);
INSERT INTO tree VALUES (1, NULL, 'root'), (2, 1, 'a'), (3, 1, 'b'), (4, 2, 'a1'), (5, 2, 'a2'), (6, 4, 'a1x'), (7, 3, 'b1');

WITH t AS (SELECT id, name FROM tree WHERE parent = 1) SELECT * FROM t ORDER BY id;
WITH t AS (SELECT count(*) AS n FROM tree) SELECT n, n * 2 FROM t;
WITH x AS (SELECT id FROM tree WHERE id < 4), y AS (SELECT id FROM x WHERE id > 1) SELECT * FROM y ORDER BY id;
WITH x AS (SELECT id, parent FROM tree) SELECT a.id, b.id FROM x a JOIN x b ON b.parent = a.id ORDER BY 1, 2;
WITH x(k, v) AS (VALUES (1, 'one'), (2, 'two')) SELECT v FROM x ORDER BY k DESC;
WITH s AS (SELECT parent, count(*) AS n FROM tree GROUP BY parent) SELECT t.name, s.n FROM tree t JOIN s ON s.parent = t.id ORDER BY t.name;
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT sum(n), count(*) FROM r;
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n * 2 FROM r WHERE n < 1000) SELECT n FROM r ORDER BY n;
WITH RECURSIVE fib(a, b) AS (SELECT 0::bigint, 1::bigint UNION ALL SELECT b, a + b FROM fib WHERE b < 100) SELECT a FROM fib ORDER BY a;
WITH RECURSIVE sub(id, name, depth) AS (
  SELECT id, name, 0 FROM tree WHERE id = 2
  UNION ALL
  SELECT t.id, t.name, s.depth + 1 FROM tree t JOIN sub s ON t.parent = s.id
) SELECT * FROM sub ORDER BY depth, id;
WITH RECURSIVE path(id, p) AS (
  SELECT id, name FROM tree WHERE parent IS NULL
  UNION ALL
  SELECT t.id, path.p || '/' || t.name FROM tree t JOIN path ON t.parent = path.id
) SELECT p FROM path ORDER BY p;
WITH RECURSIVE up(id, parent) AS (
  SELECT id, parent FROM tree WHERE id = 6
  UNION ALL
  SELECT t.id, t.parent FROM tree t JOIN up ON t.id = up.parent
) SELECT id FROM up ORDER BY id;
WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT (n + 1) % 5 FROM r) SELECT n FROM r ORDER BY n;
WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n FROM r) SELECT count(*) FROM r;
WITH RECURSIVE cnt(d, n) AS (
  SELECT 0, count(*) FROM tree WHERE parent IS NULL
  UNION ALL
  SELECT d + 1, (SELECT count(*) FROM tree WHERE parent IS NOT NULL) FROM cnt WHERE d < 2
) SELECT * FROM cnt ORDER BY d;
SELECT (WITH m AS (SELECT max(id) AS x FROM tree) SELECT x FROM m);
SELECT name FROM tree WHERE id IN (WITH k AS (SELECT parent FROM tree WHERE parent IS NOT NULL) SELECT parent FROM k) ORDER BY name;
WITH t AS (SELECT * FROM tree) SELECT count(*) FROM t a, t b WHERE a.id = b.parent;
WITH a AS (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a) SELECT x, y FROM a, b;
WITH t AS MATERIALIZED (SELECT id FROM tree WHERE id % 2 = 0) SELECT sum(id) FROM t;
WITH t AS NOT MATERIALIZED (SELECT id FROM tree) SELECT max(id) FROM t WHERE id < 5;
WITH RECURSIVE s(d) AS (SELECT '2024-01-30'::date UNION ALL SELECT d + 1 FROM s WHERE d < '2024-02-02') SELECT d FROM s ORDER BY d;
-- @error
WITH t AS (SELECT 1) SELECT * FROM nosuch;
-- @error
WITH RECURSIVE r(n) AS (SELECT n FROM r UNION ALL SELECT 1) SELECT * FROM r;
WITH t AS (SELECT id FROM tree) SELECT id FROM t WHERE id > 5 UNION ALL SELECT 0 ORDER BY 1;
-- a WITH query referenced more than once runs once (PostgreSQL materializes it): both
-- references see the same random values
WITH r AS (SELECT random() AS x FROM generate_series(1, 5) g) SELECT count(*), bool_and(a.x = b.x) FROM r a JOIN r b ON a.x = b.x;
WITH r AS (SELECT g, random() AS x FROM generate_series(1, 3) g) SELECT (SELECT sum(x) FROM r) = (SELECT sum(x) FROM r);
-- a WITH query read by several references, each with conditions of its own: one run with
-- their disjunction pushed in (cte_shared_filter), each reference filtering the shared rows
WITH g AS (SELECT parent, count(*) AS n, max(name) AS m FROM tree GROUP BY parent)
SELECT a.n, b.n, c.m FROM g a, g b, g c WHERE a.parent = 1 AND b.parent = 2 AND c.parent IS NULL;
WITH g(p, n) AS (SELECT parent, count(*) FROM tree GROUP BY parent)
SELECT x.nn, y.n FROM g x(pp, nn), g y WHERE x.pp = 1 AND y.p = 2 AND x.nn > 0 AND y.n >= x.nn - 5;
WITH u AS (SELECT id, name FROM tree WHERE id < 4 UNION ALL SELECT id, name FROM tree WHERE id >= 4)
SELECT a.name, b.name FROM u a, u b WHERE a.id = 2 AND b.id = a.id + 3 ORDER BY 1, 2;
WITH g AS (SELECT parent, count(*) AS n FROM tree GROUP BY parent)
SELECT a.n, b.n FROM g a JOIN g b ON a.parent + 1 = b.parent WHERE a.parent = 1 ORDER BY 1, 2;
WITH g AS (SELECT id, parent FROM tree)
SELECT count(*) FROM g a WHERE a.id > 2 AND EXISTS (SELECT 1 FROM g b WHERE b.parent = a.id AND b.id < 100);
-- a WITH query read twice whose body holds correlated subqueries (each reference described on its own copy)
WITH w AS (SELECT x.id, (SELECT max(y.id) FROM tree y WHERE y.id < x.id) AS prev FROM tree x) SELECT a.id, a.prev, b.id FROM w a JOIN w b ON b.id = a.prev ORDER BY 1;
WITH w AS (SELECT x.id FROM tree x WHERE (SELECT min(y.id) FROM tree y WHERE y.id > x.id) NOT IN (SELECT z.id + 1 FROM tree z WHERE z.id <> x.id)) SELECT count(*) FROM w a, w b;
WITH w8 AS (SELECT x.id, (SELECT max(y.id) FROM tree y WHERE y.id < x.id) AS prev FROM tree x), w10 AS (SELECT id + 1 AS id, prev FROM w8) SELECT * FROM w10 a JOIN w10 b ON a.prev = b.id JOIN w10 c ON c.id = a.id WHERE a.id > 2 ORDER BY 1;
-- derived tables written alike run once, each reference under its own alias and conditions
SELECT a.parent, a.n, b.n FROM (SELECT parent, count(*) AS n FROM tree GROUP BY parent) a JOIN (SELECT parent, count(*) AS n FROM tree GROUP BY parent) b ON b.parent = a.parent - 1 ORDER BY 1;
SELECT s.parent, s.n, avg_n FROM (SELECT avg(n) AS avg_n FROM (SELECT parent, count(*) AS n FROM tree GROUP BY parent) x) t, (SELECT parent, count(*) AS n FROM tree GROUP BY parent) s WHERE s.n >= t.avg_n ORDER BY 1 NULLS FIRST;
SELECT x.k, y.k FROM (SELECT id AS k FROM tree WHERE id < 3) x(k), (SELECT id AS k FROM tree WHERE id < 3) y(k) ORDER BY 1, 2;
SELECT count(*) FROM (SELECT id FROM tree) a, (SELECT id FROM tree) b WHERE a.id = b.id AND a.id > 2 AND b.id < 6;
WITH w AS (SELECT id FROM tree WHERE id > 5) SELECT p.id, q.id FROM (SELECT id FROM w) p JOIN (SELECT id FROM w) q ON p.id <= q.id ORDER BY 1, 2;
SELECT * FROM (SELECT id FROM tree WHERE id < 3) a UNION ALL SELECT * FROM (SELECT id FROM tree WHERE id < 3) b ORDER BY 1;
SELECT (SELECT count(*) FROM (SELECT id FROM tree) a, (SELECT id FROM tree) b WHERE a.id = b.id + t.id) FROM tree t ORDER BY t.id;
-- a one-row WITH query read by two subqueries (difftest: the join order's estimate crashed)
WITH w4(c0) AS (SELECT 'a'::text AS c0 HAVING true) SELECT (SELECT c0 FROM w4 a20) AS c0 FROM (SELECT (SELECT c0 FROM w4 a18) AS c0) a19;
WITH w6(c0) AS (SELECT (true NOT IN (true)) AS c0 GROUP BY 'a'::text) SELECT (SELECT DATE '2000-01-01' FROM w6 a18) AS c0 HAVING (0 <> ALL (SELECT 0 FROM w6 a20));
-- a MATERIALIZED WITH query is computed whole, also a column nothing reads
CREATE TABLE mat1 (id integer, s text);
INSERT INTO mat1 VALUES (11, NULL);
-- @error
WITH w AS MATERIALIZED (SELECT id, id / 0 AS z FROM mat1) SELECT id FROM w;
WITH w AS MATERIALIZED (SELECT id, id / 0 AS z FROM mat1) SELECT 1;
WITH w AS (SELECT id, id / 0 AS z FROM mat1) SELECT id FROM w;
