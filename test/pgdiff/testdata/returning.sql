-- INSERT/UPDATE/DELETE … RETURNING, DELETE … USING: the rows returned (new rows for INSERT and
-- UPDATE, old rows for DELETE), the command tags, errors, and the same inside a transaction
-- block over rows the block wrote itself.
CREATE TABLE item (id integer, name text, qty integer DEFAULT 1, price numeric(8,2));
CREATE TABLE tag (item_id integer, label text);

INSERT INTO item VALUES (1, 'apple', 3, 0.50) RETURNING *;
INSERT INTO item (id, name) VALUES (2, 'pear'), (3, 'plum') RETURNING id, name, qty, price;
INSERT INTO item (id, name, price) VALUES (4, 'fig', 2.25) RETURNING id * 10 AS tenfold, upper(name) AS big, qty + 1;
INSERT INTO item AS i (id, name, qty) VALUES (5, 'kiwi', 7) RETURNING i.id, i.*;
INSERT INTO item (id, name, qty, price) SELECT id + 10, name || '2', qty * 2, price FROM item WHERE id <= 2 ORDER BY id RETURNING id, name, qty;
INSERT INTO item (id, name) SELECT 99, 'none' WHERE false RETURNING *;
INSERT INTO item (id, name) VALUES (6, 'lime') RETURNING 'const' AS c, 42, NULL::int AS n, id = 6 AS is_six;
INSERT INTO item (id, name) VALUES (7, 'date') RETURNING (SELECT count(*) FROM tag) AS tags, name;
INSERT INTO item DEFAULT VALUES RETURNING *;
SELECT * FROM item ORDER BY id NULLS FIRST;
DELETE FROM item WHERE id IS NULL RETURNING qty;

-- errors leave nothing behind
-- @error
INSERT INTO item (id, name) VALUES (8, 'x') RETURNING nosuch;
-- @error
INSERT INTO item (id, name) VALUES (8, 'x') RETURNING count(*);
-- @error
INSERT INTO item (id, name) VALUES (8, 'x') RETURNING 1 / 0;
-- @error
INSERT INTO item (id, name) VALUES (8, 'x') RETURNING tag.label;
-- @error
INSERT INTO item AS i (id, name) VALUES (8, 'x') RETURNING item.id;
-- @error
INSERT INTO item (id, name) VALUES (8, 'x') RETURNING row_number() OVER ();
-- @error
INSERT INTO item (id, name) VALUES (8, 'x') RETURNING generate_series(1, 2);
-- @error
INSERT INTO item (id, name) VALUES (8, 'x') RETURNING 1 / (id - 8);
SELECT count(*) FROM item WHERE id = 8;

-- UPDATE … RETURNING sees the new row
UPDATE item SET qty = qty + 10 WHERE id = 1 RETURNING id, qty;
UPDATE item SET qty = 0, price = 9.99 WHERE id = 3 RETURNING *;
-- @rowsort
UPDATE item SET name = upper(name) WHERE id IN (2, 4) RETURNING id, name, length(name) AS len;
UPDATE item SET qty = qty WHERE false RETURNING *;
UPDATE item AS it SET price = coalesce(price, 0) + 1 WHERE it.id = 5 RETURNING it.price, price * 2 AS twice;
UPDATE item SET qty = (SELECT count(*) FROM item) WHERE id = 6 RETURNING qty;
-- @error
UPDATE item SET qty = 1 WHERE id = 1 RETURNING nosuch;
-- @error
UPDATE item SET qty = 1 WHERE id = 1 RETURNING sum(qty);
-- @error
UPDATE item SET price = 1 WHERE id = 1 RETURNING price / 0;
SELECT * FROM item ORDER BY id;

-- DELETE … RETURNING sees the old row
DELETE FROM item WHERE id = 12 RETURNING *;
-- @rowsort
DELETE FROM item WHERE id > 10 RETURNING id, name || '!' AS gone;
DELETE FROM item WHERE id > 1000 RETURNING *;
-- @error
DELETE FROM item WHERE id = 1 RETURNING nosuch;
-- @error
DELETE FROM item WHERE id = 1 RETURNING max(id);
SELECT id FROM item ORDER BY id;

-- UPDATE … FROM and DELETE … USING: RETURNING may name the other tables; * is every table's
INSERT INTO tag VALUES (1, 'red'), (1, 'round'), (2, 'green'), (5, 'fuzzy'), (9, 'none');
-- @rowsort
UPDATE item SET qty = qty + 1 FROM tag WHERE tag.item_id = item.id AND tag.label <> 'round' RETURNING item.id, item.qty, tag.label;
UPDATE item i SET price = 1.00 FROM tag t WHERE t.item_id = i.id AND t.label = 'fuzzy' RETURNING *;
UPDATE item SET name = t.label FROM tag t WHERE t.item_id = item.id AND t.label = 'green' RETURNING t.*, item.name;
SELECT * FROM item ORDER BY id;
DELETE FROM item USING tag WHERE tag.item_id = item.id AND tag.label = 'red';
SELECT id FROM item ORDER BY id;
INSERT INTO item (id, name) VALUES (1, 'apple'), (1, 'apple bis');
-- a row matched by several USING rows is deleted once
-- @rowsort
DELETE FROM item USING tag WHERE tag.item_id = item.id AND item.id = 1 RETURNING item.name;
DELETE FROM item i USING tag t, tag u WHERE t.item_id = i.id AND u.item_id = t.item_id AND i.id = 5 RETURNING i.id, t.label, u.label;
DELETE FROM item USING tag WHERE false RETURNING *;
DELETE FROM item USING (SELECT 2 AS k) s WHERE item.id = s.k RETURNING item.id, s.k, *;
DELETE FROM item USING tag WHERE tag.item_id = item.id AND tag.label = 'nothing';
SELECT id, name FROM item ORDER BY id;
-- @error
DELETE FROM item USING nosuch WHERE nosuch.id = item.id;
-- @error
DELETE FROM item USING tag WHERE nosuch = item.id;
-- @error
DELETE FROM item USING item WHERE true;
-- @error
UPDATE item SET qty = 1 FROM tag, item WHERE true;
-- @error
DELETE FROM item i USING tag JOIN item i ON true WHERE true;
INSERT INTO item (id, name, qty) VALUES (50, 'dup', 1), (50, 'dup', 2), (51, 'solo', 1);
-- @rowsort
DELETE FROM item a USING item b WHERE a.id = b.id AND a.qty < b.qty RETURNING a.id, a.qty, b.qty AS other;
DELETE FROM item WHERE id >= 50 RETURNING id, qty;
-- @error
DELETE FROM item USING tag WHERE tag.item_id = item.id RETURNING tag.nosuch;
-- @error
DELETE FROM item USING tag t WHERE t.item_id = item.id RETURNING tag.label;
-- @error
DELETE FROM item USING tag WHERE item_id = id RETURNING label, nosuch;

-- inside a transaction block, over committed rows and rows the block wrote
BEGIN;
INSERT INTO item (id, name, qty) VALUES (20, 'melon', 1), (21, 'grape', 2) RETURNING id, qty;
-- @rowsort
UPDATE item SET qty = qty * 100 WHERE id IN (3, 20, 21) RETURNING id, qty;
DELETE FROM item WHERE id = 21 RETURNING *;
INSERT INTO tag VALUES (20, 'big');
-- @rowsort
UPDATE item SET name = name || '+' FROM tag WHERE tag.item_id = item.id RETURNING item.id, item.name, tag.label;
-- @rowsort
DELETE FROM item USING tag WHERE tag.item_id = item.id AND tag.label IN ('big', 'green') RETURNING item.id, tag.label;
SELECT id, name, qty FROM item ORDER BY id;
COMMIT;
SELECT id, name, qty FROM item ORDER BY id;
BEGIN;
INSERT INTO item (id, name) VALUES (30, 'lost') RETURNING id;
-- @error
INSERT INTO item (id, name) VALUES (31, 'x') RETURNING nosuch;
ROLLBACK;
SELECT count(*) FROM item WHERE id >= 30;
BEGIN;
DELETE FROM item WHERE id = 3 RETURNING id;
ROLLBACK;
SELECT id FROM item WHERE id = 3;

-- parameters of the RETURNING list take their types from use
INSERT INTO item (id, name, qty) VALUES (40, 'big', 1000) RETURNING qty::text || ' units' AS q, price IS NULL AS no_price;
UPDATE item SET price = price WHERE id = 40 RETURNING CASE WHEN qty > 100 THEN 'many' ELSE 'few' END AS how;
DELETE FROM item WHERE id = 40 RETURNING id, name, qty, price;
SELECT count(*) FROM item;

-- data-modifying statements in WITH
CREATE TABLE archive (id integer, name text, qty integer, price numeric(8,2));
WITH d AS (DELETE FROM item WHERE id IN (3, 4) RETURNING *) INSERT INTO archive SELECT * FROM d;
SELECT id, name FROM item ORDER BY id;
SELECT id, name FROM archive ORDER BY id;
WITH x AS (INSERT INTO item (id, name) VALUES (60, 'new'), (61, 'newer') RETURNING id, name) SELECT id * 2 AS twice, name FROM x ORDER BY id;
WITH x AS (INSERT INTO item (id, name) VALUES (62, 'n') RETURNING id) INSERT INTO archive (id, name) SELECT id, 'copy' FROM x RETURNING *;
WITH u AS (UPDATE archive SET qty = 5 WHERE name = 'copy' RETURNING id, qty), c AS (SELECT count(*) AS n FROM u) SELECT u.id, u.qty, c.n FROM u, c;
WITH d AS (DELETE FROM archive WHERE id = 62) SELECT count(*) FROM archive;
SELECT count(*) FROM archive;
-- @error
WITH d AS (DELETE FROM archive) SELECT * FROM d;
-- @error
WITH d AS (DELETE FROM archive RETURNING nosuch) SELECT * FROM d;
-- @error
WITH d AS (INSERT INTO archive (id) VALUES (1) RETURNING id) SELECT * FROM d WHERE 1 / 0 = 1;
SELECT count(*) FROM archive;
SELECT * FROM (WITH a AS (SELECT 1 AS one) SELECT one FROM a) s;
-- WITH before UPDATE and DELETE
CREATE TABLE wu (id integer, v integer);
INSERT INTO wu SELECT g, g * 10 FROM generate_series(1, 10) g;
WITH big AS (SELECT id FROM wu WHERE v > 70) DELETE FROM wu WHERE id IN (SELECT id FROM big) RETURNING id;
WITH x AS (SELECT 3 AS id, 999 AS nv) UPDATE wu SET v = x.nv FROM x WHERE wu.id = x.id RETURNING wu.*;
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) UPDATE wu SET v = v + 1 WHERE id IN (SELECT n FROM r);
WITH d AS (DELETE FROM wu WHERE id = 4 RETURNING id) UPDATE wu SET v = v + (SELECT count(*) FROM d) WHERE id = 5;
WITH s AS (SELECT id FROM wu WHERE id < 3) DELETE FROM wu USING s WHERE wu.id = s.id;
SELECT * FROM wu ORDER BY id;
-- @error
WITH x AS (SELECT 1), x AS (SELECT 2) DELETE FROM wu;
-- @error
WITH x AS (SELECT 1 AS a) UPDATE wu SET v = x.nosuch FROM x;
-- the primary query reads the statement's starting snapshot, in a block too
CREATE TABLE arc2 (id integer);
INSERT INTO arc2 VALUES (1), (2), (3);
BEGIN;
INSERT INTO arc2 VALUES (4);
WITH d AS (DELETE FROM arc2 WHERE id IN (1, 4) RETURNING id) SELECT (SELECT count(*) FROM arc2) AS seen, (SELECT count(*) FROM d) AS deleted;
SELECT count(*) FROM arc2;
WITH i AS (INSERT INTO arc2 VALUES (9) RETURNING id) INSERT INTO arc2 SELECT id * 10 FROM arc2;
SELECT * FROM arc2 ORDER BY id;
WITH u AS (UPDATE arc2 SET id = id + 1 WHERE id = 2 RETURNING id) SELECT a.id, (SELECT count(*) FROM u) FROM arc2 a ORDER BY a.id;
COMMIT;
SELECT * FROM arc2 ORDER BY id;
WITH d AS (DELETE FROM arc2 WHERE id > 5 RETURNING id) SELECT count(*) FROM arc2;
SELECT count(*) FROM arc2;
