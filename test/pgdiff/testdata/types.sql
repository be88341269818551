-- time, timetz, json and wide numerics (precision above 18): literals, casts, comparisons,
-- ORDER BY, GROUP BY, min/max, arithmetic, extract, and table round trips.
SET TimeZone = 'UTC';
SELECT '12:34:56'::time, '12:34:56.789012'::time, '00:00'::time, '24:00:00'::time, 'allballs'::time;
SELECT '23:59:59.9999999'::time, '12:34:56.1234565'::time, '1:2:3'::time, '2024-01-02 03:04:05'::time;
-- @error
SELECT '24:00:01'::time;
-- @error
SELECT '25:00'::time;
-- @error
SELECT 'noon'::time;
SELECT '12:34:56+05:30'::timetz, '12:34:56.5-08'::timetz, '00:00:00+00'::timetz, '23:59:59-15:59'::timetz;
SELECT '12:34:56+05:30:15'::timetz, '24:00:00+01'::timetz, '12:00'::timetz;
SELECT pg_typeof('12:00'::time), pg_typeof('12:00+01'::timetz), pg_typeof('{}'::json), 1.5::numeric(38,10);
SELECT '12:00'::time < '12:00:00.000001'::time, '12:00'::time = '12:00:00'::time, '23:00'::time > '01:00'::time;
SELECT '12:00+01'::timetz = '11:00+00'::timetz, '12:00+01'::timetz < '11:00+00'::timetz, '12:00+01'::timetz > '11:00:00.5+00'::timetz;
SELECT '12:00'::time - '11:00:30.5'::time, '01:00'::time - '23:00'::time;
SELECT '23:00'::time + interval '2 hours', '23:00'::time + interval '3 days 1 minute', interval '90 minutes' + '12:00'::time;
SELECT '01:00'::time - interval '2 hours', '12:00'::time - interval '1 month';
SELECT '01:00+02'::timetz - interval '2 hours', '23:30-05'::timetz + interval '1 hour', interval '1 hour' + '23:30-05'::timetz;
SELECT date '2024-01-02' + time '12:30', time '00:00:01' + date '1999-12-31', date '2024-01-02' + '12:30+02'::timetz;
SELECT '12:34:56.5'::time::interval, interval '27 hours'::time, interval '-1 hour'::time, interval '1 day 02:00'::time;
SELECT timestamp '2024-01-01 13:14:15.5'::time, timestamptz '2024-01-01 13:14:15+03'::time, timestamptz '2024-01-01 13:14:15+03'::timetz;
SELECT '12:00+01'::timetz::time, '12:00:01'::time::text, '12:00:00.25-03:30'::timetz::text, '13:00'::text::time;
SELECT extract(hour FROM time '12:34:56.789'), extract(minute FROM time '12:34:56.789'), extract(second FROM time '12:34:56.789');
SELECT extract(millisecond FROM time '12:34:56.789'), extract(microsecond FROM time '12:34:56.789'), extract(epoch FROM time '12:34:56.789');
SELECT date_part('hour', time '12:34:56.789'), date_part('second', time '12:34:56.789'), date_part('epoch', time '24:00:00');
SELECT extract(hour FROM '12:34:56-05:30'::timetz), extract(timezone FROM '12:34:56-05:30'::timetz), extract(timezone_hour FROM '12:34:56-05:30'::timetz);
SELECT extract(timezone_minute FROM '12:34:56-05:30'::timetz), extract(epoch FROM '12:34:56-05:30'::timetz), date_part('epoch', '01:00+02'::timetz);
-- @error
SELECT extract(day FROM time '12:00');
-- @error
SELECT extract(timezone FROM time '12:00');
SELECT make_time(8, 15, 23.5), make_time(0, 0, 0), make_time(23, 59, 59.999999);
-- @error
SELECT make_time(24, 0, 1);
CREATE TABLE tt (id integer, t time, tz timetz);
INSERT INTO tt VALUES (1, '12:00', '12:00+00'), (2, '00:00', '13:00+01'), (3, '24:00', '11:00-01'), (4, '12:00', '12:00+00'),
  (5, NULL, NULL), (6, '08:30:00.5', '08:30:00.5+00'), (7, '23:59:59.999999', '23:59:59.999999+00');
SELECT * FROM tt ORDER BY id;
SELECT t, count(*) FROM tt GROUP BY t ORDER BY t NULLS FIRST;
SELECT min(t), max(t), min(tz), max(tz), count(t), count(DISTINCT t) FROM tt;
SELECT id FROM tt WHERE t > '08:30' AND t <= '23:59:59.999999' ORDER BY id;
SELECT id, t FROM tt ORDER BY t DESC NULLS LAST, id;
SELECT id, tz FROM tt WHERE tz = '12:00+00' ORDER BY id;
SELECT id, t - '08:00'::time, t + interval '30 minutes', extract(hour FROM t) FROM tt ORDER BY id;
SELECT '{"a": 1, "b": [1, 2, {"c": "x"}], "d": null}'::json, '[1, "two", null, true]'::json, '"str"'::json, '  42 '::json;
-- @error
SELECT '{"a": }'::json;
-- @error
SELECT '{"a": 1} x'::json;
SELECT '{"a": 1, "b": [1, 2, {"c": "x"}], "d": null}'::json -> 'b', '{"a": 1, "b": [1, 2]}'::json ->> 'a', '{"a": 1}'::json -> 'zz';
SELECT '[1, "two", null, true]'::json -> 1, '[1, "two", null, true]'::json ->> 1, '[1, "two"]'::json -> -1, '[1, 2]'::json -> 5;
SELECT '{"a": {"b": {"c": "deep"}}}'::json -> 'a' -> 'b' ->> 'c', '{"a": "x\ny \u00e9"}'::json ->> 'a', '{"a": null}'::json ->> 'a';
SELECT '{"k": 1, "k": 2}'::json ->> 'k', '{"a": 1}'::json -> 0, '[1]'::json -> 'a', '"s"'::json -> 'a';
SELECT json_typeof('{}'), json_typeof('[]'), json_typeof('"s"'), json_typeof('1.5'), json_typeof('true'), json_typeof('null');
SELECT json_array_length('[1, [2, 3], {"a": 4}]'), json_array_length('[]');
-- @error
SELECT json_array_length('{"a": 1}');
-- @error
SELECT '{}'::json = '{}'::json;
SELECT '{"a":1}'::json::text, '{"a":1}'::text::json, pg_typeof('[1]'::json -> 0), pg_typeof('[1]'::json ->> 0);
CREATE TABLE tj (id integer, j json);
INSERT INTO tj VALUES (1, '{"name": "x", "tags": ["a", "b"]}'), (2, '[1, 2, 3]'), (3, '"just a string"'), (4, NULL), (5, '{"name": null}');
SELECT * FROM tj ORDER BY id;
SELECT id, j -> 'name', j ->> 'name', j -> 'tags' -> 0, json_typeof(j) FROM tj ORDER BY id;
SELECT id FROM tj WHERE j ->> 'name' = 'x';
SELECT 12345678901234567890.123::numeric(38,10), -1.5::numeric(38,0), 0::numeric(38,10), 99999999999999999999999999999999999999::numeric(38,0);
SELECT 1.23456789012345678901234::numeric(38,20), 12345678901234567890::numeric(20,0), 0.5::numeric(19,0), -0.5::numeric(19,0);
-- @error
SELECT 123456789012345678901234567890::numeric(38,10);
-- @error
SELECT 1e38::numeric(38,0);
SELECT 12345678901234567890.5::numeric(38,10) * 2, 1::numeric(38,10) / 3, 12345678901234567890::numeric(38,0) + 1;
SELECT 12345678901234567890.5::numeric(38,10) > 12345678901234567890, 1.5::numeric(38,10) = 1.5, 1.5::numeric(38,10)::numeric(10,2);
SELECT 123.456::numeric(38,10)::float8, 123.456::numeric(38,10)::integer, 123::bigint::numeric(38,5), '1.5'::text::numeric(30,3);
CREATE TABLE tn (id integer, n numeric(38,10), m numeric(20,0));
INSERT INTO tn VALUES (1, 9999999999999999999999999999.9999999999, 99999999999999999999), (2, -9999999999999999999999999999.9999999999, -99999999999999999999),
  (3, 0.0000000001, 0), (4, NULL, NULL), (5, 1.25, 12), (6, 1.25, -12), (7, -0.00000000005, 18446744073709551615);
SELECT * FROM tn ORDER BY id;
SELECT * FROM tn ORDER BY n NULLS FIRST, id;
SELECT min(n), max(n), sum(n), min(m), max(m), sum(m), count(n) FROM tn;
SELECT n, count(*) FROM tn GROUP BY n ORDER BY n;
SELECT id, n * 2, n + m, -n, abs(n), round(n, 2) FROM tn ORDER BY id;
SELECT id FROM tn WHERE n > 1 ORDER BY id;
SELECT id FROM tn WHERE m = 18446744073709551615;
UPDATE tn SET n = n / 2 WHERE id = 5;
SELECT id, n FROM tn WHERE id = 5;
