-- Subqueries: scalar (also correlated), EXISTS / NOT EXISTS, IN / NOT IN with NULLs on either
-- side, ANY / ALL, subqueries in FROM, SELECT and HAVING, errors of scalar subqueries.
CREATE TABLE a (id integer, v integer, g text);
CREATE TABLE b (id integer, v integer);
INSERT INTO a VALUES (1, 10, 'x'), (2, 20, 'x'), (3, NULL, 'y'), (4, 40, 'y'), (5, 50, NULL);
INSERT INTO b VALUES (1, 10), (2, 40), (3, NULL), (4, 99);

SELECT (SELECT max(v) FROM a), (SELECT count(*) FROM b), (SELECT v FROM b WHERE id = 4);
SELECT (SELECT v FROM b WHERE id = 100);
-- @error
SELECT (SELECT v FROM b);
-- @error
SELECT (SELECT id, v FROM b WHERE id = 1);
SELECT id, v, (SELECT max(v) FROM b) - v AS gap FROM a ORDER BY id;
SELECT id, (SELECT b.v FROM b WHERE b.id = a.id) FROM a ORDER BY id;
SELECT id, (SELECT count(*) FROM b WHERE b.v < a.v) FROM a ORDER BY id;
SELECT id, (SELECT sum(x.v) FROM a x WHERE x.g = a.g) FROM a ORDER BY id;
SELECT id FROM a WHERE v > (SELECT avg(v) FROM a) ORDER BY id;
SELECT id FROM a WHERE v = (SELECT max(v) FROM a x WHERE x.g = a.g) ORDER BY id;
SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.v = a.v) ORDER BY id;
SELECT id FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.v = a.v) ORDER BY id;
SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.id = 100) ORDER BY id;
SELECT id FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.id = 100) ORDER BY id;
SELECT id, EXISTS (SELECT 1 FROM b WHERE b.id = a.id) FROM a ORDER BY id;
SELECT id FROM a WHERE v IN (SELECT v FROM b) ORDER BY id;
SELECT id FROM a WHERE v NOT IN (SELECT v FROM b) ORDER BY id;
SELECT id FROM a WHERE v NOT IN (SELECT v FROM b WHERE v IS NOT NULL) ORDER BY id;
SELECT id FROM a WHERE v NOT IN (SELECT v FROM b WHERE false) ORDER BY id;
SELECT id, v IN (SELECT v FROM b), v NOT IN (SELECT v FROM b) FROM a ORDER BY id;
SELECT id, v IN (SELECT v FROM b WHERE v IS NOT NULL) FROM a ORDER BY id;
SELECT id FROM a WHERE id IN (SELECT id FROM b WHERE b.v > 20) ORDER BY id;
SELECT id FROM a WHERE (id, v) IN (SELECT id, v FROM b) ORDER BY id;
SELECT id FROM a WHERE g IN (SELECT g FROM a WHERE v > 30) ORDER BY id;
SELECT id FROM a WHERE v > ANY (SELECT v FROM b) ORDER BY id;
SELECT id FROM a WHERE v > ALL (SELECT v FROM b WHERE v IS NOT NULL) ORDER BY id;
SELECT id, v > ALL (SELECT v FROM b), v = ANY (SELECT v FROM b), v < SOME (SELECT v FROM b) FROM a ORDER BY id;
SELECT id FROM a WHERE v = ANY (ARRAY[10, 50]) ORDER BY id;
SELECT id FROM a WHERE v <> ALL (ARRAY[10, 50]) ORDER BY id;
SELECT * FROM (SELECT g, sum(v) AS s FROM a GROUP BY g) t WHERE s > 25 ORDER BY g;
SELECT max(s) FROM (SELECT g, sum(v) AS s FROM a GROUP BY g) t;
SELECT g, count(*) FROM a GROUP BY g HAVING count(*) > (SELECT count(*) FROM b WHERE v > 50) ORDER BY g;
SELECT g, sum(v) FROM a GROUP BY g HAVING sum(v) > (SELECT avg(v) FROM b) ORDER BY g NULLS FIRST;
SELECT id FROM a WHERE v IN (SELECT v FROM b WHERE b.id = a.id) ORDER BY id;
SELECT id FROM a WHERE v NOT IN (SELECT v FROM b WHERE b.id = a.id) ORDER BY id;
SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.v > a.v AND b.id < a.id) ORDER BY id;
SELECT id, (SELECT min(b.v) FROM b WHERE b.v > a.v) FROM a ORDER BY id;
SELECT id, coalesce((SELECT max(b.id) FROM b WHERE b.v <= a.v), 0) FROM a ORDER BY id;
SELECT id FROM a WHERE (SELECT count(*) FROM b WHERE b.v < a.v) >= 2 ORDER BY id;
SELECT a.id, x.c FROM a, (SELECT count(*) AS c FROM b) x ORDER BY a.id;
SELECT (SELECT (SELECT max(v) FROM b) + 1);
SELECT id FROM a WHERE v = (SELECT v FROM b WHERE b.id = 2) OR id = (SELECT min(id) FROM b) ORDER BY id;
SELECT id FROM a WHERE id IN (1, (SELECT max(id) FROM b)) ORDER BY id;
SELECT count(*) FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.id = a.id AND b.v IS NULL);
SELECT id, (SELECT string_agg(b.id::text, ',' ORDER BY b.id) FROM b WHERE b.v >= a.v) FROM a ORDER BY id;
SELECT id FROM a WHERE g = (SELECT g FROM a x WHERE x.v = 40) ORDER BY id;
SELECT id FROM a WHERE NULL IN (SELECT v FROM b) ORDER BY id;
SELECT 1 IN (SELECT 1 WHERE false), 1 NOT IN (SELECT NULL::integer), NULL NOT IN (SELECT 1 WHERE false);
-- @error
SELECT id FROM a WHERE v IN (SELECT id, v FROM b);
