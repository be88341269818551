-- Materialized views: CREATE [IF NOT EXISTS] … AS … [WITH [NO] DATA], REFRESH, DROP, writes
-- refused, catalog rows.
CREATE TABLE base (g text, v integer);
INSERT INTO base VALUES ('a', 1), ('b', 2), ('a', 3);
CREATE MATERIALIZED VIEW sums AS SELECT g, sum(v) AS s, count(*) AS n FROM base GROUP BY g;
SELECT * FROM sums ORDER BY g;
INSERT INTO base VALUES ('c', 10), ('a', 5);
SELECT * FROM sums ORDER BY g;
REFRESH MATERIALIZED VIEW sums;
SELECT * FROM sums ORDER BY g;
CREATE MATERIALIZED VIEW IF NOT EXISTS sums AS SELECT 1;
CREATE MATERIALIZED VIEW big (grp, total) AS SELECT g, s FROM sums WHERE s > 5;
SELECT * FROM big ORDER BY grp;
DELETE FROM base WHERE g = 'a';
REFRESH MATERIALIZED VIEW sums;
REFRESH MATERIALIZED VIEW big;
SELECT * FROM big ORDER BY grp;
BEGIN;
INSERT INTO base VALUES ('d', 100);
REFRESH MATERIALIZED VIEW sums;
SELECT * FROM sums ORDER BY g;
ROLLBACK;
SELECT * FROM sums ORDER BY g;
-- @error
INSERT INTO sums VALUES ('x', 1, 1);
-- @error
UPDATE sums SET s = 0;
-- @error
DELETE FROM sums;
-- @error
REFRESH MATERIALIZED VIEW base;
-- @error
REFRESH MATERIALIZED VIEW nosuch;
-- @error
CREATE MATERIALIZED VIEW sums AS SELECT 1;
-- @error
DROP TABLE sums;
-- @error
DROP MATERIALIZED VIEW base;
SELECT matviewname, ispopulated FROM pg_matviews ORDER BY 1;
SELECT relname, relkind FROM pg_class WHERE relname IN ('base', 'sums', 'big') ORDER BY 1;
SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1;
SELECT attname FROM pg_attribute WHERE attrelid = 'big'::regclass AND attnum > 0 ORDER BY attnum;
DROP MATERIALIZED VIEW big;
DROP MATERIALIZED VIEW IF EXISTS big;
DROP MATERIALIZED VIEW sums;
SELECT count(*) FROM pg_matviews;
