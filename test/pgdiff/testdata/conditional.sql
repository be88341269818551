-- CASE (simple and searched), COALESCE, NULLIF, GREATEST, LEAST: type resolution and NULLs.
CREATE TABLE c (id integer, a integer, b bigint, x numeric(6,2), t text, d date);
INSERT INTO c VALUES
  (1, 1, 10, 1.50, 'one', '2024-01-01'),
  (2, 2, NULL, NULL, 'two', NULL),
  (3, NULL, 30, -2.25, NULL, '2023-12-31'),
  (4, 4, 4, 4.00, '', '2024-02-29'),
  (5, NULL, NULL, NULL, NULL, NULL);

SELECT id, CASE WHEN a > 1 THEN 'big' ELSE 'small' END FROM c ORDER BY id;
SELECT id, CASE WHEN a IS NULL THEN 'none' WHEN a = 1 THEN 'one' WHEN a < 3 THEN 'few' END FROM c ORDER BY id;
SELECT id, CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END FROM c ORDER BY id;
SELECT id, CASE WHEN a > 1 THEN a ELSE b END, pg_typeof(CASE WHEN a > 1 THEN a ELSE b END) FROM c ORDER BY id;
SELECT id, CASE WHEN a = 1 THEN x ELSE a END FROM c ORDER BY id;
SELECT id, CASE WHEN a = 1 THEN 1 ELSE 2.5 END, CASE WHEN a = 1 THEN 1.5::float8 ELSE 2 END FROM c ORDER BY id;
SELECT id, CASE WHEN t = '' THEN NULL ELSE t END FROM c ORDER BY id;
SELECT id, CASE WHEN d < '2024-01-01' THEN 'old' WHEN d >= '2024-01-01' THEN 'new' ELSE 'unknown' END FROM c ORDER BY id;
SELECT id, CASE WHEN a IS NULL THEN NULL END FROM c ORDER BY id;
SELECT CASE WHEN false THEN 1 END, CASE 1 WHEN 2 THEN 'x' END, CASE WHEN NULL THEN 'yes' ELSE 'no' END;
SELECT id, CASE WHEN a = 0 THEN 1 / a ELSE 0 END FROM c ORDER BY id;
SELECT id, CASE WHEN a > 0 THEN 100 / a END FROM c ORDER BY id;
-- @error
SELECT CASE WHEN true THEN 1 ELSE 'x' END;
SELECT CASE WHEN true THEN 1 ELSE '2' END, CASE WHEN true THEN 'a' ELSE NULL END;
SELECT id, coalesce(a, 0), coalesce(b, a, -1), coalesce(x, 0), coalesce(t, 'n/a'), coalesce(d, '1970-01-01') FROM c ORDER BY id;
SELECT id, coalesce(a, b), pg_typeof(coalesce(a, b)), coalesce(a, x), coalesce(NULL, NULL, t) FROM c ORDER BY id;
SELECT coalesce(NULL::integer, NULL), coalesce(1, 1 / 0), coalesce(NULL, 2, 3);
-- @error
SELECT coalesce(1, 'x');
SELECT id, nullif(a, 1), nullif(t, ''), nullif(x, 4), nullif(NULL::integer, 1) FROM c ORDER BY id;
SELECT nullif(1, 1), nullif(1, 2), nullif('a', 'a'), nullif(1, 1.0), pg_typeof(nullif(1, 1.0));
SELECT id, greatest(a, b), least(a, b), greatest(a, b, x), least(x, 0) FROM c ORDER BY id;
SELECT greatest(1, 2, NULL), least(NULL::integer, NULL), greatest('a', 'B', 'c'), least('2024-01-01'::date, '2023-06-30');
SELECT greatest(1, 2.5), pg_typeof(greatest(1, 2.5)), greatest(1::bigint, 2), least(1.5::float8, 2);
-- @error
SELECT greatest(1, 'x');
SELECT id, coalesce(nullif(t, ''), 'empty') FROM c ORDER BY id;
SELECT id, CASE WHEN coalesce(a, 0) > 1 THEN greatest(a, 3) ELSE least(coalesce(b, 7), 5) END FROM c ORDER BY id;
SELECT CASE WHEN a IS NULL THEN 'null' ELSE 'set' END AS k, count(*) FROM c GROUP BY 1 ORDER BY 1;
SELECT sum(CASE WHEN a > 1 THEN 1 ELSE 0 END), count(CASE WHEN t IS NOT NULL THEN 1 END) FROM c;
SELECT id FROM c WHERE CASE WHEN a IS NULL THEN b > 10 ELSE a > 1 END ORDER BY id;
SELECT id, a IS DISTINCT FROM 1, a IS NOT DISTINCT FROM NULL, NULL IS DISTINCT FROM NULL FROM c ORDER BY id;
SELECT id, (a > 1) IS TRUE, NOT (a > 1) IS NOT FALSE FROM c ORDER BY id;
-- A branch is evaluated only for the rows that reach it: a CASE result, a later WHEN, a later
-- COALESCE argument, the later arguments of AND/OR (TPC-DS q53 and q90 guard divisions so).
SELECT CASE WHEN x > 0 THEN 10 / x ELSE NULL END FROM (VALUES (0), (2)) t(x);
SELECT id, CASE WHEN a <> 2 THEN 10 / (a - 2) END, CASE a - 2 WHEN 0 THEN -1 ELSE 10 / (a - 2) END, CASE WHEN a = 2 THEN 0 WHEN 10 / (a - 2) > 0 THEN 1 ELSE 2 END FROM c ORDER BY id;
SELECT id, coalesce(b, 100 / (a - 4)), 10 / nullif(a - 2, 0), nullif(a, 2), coalesce(nullif(a, 1), 10 / (a + 1), -1) FROM c ORDER BY id;
SELECT id FROM c WHERE a <> 2 AND 10 / (a - 2) > 0 ORDER BY id;
SELECT id FROM c WHERE a = 2 OR 10 / (a - 2) < 0 ORDER BY id;
SELECT id, a IS NOT NULL AND a <> 4 AND 8 / (a - 4) < -2, a = 4 OR a IS NULL OR 8 / (a - 4) < -5 FROM c ORDER BY id;
SELECT id, CASE WHEN a <> 2 THEN greatest(1, 10 / (a - 2)) ELSE least(0, b) END, CASE WHEN x < 4 THEN x / (x - 4) END FROM c ORDER BY id;
SELECT id, CASE WHEN t <> 'one' AND t <> 'two' AND t <> '' THEN t::int END, CASE WHEN id = 3 THEN t::integer END FROM c ORDER BY id;
SELECT id, CASE WHEN a = 1 THEN a * 2147483647 END, CASE WHEN b < 20 THEN b * 461168601842738790 END FROM c ORDER BY id;
SELECT id, CASE WHEN a <> 2 THEN CASE WHEN a > 3 THEN 100 / (a - 2) ELSE 10 / (a - 2) END ELSE 0 END FROM c ORDER BY id;
SELECT sum(CASE WHEN a <> 2 THEN 10 / (a - 2) END), count(CASE WHEN a = 2 THEN 1 END) FROM c;
SELECT a, CASE WHEN avg(b - 10) > 0 THEN abs(sum(b) - avg(b - 10)) / avg(b - 10) ELSE NULL END FROM c GROUP BY a ORDER BY a;
SELECT * FROM (SELECT id, x, avg(x - 1.5) OVER () AS m FROM c) s WHERE CASE WHEN m <> 0 THEN x / m ELSE NULL END > 1 ORDER BY id;
SELECT CASE WHEN s = 0 THEN NULL ELSE CAST(n AS decimal(15,4)) / CAST(s AS decimal(15,4)) END FROM (SELECT count(*) AS n FROM c WHERE a > 1) p, (SELECT count(*) AS s FROM c WHERE a > 10) q;
-- …and raise for the rows that do take them
-- @error
SELECT id, CASE WHEN a > 1 THEN 10 / (a - 2) END FROM c ORDER BY id;
-- @error
SELECT id, coalesce(b, 10 / (a - 2)) FROM c ORDER BY id;
-- @error
SELECT id FROM c WHERE a IS NULL OR 10 / (a - 2) > 0;
-- @error
SELECT id, CASE WHEN id = 4 THEN t::int END FROM c;
-- @error
SELECT CASE WHEN a > 1 THEN a * 2147483647 END FROM c;
-- @error
SELECT id, CASE WHEN a IS NOT NULL THEN greatest(1, 10 / (a - 2)) END FROM c;
-- Constants are folded while planning: an error there is raised unless a constant condition
-- cuts its branch off, even when no row would reach it.
SELECT CASE WHEN false THEN 1 / 0 END, CASE WHEN NULL THEN 1 / 0 ELSE 0 END, CASE 1 WHEN 2 THEN 1 / 0 ELSE 0 END, CASE WHEN 1 = 1 THEN 1 ELSE 1 / 0 END;
SELECT CASE WHEN false THEN sqrt(-1) END, CASE WHEN false THEN 'z'::text::int END, coalesce(NULL, 1, 1 / 0), true OR 1 / 0 = 1, false AND 1 / 0 = 1;
SELECT id, CASE WHEN false THEN 1 / 0 WHEN a > 2 THEN 0 END, coalesce(a, 1, 1 / 0), a > 1 OR true OR 1 / 0 = 1 FROM c ORDER BY id;
SELECT id, CASE WHEN a > 0 THEN 1 WHEN true THEN 2 ELSE 1 / 0 END, CASE WHEN false THEN CASE WHEN a > 0 THEN 1 / 0 END END FROM c ORDER BY id;
-- @error
SELECT id, CASE WHEN a > 100 THEN 1 / 0 END FROM c;
-- @error
SELECT id, CASE WHEN a > 100 THEN 2147483647 + 1 END FROM c;
-- @error
SELECT id, CASE WHEN a > 100 THEN 'z'::text::int END FROM c;
-- @error
SELECT id, CASE WHEN a > 100 THEN sqrt(-1) END FROM c;
-- @error
SELECT id FROM c WHERE a > 100 AND 1 / 0 = 1;
-- @error
SELECT 1 / 0 = 1 AND false;
-- @error
SELECT NULL AND 1 / 0 = 1;
-- @error
SELECT CASE WHEN false THEN 'z'::int END;
-- the same in UPDATE and DELETE (the first changes nothing: it adds 0 where it divides)
UPDATE c SET a = CASE WHEN a <> 2 THEN a + 0 * (10 / (a - 2)) ELSE a END;
DELETE FROM c WHERE a <> 2 AND 10 / (a - 2) = 7;
-- @error
UPDATE c SET a = CASE WHEN a > 100 THEN 1 / 0 ELSE a END;
-- @error
DELETE FROM c WHERE CASE WHEN a > 100 THEN 1 / 0 END = 1;
SELECT id, a FROM c ORDER BY id;
-- an aggregate's arguments are computed only for the rows its FILTER keeps
SELECT sum(10 / (a - 2)) FILTER (WHERE a <> 2), count(*) FILTER (WHERE a <> 2 AND 10 / (a - 2) > 0), string_agg((10 / (a - 2))::text, ',' ORDER BY 10 / (a - 2)) FILTER (WHERE a <> 2), array_agg(100 / (b - 10) ORDER BY id) FILTER (WHERE b <> 10) FROM c;
SELECT id, sum(10 / (a - 2)) FILTER (WHERE a <> 2) OVER (ORDER BY id) FROM c ORDER BY id;
-- @error
SELECT sum(10 / (a - 2)) FILTER (WHERE a > 1) FROM c;
-- ORs of ranges of one column: merged into one range where they touch, left alone across a gap
SELECT id FROM c WHERE x BETWEEN 1.00 AND 2.00 OR x BETWEEN 2.00 AND 5 OR x = -2.25 ORDER BY id;
SELECT id FROM c WHERE a BETWEEN 0 AND 1 OR a BETWEEN 1 AND 3 ORDER BY id;
SELECT id FROM c WHERE a < 2 OR a >= 2 ORDER BY id;
SELECT id FROM c WHERE b > 4 AND b <= 10 OR b = 4 OR 30 < b ORDER BY id;
SELECT id FROM c WHERE x > 1.5 AND x < 1.5 OR x BETWEEN -3 AND 2 ORDER BY id;
SELECT id, a BETWEEN 0 AND 1 OR a BETWEEN 1 AND 3 FROM c ORDER BY id;
SELECT count(*) FROM c c1 JOIN c c2 ON c1.id = c2.id WHERE (c1.a BETWEEN 1 AND 2 AND c2.t = 'one') OR (c1.a BETWEEN 2 AND 4 AND c2.t = 'two');
SELECT c1.id FROM c c1 LEFT JOIN c c2 ON c1.id = c2.id AND (c2.x BETWEEN -3 AND 0 OR c2.x BETWEEN 0 AND 1.5) WHERE c2.id IS NULL ORDER BY 1;
-- a subquery in a CASE branch PostgreSQL's planner drops never runs
SELECT 1 FROM (VALUES (0)) v(x) WHERE CASE WHEN true THEN true WHEN (CAST('0' AS numeric) / v.x) <> ALL (SELECT v.x) THEN true END;
SELECT 1 FROM (VALUES (0)) v(x) WHERE CASE WHEN false THEN 0 = ANY (SELECT v.x / 0) WHEN true THEN true ELSE 1 IN (SELECT v.x / 0) END;
