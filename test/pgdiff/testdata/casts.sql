-- CAST and ::, between numbers, text, booleans and dates; implicit casts in comparisons and
-- function calls; boolean input and output; output of every type as text.
CREATE TABLE k (id integer, i integer, t text, b boolean, d date, n numeric(6,2), f double precision);
INSERT INTO k VALUES (1, 42, '17', true, '2024-03-04', 3.14, 2.5), (2, -1, 'yes', false, '1999-01-01', -0.50, -1e-3),
  (3, NULL, ' 8 ', NULL, NULL, NULL, NULL);

SELECT * FROM k ORDER BY id;
SELECT id, i::text, i::bigint, i::smallint, i::numeric, i::float8, i::real FROM k ORDER BY id;
SELECT id, CAST(i AS text), CAST(n AS integer), CAST(f AS numeric(6,3)), CAST(d AS text) FROM k ORDER BY id;
SELECT id, b::text, b::integer, i::boolean FROM k ORDER BY id;
SELECT 't'::boolean, 'true'::boolean, 'yes'::boolean, 'on'::boolean, '1'::boolean, 'f'::boolean, 'no'::boolean, 'off'::boolean, '0'::boolean, ' TRUE '::boolean;
-- @error
SELECT 'maybe'::boolean;
SELECT true, false, NOT true, true AND NULL, 1::boolean, 0::boolean, 5::boolean;
SELECT id, t::integer FROM k WHERE id <> 2 ORDER BY id;
-- @error
SELECT id, t::integer FROM k ORDER BY id;
SELECT id, t::boolean FROM k WHERE id = 2;
SELECT '3.7'::numeric::integer, '3.7'::float8::integer, '-3.5'::numeric::bigint, 3.999::smallint;
SELECT '2024-03-04'::date + 1, '2024-03-04'::text || 'x', 1 + '2', '10' || 1, 1 = '1';
SELECT id FROM k WHERE i = '42' ORDER BY id;
SELECT id FROM k WHERE d = '2024-03-04' ORDER BY id;
SELECT id FROM k WHERE d > '2000-01-01'::timestamp ORDER BY id;
SELECT id FROM k WHERE n = 3.14::float8 ORDER BY id;
SELECT id FROM k WHERE i = 42.0 ORDER BY id;
SELECT id FROM k WHERE f = 2.5 ORDER BY id;
SELECT id, i + n, i + f, n + f, pg_typeof(i + n), pg_typeof(n + f) FROM k ORDER BY id;
SELECT 1::text::integer + 1, '1.5'::text::numeric * 2, 12::varchar(1), 'abc'::char(1);
SELECT length(12345::text), upper(123::text), substr(12345::text, 2, 2), round(5), abs('-3'::integer);
SELECT '1 day'::interval, '2024-01-01 10:00'::timestamp::date, '2024-01-01'::date::timestamp, '10:30'::time::text;
SELECT 1.5::float8::text, 0.1::real::text, 1e100::float8::text, 123.456::numeric(5,1)::text;
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, '\x41ff'::bytea, 'abc'::bytea;
SELECT pg_typeof(1), pg_typeof(1.0), pg_typeof('a'), pg_typeof(1::int2), pg_typeof(now()), pg_typeof(NULL);
SELECT int4 '42', float8 '1.5', date '2024-01-01', timestamp '2024-01-01 00:00', interval '1 hour', text 'x', numeric '1.10';
-- @error
SELECT 'x'::date;
-- @error
SELECT '2024-13-01'::date;
-- @error
SELECT '25:00'::time;
-- @error
SELECT 1::date;
-- @error
SELECT true::date;
-- @error
SELECT '1e5'::integer;
-- @error
SELECT 70000::smallint;
-- @error
SELECT 'NaN'::numeric::integer;
-- @error
SELECT 'Infinity'::float8::integer;
SELECT 32767::smallint, (-32768)::smallint, 2147483647::integer, 1e18::bigint;
SELECT 'abc'::character(5), 'abc'::char(5) || '|', 'abcdef'::char(3), 'ab  '::char(2)::text || '|', 'x'::bpchar || '|', 12::char(4);
SELECT CAST('abc' AS character varying(2)), CAST('abc ' AS character(3)) = 'abc', 'é'::char(3), length('é '::char(3)), octet_length('ab'::varchar(5));
SELECT '2024-07-15 17:30:00'::timestamp::time, '2024-07-15 17:30:00+00'::timestamptz::time, '10:30'::time::interval, '01:02:03'::interval::time, 'infinity'::date::timestamp;
-- @error
SELECT 'NaN'::numeric::smallint;
