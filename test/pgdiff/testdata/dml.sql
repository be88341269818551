-- INSERT, UPDATE and DELETE: command tags, effects read back, expressions and subqueries in
-- them, INSERT … SELECT, defaults, constraints of the column types.
CREATE TABLE acct (id integer, owner text, balance numeric(10,2) DEFAULT 0, opened date DEFAULT '2024-01-01');
CREATE TABLE log (id integer, note text);

INSERT INTO acct VALUES (1, 'ann', 100.00, '2023-05-01');
INSERT INTO acct (id, owner) VALUES (2, 'bob'), (3, 'cid');
INSERT INTO acct VALUES (4, 'dan', DEFAULT, DEFAULT);
INSERT INTO acct (id, owner, balance) SELECT id + 10, owner || '2', balance + 1 FROM acct WHERE id <= 2;
SELECT * FROM acct ORDER BY id;
UPDATE acct SET balance = balance + 50 WHERE owner LIKE 'b%';
UPDATE acct SET balance = balance * 2, opened = opened + 1 WHERE id IN (1, 3);
UPDATE acct SET owner = upper(owner) WHERE false;
UPDATE acct SET balance = (SELECT max(balance) FROM acct) WHERE id = 4;
SELECT * FROM acct ORDER BY id;
UPDATE acct SET balance = NULL WHERE id = 12;
SELECT id, balance FROM acct WHERE balance IS NULL ORDER BY id;
-- @error
UPDATE acct SET balance = 123456789.00 WHERE id = 1;
-- @error
UPDATE acct SET nosuch = 1;
-- @error
UPDATE acct SET balance = 1 / 0 WHERE id = 1;
SELECT id, balance FROM acct WHERE id = 1;
INSERT INTO log SELECT id, 'rich' FROM acct WHERE balance > 100;
SELECT * FROM log ORDER BY id;
DELETE FROM acct WHERE id IN (SELECT id FROM log);
DELETE FROM acct WHERE id > 100;
SELECT id, owner FROM acct ORDER BY id;
DELETE FROM log;
SELECT count(*) FROM log;
INSERT INTO log VALUES (1, 'a'), (2, NULL);
UPDATE log SET note = coalesce(note, 'none') || '!';
SELECT * FROM log ORDER BY id;
UPDATE acct SET owner = owner || '*' WHERE id = (SELECT min(id) FROM acct);
SELECT id, owner FROM acct ORDER BY id;
DELETE FROM acct;
SELECT count(*) FROM acct;
INSERT INTO acct (owner, id) SELECT 'gen', n FROM generate_series(1, 3) g(n);
SELECT * FROM acct ORDER BY id;
-- @error
INSERT INTO acct VALUES (1, 'x', 'not money');
-- @error
DELETE FROM nosuch;
-- UPDATE with correlated subqueries and UPDATE … FROM, decorrelated into joins.
CREATE TABLE pay (id integer, amount numeric(10,2));
INSERT INTO pay VALUES (1, 10.50), (1, 4.50), (2, 7.00), (9, 1.00);
UPDATE acct SET balance = (SELECT sum(amount) FROM pay WHERE pay.id = acct.id);
SELECT id, balance FROM acct ORDER BY id;
UPDATE acct SET owner = owner || '#' || (SELECT count(*) FROM pay WHERE pay.id = acct.id) WHERE id >= 2;
SELECT id, owner FROM acct ORDER BY id;
UPDATE acct a SET balance = 0 WHERE NOT EXISTS (SELECT 1 FROM pay p WHERE p.id = a.id);
SELECT id, balance FROM acct ORDER BY id;
-- @error
UPDATE acct SET balance = (SELECT amount FROM pay WHERE pay.id = acct.id);
UPDATE acct SET balance = acct.balance + p.amount, opened = '2025-01-01' FROM pay p WHERE p.id = acct.id AND p.amount > 5;
SELECT * FROM acct ORDER BY id;
UPDATE acct SET balance = s.total FROM (SELECT id, sum(amount) AS total FROM pay GROUP BY id) s WHERE s.id = acct.id;
SELECT id, balance FROM acct ORDER BY id;
DELETE FROM acct WHERE EXISTS (SELECT 1 FROM pay WHERE pay.id = acct.id AND pay.amount < 8);
SELECT id, owner FROM acct ORDER BY id;
