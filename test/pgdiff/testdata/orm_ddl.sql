-- What ORMs and migration tools write (SQLAlchemy/Alembic, Django): FOREIGN KEY constraints
-- in CREATE TABLE (table and column ones, a table referencing itself) and ALTER TABLE … ADD
-- CONSTRAINT … FOREIGN KEY (Django's DEFERRABLE INITIALLY DEFERRED), CREATE/DROP INDEX, and the
-- errors PostgreSQL gives for a missing referenced table or column. lakepg accepts the foreign
-- keys without keeping them (README), so no statement here writes a row that breaks one.
CREATE TABLE authors (id serial PRIMARY KEY, name varchar(100) NOT NULL);
CREATE TABLE books (id bigserial NOT NULL, author_id integer NOT NULL, title text, PRIMARY KEY (id), FOREIGN KEY (author_id) REFERENCES authors (id));
CREATE TABLE reviews (id integer PRIMARY KEY, book_id bigint REFERENCES books (id) ON DELETE CASCADE, parent_id integer REFERENCES reviews (id), body text);
CREATE TABLE notes (id integer PRIMARY KEY, author_id integer CONSTRAINT notes_author_fk REFERENCES authors);
CREATE TABLE loans (id integer PRIMARY KEY, book_id bigint NOT NULL);
ALTER TABLE loans ADD CONSTRAINT loans_book_id_fk FOREIGN KEY (book_id) REFERENCES books (id) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE loans ADD COLUMN reviewer integer REFERENCES reviews (id);
ALTER TABLE loans ADD COLUMN due date, ADD CONSTRAINT loans_reviewer_fk FOREIGN KEY (reviewer) REFERENCES reviews (id);
CREATE INDEX loans_book_id_idx ON loans (book_id);
CREATE INDEX IF NOT EXISTS books_title_idx ON books (title);
INSERT INTO authors (name) VALUES ('Austen'), ('Joyce');
INSERT INTO books (author_id, title) VALUES (1, 'Emma'), (2, 'Ulysses') RETURNING id, title;
INSERT INTO loans (id, book_id, due) VALUES (1, 2, '2024-05-01');
SELECT a.name, b.title, l.due FROM loans l JOIN books b ON b.id = l.book_id JOIN authors a ON a.id = b.author_id;
SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'loans' ORDER BY ordinal_position;
DROP INDEX loans_book_id_idx;
DROP INDEX IF EXISTS books_title_idx, nosuch_idx;
-- @error
CREATE TABLE bad1 (id integer, x integer REFERENCES nosuch (id));
-- @error
CREATE TABLE bad2 (id integer, x integer, FOREIGN KEY (x) REFERENCES authors (nosuch));
-- @error
ALTER TABLE loans ADD CONSTRAINT bad3 FOREIGN KEY (book_id) REFERENCES nosuch (id);
-- @error
DROP INDEX loans;
-- @error
DROP INDEX authors;
-- @error
SELECT count(*) FROM bad1;
-- ALTER COLUMN … DROP NOT NULL / SET NOT NULL (Django's AlterField), in and out of blocks
CREATE TABLE n1 (id integer PRIMARY KEY, a integer NOT NULL, b integer);
INSERT INTO n1 VALUES (1, 2, NULL), (2, 3, 4);
ALTER TABLE n1 ALTER COLUMN a DROP NOT NULL;
INSERT INTO n1 VALUES (3, NULL, 5);
-- @error
ALTER TABLE n1 ALTER COLUMN a SET NOT NULL;
-- @error
ALTER TABLE n1 ALTER COLUMN id DROP NOT NULL;
-- @error
ALTER TABLE n1 ALTER COLUMN nosuch DROP NOT NULL;
BEGIN;
DELETE FROM n1 WHERE a IS NULL;
ALTER TABLE n1 ALTER COLUMN a SET NOT NULL;
COMMIT;
-- @error
INSERT INTO n1 VALUES (4, NULL, 5);
ALTER TABLE n1 ALTER COLUMN a SET NOT NULL, ALTER COLUMN b DROP NOT NULL;
-- @error
ALTER TABLE n1 ALTER COLUMN b SET NOT NULL;
UPDATE n1 SET b = 0 WHERE b IS NULL;
ALTER TABLE n1 ALTER b SET NOT NULL;
SELECT column_name, is_nullable FROM information_schema.columns WHERE table_name = 'n1' ORDER BY ordinal_position;
SELECT attname, attnotnull FROM pg_attribute WHERE attrelid = 'n1'::regclass AND attnum > 0 ORDER BY attnum;
SELECT * FROM n1 ORDER BY id;
-- unnest of several arrays in FROM (Django's bulk_create: INSERT … SELECT * FROM UNNEST(…))
SELECT * FROM unnest(ARRAY[1,2,3], ARRAY['a','b']);
SELECT * FROM unnest('{1,2}'::int[], '{x,y,z}'::text[], '{t,f}'::boolean[]) AS t(a, b, c);
CREATE TABLE z (a integer, b text);
INSERT INTO z (a, b) SELECT * FROM unnest('{1,2}'::int[], '{p,q}'::varchar[]) RETURNING *;
SELECT * FROM unnest(ARRAY[1,2], NULL::text[]);
SELECT u.* FROM z, unnest(ARRAY[z.a, z.a * 10], ARRAY[z.b]) u ORDER BY 1;
-- GROUP BY a primary key, other columns of its table ungrouped (functional dependency; Django's
-- annotate() groups by the model's key)
CREATE TABLE gc (id integer PRIMARY KEY, name text, slug text);
CREATE TABLE gp (id integer PRIMARY KEY, cid integer, stock integer);
CREATE TABLE gn (id integer, name text);
CREATE TABLE g2 (a integer, b integer, v text, PRIMARY KEY (a, b));
INSERT INTO gc VALUES (1, 'Books', 'b'), (2, 'Games', 'g'), (3, 'Music', 'm');
INSERT INTO gp VALUES (1, 1, 3), (2, 1, 1), (3, 2, 10), (4, 2, 1);
INSERT INTO g2 VALUES (1, 1, 'x'), (1, 2, 'y');
SELECT gc.name, count(gp.id), sum(gp.stock) FROM gc LEFT JOIN gp ON gc.id = gp.cid GROUP BY gc.id ORDER BY 1;
SELECT gc.*, count(*) FROM gc JOIN gp ON gp.cid = gc.id GROUP BY gc.id ORDER BY gc.slug DESC;
SELECT gc.name FROM gc GROUP BY gc.id HAVING gc.slug <> 'm' ORDER BY gc.name;
SELECT upper(name), count(*) FROM gc GROUP BY id ORDER BY slug;
SELECT v, count(*) FROM g2 GROUP BY a, b ORDER BY v;
-- @error
SELECT v FROM g2 GROUP BY a;
-- @error
SELECT x.name FROM gc x JOIN gc y ON x.id = y.id GROUP BY y.id;
-- @error
SELECT name FROM gn GROUP BY id;
-- @error
SELECT s.name FROM (SELECT * FROM gc) s GROUP BY s.id;
-- @error
SELECT name FROM gc GROUP BY GROUPING SETS ((id), ());
-- a foreign key must reference a primary key or the columns of a unique constraint (42830);
-- the index of a key cannot be dropped on its own (2BP01)
CREATE TABLE fk_nokey (id integer, code text UNIQUE, a integer, b integer, UNIQUE (a, b));
CREATE TABLE fk_ok (x text REFERENCES fk_nokey (code), y integer, z integer, FOREIGN KEY (z, y) REFERENCES fk_nokey (b, a));
-- @error
CREATE TABLE fk_bad1 (x integer REFERENCES fk_nokey);
-- @error
CREATE TABLE fk_bad2 (x integer REFERENCES fk_nokey (id));
-- @error
CREATE TABLE fk_bad3 (x integer, FOREIGN KEY (x) REFERENCES fk_nokey (a));
-- @error
ALTER TABLE loans ADD FOREIGN KEY (id) REFERENCES fk_nokey (id);
-- @error
DROP INDEX authors_pkey;
-- @error
DROP INDEX public.fk_nokey_code_key;
SELECT conname FROM pg_constraint WHERE conrelid = 'fk_nokey'::regclass ORDER BY conname;
