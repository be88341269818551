-- COMMENT ON TABLE, VIEW and COLUMN, read back through obj_description, col_description and
-- pg_description, in blocks, after renames, and the errors PostgreSQL gives.
CREATE TABLE acct (id integer, owner text, balance numeric(10,2));
COMMENT ON TABLE acct IS 'accounts';
COMMENT ON COLUMN acct.owner IS 'who owns it';
COMMENT ON COLUMN public.acct.balance IS 'in cents? no, euros';
SELECT obj_description('acct'::regclass), obj_description('acct'::regclass, 'pg_class');
SELECT attname, col_description(attrelid, attnum) FROM pg_attribute WHERE attrelid = 'acct'::regclass AND attnum > 0 ORDER BY attnum;
SELECT d.objsubid, d.description FROM pg_description d JOIN pg_class c ON c.oid = d.objoid WHERE c.relname = 'acct' ORDER BY 1;
COMMENT ON TABLE acct IS 'accounts, again';
SELECT obj_description('acct'::regclass);
COMMENT ON COLUMN acct.owner IS NULL;
COMMENT ON COLUMN acct.balance IS '';
SELECT col_description('acct'::regclass, 2) IS NULL, col_description('acct'::regclass, 3) IS NULL;
ALTER TABLE acct RENAME TO account;
ALTER TABLE account RENAME COLUMN id TO account_id;
SELECT obj_description('account'::regclass);
COMMENT ON COLUMN account.account_id IS 'key';
SELECT col_description('account'::regclass, 1);
CREATE VIEW rich AS SELECT account_id FROM account WHERE balance > 100;
COMMENT ON VIEW rich IS 'rich accounts';
SELECT obj_description('rich'::regclass, 'pg_class');
BEGIN;
COMMENT ON TABLE account IS 'in a block';
SELECT obj_description('account'::regclass);
ROLLBACK;
SELECT obj_description('account'::regclass);
BEGIN;
CREATE TABLE fresh (a integer);
COMMENT ON TABLE fresh IS 'born commented';
COMMENT ON COLUMN fresh.a IS 'the a';
COMMIT;
SELECT obj_description('fresh'::regclass), col_description('fresh'::regclass, 1);
ALTER TABLE fresh ADD COLUMN b integer;
COMMENT ON COLUMN fresh.b IS 'the b';
ALTER TABLE fresh DROP COLUMN a;
SELECT attname, col_description(attrelid, attnum) FROM pg_attribute WHERE attrelid = 'fresh'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum;
-- @error
COMMENT ON TABLE rich IS 'x';
-- @error
COMMENT ON VIEW account IS 'x';
-- @error
COMMENT ON TABLE nosuch IS 'x';
-- @error
COMMENT ON COLUMN account.nosuch IS 'x';
DROP TABLE fresh;
SELECT count(*) FROM pg_description d JOIN pg_class c ON c.oid = d.objoid WHERE c.relname = 'fresh';
SELECT obj_description(0) IS NULL;
