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
-- Correlated subqueries of shapes no join expresses (ORDER BY … LIMIT, GROUP BY, DISTINCT,
-- set operations, VALUES, nesting), in the select list, CASE, WHERE, HAVING and grouped queries.
SELECT id, (SELECT b.v FROM b WHERE b.id >= a.id ORDER BY b.id LIMIT 1) FROM a ORDER BY id;
SELECT id, (SELECT b.v FROM b WHERE b.id >= a.id ORDER BY b.v DESC NULLS LAST OFFSET 1 LIMIT 1) FROM a ORDER BY id;
SELECT id FROM a WHERE v = (SELECT b.v FROM b WHERE b.id = a.id ORDER BY b.v LIMIT 1) ORDER BY id;
SELECT id, (SELECT count(*) FROM (SELECT b.v FROM b WHERE b.id < a.id LIMIT 2) s) FROM a ORDER BY id;
SELECT id, (SELECT v FROM b WHERE b.id = a.id UNION ALL SELECT 0 LIMIT 1) FROM a ORDER BY id;
SELECT id, (SELECT max(x) FROM (VALUES (a.v), (a.id * 100)) t(x)) FROM a ORDER BY id;
SELECT id, (SELECT sum(v) FROM b WHERE b.id IN (SELECT x.id FROM a x WHERE x.g = a.g)) FROM a ORDER BY id;
SELECT id, (SELECT b.id AS last FROM b WHERE b.id <= a.id GROUP BY b.id ORDER BY b.id DESC LIMIT 1) FROM a ORDER BY id;
SELECT id, (SELECT count(*) FROM (SELECT DISTINCT x.g FROM a x WHERE x.id <= a.id) s) FROM a ORDER BY id;
SELECT id, CASE WHEN v > 15 THEN (SELECT b.v FROM b WHERE b.id >= a.id ORDER BY b.id LIMIT 1) ELSE -1 END FROM a ORDER BY id;
SELECT id, CASE WHEN EXISTS (SELECT 1 FROM b WHERE b.v = a.v LIMIT 1) THEN 'hit' ELSE 'miss' END FROM a ORDER BY id;
SELECT id, ARRAY(SELECT b.v FROM b WHERE b.id >= a.id ORDER BY b.v DESC NULLS LAST LIMIT 2) FROM a ORDER BY id;
SELECT id, ARRAY(SELECT b.id FROM b WHERE b.v > a.v ORDER BY b.id) FROM a ORDER BY id;
SELECT id, v = ANY (SELECT b.v FROM b WHERE b.id <= a.id), v > ALL (SELECT b.v FROM b WHERE b.id < a.id) FROM a ORDER BY id;
SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.id = a.id LIMIT 1) ORDER BY id;
SELECT id FROM a WHERE EXISTS (SELECT b.v FROM b WHERE b.id <= a.id GROUP BY b.v HAVING max(b.id) >= 3) ORDER BY id;
SELECT id FROM a WHERE v IN (SELECT b.v FROM b WHERE b.id <= a.id ORDER BY b.v LIMIT 1) ORDER BY id;
SELECT id FROM a WHERE v NOT IN (SELECT b.v FROM b WHERE b.id <= a.id ORDER BY b.v NULLS FIRST LIMIT 2) ORDER BY id;
SELECT * FROM a WHERE v >= (SELECT min(b.v) FROM b WHERE b.v > a.v - 30) ORDER BY id;
SELECT g, (SELECT count(*) FROM a x WHERE x.g = a.g), count(*) FROM a GROUP BY g ORDER BY g NULLS FIRST;
SELECT g FROM a GROUP BY g HAVING (SELECT count(*) FROM a x WHERE x.g = a.g AND x.v > 15) > 0 ORDER BY g;
SELECT id FROM a ORDER BY (SELECT b.v FROM b WHERE b.id >= a.id ORDER BY b.id LIMIT 1) NULLS FIRST, id;
SELECT sum((SELECT count(*) FROM b WHERE b.id = a.id)) FROM a;
SELECT g, sum((SELECT b.v FROM b WHERE b.id >= a.id ORDER BY b.id LIMIT 1)), count(*) FILTER (WHERE EXISTS (SELECT 1 FROM b WHERE b.v = a.v)) FROM a GROUP BY g ORDER BY g;
WITH c AS (SELECT id, v FROM b) SELECT a.id, (SELECT max(x.v) FROM c x JOIN c y ON x.id = y.id WHERE x.id <= a.id LIMIT 1) FROM a ORDER BY a.id;
-- @error
SELECT g, (SELECT count(*) FROM a x WHERE x.v = a.v) FROM a GROUP BY g;
-- @error
SELECT id, (SELECT b.v FROM b WHERE b.id > a.id ORDER BY b.id) FROM a ORDER BY id;
-- aggregates of the outer query inside a subquery (the lowest level their columns come from)
SELECT (SELECT max(a.v)) FROM a;
SELECT (SELECT sum(a.v) + count(*)) FROM a;
SELECT g, (SELECT max(a.v) - min(a.v)) AS spread FROM a GROUP BY g ORDER BY g NULLS LAST;
SELECT g, (SELECT count(*) FROM b WHERE b.v < max(a.v)) FROM a GROUP BY g ORDER BY g NULLS LAST;
SELECT g FROM a GROUP BY g HAVING EXISTS (SELECT 1 FROM b WHERE b.v = max(a.v)) ORDER BY g;
SELECT (SELECT sum(a.v) FROM b WHERE b.id = 1) FROM a;
SELECT g, (SELECT (SELECT max(a.v) + 1)) FROM a GROUP BY g ORDER BY g NULLS LAST;
SELECT (SELECT max(b.v) FROM b WHERE b.id <= 2), (SELECT max(a.id)) FROM a;
SELECT g, (SELECT string_agg(a.id::text, ',' ORDER BY a.id)) FROM a GROUP BY g ORDER BY g NULLS LAST;
SELECT a.g, (SELECT count(*) FROM a x WHERE x.g = a.g AND x.v < avg(a.v)) FROM a GROUP BY a.g ORDER BY 1 NULLS LAST;
SELECT (SELECT max(a.v)) FROM a WHERE a.id > 10;
SELECT g, count(*) FROM a GROUP BY g ORDER BY (SELECT max(a.v)) DESC NULLS LAST, g;
-- @error
SELECT (SELECT sum(a.v) FROM b) FROM a;
-- @error
SELECT id, (SELECT max(a.v)) FROM a ORDER BY id;
-- @error
SELECT * FROM a WHERE v = (SELECT max(a.v));
SELECT id FROM a WHERE v IN (SELECT max(x.v) FROM a x) ORDER BY id;
-- an aggregate or window function as the left operand of IN/ANY/ALL belongs to the outer query
SELECT max(1) IN (SELECT 0), max(1) <> ALL (SELECT 0);
SELECT g, sum(v) IN (SELECT v FROM b), count(*) = ANY (SELECT id FROM b) FROM a GROUP BY g ORDER BY g;
SELECT g FROM a GROUP BY g HAVING max(v) > ALL (SELECT v FROM b WHERE v IS NOT NULL) ORDER BY g;
SELECT id, row_number() OVER (ORDER BY id) IN (SELECT id FROM b) FROM a ORDER BY id;
-- a correlated subquery in the left operand of IN/ANY/ALL, inside an aggregate too
SELECT id, (SELECT 1 WHERE a.v = 1) IN (SELECT 1) FROM a ORDER BY id;
SELECT count(*) FILTER (WHERE (SELECT a.v + 1) > ANY (SELECT v FROM b)) FROM a;
SELECT g FROM a GROUP BY g HAVING count(((SELECT a.v WHERE a.id > 1) <> ALL (SELECT v FROM b WHERE v IS NOT NULL))) >= 0 ORDER BY g;
-- ... and of a correlated IN/ANY/ALL, in WHERE and in the select list
SELECT id FROM a WHERE (SELECT min(x.id) FROM a x WHERE x.g = a.g) NOT IN (SELECT y.v FROM a y WHERE y.g = a.g) ORDER BY id;
SELECT id FROM a WHERE (SELECT min(x.id) FROM a x WHERE x.g = a.g) IN (SELECT y.id FROM a y WHERE y.g = a.g) ORDER BY id;
SELECT id, (SELECT max(x.v) FROM a x WHERE x.g = a.g) < ALL (SELECT y.v FROM a y WHERE y.g = a.g AND y.id <> a.id) FROM a ORDER BY id;
-- an aggregate or window function as the left operand of a correlated IN/ANY/ALL
SELECT g, max(id) > ANY (SELECT x.id FROM a x WHERE x.g = a.g) FROM a GROUP BY g ORDER BY g NULLS LAST;
SELECT g, count(*) IN (SELECT x.id FROM a x WHERE x.g <= a.g) FROM a GROUP BY g ORDER BY g NULLS LAST;
SELECT g FROM a GROUP BY g HAVING sum(v) NOT IN (SELECT x.v + 1 FROM a x WHERE x.g = a.g AND x.v IS NOT NULL) ORDER BY g NULLS LAST;
SELECT g, max(id) + min(id) = ANY (SELECT x.id * 2 FROM a x WHERE x.g >= a.g) FROM a GROUP BY g HAVING max(id) IN (SELECT y.id FROM a y WHERE y.g = a.g) ORDER BY g;
SELECT id, row_number() OVER (ORDER BY id) = ANY (SELECT x.id FROM a x WHERE x.id = a.id) FROM a ORDER BY id;
SELECT id, sum(v) OVER (PARTITION BY g) NOT IN (SELECT x.v + 2 FROM a x WHERE x.g = a.g AND x.v IS NOT NULL), (SELECT max(x.v) FROM a x WHERE x.g = a.g) FROM a ORDER BY id LIMIT 6;
SELECT id FROM a ORDER BY rank() OVER (PARTITION BY g ORDER BY id) > ALL (SELECT x.id FROM a x WHERE x.g = a.g), id;
SELECT g, max(id), rank() OVER (ORDER BY g) = ANY (SELECT x.id FROM a x WHERE x.g = a.g) FROM a GROUP BY g ORDER BY g NULLS LAST;
-- an aggregate over a correlated subquery, in the left operand of IN/ANY
SELECT sum((SELECT 1 WHERE a.v = 10)) IN (SELECT 1), count((SELECT 1 WHERE a.v > 10)) = ANY (SELECT id FROM b) FROM a;
SELECT g, sum((SELECT 1 WHERE a.v = 10)) IN (SELECT x.id FROM a x WHERE x.g = a.g) FROM a GROUP BY g ORDER BY g NULLS LAST;
-- an outer column beside the aggregates of a subquery: a constant of the outer row
SELECT id, (SELECT count(*) + a.id FROM b WHERE b.v < 5) FROM a ORDER BY id;
SELECT id, (SELECT sum(b.v) * a.id FROM b WHERE b.id < a.id) FROM a ORDER BY id;
SELECT id, (SELECT max(b.v) || a.g FROM b WHERE b.id <> a.id) FROM a ORDER BY id;
SELECT id, (SELECT count(*) FILTER (WHERE b.v > a.id) + coalesce(a.v, 0) FROM b WHERE b.id <= a.id + 1) FROM a ORDER BY id;
-- shared scans: scalar subqueries with the same FROM and WHERE run once, each value its own
SELECT (SELECT count(*) FROM b WHERE v BETWEEN 1 AND 20), (SELECT avg(v) FROM b WHERE v BETWEEN 1 AND 20), (SELECT max(id) FROM b WHERE v BETWEEN 1 AND 20), (SELECT min(id) FROM b WHERE v > 100);
SELECT CASE WHEN (SELECT count(*) FROM b WHERE v > 2) > 1 THEN (SELECT sum(v) FROM b WHERE v > 2) ELSE (SELECT sum(id) FROM b WHERE v > 2) END;
SELECT (SELECT v FROM b WHERE id = 1), (SELECT id FROM b WHERE id = 1), (SELECT count(*) FROM b WHERE id = 1);
-- @error
SELECT (SELECT v FROM b WHERE id > 0), (SELECT id FROM b WHERE id > 0);
-- an IN over one FROM item of a join whose subquery has a subquery in its WHERE: uncorrelated, it
-- filters that item before the join; correlated with the joined rows, it is planned after the join
SELECT a.id, b.id FROM a JOIN b ON a.id = b.id WHERE a.v IN (SELECT x.v FROM b x WHERE x.id < (SELECT max(id) FROM b WHERE v > 10)) ORDER BY 1, 2;
SELECT a.id, b.id FROM a JOIN b ON a.id = b.id WHERE a.v NOT IN (SELECT x.v FROM b x WHERE x.v IS NOT NULL AND x.id <> (SELECT min(id) FROM b)) ORDER BY 1, 2;
SELECT a.id, b.id FROM a JOIN b ON a.id = b.id WHERE a.v IN (SELECT x.v FROM a x WHERE x.id <= (SELECT max(y.id) FROM b y WHERE y.v >= b.v)) ORDER BY 1, 2;
SELECT a.id, b.id FROM a JOIN b ON a.id = b.id WHERE a.v IN (SELECT x.v FROM a x WHERE EXISTS (SELECT 1 FROM b y WHERE y.id = x.id AND y.v = a.v)) ORDER BY 1, 2;
-- an uncorrelated subquery's value is not folded: an error over it waits for a row
CREATE TABLE nofold0 (id integer);
SELECT (SELECT 1) / 0 FROM nofold0;
SELECT LEAST((SELECT DATE '5874897-12-31'), CAST(NULL AS timestamp)) FROM nofold0;
-- a correlated aggregate subquery over no inner rows: its value is its expression over what the
-- aggregates give for none (count 0, the others NULL), not NULL; computed only where it is read
SELECT id, (SELECT coalesce(max(b.v), 0) FROM b WHERE b.id = a.id + 2) FROM a ORDER BY id;
SELECT id, (SELECT count(*) + 1 FROM b WHERE b.id = a.id), (SELECT count(b.v) * 2 FROM b WHERE b.id = a.id) FROM a ORDER BY id;
SELECT id, (SELECT max(b.v) IS NULL FROM b WHERE b.id = a.id) FROM a ORDER BY id;
SELECT id FROM a WHERE (SELECT count(*) + 1 FROM b WHERE b.id = a.id) = 1 ORDER BY id;
SELECT id, CASE WHEN id < 5 THEN 0 ELSE (SELECT max(b.v) / 0 FROM b WHERE b.id = a.id) END FROM a ORDER BY id;
SELECT id, CASE WHEN id = 5 THEN (SELECT b.v FROM b WHERE b.id > a.id - 9 AND b.id = a.id) END FROM a ORDER BY id;
SELECT g, count(*), (SELECT count(*) * 10 FROM b WHERE b.id = min(a.id) + 3) FROM a GROUP BY g ORDER BY g;
-- an aggregation without GROUP BY has one row for every outer row: EXISTS over it is true, IN and
-- ANY compare with its value, also where no inner row matches
SELECT id FROM a WHERE EXISTS (SELECT count(*) FROM b WHERE b.id = a.id) ORDER BY id;
SELECT id FROM a WHERE NOT EXISTS (SELECT max(b.v) FROM b WHERE b.id = a.id) ORDER BY id;
SELECT id, EXISTS (SELECT sum(b.v) FROM b WHERE b.id = a.id) FROM a ORDER BY id;
SELECT id FROM a WHERE EXISTS (SELECT max(b.v) FROM b WHERE b.id = a.id) OR id = 1 ORDER BY id;
SELECT id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.id = a.id HAVING count(*) = 0) ORDER BY id;
SELECT id FROM a WHERE EXISTS (SELECT count(*) FROM b WHERE b.id = a.id LIMIT 0) ORDER BY id;
SELECT id FROM a WHERE 0 IN (SELECT count(*) FROM b WHERE b.id = a.id) ORDER BY id;
SELECT id FROM a WHERE id NOT IN (SELECT count(*) FROM b WHERE b.id = a.id) ORDER BY id;
SELECT id FROM a WHERE 2 = ANY (SELECT count(*) + 2 FROM b WHERE b.id = a.id + 1) ORDER BY id;
SELECT id FROM a WHERE v > ALL (SELECT max(b.v) FROM b WHERE b.id = a.id) ORDER BY id;
