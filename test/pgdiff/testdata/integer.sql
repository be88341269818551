-- Integer types: division truncates toward zero, modulo takes the dividend's sign, overflow
-- is an error (22003), division by zero is an error (22012), mixed widths promote.
CREATE TABLE i (id integer, s smallint, n integer, b bigint);
INSERT INTO i VALUES
  (1, 7, 7, 7),
  (2, -7, -7, -7),
  (3, 32767, 2147483647, 9223372036854775807),
  (4, -32768, -2147483648, -9223372036854775808),
  (5, 0, 0, 0),
  (6, NULL, NULL, NULL);

SELECT * FROM i ORDER BY id;
SELECT 7 / 2, -7 / 2, 7 / -2, -7 / -2, 1 / 3, 0 / 5;
SELECT 7 % 3, -7 % 3, 7 % -3, -7 % -3, 0 % 3;
SELECT id, n / 2, n % 2, b / 2, b % 2, s / 2 FROM i WHERE id IN (1, 2, 5) ORDER BY id;
SELECT id, n / 3, n % 3, -n / 3 FROM i WHERE id IN (1, 2) ORDER BY id;
-- @error
SELECT 1 / 0;
-- @error
SELECT 1 % 0;
-- @error
SELECT 5::bigint / 0;
-- @error
SELECT 5::smallint / 0::smallint;
-- @error
SELECT id, 100 / n FROM i ORDER BY id;
SELECT id, 100 / nullif(n, 0) FROM i ORDER BY id;
-- @error
SELECT 2147483647 + 1;
-- @error
SELECT -2147483648 - 1;
-- @error
SELECT 2147483647 * 2;
-- @error
SELECT 9223372036854775807 + 1;
-- @error
SELECT (-9223372036854775807 - 1) * -1;
-- @error
SELECT 32767::smallint + 1::smallint;
-- @error
SELECT (-2147483648) / -1;
-- @error
SELECT (-9223372036854775808)::bigint / -1;
-- @error
SELECT abs(-2147483648);
SELECT -(-2147483648), pg_typeof(-2147483648), pg_typeof(-(-2147483648));
-- @error
SELECT id, n + 1 FROM i ORDER BY id;
-- @error
SELECT id, b * 2 FROM i ORDER BY id;
SELECT 2147483647 + 1::bigint, 2147483647::bigint * 2, -2147483648 - 1::bigint;
SELECT 32767::smallint + 1, pg_typeof(32767::smallint + 1), pg_typeof(1::smallint + 1::smallint);
SELECT pg_typeof(1 + 1), pg_typeof(1 + 1::bigint), pg_typeof(1 / 2), pg_typeof(2147483648);
SELECT pg_typeof(1 + 1.5), pg_typeof(1 + 1.5::float8), pg_typeof(1::real + 1);
SELECT id, s + n, n + b, s * 2, b - n FROM i WHERE id IN (1, 2, 5) ORDER BY id;
SELECT sum(n) FROM i;
SELECT sum(b) FROM i WHERE id <> 3;
SELECT sum(b), pg_typeof(sum(b)) FROM i;
SELECT sum(s), pg_typeof(sum(s)), sum(n), pg_typeof(sum(n)) FROM i;
SELECT count(*), count(n), min(n), max(n), min(b), max(b), min(s), max(s) FROM i;
SELECT avg(n), avg(s) FROM i;
SELECT avg(b) FROM i WHERE id IN (1, 2, 3);
SELECT 2147483648, -2147483648, 9223372036854775807, -9223372036854775808;
SELECT 9223372036854775808, pg_typeof(9223372036854775808);
SELECT '42'::integer, ' 42 '::integer, '-0'::integer, '+7'::integer, '0042'::bigint;
-- @error
SELECT '42.5'::integer;
-- @error
SELECT ''::integer;
-- @error
SELECT '2147483648'::integer;
-- @error
SELECT '99999'::smallint;
-- @error
SELECT 'x1'::bigint;
SELECT 42.5::integer, 43.5::integer, -42.5::integer, 42.4999::integer, 1e9::integer;
SELECT 2.5::float8::integer, 3.5::float8::integer, (-2.5)::float8::integer, 2.5::real::smallint;
-- @error
SELECT 3e9::integer;
-- @error
SELECT 1e19::float8::bigint;
SELECT abs(-5), abs(5::smallint), abs(-5::bigint), sign(-5), sign(0);
SELECT mod(7, 3), mod(-7, 3), mod(7::bigint, -3), div(7, 2), div(-7, 2);
SELECT gcd(12, 18), lcm(4, 6), 7 & 3, 7 | 8, 7 # 2, ~7, 1 << 4, 256 >> 2;
SELECT id, n FROM i WHERE n > 0 ORDER BY n;
SELECT id, n FROM i ORDER BY n DESC NULLS LAST;
SELECT id, b FROM i ORDER BY b NULLS FIRST;
SELECT n % 2 AS parity, count(*) FROM i GROUP BY n % 2 ORDER BY 1;
SELECT id, s::integer, n::bigint, b::text, n::smallint IS NULL FROM i WHERE id IN (1, 2, 5) ORDER BY id;
-- @error
SELECT id, n::smallint FROM i ORDER BY id;
SELECT 10 - 2 - 3, 2 * 3 + 4, 2 + 3 * 4, (2 + 3) * 4, 100 / 10 / 5, 2 ^ 3 ^ 2;
SELECT -2 ^ 2, (-2) ^ 2, - 2 * 3, 5 - -3;
