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
