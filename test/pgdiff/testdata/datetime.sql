-- date, timestamp and interval: literals, arithmetic, comparisons, extract, date_trunc,
-- make_date, age, to_char, output in DateStyle ISO.
CREATE TABLE d (id integer, dt date, ts timestamp);
INSERT INTO d VALUES
  (1, '2024-01-31', '2024-01-31 23:59:59.5'),
  (2, '2024-02-29', '2024-02-29 00:00:00'),
  (3, '1999-12-31', '1999-12-31 12:34:56.789012'),
  (4, '2000-03-01', '2000-03-01 01:02:03'),
  (5, '0001-01-01', '1970-01-01 00:00:00'),
  (6, NULL, NULL);

SELECT * FROM d ORDER BY id;
SELECT id, dt + 1, dt - 1, dt + 30, dt - '2000-01-01'::date FROM d ORDER BY id;
SELECT id, dt + interval '1 month', dt - interval '1 day', dt + interval '1 year 2 months' FROM d ORDER BY id;
SELECT id, ts + interval '1 hour', ts - interval '30 minutes', ts + interval '1 month', ts + interval '1.5 days' FROM d ORDER BY id;
SELECT id, ts - '2000-01-01 00:00:00'::timestamp, dt - ts FROM d ORDER BY id;
SELECT id, dt < '2024-01-01', ts >= '2000-01-01', dt = ts::date, dt::timestamp = ts FROM d ORDER BY id;
SELECT id, extract(year FROM dt), extract(month FROM dt), extract(day FROM dt), extract(dow FROM dt), extract(doy FROM dt) FROM d ORDER BY id;
SELECT id, extract(hour FROM ts), extract(minute FROM ts), extract(second FROM ts), extract(epoch FROM ts) FROM d ORDER BY id;
SELECT id, extract(quarter FROM dt), extract(week FROM dt), extract(isodow FROM dt), extract(isoyear FROM dt), extract(century FROM dt) FROM d ORDER BY id;
SELECT id, date_part('year', dt), date_part('month', ts), date_part('epoch', dt) FROM d ORDER BY id;
SELECT id, date_trunc('month', ts), date_trunc('year', ts), date_trunc('day', ts), date_trunc('hour', ts) FROM d ORDER BY id;
SELECT id, date_trunc('week', ts), date_trunc('quarter', ts), date_trunc('minute', ts), date_trunc('second', ts) FROM d ORDER BY id;
SELECT id, date_trunc('month', dt), date_trunc('decade', dt) FROM d ORDER BY id;
SELECT make_date(2024, 2, 29), make_date(1, 1, 1), make_timestamp(2024, 1, 2, 3, 4, 5.5);
-- @error
SELECT make_date(2023, 2, 29);
SELECT id, age(ts, '2000-01-01'), age('2024-03-31'::timestamp, ts) FROM d WHERE id <= 4 ORDER BY id;
SELECT age('2024-03-01'::date, '2024-01-31'::date), age('2024-01-01'::timestamp, '2023-01-02 12:00'::timestamp);
SELECT id, to_char(ts, 'YYYY-MM-DD HH24:MI:SS'), to_char(dt, 'DD/MM/YYYY'), to_char(ts, 'Mon DD, YYYY HH12:MI AM') FROM d ORDER BY id;
SELECT id, to_char(ts, 'Day Month'), to_char(ts, 'FMDay FMMonth'), to_char(dt, 'YYYY"Q"Q WW IW'), to_char(ts, 'MS US') FROM d ORDER BY id;
SELECT '2024-01-15'::date, '15 Jan 2024'::date, '2024/1/5'::date, 'epoch'::date, '20240115'::date;
-- @error
SELECT '2024-02-30'::date;
-- @error
SELECT 'yesterdayish'::date;
SELECT '2024-01-15 10:20:30'::timestamp, '2024-01-15T10:20:30.123'::timestamp, '2024-01-15'::timestamp, 'epoch'::timestamp;
SELECT 'infinity'::date, '-infinity'::timestamp, 'infinity'::date > '9999-12-31';
SELECT '4714-11-24 BC'::date, '0001-01-01'::date - 1, '5874897-12-31'::date;
SELECT interval '1 day', interval '25 hours', interval '1 month 2 days 3 hours', interval '90 minutes', interval '1.5 seconds';
SELECT interval '1 year' + interval '13 months', interval '1 day' * 3, interval '1 hour' / 4, interval '2 days' - interval '36 hours';
SELECT interval '-1 day', -interval '1 day 02:00', interval '1 mon -1 day', interval '0', interval 'P1Y2M3DT4H5M6S';
SELECT interval '1 day' = interval '24 hours', interval '1 month' = interval '30 days', interval '1 day' < interval '25 hours';
SELECT justify_hours(interval '27 hours'), justify_days(interval '35 days'), justify_interval(interval '1 month -1 hour');
SELECT extract(epoch FROM interval '1 day 1 hour'), extract(day FROM interval '40 days'), extract(hour FROM interval '26 hours');
SELECT date_trunc('hour', interval '3 days 5 hours 30 minutes'), interval '1 day 2 hours' * 1.5;
SELECT '2024-01-31'::date + interval '1 month', '2024-03-31'::date - interval '1 month', '2023-01-31'::timestamp + interval '1 month';
SELECT '2024-02-29'::date + interval '1 year', '2024-02-29'::date - 365, ('2024-12-31'::date - '2024-01-01'::date);
SELECT id, dt FROM d ORDER BY dt NULLS FIRST;
SELECT id, ts FROM d ORDER BY ts DESC, id;
SELECT min(dt), max(dt), min(ts), max(ts), count(dt) FROM d;
SELECT extract(year FROM dt) AS y, count(*) FROM d GROUP BY 1 ORDER BY 1;
SELECT date_trunc('year', ts) AS y, count(*) FROM d GROUP BY 1 ORDER BY 1 NULLS FIRST;
SELECT id, dt::timestamp, ts::date, ts::time, dt::text, ts::text FROM d ORDER BY id;
SELECT '12:34:56'::time, '12:34:56.5'::time + interval '1 hour', '23:00'::time + interval '2 hours', '10:00'::time - '09:30'::time;
SELECT id FROM d WHERE dt BETWEEN '2000-01-01' AND '2024-01-31' ORDER BY id;
SELECT id FROM d WHERE ts > '2024-01-31' ORDER BY id;
SELECT id FROM d WHERE dt = '2024-02-29'::timestamp ORDER BY id;
SELECT generate_series('2024-01-01'::timestamp, '2024-01-03', interval '12 hours');
SELECT d::date FROM generate_series('2024-01-29'::timestamp, '2024-03-01', interval '1 month') AS g(d);
-- input forms (DateStyle ISO, MDY), special values, infinity, ranges
SELECT 'Jan 15 2024'::date, 'January 15, 2024'::date, '15-Jan-2024'::date, 'Jan-15-2024'::date, '2024-Jan-15'::date;
SELECT '1/15/2024'::date, '01-15-2024'::date, '2024.01.15'::date, '240115'::date, 'Monday, January 15, 2024'::date;
SELECT '15 Jan 24'::date, 'Jan 15 99'::date, '2024 Jan 15'::date, ' 2024-01-15 '::date, '2024-01-15 10:00:00'::date;
SELECT 'epoch'::date, 'infinity'::date, '-infinity'::date, 'INFINITY'::date;
SELECT 'today'::date = current_date, 'tomorrow'::date - 'yesterday'::date, 'yesterday'::date < 'today'::date;
SELECT isfinite('infinity'::date), isfinite('2024-01-15'::date), isfinite('-infinity'::timestamp), isfinite('infinity'::timestamptz), isfinite(now());
SELECT 'infinity'::date::timestamp, '-infinity'::date::timestamptz, 'infinity'::timestamp::date, '-infinity'::timestamptz::date;
SELECT x FROM (VALUES ('2024-01-15'::date), ('infinity'), ('-infinity'), ('1999-12-31'), (NULL)) v(x) ORDER BY x;
SELECT max(x), min(x), count(*) FROM (VALUES ('2024-01-15'::date), ('infinity'), ('-infinity')) v(x);
SELECT 'infinity'::date = 'infinity'::date, '-infinity'::date < '4714-11-24 BC'::date, 'infinity'::date > '5874897-12-31'::date;
SELECT 'infinity'::timestamp > '294000-01-01'::timestamp, '-infinity'::timestamptz < '4713-01-01 BC'::timestamptz;
-- @error
SELECT '+infinity'::date;
-- @error
SELECT '2024-13-01'::date;
-- @error
SELECT '2024-00-10'::date;
-- @error
SELECT '2023-02-29'::date;
-- @error
SELECT '2024-04-31 10:00'::timestamp;
-- @error
SELECT 'Feb 30 2024'::date;
-- @error
SELECT '5874898-01-01'::date;
-- @error
SELECT '294277-01-01'::timestamp;
-- @error
SELECT '4714-11-23 BC'::date;
-- @error
SELECT '2024-01-15 25:00'::timestamp;
-- @error
SELECT 'allballs'::date;
SELECT 'Jan 15 2024 10:30 PM'::timestamp, 'Jan 15 2024 12:05 AM'::timestamp, '2024-01-15 12:00 pm'::timestamp, 'January 15, 2024 23:59:59.5'::timestamp;
SELECT '15 Jan 2024 10:00'::timestamp, '2024-01-15T10:00:00'::timestamp, '20240115 10:00'::timestamp, 'epoch'::timestamp, 'infinity'::timestamp;
SELECT '2024-01-15 10:00 America/New_York'::timestamp, '2024-01-15 10:00 EST'::timestamp, '2024-01-15 10:00+05'::timestamp;
SELECT 'allballs'::time, '00:00:00 UTC'::time, 'now'::time < '24:00'::time, '10:00:00 PST'::time, '10:00 pm'::time, '2024-01-15 10:00 pm'::time;
SELECT '10:00:00 PST'::timetz, '10:00 pm EST'::timetz, '11:30 am'::time, '12:00 am'::time, '2024-07-01 10:00 Europe/Berlin'::timetz;
-- @error
SELECT '13:00 pm'::time;
-- @error
SELECT '10:00 America/New_York'::time;
-- @error
SELECT '10:00 Europe/Berlin'::timetz;
SELECT 'now'::timestamptz - now() < interval '1 minute', 'today'::timestamp = current_date::timestamp, 'tomorrow'::timestamp - 'today'::timestamp;
SELECT '2024-01-15'::date + 'allballs'::time, 'Jan 15 2024'::timestamp with time zone;
SELECT '2024-07-15 17:30:00'::timestamp::time, 'infinity'::timestamp::time, '10:30'::time::interval, '01:02:03'::interval::time;
SELECT 'infinity'::date + 1, '-infinity'::date - 1, 'infinity'::date + interval '1 day', date_trunc('month', 'infinity'::date), to_char('infinity'::date, 'YYYY-MM-DD');
-- @error
SELECT 'infinity'::date - '2024-01-01'::date;
CREATE TABLE di (id integer, d date, ts timestamp);
INSERT INTO di VALUES (1, 'infinity', 'infinity'), (2, '-infinity', '-infinity'), (3, '2024-01-15', '2024-01-15 10:00');
SELECT * FROM di ORDER BY d;
SELECT id FROM di WHERE d > '2100-01-01' OR ts < '1900-01-01' ORDER BY id;
SELECT id, d::timestamp = ts, isfinite(d), d::text FROM di ORDER BY id;
SELECT date_part('year', 'infinity'::date), date_part('day', '-infinity'::date), date_part('epoch', '-infinity'::date), extract(day FROM 'infinity'::date);
SELECT date_part('year', 'infinity'::timestamp), date_part('hour', '-infinity'::timestamptz), extract(month FROM 'infinity'::timestamp);
-- @error
SELECT extract(hour FROM 'infinity'::date);
-- DateStyle's field order for numeric dates
SELECT '01-02-24'::date, '1/2/2024'::date, '124/01/02'::date, '1/2/2024 10:00'::timestamp;
SET DateStyle = 'ISO, DMY';
SELECT '01-02-24'::date, '1/2/2024'::date, '24/01/02'::date, '15/01/2024'::date, '2024-01-02'::date, '1/2/2024 10:00'::timestamp;
SET DateStyle = 'YMD';
SHOW DateStyle;
SELECT '01-02-24'::date, '24/01/02'::date, '2024-01-02'::date, '124/01/02'::date;
-- @error
SELECT '1/2/2024'::date;
RESET DateStyle;
-- @error
SELECT '15/01/2024'::date;
-- a date beyond the timestamps compares with them (later or earlier than all), it does not overflow
SELECT DATE '5874897-12-31' > TIMESTAMP '2000-01-01', TIMESTAMP '2000-01-01' < DATE '5874897-12-31', DATE '5874897-12-31' = TIMESTAMP '2000-01-01';
SELECT d > TIMESTAMP '2020-01-01', d <= TIMESTAMPTZ '2020-01-01 00:00:00+00' FROM (VALUES (DATE '5874897-12-31'), (DATE '2021-01-01'), (NULL)) t(d);
-- casts among date and timestamp are immutable: PostgreSQL folds one of a constant while planning
CREATE TABLE fold0 (id integer);
-- @error
SELECT CAST(DATE '5874897-12-31' AS timestamp) FROM fold0;
-- @error
SELECT COALESCE(CAST(NULL AS timestamp), DATE '5874897-12-31') FROM fold0 a JOIN fold0 b ON false;
SELECT CAST(DATE '5874897-12-31' AS timestamptz) FROM fold0;
-- a date past the timestamps is later than every finite timestamp, earlier than infinity
CREATE TABLE cmp0 (id integer, ts timestamp);
INSERT INTO cmp0 VALUES (6, 'infinity'), (8, '2000-01-01');
CREATE TABLE cmp1 (id integer, d date);
INSERT INTO cmp1 VALUES (6, '5874897-12-31'), (9, 'infinity');
SELECT a.id, b.id, a.ts = b.d, a.ts < b.d FROM cmp0 a, cmp1 b ORDER BY 1, 2;
SELECT a.id, b.id FROM cmp0 a JOIN cmp1 b ON a.ts = b.d ORDER BY 1, 2;
-- an IN list of timestamps folds the cast of a date constant
-- @error
SELECT (CAST(NULL AS date) IN (DATE '5874897-12-31', TIMESTAMP '2000-01-01 00:00:00'));
SELECT CASE WHEN false THEN DATE '2000-01-02' IN (DATE '5874897-12-31', TIMESTAMP 'infinity') END;
-- a subquery's output nothing reads is neither folded nor computed (difftest seed 7)
SELECT 0 AS c0 FROM (SELECT CASE WHEN a.id > 0 THEN DATE '5874897-12-31' ELSE TIMESTAMP '2024-02-29 00:00:01' END AS c0 FROM fold0 a) s;
SELECT count(*) FROM (SELECT CAST(DATE '5874897-12-31' AS timestamp) AS c0 FROM fold0 a) s;
CREATE TABLE fold1 (x integer);
INSERT INTO fold1 VALUES (1), (2);
SELECT count(*) FROM (SELECT x / 0 FROM fold1) s;
SELECT count(*) FROM (SELECT 1 / 0 AS c, x FROM fold1) s WHERE x > 1;
-- a join whose ON compares a NULL timestamp with a date is never true: PostgreSQL reads neither side
-- (difftest seed 8: the aggregation on one side divided by zero)
SELECT a.c1 FROM (SELECT ((0 % avg(0)) IN (SELECT 0)) AS c1) AS a JOIN fold1 AS b ON (CAST(NULL AS timestamp) = DATE '2000-01-01');
-- an aggregate of a subquery nothing reads is neither computed nor folded (difftest seed 7)
SELECT 0 AS c0 FROM (SELECT (0 >= EXTRACT(YEAR FROM max(CASE WHEN a.id > 0 THEN DATE '5874897-12-31' ELSE TIMESTAMP '2024-02-29 00:00:01' END))) AS c0 FROM fold0 a) s;
SELECT c FROM (SELECT count(*) AS c, sum(x / 0) FROM fold1) s;
SELECT m FROM (SELECT max(x / 0) AS d, min(x) AS m FROM fold1) s;
-- @error
SELECT m FROM (SELECT max(x / 0) AS d, min(x) AS m FROM fold1) s WHERE d IS NULL;
-- a comparison with a NULL is never true: an inner join with an item it filters reads no item
-- (difftest seed 8: the aggregation on the other side divided by zero)
WITH w AS MATERIALIZED (SELECT a.c1, b.x FROM (SELECT ((0 % avg(0)) IN (SELECT 0)) AS c1) AS a JOIN fold1 AS b ON (CAST(NULL AS integer) = b.x)) SELECT count(*) FROM w;
SELECT count(*) FROM fold1 a, fold1 b WHERE a.x = b.x AND b.x = NULL;
SELECT a.x, b.x FROM fold1 a LEFT JOIN fold1 b ON b.x = NULL ORDER BY 1;
SELECT 0 AS c0 FROM (SELECT max(CASE WHEN a.id > 0 THEN DATE '5874897-12-31' ELSE TIMESTAMP '2024-02-29 00:00:01' END) AS c0 FROM fold0 a GROUP BY CUBE (a.id)) s;
SELECT g, c FROM (SELECT x % 2 AS g, count(*) AS c, sum(x / 0) FROM fold1 GROUP BY ROLLUP (x % 2)) s ORDER BY 1, 2;
-- a CASE branch whose condition compares with a NULL is never taken, and PostgreSQL never folds it
SELECT 0 AS c0 FROM (SELECT CASE WHEN CAST(NULL AS boolean) = (a.id > 0) THEN DATE '5874897-12-31' WHEN true THEN TIMESTAMP '2024-02-29 00:00:01' END AS c0 FROM fold0 a UNION ALL SELECT TIMESTAMP '2000-01-01') s;
SELECT CASE WHEN id = NULL THEN 1 / 0 ELSE 1 END FROM fold0;
-- a simple CASE of constants folds to its branch: the others' subqueries and errors are never evaluated (difftest seed 16)
SELECT x FROM fold1 a WHERE CASE 0 WHEN 1 THEN ((-9223372036854775808::bigint / (a.x - a.x - 1)) IN (SELECT a.x)) END IS NULL ORDER BY 1;
SELECT 0 AS c0 FROM (SELECT CASE WHEN (CAST(NULL AS integer) < a.id) = true THEN DATE '5874897-12-31' WHEN true THEN TIMESTAMP '2024-02-29 00:00:01' END AS c0 FROM fold0 a UNION ALL SELECT TIMESTAMP '2000-01-01') s;
