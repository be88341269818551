-- double precision and real: shortest round-trip output (extra_float_digits 1), exponent
-- forms, special values, arithmetic, casts, division by zero.
CREATE TABLE f (id integer, d double precision, r real);
INSERT INTO f VALUES
  (1, 1.5, 1.5),
  (2, 0.1, 0.1),
  (3, 1e15, 1e15),
  (4, 1e16, 1e16),
  (5, 123456789.125, 123456.79),
  (6, -0.000001234, -0.000001234),
  (7, 1e-5, 1e-5),
  (8, 1e100, 3.4e38),
  (9, 'NaN', 'NaN'),
  (10, 'Infinity', '-Infinity'),
  (11, 0, -0),
  (12, NULL, NULL);

SELECT * FROM f ORDER BY id;
SELECT id, d * 2, d / 3, d + 0.5, -d FROM f ORDER BY id;
SELECT id, r * 2, r / 3, r + 0.5::real FROM f ORDER BY id;
SELECT 0.1::float8 + 0.2::float8, 0.1::float8 * 3, 1.0::float8 - 0.9::float8, 1::float8 / 3;
SELECT 0.1::real + 0.2::real, 1::real / 3, 16777217::real, 0.1::real::float8;
SELECT 1e15::float8, 1e16::float8, 123456789012345678::float8, 1.5e300::float8 * 1e5;
SELECT 1e-4::float8, 1e-5::float8, 0.00012345::float8, 1.0e-310::float8;
SELECT 100::float8, 1e6::float8, 1234567.0::float8, 2.5e-3::float8, -1e21::float8;
SELECT 3.14159265358979323846::float8, 2.718281828459045::float8, 1/7::float8;
SELECT '1.5'::float8, ' -2.25 '::float8, '1e3'::float8, 'inf'::float8, '-infinity'::float8, 'nan'::float8;
-- @error
SELECT 'abc'::float8;
-- @error
SELECT 1e400::float8;
-- @error
SELECT 1::float8 / 0;
-- @error
SELECT 1::real / 0::real;
-- @error
SELECT 1e300::float8 * 1e300::float8;
SELECT 'Infinity'::float8 + 1, 'Infinity'::float8 - 'Infinity'::float8, 0 * 'Infinity'::float8;
SELECT 'NaN'::float8 = 'NaN'::float8, 'NaN'::float8 > 1e308, 'Infinity'::float8 > 'NaN'::float8;
SELECT id, d FROM f ORDER BY d, id;
SELECT id, d FROM f ORDER BY d DESC, id;
SELECT id, r FROM f ORDER BY r NULLS FIRST, id;
SELECT id, d::integer FROM f WHERE id IN (1, 2, 5, 6, 11) ORDER BY id;
SELECT id, d::numeric, r::numeric FROM f WHERE id IN (1, 2, 5, 6, 7, 11) ORDER BY id;
SELECT id, d::real, r::float8 FROM f WHERE id <= 7 ORDER BY id;
SELECT id, d::text, r::text FROM f ORDER BY id;
SELECT sum(d), avg(d), min(d), max(d) FROM f WHERE id <= 7;
SELECT sum(r), avg(r), pg_typeof(sum(r)), pg_typeof(avg(r)) FROM f WHERE id <= 7;
SELECT sum(d) FROM f;
SELECT max(d), min(d) FROM f;
SELECT count(*) FROM f WHERE d > 1;
SELECT round(2.5::float8), round(3.5::float8), round(-2.5::float8), round(0.5::float8);
SELECT trunc(2.7::float8), trunc(-2.7::float8), ceil(2.1::float8), floor(-2.1::float8);
SELECT round(1.23456::float8 * 1000) / 1000, round(2.675::numeric, 2), round(2.675::float8::numeric, 2);
SELECT sqrt(2::float8), sqrt(1e10::float8), cbrt(27::float8), power(2::float8, 0.5), exp(1::float8), ln(2::float8), log(100::float8);
-- @error
SELECT sqrt(-1::float8);
-- @error
SELECT ln(0::float8);
SELECT abs(-1.5::float8), sign(-0.0::float8), sign(-2::float8), mod(7, 3)::float8;
SELECT pi(), degrees(pi()), radians(180), sin(0), cos(0), atan2(1, 1);
SELECT 1.5::float8 = 1.5::real, 0.1::float8 = 0.1::real, 0.5::float8 = 0.5::real;
SELECT greatest(1.5::float8, 'NaN'::float8), least(1.5::float8, '-Infinity'::float8);
SELECT d, count(*) FROM f GROUP BY d ORDER BY d;
SELECT 1.0::float8 * 1, 2::float8, -0::float8, (-0.0)::float8, 0.0::float8 * -1;
SELECT 9007199254740993::float8, 9007199254740993::bigint::float8, 4.35::float8 * 100;
SELECT 1.1::real * 1.1::real, 3.3::real, 1e-45::real, 1.17549435e-38::real;
SELECT x FROM (VALUES (1e-7::float8), (1.0000001::float8), (123456789012.5::float8)) v(x) ORDER BY x;
-- shortest digits never end on a halfway point (Ryu as PostgreSQL builds it)
SELECT 2 * 1e16::real::float8, 3e16::real::float8 * 3, 9007199254740993::float8, 4.5035996273704955e15::float8 * 4, 1e23::float8;
SELECT 123456789012345678::float8 * 7, 2.0000000545128448e16::float8, 1.7976931348623157e308::float8, 5e-324::float8, 2.2250738585072014e-308::float8;
SELECT 16777217::float8::real, 3.4028235e38::real, 1.4e-45::real, 33554434::real * 3, 1e10::real;
-- a product or quotient of non-zero values that rounds to zero underflows
-- @error
SELECT '5e-324'::float8 / 42;
-- @error
SELECT x * x FROM (VALUES (1e-200::float8)) v(x);
SELECT x * 0, 0 / x, x / 'Infinity'::float8, x - x FROM (VALUES (1e-200::float8)) v(x);
