package integration

import "testing"

// formatsScript exercises PostgreSQL's text output of every supported type, NULLs,
// expressions and aggregates with GROUP BY, ORDER BY and LIMIT/OFFSET.
const formatsScript = `CREATE SCHEMA fmt;
CREATE TABLE fmt.t (id integer, s smallint, b bigint, r real, d double precision, n numeric(10,2), tx text, vc varchar(5), bo boolean, dt date, ts timestamp, tz timestamptz, by bytea, u uuid);
INSERT INTO fmt.t VALUES
 (1, -32768, 9223372036854775807, 0.1, 0.1, 1.5, 'hello', 'abcde', true, '2024-02-29', '2024-02-29 13:14:15.5', '2024-02-29 13:14:15.123456+00', '\xdeadbeef', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
 (2, 32767, -9223372036854775808, 1e20, 1e20, -12345678.91, 'it''s', '', false, '1999-12-31', '2000-01-01 00:00:00', '2000-01-01 05:30:00+05:30', '\x', '00000000-0000-0000-0000-000000000000'),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (4, 0, 0, 3.4028235e38, 1.7976931348623157e308, 0, 'a b', 'ab', true, '0001-01-01', '1970-01-01 00:00:00.000001', '1970-01-01 00:00:00+00', '\x00ff', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF'),
 (5, 1, 1, -1.5, 2.5e-10, 0.05, '', 'x', false, '2024-01-01', '2024-01-01 12:00:00', '2024-06-30 23:59:59.999+02', '\x41', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12');
SELECT id, s, b, r, d, n FROM fmt.t ORDER BY id;
SELECT id, tx, vc, bo, dt FROM fmt.t ORDER BY id;
SELECT id, ts, tz FROM fmt.t ORDER BY id;
SELECT id, by, u FROM fmt.t ORDER BY id;
SELECT id, id + 1 AS next, n * 2 AS twice, d / 4 AS quarter, b / 2 AS half FROM fmt.t WHERE id IN (1, 2, 5) ORDER BY id;
CREATE TABLE fmt.sales (region text, qty integer, price numeric(10,2), w double precision, big bigint);
INSERT INTO fmt.sales VALUES ('east', 1, 1.50, 0.5, 10), ('east', 2, 2.25, 1.5, 20), ('west', 5, 10.00, 2, 30), ('west', NULL, NULL, NULL, NULL), ('north', 7, 0.10, 0.1, 9223372036854775807), ('south', 3, 3.33, 3.3, 40);
SELECT region, count(*), count(qty), sum(qty), avg(qty), min(price), max(price), sum(price), avg(price) FROM fmt.sales GROUP BY region ORDER BY region;
SELECT region, sum(w), avg(w), min(w), max(w), sum(big), avg(big) FROM fmt.sales GROUP BY region ORDER BY region;
SELECT region, sum(qty) AS total FROM fmt.sales GROUP BY region ORDER BY total DESC, region LIMIT 2 OFFSET 1;
SELECT count(*), sum(qty), avg(qty), min(region), max(region) FROM fmt.sales;
SELECT avg(qty) FROM fmt.sales WHERE qty IN (1, 2);
SELECT count(*), sum(qty), avg(qty), min(qty) FROM fmt.sales WHERE qty > 100;
SELECT region, qty FROM fmt.sales ORDER BY qty DESC, region LIMIT 3;
SELECT region, qty FROM fmt.sales ORDER BY qty LIMIT 10 OFFSET 4;
SELECT region, qty, price FROM fmt.sales ORDER BY region DESC, qty LIMIT 2;
`

// formatsOutput is what psql 15 printed for formatsScript against PostgreSQL 15
// (TimeZone UTC).
var formatsOutput = text(`
CREATE SCHEMA$
CREATE TABLE$
INSERT 0 5$
 id |   s    |          b           |       r       |            d            |      n       $
----+--------+----------------------+---------------+-------------------------+--------------$
  1 | -32768 |  9223372036854775807 |           0.1 |                     0.1 |         1.50$
  2 |  32767 | -9223372036854775808 |         1e+20 |                   1e+20 | -12345678.91$
  3 |        |                      |               |                         |             $
  4 |      0 |                    0 | 3.4028235e+38 | 1.7976931348623157e+308 |         0.00$
  5 |      1 |                    1 |          -1.5 |                 2.5e-10 |         0.05$
(5 rows)$
$
 id |  tx   |  vc   | bo |     dt     $
----+-------+-------+----+------------$
  1 | hello | abcde | t  | 2024-02-29$
  2 | it's  |       | f  | 1999-12-31$
  3 |       |       |    | $
  4 | a b   | ab    | t  | 0001-01-01$
  5 |       | x     | f  | 2024-01-01$
(5 rows)$
$
 id |             ts             |              tz               $
----+----------------------------+-------------------------------$
  1 | 2024-02-29 13:14:15.5      | 2024-02-29 13:14:15.123456+00$
  2 | 2000-01-01 00:00:00        | 2000-01-01 00:00:00+00$
  3 |                            | $
  4 | 1970-01-01 00:00:00.000001 | 1970-01-01 00:00:00+00$
  5 | 2024-01-01 12:00:00        | 2024-06-30 21:59:59.999+00$
(5 rows)$
$
 id |     by     |                  u                   $
----+------------+--------------------------------------$
  1 | \xdeadbeef | a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11$
  2 | \x         | 00000000-0000-0000-0000-000000000000$
  3 |            | $
  4 | \x00ff     | ffffffff-ffff-ffff-ffff-ffffffffffff$
  5 | \x41       | a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12$
(5 rows)$
$
 id | next |    twice     | quarter  |         half         $
----+------+--------------+----------+----------------------$
  1 |    2 |         3.00 |    0.025 |  4611686018427387903$
  2 |    3 | -24691357.82 |  2.5e+19 | -4611686018427387904$
  5 |    6 |         0.10 | 6.25e-11 |                    0$
(3 rows)$
$
CREATE TABLE$
INSERT 0 6$
 region | count | count | sum |        avg         |  min  |  max  |  sum  |          avg           $
--------+-------+-------+-----+--------------------+-------+-------+-------+------------------------$
 east   |     2 |     2 |   3 | 1.5000000000000000 |  1.50 |  2.25 |  3.75 |     1.8750000000000000$
 north  |     1 |     1 |   7 | 7.0000000000000000 |  0.10 |  0.10 |  0.10 | 0.10000000000000000000$
 south  |     1 |     1 |   3 | 3.0000000000000000 |  3.33 |  3.33 |  3.33 |     3.3300000000000000$
 west   |     2 |     1 |   5 | 5.0000000000000000 | 10.00 | 10.00 | 10.00 |    10.0000000000000000$
(4 rows)$
$
 region | sum | avg | min | max |         sum         |         avg         $
--------+-----+-----+-----+-----+---------------------+---------------------$
 east   |   2 |   1 | 0.5 | 1.5 |                  30 | 15.0000000000000000$
 north  | 0.1 | 0.1 | 0.1 | 0.1 | 9223372036854775807 | 9223372036854775807$
 south  | 3.3 | 3.3 | 3.3 | 3.3 |                  40 | 40.0000000000000000$
 west   |   2 |   2 |   2 |   2 |                  30 | 30.0000000000000000$
(4 rows)$
$
 region | total $
--------+-------$
 west   |     5$
 east   |     3$
(2 rows)$
$
 count | sum |        avg         | min  | max  $
-------+-----+--------------------+------+------$
     6 |  18 | 3.6000000000000000 | east | west$
(1 row)$
$
        avg         $
--------------------$
 1.5000000000000000$
(1 row)$
$
 count | sum | avg | min $
-------+-----+-----+-----$
     0 |     |     |    $
(1 row)$
$
 region | qty $
--------+-----$
 west   |    $
 north  |   7$
 west   |   5$
(3 rows)$
$
 region | qty $
--------+-----$
 north  |   7$
 west   |    $
(2 rows)$
$
 region | qty | price $
--------+-----+-------$
 west   |   5 | 10.00$
 west   |     |      $
(2 rows)$
$
`)

// TestOutputFormats runs formatsScript through psql and compares psql's aligned output
// with PostgreSQL's byte for byte: NULLs, booleans, dates and timestamps, numeric scale,
// shortest float output, bytea hex, uuids, and count/sum/avg/min/max per group.
func TestOutputFormats(t *testing.T) {
	srv := startServer(t, t.TempDir())
	r := srv.psqlScript(t, formatsScript)
	if r.stderr != "" {
		t.Errorf("psql -f: unexpected messages on stderr:\n%s", r.stderr)
	}
	checkText(t, "psql -f formatsScript", r.stdout, formatsOutput)

	// psql's own NULL display, from -P null=...
	r = srv.psql(t, "-P", "null=(null)", "-c", "SELECT id, s, tx, bo, dt FROM fmt.t WHERE id IN (2, 3) ORDER BY id")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("psql -P null=(null): exit %d, stderr:\n%s", r.code, r.stderr)
	}
	checkText(t, "psql -P null=(null)", r.stdout, text(`
 id |   s    |   tx   |   bo   |     dt     $
----+--------+--------+--------+------------$
  2 |  32767 | it's   | f      | 1999-12-31$
  3 | (null) | (null) | (null) | (null)$
(2 rows)$
$
`))
}
