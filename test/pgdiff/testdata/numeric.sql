-- numeric(p,s): exact arithmetic with PostgreSQL's result scales, casts, rounding,
-- aggregates of integers and numerics.
CREATE TABLE m (id integer, p numeric(10,2), q numeric(12,4), r numeric(5,0), i integer, b bigint);
INSERT INTO m VALUES
  (1, 12.34, 0.0001, 7, 3, 10000000000),
  (2, -5.50, 123.4567, -3, -7, -1),
  (3, 0.00, 2.5000, 0, 0, 9223372036854775807),
  (4, 99999999.99, -0.5000, 99999, 2, 42),
  (5, NULL, NULL, NULL, NULL, NULL);

SELECT * FROM m ORDER BY id;
SELECT id, p + q, p - q, p * q FROM m ORDER BY id;
SELECT id, p / 3, q / 7, p / q FROM m WHERE q <> 0 ORDER BY id;
SELECT id, p * 2, p * 2.5, p + 1, p - 0.001 FROM m ORDER BY id;
SELECT id, p + i, p * i, q - i, r * b FROM m ORDER BY id;
SELECT id, i / 2, i % 2, b / 3, r / 2 FROM m ORDER BY id;
SELECT id, round(p), round(q, 2), round(q, 0), round(p, -1), round(q, 6) FROM m ORDER BY id;
SELECT id, trunc(q, 2), trunc(p), ceil(q), floor(q), abs(q) FROM m ORDER BY id;
SELECT id, -p, +p, abs(p), sign(q) FROM m ORDER BY id;
SELECT sum(p), sum(q), sum(r), sum(i), sum(b) FROM m;
SELECT avg(p), avg(q), avg(r), avg(i) FROM m;
SELECT min(p), max(p), min(q), max(q) FROM m;
SELECT sum(i)::text, pg_typeof(sum(i)), pg_typeof(sum(b)), pg_typeof(avg(i)), pg_typeof(sum(p)) FROM m;
SELECT 1.5 + 2.25, 1.50 + 2.250, 10.0 / 4, 10 / 4.0, 1 / 3.0, 2.0 / 3;
SELECT 0.1 + 0.2, 0.1 * 3, 1.0 - 0.9, 100.00 * 0.01;
SELECT 1.23456789012345678901234567890 * 2, 12345678901234567890 * 10;
SELECT 7.000 / 7, 7 / 7.000, 1.0 / 8, 1 / 8.0, 22.0 / 7.0;
SELECT 10.5 % 3, -10.5 % 3, 10 % 3.5, mod(10.5, 3), mod(-7, 3);
SELECT round(2.5), round(-2.5), round(3.5), round(0.5), round(-0.5), round(1.005, 2);
SELECT round(123.456, -2), round(123.456, 1), round(0.00001, 3), round(99.999, 2);
SELECT trunc(2.999), trunc(-2.999), trunc(123.456, 1), trunc(123.456, -1);
SELECT ceil(-0.5), floor(-0.5), ceil(2.0000001), floor(2.9999999), ceiling(1.1);
SELECT 12.34::numeric(5,1), 12.35::numeric(5,1), -12.35::numeric(5,1), 0.5::numeric(1,0);
SELECT 123.456::numeric(10,2), 123.454::numeric(10,2), 1::numeric(10,3), 2.5::integer, 3.5::integer, (-2.5)::integer;
-- @error
SELECT 12345.6::numeric(5,2);
-- @error
SELECT 1.0 / 0;
-- @error
SELECT 1.5 % 0;
SELECT 0.0 / 1, 0 * 1.5, -0.0, 0.000;
SELECT 1e3::numeric, 1.5e-3::numeric, 123e-2, 1e0;
SELECT '1.50'::numeric, '  42  '::numeric, '-0.00'::numeric, '1e2'::numeric;
-- @error
SELECT 'abc'::numeric;
SELECT 'NaN'::numeric, 'NaN'::numeric + 1, 'NaN'::numeric = 'NaN'::numeric;
SELECT id, p::integer, q::bigint, p::double precision, q::real FROM m ORDER BY id;
SELECT id, p::text, q::text, length(q::text) FROM m ORDER BY id;
SELECT id, p > q, p = 12.340, q = 0.0001000, p < 0 FROM m ORDER BY id;
SELECT id FROM m WHERE p BETWEEN 0 AND 100 ORDER BY id;
SELECT id, p FROM m ORDER BY p DESC NULLS LAST, id;
SELECT id, q FROM m ORDER BY q, id;
SELECT sum(p * i), sum(q * r), avg(p * 2) FROM m;
SELECT i, sum(p), avg(q), count(*) FROM m GROUP BY i ORDER BY i;
SELECT power(2.0, 10), power(2, 0.5), sqrt(2.0), sqrt(16::numeric), exp(1.0), ln(10.0), log(1000.0), log(2.0, 8.0);
SELECT 2 ^ 10, 2.0 ^ 3, (-8) ^ 3, 2 ^ -2, 0 ^ 0;
-- @error
SELECT (-8) ^ (1.0/3);
SELECT greatest(1.5, 2, 0.25), least(1.50, 1.5000), greatest(p, q) FROM m WHERE id = 1;
SELECT sum(x), avg(x) FROM (VALUES (1.10), (2.20), (3.300)) v(x);
SELECT avg(x) FROM (VALUES (1), (2), (2)) v(x);
SELECT avg(x), sum(x) FROM (VALUES (1::bigint), (2), (4)) v(x);
SELECT avg(x) FROM (VALUES (1::smallint), (2::smallint)) v(x);
SELECT avg(x) FROM (VALUES (0.1), (0.2), (0.3)) v(x);
SELECT stddev(x), variance(x), stddev_pop(x), var_pop(x), stddev_samp(x), var_samp(x) FROM (VALUES (1.0), (2.0), (4.0)) v(x);
SELECT stddev(x), variance(x) FROM (VALUES (1), (2), (4), (8)) v(x);
SELECT stddev(x) FROM (VALUES (1.5)) v(x);
SELECT 9999999999999999999999999999.9999 + 0.0001, -1.5 * -1.5, 1.5 * -0;
-- NaN: input, arithmetic, comparison (NaN = NaN, above every number), sorting, aggregates
SELECT 'nan'::numeric, ' NaN '::numeric, -('NaN'::numeric), abs('NaN'::numeric), sign('NaN'::numeric), scale('NaN'::numeric);
SELECT 'NaN'::numeric * 0, 'NaN'::numeric / 0, 1 - 'NaN'::numeric, mod('NaN'::numeric, 3), round('NaN'::numeric, 2), trunc('NaN'::numeric), ceil('NaN'::numeric), floor('NaN'::numeric);
SELECT 'NaN'::numeric > 1e300, 'NaN'::numeric < 0, 'NaN'::numeric <> 1, greatest(1, 'NaN'::numeric), least(1, 'NaN'::numeric);
SELECT 'NaN'::numeric::float8, 'NaN'::float8::numeric, 'NaN'::real::numeric, sqrt('NaN'::numeric), exp('NaN'::numeric), ln('NaN'::numeric), power('NaN'::numeric, 2);
SELECT x FROM (VALUES (1.5::numeric), ('NaN'), (-3), (NULL), ('nan'), (1e10)) v(x) ORDER BY x NULLS FIRST;
SELECT x FROM (VALUES (1.5::numeric), ('NaN'), (-3), (NULL), (1e10)) v(x) ORDER BY x DESC;
SELECT sum(x), avg(x), min(x), max(x), count(DISTINCT x) FROM (VALUES (1.5::numeric), ('NaN'), (-3), (NULL), ('nan')) v(x);
SELECT x, count(*) FROM (VALUES (1.5::numeric), ('NaN'), (-3), ('nan'), (1.50)) v(x) GROUP BY x ORDER BY x;
SELECT 'NaN'::numeric IN (1, 'NaN'), 'NaN'::numeric BETWEEN 0 AND 'NaN', ARRAY['NaN'::numeric, 1, -1], 'NaN'::numeric::text, 'NaN'::numeric IS DISTINCT FROM 'NaN'::numeric;
-- @error
SELECT 'NaN'::numeric::bigint;
-- Infinity and -Infinity (PostgreSQL 14+): input spellings, casts, arithmetic, functions, order, aggregates
SELECT 'Infinity'::numeric, '-Infinity'::numeric, 'inf'::numeric, '+inf'::numeric, ' -INF '::numeric, '+Infinity'::numeric, 'nan'::numeric;
SELECT 'infinity'::float8::numeric, '-infinity'::float8::numeric, 'nan'::float8::numeric;
SELECT 'Infinity'::numeric::float8, '-Infinity'::numeric::float4;
-- @error
SELECT 'Infinity'::numeric::int;
-- @error
SELECT '-Infinity'::numeric::bigint;
-- @error
SELECT 'Infinity'::numeric(10,2);
SELECT 'Infinity'::numeric + 1, 1 - 'Infinity'::numeric, 'Infinity'::numeric - 'Infinity'::numeric, 'Infinity'::numeric + 'Infinity'::numeric, '-Infinity'::numeric - 'Infinity'::numeric;
SELECT 'Infinity'::numeric * 2, 'Infinity'::numeric * -2.5, 'Infinity'::numeric * 0, '-Infinity'::numeric * '-Infinity'::numeric, 'Infinity'::numeric * 'NaN'::numeric;
SELECT 'Infinity'::numeric / 2, 'Infinity'::numeric / -2, 5 / 'Infinity'::numeric, 5.5 / '-Infinity'::numeric, 'Infinity'::numeric / 'Infinity'::numeric, 'NaN'::numeric / 0;
-- @error
SELECT 'Infinity'::numeric / 0;
SELECT 5 % 'Infinity'::numeric, 5.25 % '-Infinity'::numeric, 'Infinity'::numeric % 3;
-- @error
SELECT 'Infinity'::numeric % 0;
SELECT mod(7.5, 'Infinity'::numeric), mod('-Infinity'::numeric, 2);
SELECT -('Infinity'::numeric), -('-Infinity'::numeric), abs('-Infinity'::numeric), sign('-Infinity'::numeric), sign('Infinity'::numeric);
SELECT ceil('Infinity'::numeric), floor('-Infinity'::numeric), round('Infinity'::numeric), round('-Infinity'::numeric, 2), trunc('Infinity'::numeric, 1), trim_scale('-Infinity'::numeric);
-- @error
SELECT sqrt('-Infinity'::numeric);
-- @error
SELECT ln('-Infinity'::numeric);
SELECT x, x < 'Infinity'::numeric, x > '-Infinity'::numeric, x = 'Infinity'::numeric FROM (VALUES (1.5::numeric), ('Infinity'), ('-Infinity'), ('NaN'), (NULL)) t(x) ORDER BY x;
SELECT x FROM (VALUES (1.5::numeric), ('Infinity'), ('-Infinity'), ('NaN'), (0), (-7)) t(x) ORDER BY x DESC;
SELECT sum(x), avg(x), min(x), max(x), count(x) FROM (VALUES (1.5::numeric), ('Infinity'), (3)) t(x);
SELECT sum(x), avg(x) FROM (VALUES (1.5::numeric), ('Infinity'), ('-Infinity')) t(x);
SELECT sum(x), avg(x), stddev(x), variance(x), var_pop(x) FROM (VALUES (1.5::numeric), ('-Infinity'), (2)) t(x);
SELECT x, count(*) FROM (VALUES ('Infinity'::numeric), ('Infinity'), ('-Infinity'), (1.0), (1.00), ('NaN')) t(x) GROUP BY x ORDER BY x;
SELECT DISTINCT x FROM (VALUES ('Infinity'::numeric), ('Infinity'), ('-Infinity')) t(x) ORDER BY 1;
SELECT greatest(1::numeric, 'Infinity'), least(1::numeric, '-Infinity'), greatest('NaN'::numeric, 'Infinity');
SELECT extract(month from 'infinity'::date), extract(julian from 'infinity'::timestamp), extract(julian from '-infinity'::timestamptz), date_part('epoch', '-infinity'::timestamptz);
SELECT date_part('year', 'infinity'::timestamp), date_part('day', 'infinity'::timestamp);
SELECT a.x, b.y FROM (VALUES ('Infinity'::numeric), (1)) a(x) JOIN (VALUES ('Infinity'::numeric), ('-Infinity')) b(y) ON a.x = b.y;
SELECT x IN (1, 'Infinity'::numeric), x BETWEEN 0 AND 'Infinity' FROM (VALUES ('Infinity'::numeric), (-1)) t(x);
SELECT 'Infinity'::numeric = 'infinity'::float8;
CREATE TABLE ninf (x numeric(38,10));
-- @error
INSERT INTO ninf VALUES ('Infinity');
-- @error
INSERT INTO ninf SELECT '-Infinity'::float8;
SELECT count(*) FROM ninf;
-- products, sums and comparisons of unconstrained numerics (averages) of many digits
SELECT id, avg(p) OVER () * 0.1, avg(q) OVER () + p, p - avg(q) OVER (), avg(q) OVER () * avg(p) OVER () FROM m ORDER BY id;
SELECT id FROM m WHERE p <= 0.1 * (SELECT avg(q) FROM m) ORDER BY id;
SELECT id FROM m WHERE q::numeric > (SELECT avg(p) FROM m) - 1000000 ORDER BY id;
SELECT 12345678901234567890.123 * 98765432109876543210.5, 99999999999999999999999999999999999999 * 10, -0.000 + 0, 1.50 - 1.5;
SELECT 340282366920938463463374607431768211455 + 1, 340282366920938463463374607431768211455 * -1, -340282366920938463463374607431768211455 - 1;
