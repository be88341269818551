-- Pattern matching: LIKE, ILIKE, NOT LIKE, ESCAPE, SIMILAR TO, POSIX regular expressions.
CREATE TABLE p (id integer, t text);
INSERT INTO p VALUES (1, 'abc'), (2, 'ABC'), (3, 'a_c'), (4, 'a%c'), (5, 'xabcx'), (6, ''),
  (7, NULL), (8, 'line1
line2'), (9, 'aaa'), (10, 'Straße');

SELECT id FROM p WHERE t LIKE 'a%' ORDER BY id;
SELECT id FROM p WHERE t LIKE '%b%' ORDER BY id;
SELECT id FROM p WHERE t LIKE 'a_c' ORDER BY id;
SELECT id FROM p WHERE t LIKE '___' ORDER BY id;
SELECT id FROM p WHERE t LIKE '' ORDER BY id;
SELECT id FROM p WHERE t LIKE '%' ORDER BY id;
SELECT id FROM p WHERE t NOT LIKE 'a%' ORDER BY id;
SELECT id FROM p WHERE t ILIKE 'a%' ORDER BY id;
SELECT id FROM p WHERE t NOT ILIKE '%B%' ORDER BY id;
SELECT id FROM p WHERE t ~~ 'a%' ORDER BY id;
SELECT id FROM p WHERE t ~~* 'A%' ORDER BY id;
SELECT id FROM p WHERE t !~~ '%c' ORDER BY id;
SELECT id FROM p WHERE t LIKE 'a\_c' ORDER BY id;
SELECT id FROM p WHERE t LIKE 'a\%c' ORDER BY id;
SELECT id FROM p WHERE t LIKE 'a#_c' ESCAPE '#' ORDER BY id;
SELECT id FROM p WHERE t LIKE 'a_c' ESCAPE '' ORDER BY id;
SELECT id FROM p WHERE t LIKE 'line1%' ORDER BY id;
SELECT id FROM p WHERE t LIKE '%e2' ORDER BY id;
SELECT id FROM p WHERE t ILIKE 'STRASSE' OR t ILIKE 'straße' ORDER BY id;
SELECT id, t LIKE 'a%', t ILIKE 'A%', t LIKE NULL FROM p ORDER BY id;
SELECT 'abc' LIKE 'abc', 'abc' LIKE 'ABC', 'abc' ILIKE 'ABC', 'a' LIKE 'a%%', '%' LIKE '\%';
-- @error
SELECT 'abc\' LIKE 'abc\';
SELECT id FROM p WHERE t SIMILAR TO 'a(b|_)c' ORDER BY id;
SELECT id FROM p WHERE t SIMILAR TO '%(b|B)%' ORDER BY id;
SELECT id FROM p WHERE t SIMILAR TO '[a-c]+' ORDER BY id;
SELECT id FROM p WHERE t NOT SIMILAR TO 'a%' ORDER BY id;
SELECT 'abc' SIMILAR TO 'abc', 'abc' SIMILAR TO 'a', 'aaa' SIMILAR TO 'a{3}', 'ab' SIMILAR TO 'a|b';
SELECT id FROM p WHERE t ~ 'b' ORDER BY id;
SELECT id FROM p WHERE t ~ '^a' ORDER BY id;
SELECT id FROM p WHERE t ~ 'c$' ORDER BY id;
SELECT id FROM p WHERE t ~* '^abc$' ORDER BY id;
SELECT id FROM p WHERE t !~ 'a' ORDER BY id;
SELECT id FROM p WHERE t !~* 'A' ORDER BY id;
SELECT id FROM p WHERE t ~ '^a+$' ORDER BY id;
SELECT id FROM p WHERE t ~ '[[:upper:]]' ORDER BY id;
SELECT id FROM p WHERE t ~ '\d' ORDER BY id;
SELECT id FROM p WHERE t ~ '^line2' ORDER BY id;
SELECT id FROM p WHERE t ~ 'line1.line2' ORDER BY id;
SELECT id FROM p WHERE t ~ 'a.c' ORDER BY id;
SELECT id FROM p WHERE t ~ 'a\.c' ORDER BY id;
SELECT id FROM p WHERE t ~ '(ab|AB)c' ORDER BY id;
SELECT id FROM p WHERE t ~ 'a{2,}' ORDER BY id;
SELECT id, t ~ 'b', t ~* 'B' FROM p ORDER BY id;
SELECT 'abc' ~ 'B', 'abc' ~* 'B', 'abc' ~ '', '' ~ '^$', 'x' ~ NULL;
-- @error
SELECT 'abc' ~ '(';
-- @error
SELECT 'abc' ~ '[a-';
SELECT regexp_replace('2024-01-15', '(\d+)-(\d+)-(\d+)', '\3/\2/\1');
SELECT regexp_replace('aaa', 'a', 'b'), regexp_replace('aaa', 'a', 'b', 'g'), regexp_replace('AbA', 'a', 'x', 'gi');
SELECT regexp_replace('abc', '(b)', '[\1]'), regexp_replace('abc', 'b', '\&\&'), regexp_replace('a.b', '.', '-', 'g');
SELECT id, regexp_replace(t, '^(.)', '<\1>') FROM p ORDER BY id;
SELECT (regexp_match('foobarbequebaz', 'ba.'))[1], regexp_match('abc', 'x');
SELECT regexp_split_to_array('a1b22c', '\d+'), array_to_string(regexp_split_to_array('a,b', ','), '|');
SELECT x FROM regexp_split_to_table('one two  three', '\s+') AS x;
SELECT substring('foobar' from 'o.b'), substring('foobar' from 'o(.)b'), substring('foobar' from 'x');
SELECT x, n FROM regexp_split_to_table('a,b,,c', ',') WITH ORDINALITY AS t(x, n) ORDER BY n;
SELECT id, regexp_split_to_table(t, '[aeiou]', 'i') AS part FROM p WHERE id <= 3 ORDER BY id, part;
SELECT count(*) FROM regexp_split_to_table('hello world', '\s*');
-- @error
SELECT regexp_split_to_table('abc', 'b', 'g');
SELECT regexp_match('foobarbequebaz', '(bar)(beque)'), regexp_match('foobarbequebaz', 'x(y)?'), regexp_match('abc', '(x)?b'), regexp_match('ABC', 'b', 'i');
SELECT regexp_split_to_array('hello world', '\s+'), regexp_split_to_array('a1b2c3', '\d'), regexp_split_to_array('', ','), regexp_split_to_array('abc', ''), regexp_split_to_array('AxBXc', 'x', 'i');
SELECT (regexp_match('key=value', '(\w+)=(\w+)'))[2], array_length(regexp_split_to_array('a,b,,c', ','), 1), regexp_match(NULL, 'a'), regexp_split_to_array('a', NULL);
-- @error
SELECT regexp_match('abc', 'b', 'g');
-- @error
SELECT regexp_split_to_array('abc', 'b', 'g');
