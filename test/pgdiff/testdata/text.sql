-- Text: byte-order (C collation) comparisons and sorting, varchar(n), string functions.
CREATE TABLE s (id integer, t text, v varchar(10));
INSERT INTO s VALUES
  (1, 'apple', 'Apple'),
  (2, 'Banana', 'banana'),
  (3, 'cherry pie', ' cherry'),
  (4, '', ''),
  (5, 'Zebra', 'zebra'),
  (6, 'éclair', 'Éclair'),
  (7, '10', '9'),
  (8, 'a_b%c', 'A-B'),
  (9, NULL, NULL),
  (10, '  padded  ', 'x');

SELECT * FROM s ORDER BY id;
SELECT id, t FROM s ORDER BY t, id;
SELECT id, t FROM s ORDER BY t DESC NULLS LAST, id;
SELECT id, v FROM s ORDER BY v, id;
SELECT id, t < v, t = v, t > 'b', t >= 'B' FROM s ORDER BY id;
SELECT 'a' < 'B', 'a' < 'b', 'Z' < 'a', '10' < '9', '' < ' ', 'abc' < 'abcd', 'é' > 'z';
SELECT min(t), max(t), min(v), max(v) FROM s;
SELECT count(DISTINCT lower(t)) FROM s;
SELECT id, length(t), char_length(t), octet_length(t), bit_length(v) FROM s ORDER BY id;
SELECT id, lower(t), upper(t), initcap(t) FROM s ORDER BY id;
SELECT id, substring(t, 2, 3), substring(t from 3), substring(t for 2), substr(t, 0, 3) FROM s ORDER BY id;
SELECT substring('hello' FROM -1 FOR 3), substring('hello', 10), substring('hello', 2, 0);
-- @error
SELECT substring('hello', 1, -1);
SELECT id, position('a' IN t), strpos(t, 'e'), position('' IN t) FROM s ORDER BY id;
SELECT id, replace(t, 'a', 'AA'), replace(t, '', 'x'), translate(t, 'ae', 'AE') FROM s ORDER BY id;
SELECT split_part('a,b,,c', ',', 1), split_part('a,b,,c', ',', 3), split_part('a,b,,c', ',', 4), split_part('a,b,,c', ',', 9), split_part('a,b', ',', -1);
SELECT id, trim(t), ltrim(t), rtrim(t), btrim(t, 'ap') FROM s ORDER BY id;
SELECT trim(both 'x' from 'xxhixx'), trim(leading 'x' from 'xxhixx'), trim(trailing 'x' from 'xxhixx'), ltrim('zzyx', 'yz'), rtrim('abcc', 'c');
SELECT lpad('7', 3, '0'), lpad('hello', 3), rpad('ab', 5, 'xy'), rpad('abc', 2), lpad('', 2, 'z'), lpad('x', 4);
SELECT id, left(t, 3), right(t, 2), left(t, -2), right(t, -1) FROM s ORDER BY id;
SELECT right('abc', -2147483648), right('abc', -2147483647), left('abc', -2147483648);
SELECT id, t || v, t || 1, 1 || t, concat(t, v, NULL, 2), concat_ws('-', t, NULL, v) FROM s ORDER BY id;
SELECT concat('a'), concat_ws(',', 'a'), concat_ws(NULL, 'a', 'b'), 'a' || NULL || 'b';
SELECT id, md5(t), starts_with(t, 'a'), reverse(t), repeat(v, 2) FROM s ORDER BY id;
SELECT ascii('A'), ascii(''), chr(65), chr(233), repeat('ab', 0), repeat('ab', -1);
SELECT format('%s-%s', 'a', 'b'), format('%I', 'my col'), format('%L', 'it''s'), format('%L', NULL), format('%5s|%-5s|', 'x', 'y');
SELECT format('%s', 1.50), format('%1$s %1$s %2$s', 'a', 'b'), format('no args'), format('%%');
SELECT id, regexp_replace(t, '[aeiou]', '*'), regexp_replace(t, '[aeiou]', '*', 'g'), regexp_replace(t, '(.)(.)', '\2\1') FROM s ORDER BY id;
SELECT regexp_replace('Hello World', 'o', '0', 'gi'), regexp_replace('abc', 'B', 'x', 'i'), regexp_replace('aaa', 'a*', 'b');
SELECT id, v::char(3), v::varchar(2), length(v::char(5)), t::varchar(3) FROM s ORDER BY id;
-- @error
INSERT INTO s VALUES (11, 'x', 'elevenchars');
INSERT INTO s VALUES (11, 'x', 'ten chars ');
SELECT id, v, length(v) FROM s WHERE id = 11;
SELECT 'abc'::varchar(2), 'abc'::char(2), 'a'::char(3) || 'b', 'a '::char(3) = 'a', 'a ' = 'a';
SELECT id, t FROM s WHERE t = 'apple' OR t = 'APPLE' ORDER BY id;
SELECT id, t FROM s WHERE t IN ('Banana', 'banana', '') ORDER BY id;
SELECT id, t FROM s WHERE t BETWEEN 'a' AND 'c' ORDER BY id;
SELECT id, t FROM s WHERE t > 'Z' ORDER BY t;
SELECT lower(t) AS l, count(*) FROM s GROUP BY lower(t) ORDER BY l NULLS FIRST;
SELECT string_agg(t, ',' ORDER BY t) FROM s;
SELECT string_agg(v, '' ORDER BY id DESC) FROM s WHERE id < 4;
SELECT string_agg(t, ', ') FILTER (WHERE id > 100) FROM s;
SELECT id, t::text, 42::text, true::text, '2024-01-02'::date::text, 1.50::text FROM s WHERE id = 1;
SELECT quote_ident('abc'), quote_ident('A b'), quote_literal('x''y'), quote_nullable(NULL);
SELECT 'a' || 'b' = 'ab', 'ab' LIKE 'a%', length('日本語'), upper('ß'), lower('ÀÉ');
SELECT E'tab\there', E'new\nline', 'back\slash', E'quote\'s', U&'\0041';
-- character(n): blank-padded; comparisons, length and casts to text ignore trailing blanks
CREATE TABLE cn (id integer, c char(4), v varchar(6), b bpchar);
INSERT INTO cn VALUES (1, 'ab', 'ab', 'ab '), (2, 'wxyz', 'wxyz  ', 'q'), (3, NULL, NULL, NULL), (4, 'a  ', 'a', 'a');
-- @error
INSERT INTO cn VALUES (5, 'abcde', 'x', 'x');
-- @error
UPDATE cn SET v = v || 'xyz' WHERE id = 2;
UPDATE cn SET v = v || 'x' WHERE id = 1;
SELECT id, c, '[' || c || ']', length(c), c = 'ab', c = 'ab  ', c < 'b', v, length(v), b = 'ab' FROM cn ORDER BY id;
SELECT c, count(*) FROM cn GROUP BY c ORDER BY c;
SELECT id FROM cn WHERE c = 'a' OR c IN ('wxyz ') ORDER BY id;
SELECT x.id, y.id FROM cn x JOIN cn y ON x.c = y.b ORDER BY 1, 2;
SELECT column_name, data_type, character_maximum_length, udt_name FROM information_schema.columns WHERE table_name = 'cn' ORDER BY ordinal_position;
SELECT attname, atttypmod, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'cn'::regclass AND attnum > 0 ORDER BY attnum;
SELECT 'ab'::char(4)::varchar(6) || '|', 'abc'::character(2), 'x'::character varying(3)::char(3) || '|', ''::char(2) = ' ', upper('ab'::char(3)) || '|';
ALTER TABLE cn ALTER COLUMN v TYPE varchar(10);
UPDATE cn SET v = 'tenletters' WHERE id = 1;
-- @error
UPDATE cn SET v = 'elevenchars' WHERE id = 1;
SELECT id, v FROM cn ORDER BY id;
-- case mapping of non-ASCII text (LC_CTYPE C.UTF-8: one-to-one Unicode case mapping)
SELECT upper('äöü éàè ñ ç straße'), lower('ÄÖÜ ÉÀÈ Ñ Ç ΑΒΓ'), initcap('élan vital ÉCOLE ñandú'), upper('ǆ'), lower('Σ');
SELECT initcap('hello-wörld 2ème élève'), upper('ﬁ'), length(upper('ı')), upper('ı'), lower('İ');
