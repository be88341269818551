-- VALUES lists (standalone, in FROM, in INSERT), their type resolution and column names,
-- generate_series, and SELECT without FROM.
CREATE TABLE v (id integer, t text, x numeric(6,2), d date, ok boolean);

VALUES (1, 'a'), (2, 'b');
VALUES (1), (2.5), (NULL);
VALUES ('x', 1), ('y', NULL) ORDER BY 1 DESC;
VALUES (1, 'one') LIMIT 1;
SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS t;
SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS t(n, s) ORDER BY n DESC;
SELECT n, s FROM (VALUES (1, 'a'), (2, 'b'), (3, NULL)) AS t(n, s) WHERE s IS NOT NULL ORDER BY n;
SELECT column1, column2 FROM (VALUES (1, 2), (3, 4)) AS t ORDER BY column1;
SELECT pg_typeof(a), pg_typeof(b), pg_typeof(c) FROM (VALUES (1, 1.5, 'x')) t(a, b, c);
SELECT pg_typeof(a) FROM (VALUES (1), (2147483648)) t(a) LIMIT 1;
SELECT sum(a), max(b) FROM (VALUES (1, 'z'), (2, 'y'), (3, 'x')) t(a, b);
-- @error
VALUES (1, 2), (3);
-- @error
VALUES (1), ('x');
-- @error
SELECT * FROM (VALUES (1, 2)) AS t(a, b, c);
INSERT INTO v VALUES (1, 'one', 1.5, '2024-01-01', true);
INSERT INTO v VALUES (2, 'two', 2, '2024-01-02', false), (3, NULL, NULL, NULL, NULL);
INSERT INTO v (id, t) VALUES (4, 'four');
INSERT INTO v (t, id) VALUES ('five', 5);
INSERT INTO v VALUES (6, 6, '6.555', '2024-02-03', 'yes');
INSERT INTO v SELECT n, 'gen' || n, n * 1.25, '2024-01-01'::date + n, n % 2 = 0 FROM generate_series(7, 9) AS g(n);
SELECT * FROM v ORDER BY id;
-- @error
INSERT INTO v VALUES (10, 'x', 12345.678, NULL, NULL);
-- @error
INSERT INTO v VALUES ('eleven');
-- @error
INSERT INTO v (nosuch) VALUES (1);
-- @error
INSERT INTO v VALUES (12, 'x', 1, 'not a date', NULL);
SELECT count(*) FROM v;
SELECT generate_series(1, 5);
SELECT generate_series(1, 10, 3), generate_series(5, 1, -2);
SELECT * FROM generate_series(1, 3) AS g;
SELECT g.n * 2 FROM generate_series(1, 4) AS g(n) WHERE g.n % 2 = 0 ORDER BY 1 DESC;
SELECT count(*), sum(n) FROM generate_series(1, 1000) AS g(n);
SELECT * FROM generate_series(3, 1) AS g(n);
SELECT * FROM generate_series(0.5, 2.0, 0.5) AS g(n);
SELECT * FROM generate_series(1, 3) a, generate_series(1, 2) b ORDER BY 1, 2;
SELECT v.id, g FROM v, generate_series(1, v.id) g WHERE v.id <= 2 ORDER BY 1, 2;
SELECT 1, 'a', NULL, 1.5, true, 2 + 2 AS four;
SELECT 1 AS a, 2 AS a;
SELECT;
SELECT 'a' AS "Mixed Case", 1 AS "with space";
