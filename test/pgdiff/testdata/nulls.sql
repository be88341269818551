-- NULL in every operator, three-valued logic, IS [NOT] DISTINCT FROM, aggregates over NULLs.
CREATE TABLE n (id integer, a integer, b integer, t text, f double precision, ok boolean);
INSERT INTO n VALUES
  (1, 1, 1, 'x', 1.5, true),
  (2, 2, NULL, NULL, NULL, false),
  (3, NULL, 3, 'y', -2.5, NULL),
  (4, NULL, NULL, '', 0, true),
  (5, 5, 5, 'z', NULL, false);

SELECT * FROM n ORDER BY id;
SELECT id, a + b, a - b, a * b, a / b, a % b FROM n ORDER BY id;
SELECT id, a = b, a <> b, a < b, a >= b FROM n ORDER BY id;
SELECT id, a IS NULL, b IS NOT NULL, t IS NULL FROM n ORDER BY id;
SELECT id, a IS DISTINCT FROM b, a IS NOT DISTINCT FROM b FROM n ORDER BY id;
SELECT id, ok AND true, ok AND false, ok OR true, ok OR false, NOT ok FROM n ORDER BY id;
SELECT id, ok IS TRUE, ok IS NOT TRUE, ok IS FALSE, ok IS UNKNOWN FROM n ORDER BY id;
SELECT NULL AND false, NULL AND true, NULL OR true, NULL OR false, NOT NULL::boolean;
SELECT NULL::integer + 1, NULL::text || 'a', 'a' || NULL::text, NULL::integer = NULL::integer;
SELECT id, t || '!', length(t), upper(t) FROM n ORDER BY id;
SELECT count(*), count(a), count(b), count(t), count(f), count(ok) FROM n;
SELECT sum(a), avg(a), min(a), max(a), sum(f), avg(f) FROM n;
SELECT sum(a), max(t), min(t) FROM n WHERE id > 100;
SELECT count(*), count(a) FROM n WHERE id > 100;
SELECT id FROM n WHERE a = b ORDER BY id;
SELECT id FROM n WHERE NOT (a = b) ORDER BY id;
SELECT id FROM n WHERE a <> b OR b IS NULL ORDER BY id;
SELECT id FROM n WHERE ok ORDER BY id;
SELECT id FROM n WHERE NOT ok ORDER BY id;
SELECT id FROM n WHERE ok IS NOT FALSE ORDER BY id;
SELECT id FROM n WHERE a IN (1, 2, NULL) ORDER BY id;
SELECT id, a IN (1, NULL), a NOT IN (1, NULL), a IN (1, 5) FROM n ORDER BY id;
SELECT id, a BETWEEN 1 AND 3, a NOT BETWEEN 2 AND b FROM n ORDER BY id;
SELECT id, coalesce(a, b, -1), coalesce(t, '<null>') FROM n ORDER BY id;
SELECT id, nullif(a, 1), nullif(t, '') FROM n ORDER BY id;
SELECT id, greatest(a, b), least(a, b) FROM n ORDER BY id;
SELECT id, CASE WHEN a > 1 THEN 'big' WHEN a <= 1 THEN 'small' END FROM n ORDER BY id;
SELECT id, CASE a WHEN 1 THEN 'one' WHEN NULL THEN 'null' ELSE 'other' END FROM n ORDER BY id;
SELECT a, count(*) FROM n GROUP BY a ORDER BY a;
SELECT a, count(*) FROM n GROUP BY a ORDER BY a NULLS FIRST;
SELECT t, count(*) FROM n GROUP BY t ORDER BY t DESC;
SELECT DISTINCT b FROM n ORDER BY b;
SELECT id, f FROM n ORDER BY f, id;
SELECT id, f FROM n ORDER BY f DESC, id;
SELECT id, f FROM n ORDER BY f DESC NULLS LAST, id;
SELECT id, f FROM n ORDER BY f ASC NULLS FIRST, id;
SELECT count(DISTINCT a), count(DISTINCT t) FROM n;
SELECT id, -a, abs(a), a::text, t::integer FROM n WHERE t IS NULL ORDER BY id;
-- @error
SELECT id, t::integer FROM n ORDER BY id;
SELECT NULL;
SELECT NULL::integer AS i, NULL::text AS t, NULL::date AS d;
SELECT 1 WHERE NULL;
SELECT 1 WHERE NOT NULL::boolean;
SELECT id, a FROM n WHERE a > NULL ORDER BY id;
SELECT id, (a = 1) = (b = 1) FROM n ORDER BY id;
SELECT bool_and(ok), bool_or(ok), every(ok) FROM n;
SELECT bool_and(ok), bool_or(ok) FROM n WHERE id IN (3);
UPDATE n SET a = 0 WHERE a IS NULL;
SELECT id, a FROM n ORDER BY id;
DELETE FROM n WHERE t IS NULL;
SELECT id, t FROM n ORDER BY id;
