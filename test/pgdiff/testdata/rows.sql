-- Row constructors as values: ROW(…) and (a, b, …) print as record_out does, their type is
-- record, fields are selected with (r).fN; row comparisons field by field with NULLs.
SELECT ROW(1, 'a'), (2, NULL::int, 'x y'), pg_typeof(ROW(1, 2)), ROW(1.5, true, '2024-01-02'::date);
SELECT ROW('a,b', 'q"t', '', NULL::text), ROW(ROW(1, 2), 'n');
SELECT (ROW(1, 'a'::text)).f2, (ROW(1, 'a'::text)).f1 + 1;
SELECT ROW(1, 2) = ROW(1, 2), ROW(1, NULL) = ROW(1, NULL), ROW(1, NULL) = ROW(2, NULL), ROW(1, 2) <> ROW(1, 3);
SELECT (1, 2) < (1, 3), (1, 2) < (2, 1), (2, 1) <= (2, 1), (1, NULL) < (2, 0), (1, NULL) < (1, 2), (3, 1) > (2, 9), (2, 9) >= (3, 1);
SELECT (1, 'b', 3) < (1, 'b', 4), (1, 'b', 3) >= (1, 'c', 0), (NULL::int, 1) = (NULL::int, 1), (1, 2) <> (1, NULL);
SELECT a, b FROM (VALUES (1, 2), (1, 3), (2, 0), (0, 9)) t(a, b) WHERE (a, b) > (1, 2) ORDER BY a, b;
-- @error
SELECT ROW(1, 2) = ROW(1, 2, 3);
-- @error
SELECT (ROW(1, 2)).f3;
SELECT count(DISTINCT (a, b)) FROM (VALUES (1, 2), (1, 2), (2, 2)) t(a, b);
