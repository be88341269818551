-- timestamptz: shown in the session TimeZone, which SET changes; conversions with
-- timestamp and date, AT TIME ZONE, date_trunc and extract in the session zone, DST.
CREATE TABLE z (id integer, tz timestamptz);
INSERT INTO z VALUES
  (1, '2024-01-15 12:00:00+00'),
  (2, '2024-07-01 23:30:00.25+02'),
  (3, '2024-03-10 06:59:59-05'),
  (4, '2024-11-03 05:30:00Z'),
  (5, '1999-12-31 23:59:59.999999-08'),
  (6, '1900-01-01 00:00:00+00'),
  (7, NULL);

SHOW TimeZone;
SELECT id, tz FROM z ORDER BY id;
SET TimeZone = 'America/New_York';
SHOW TimeZone;
SELECT id, tz FROM z ORDER BY id;
SELECT id, tz::date, tz::timestamp, tz::time, extract(hour FROM tz), extract(timezone FROM tz) FROM z ORDER BY id;
SELECT id, date_trunc('day', tz), date_trunc('month', tz), date_trunc('hour', tz) FROM z ORDER BY id;
SELECT id, tz + interval '1 day', tz + interval '24 hours', tz - interval '1 month' FROM z WHERE id IN (3, 4) ORDER BY id;
SELECT '2024-03-10 01:30:00'::timestamptz + interval '1 hour', '2024-03-10 01:30:00'::timestamptz + interval '1 day';
SELECT '2024-03-10 02:30:00'::timestamptz, '2024-11-03 01:30:00'::timestamptz, '2024-11-03 01:30:00 EDT'::timestamptz;
SELECT id, tz AT TIME ZONE 'UTC', tz AT TIME ZONE 'Asia/Tokyo', tz AT TIME ZONE '+05:30' FROM z ORDER BY id;
SELECT '2024-06-01 12:00:00'::timestamp AT TIME ZONE 'Europe/Paris', '2024-06-01 12:00:00'::timestamp AT TIME ZONE 'UTC';
SELECT id, to_char(tz, 'YYYY-MM-DD HH24:MI:SS TZ'), to_char(tz, 'HH24:MI OF') FROM z ORDER BY id;
SELECT id, extract(epoch FROM tz) FROM z ORDER BY id;
SET TimeZone = 'Asia/Kolkata';
SELECT id, tz FROM z ORDER BY id;
SELECT id, tz::date, date_trunc('day', tz) FROM z ORDER BY id;
SET TimeZone = 'Australia/Lord_Howe';
SELECT id, tz FROM z ORDER BY id;
SET TimeZone = '-03:00';
SHOW TimeZone;
SELECT id, tz FROM z ORDER BY id;
SET TimeZone = 'UTC+3';
SELECT id, tz FROM z WHERE id = 1;
SET TIME ZONE 'Europe/London';
SELECT id, tz FROM z ORDER BY id;
SELECT '2024-03-31 00:30:00'::timestamptz + interval '1 hour', '2024-03-31 00:30:00'::timestamptz + interval '2 hours';
-- @error
SET TimeZone = 'Mars/Olympus_Mons';
SHOW TimeZone;
SET TimeZone = 'Etc/GMT-14';
SELECT id, tz FROM z WHERE id IN (1, 6) ORDER BY id;
RESET TimeZone;
SHOW TimeZone;
SELECT id, tz FROM z ORDER BY id;
SELECT id, tz FROM z ORDER BY tz DESC NULLS LAST;
SELECT min(tz), max(tz), count(tz) FROM z;
SELECT id FROM z WHERE tz > '2024-03-10 11:00:00+00' ORDER BY id;
SELECT id FROM z WHERE tz::date = '2024-07-01' ORDER BY id;
SELECT '2024-01-01 00:00:00+00'::timestamptz = '2023-12-31 19:00:00-05'::timestamptz;
SELECT '2024-01-01 00:00:00'::timestamptz - '2023-12-31 00:00:00+03'::timestamptz;
SELECT '2024-05-05'::date::timestamptz, '2024-05-05 10:00'::timestamp::timestamptz, now() IS NOT NULL;
SET TimeZone = 'America/Los_Angeles';
SELECT '2024-05-05'::date::timestamptz, '2024-05-05 10:00'::timestamp::timestamptz;
CREATE TABLE z2 (id integer, tz timestamptz);
INSERT INTO z2 VALUES (1, '2024-05-05 10:00'), (2, '2024-12-05 10:00');
SELECT id, tz FROM z2 ORDER BY id;
SET TimeZone = 'UTC';
SELECT id, tz FROM z2 ORDER BY id;
SELECT extract(hour FROM tz), date_part('day', tz) FROM z2 ORDER BY id;
SET TimeZone = 'UTC-3';
SELECT id, tz FROM z WHERE id IN (1, 2) ORDER BY id;
SET TimeZone = '<+0530>-05:30';
SELECT id, tz FROM z WHERE id IN (1, 2) ORDER BY id;
SET TimeZone = 'EST5EDT';
SELECT id, tz FROM z WHERE id IN (1, 2) ORDER BY id;
SET TimeZone = 'CET-1CEST,M3.5.0,M10.5.0/3';
SELECT id, tz FROM z WHERE id IN (1, 2) ORDER BY id;
SET TimeZone = '+05:30';
SELECT id, tz FROM z WHERE id IN (1, 2) ORDER BY id;
-- @error
SET TimeZone = 'UTC+x';
RESET TimeZone;
-- zones in the input: IANA names (any case), abbreviations, offsets; DST gaps and overlaps
SET TimeZone = 'America/New_York';
SELECT '2024-01-15 10:00 America/Chicago'::timestamptz, '2024-07-15 10:00 Europe/Berlin'::timestamptz, '2024-07-15 10:00 europe/berlin'::timestamptz;
SELECT '2024-01-15 10:00 PST'::timestamptz, '2024-07-15 10:00 CEST'::timestamptz, '2024-07-15 10:00 Z'::timestamptz, '2024-07-15 10:00 UTC'::timestamptz;
SELECT 'Jan 15 2024 10:00 PM EST'::timestamptz, '15 Jul 2024 08:30:00 GMT'::timestamptz, '2024-07-15T10:00:00-07:00'::timestamptz;
SELECT '2024-03-10 02:30 America/New_York'::timestamptz, '2024-11-03 01:30 America/New_York'::timestamptz, '2024-03-31 02:30 Europe/Berlin'::timestamptz, '2024-10-27 02:30 Europe/Berlin'::timestamptz;
SELECT '2024-03-10 02:30'::timestamp::timestamptz, '2024-11-03 01:30'::timestamp::timestamptz, '2024-11-03'::date::timestamptz;
SELECT 'infinity'::timestamptz, '-infinity'::timestamptz, 'epoch'::timestamptz, 'infinity'::timestamptz::timestamp;
-- @error
SELECT '2024-01-15 10:00 Mars/Olympus'::timestamptz;
-- @error
SELECT '2024-07-15 10:00 XYZ'::timestamptz;
-- @error
SELECT '10:00 Mars/Olympus'::timetz;
SELECT '2024-07-15 17:30:00+02'::timestamptz::time, '2024-07-15 17:30:00+02'::timestamptz::timetz, '-infinity'::timestamptz::time;
RESET TimeZone;
