-- Arrays: constructors, literals and casts, text output (quoting, NULL, escaping), subscripts
-- and slices, array functions, ANY/ALL with NULLs, containment and overlap, concatenation,
-- unnest (FROM, select list, WITH ORDINALITY), array_agg, ARRAY(subquery), comparisons,
-- ORDER BY / GROUP BY / DISTINCT on arrays.
SELECT ARRAY[1, 2, 3], ARRAY['a', 'b c', '', NULL, 'x"y', 'NULL', 'back\slash', '{}', 'a,b'];
SELECT '{1,2,3}'::int[], '{1, NULL ,3}'::integer[], '{}'::text[], '{"a b",c}'::text[], '{ x , "y z" }'::text[];
SELECT ARRAY[1.5, 2, -3.25]::numeric[], ARRAY[1.5::float8, 'NaN', '-Infinity'], ARRAY[true, false, NULL];
SELECT ARRAY['2020-01-02'::date, NULL], ARRAY['2021-03-04 05:06:07'::timestamp], ARRAY['1 day 02:00'::interval];
SELECT ARRAY['\x0102'::bytea], ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid], ARRAY[1::int2, 2], ARRAY[1::int8];
SELECT ARRAY[1, 2]::text[], '{1,2}'::text[]::int[], ARRAY[1, 2]::float8[], ARRAY['1', '2']::bigint[];
SELECT ARRAY[1, 2]::text, (ARRAY['a', 'b'])::varchar[];
-- @error
SELECT '{1,2'::int[];
-- @error
SELECT '{1,x}'::int[];
-- @error
SELECT '1,2'::int[];
-- @error
SELECT ARRAY[];
SELECT ARRAY[]::int[], cardinality(ARRAY[]::int[]);
SELECT (ARRAY[10, 20, 30])[1], (ARRAY[10, 20, 30])[3], (ARRAY[10, 20, 30])[0], (ARRAY[10, 20, 30])[4], (ARRAY[10, 20, 30])[NULL::int];
SELECT (ARRAY[10, 20, 30])[2:3], (ARRAY[10, 20, 30])[:2], (ARRAY[10, 20, 30])[2:], (ARRAY[10, 20, 30])[0:9], (ARRAY[10, 20, 30])[3:2];
SELECT array_length(ARRAY[1, 2, 3], 1), array_length(ARRAY[1, 2, 3], 2), array_length(ARRAY[]::int[], 1);
SELECT cardinality(ARRAY['a', NULL]), array_upper(ARRAY[5, 6], 1), array_lower(ARRAY[5, 6], 1), array_ndims(ARRAY[1]), array_dims(ARRAY[1, 2]);
SELECT array_upper(ARRAY[]::int[], 1), array_lower(ARRAY[]::int[], 1), array_ndims(ARRAY[]::int[]), array_dims(ARRAY[]::int[]);
SELECT 2 = ANY (ARRAY[1, 2]), 3 = ANY (ARRAY[1, 2]), 3 = ANY (ARRAY[1, NULL]), 1 = ANY (ARRAY[1, NULL]), NULL::int = ANY (ARRAY[1]);
SELECT 3 <> ALL (ARRAY[1, 2]), 2 <> ALL (ARRAY[1, 2]), 3 <> ALL (ARRAY[1, NULL]), 1 = ANY (ARRAY[]::int[]), 1 = ALL (ARRAY[]::int[]);
SELECT 5 > ANY (ARRAY[1, 9]), 5 > ALL (ARRAY[1, 9]), 'b' = ANY ('{a,b}'), 2 = ANY ('{1,2}'::int[]), 2.0 = ANY (ARRAY[1, 2]);
SELECT 2 = ANY (NULL::int[]), 2 <> ALL (NULL::int[]);
SELECT ARRAY[1, 2, 3] @> ARRAY[2, 3], ARRAY[1, 2] @> ARRAY[3], ARRAY[1] <@ ARRAY[1, 2], ARRAY[1, NULL] @> ARRAY[NULL::int], ARRAY[1, 2] @> ARRAY[]::int[];
SELECT ARRAY[1, 2] && ARRAY[2, 3], ARRAY[1, 2] && ARRAY[3], ARRAY[NULL::int] && ARRAY[NULL::int], ARRAY['a'] && '{a}';
SELECT ARRAY[1, 2] || ARRAY[3, 4], ARRAY[1] || 2, 0 || ARRAY[1], ARRAY['a'] || 'b'::text, ARRAY[1, 2] || '{3}', ARRAY[1] || NULL::int;
SELECT array_append(ARRAY[1, 2], 3), array_append(NULL::int[], 1), array_prepend(0, ARRAY[1]), array_cat(ARRAY[1], ARRAY[2, 3]), array_cat(NULL::int[], ARRAY[1]);
SELECT array_position(ARRAY['a', 'b', 'c', 'b'], 'b'), array_position(ARRAY['a', 'b', 'c', 'b'], 'b', 3), array_position(ARRAY[1, 2], 5), array_position(ARRAY[1, NULL], NULL);
SELECT array_positions(ARRAY[1, 2, 1, 3, 1], 1), array_remove(ARRAY[1, 2, 1, NULL], 1), array_remove(ARRAY[1, NULL, 2], NULL), array_replace(ARRAY[1, 2, 1], 1, 9);
SELECT array_to_string(ARRAY[1, 2, 3], ','), array_to_string(ARRAY['a', NULL, 'c'], '-'), array_to_string(ARRAY['a', NULL, 'c'], '-', '*'), array_to_string(ARRAY[]::int[], ',');
SELECT string_to_array('a,b,,c', ','), string_to_array('a b', NULL), string_to_array('a,x,b', ',', 'x'), string_to_array('', ','), string_to_array('abc', '');
SELECT trim_array(ARRAY[1, 2, 3], 1), trim_array(ARRAY[1, 2, 3], 3);
SELECT * FROM unnest(ARRAY[10, 20, NULL]) AS u;
SELECT * FROM unnest(ARRAY['x', 'y']) WITH ORDINALITY AS t(v, n);
SELECT unnest(ARRAY[1, 2, 3]) AS v, 'k' AS k;
SELECT x, unnest(a) FROM (VALUES (1, ARRAY[1, 2]), (2, ARRAY[]::int[]), (3, NULL), (4, ARRAY[7])) v(x, a) ORDER BY 1, 2;
SELECT x, e FROM (VALUES (1, ARRAY['p', 'q']), (2, ARRAY['r'])) v(x, a), unnest(a) AS e ORDER BY 1, 2;
SELECT array_agg(x) FROM (VALUES (3), (1), (NULL), (2)) v(x);
SELECT array_agg(x ORDER BY x), array_agg(x ORDER BY x DESC NULLS LAST), array_agg(DISTINCT x) FROM (VALUES (3), (1), (NULL), (2), (1)) v(x);
SELECT g, array_agg(v ORDER BY v) FROM (VALUES ('a', 1), ('b', 2), ('a', 3)) t(g, v) GROUP BY g ORDER BY g;
SELECT array_agg(x) FROM (VALUES (1)) v(x) WHERE false;
SELECT array_agg(s ORDER BY s) FROM (VALUES ('b c'), ('a'), (NULL)) v(s);
SELECT ARRAY(SELECT generate_series(1, 3)), ARRAY(SELECT 'a' WHERE false), ARRAY(SELECT x FROM (VALUES (2), (1)) v(x) ORDER BY x);
SELECT x, ARRAY(SELECT y FROM (VALUES (1, 10), (1, 11), (2, 20)) w(k, y) WHERE w.k = v.x ORDER BY y) FROM (VALUES (1), (2), (3)) v(x) ORDER BY x;
SELECT ARRAY[1, 2] = ARRAY[1, 2], ARRAY[1, 2] <> ARRAY[2, 1], ARRAY[1, 2] < ARRAY[1, 3], ARRAY[1, 2] < ARRAY[1, 2, 0], ARRAY[2] > ARRAY[1, 9];
SELECT ARRAY[NULL::int] > ARRAY[5], ARRAY[1, NULL] = ARRAY[1, NULL], ARRAY[]::int[] < ARRAY[1], ARRAY['b'] > ARRAY['a', 'z'];
-- @error
SELECT ARRAY[1, 2] = ARRAY[1.0, 2.0];
-- @error
SELECT ARRAY[1]::int8[] = ARRAY[1]::int2[];
-- @error
SELECT ARRAY['a']::varchar[] = ARRAY['a']::text[];
SELECT ARRAY['a']::varchar(3)[] = ARRAY['a']::varchar[], ARRAY[1.5]::numeric(4,2)[] = ARRAY[1.50]::numeric[];
SELECT a FROM (VALUES (ARRAY[2, 1]), (ARRAY[1, 2, 3]), (ARRAY[1, 2]), (ARRAY[]::int[]), (NULL), (ARRAY[1, NULL])) v(a) ORDER BY a;
SELECT a FROM (VALUES (ARRAY[2, 1]), (ARRAY[1, 2, 3]), (ARRAY[1, 2]), (NULL)) v(a) ORDER BY a DESC;
SELECT a, count(*) FROM (VALUES (ARRAY['x']), (ARRAY['x', 'y']), (ARRAY['x']), (NULL)) v(a) GROUP BY a ORDER BY a;
SELECT DISTINCT a FROM (VALUES (ARRAY[1]), (ARRAY[1]), (ARRAY[2])) v(a) ORDER BY a;
SELECT min(a), max(a) FROM (VALUES (ARRAY[3]), (ARRAY[1, 5]), (ARRAY[1, 4, 9])) v(a);
SELECT count(DISTINCT a) FROM (VALUES (ARRAY[1]), (ARRAY[1]), (ARRAY[2]), (NULL)) v(a);
SELECT v.a, w.b FROM (VALUES (ARRAY[1, 2], 'p'), (ARRAY[3], 'q')) v(a, b) JOIN (VALUES (ARRAY[3], 'x'), (ARRAY[1, 2], 'y')) w(a, b) ON v.a = w.a ORDER BY 1;
SELECT a[1], a[2] FROM (VALUES (ARRAY['x', 'y']), (ARRAY['z'])) v(a) ORDER BY 1;
SELECT ARRAY[x, x * 2] FROM generate_series(1, 3) x ORDER BY x;
