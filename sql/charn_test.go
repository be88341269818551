package sql

import (
	"testing"

	"github.com/lakepg/lakepg/pgerr"
)

// varchar(n) and character(n) survive the catalog (a lakepg.type tag) and
// behave as in PostgreSQL.
func TestCharacterTypes(t *testing.T) {
	s := lake(t)
	must(t, s, `CREATE TABLE ch (id integer, v varchar(5), c char(4), b bpchar, t text)`)
	must(t, s, `SELECT attname, format_type(atttypid, atttypmod), atttypmod FROM pg_attribute WHERE attrelid = 'ch'::regclass AND attnum > 0 ORDER BY attnum`,
		"id|integer|-1", "v|character varying(5)|9", "c|character(4)|8", "b|bpchar|-1", "t|text|-1")
	must(t, s, `SELECT column_name, data_type, character_maximum_length FROM information_schema.columns WHERE table_name = 'ch' ORDER BY ordinal_position`,
		"id|integer|NULL", "v|character varying|5", "c|character|4", "b|character|NULL", "t|text|NULL")

	must(t, s, `INSERT INTO ch VALUES (1, 'ab', 'ab', 'ab ', 'ab '), (2, 'five ', 'wxyz', 'q', 'q')`)
	// longer than n, unless only blanks are cut: 22001 on assignment
	for _, q := range []string{
		`INSERT INTO ch VALUES (3, 'sixsix', 'a', 'a', 'a')`,
		`INSERT INTO ch VALUES (3, 'a', 'fivef', 'a', 'a')`,
		`UPDATE ch SET v = v || 'xxxxx' WHERE id = 1`,
	} {
		mustFail(t, s, q, pgerr.StringDataRightTrunc)
	}
	must(t, s, `INSERT INTO ch VALUES (3, 'abc    ', 'abc   ', NULL, NULL)`)
	must(t, s, `SELECT id, '[' || v || ']', '[' || c::text || ']', length(c), c FROM ch ORDER BY id`,
		"1|[ab]|[ab]|2|ab  ", "2|[five ]|[wxyz]|4|wxyz", "3|[abc  ]|[abc]|3|abc ")
	// blank-padded comparison: trailing blanks do not count
	must(t, s, `SELECT id FROM ch WHERE c = 'ab' AND c = 'ab  '::char(2) AND b = 'ab' ORDER BY id`, "1")
	must(t, s, `SELECT 'abc'::varchar(2), 'abc'::char(2), 'a'::char(3) || 'b', 'a '::char(3) = 'a', 'a ' = 'a', length('x'::char(4))`,
		"ab|ab|ab|t|f|1")

	// COPY enforces the length too
	if _, _, err := copyIn(t, s, `COPY ch (id, v) FROM STDIN`, &sliceRows{rows: textRows("4|toolong")}); pgerr.Code(err) != pgerr.StringDataRightTrunc {
		t.Errorf("COPY of a too long value: %v", err)
	}
	if _, _, err := copyIn(t, s, `COPY ch (id, c) FROM STDIN`, &sliceRows{rows: textRows("4|z")}); err != nil {
		t.Fatal(err)
	}
	must(t, s, `SELECT '[' || c || ']', octet_length(c::varchar) FROM ch WHERE id = 4`, "[z]|1")

	// ALTER COLUMN TYPE: lengthening only changes the tag
	must(t, s, `ALTER TABLE ch ALTER COLUMN v TYPE varchar(10)`)
	must(t, s, `UPDATE ch SET v = 'ten chars!' WHERE id = 1`)
	mustFail(t, s, `UPDATE ch SET v = 'eleven chars' WHERE id = 1`, pgerr.StringDataRightTrunc)
	// shortening or re-padding rewrites the table (alter_type.go), checking every value
	mustFail(t, s, `ALTER TABLE ch ALTER COLUMN v TYPE varchar(3)`, pgerr.StringDataRightTrunc)
	must(t, s, `ALTER TABLE ch ALTER COLUMN c TYPE char(8)`)
	must(t, s, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'ch'::regclass AND attname = 'c'`, "character(8)")
	must(t, s, `SELECT '[' || c || ']' FROM ch WHERE id = 4`, "[z]")
	must(t, s, `ALTER TABLE ch ALTER COLUMN v TYPE text`)
	must(t, s, `UPDATE ch SET v = 'eleven chars' WHERE id = 1`)
	must(t, s, `ALTER TABLE ch ADD COLUMN z char(2) DEFAULT 'q'`)
	must(t, s, `SELECT format_type(atttypid, atttypmod), pg_get_expr(adbin, adrelid) FROM pg_attribute JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum WHERE attrelid = 'ch'::regclass AND attname = 'z'`,
		"character(2)|'q'::bpchar")
	must(t, s, `SELECT '[' || z::varchar || ']', v FROM ch WHERE id = 1`, "[q]|eleven chars")

	// CREATE TABLE AS keeps the declared types
	must(t, s, `CREATE TABLE ch2 AS SELECT v, c FROM ch`)
	must(t, s, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'ch2'::regclass AND attnum > 0 ORDER BY attnum`,
		"text", "character(8)")
	// text to varchar(n) checks the stored values (a rewrite)
	mustFail(t, s, `ALTER TABLE ch2 ALTER COLUMN v TYPE varchar(3)`, pgerr.StringDataRightTrunc)
	must(t, s, `ALTER TABLE ch2 ALTER COLUMN v TYPE varchar`)
	must(t, s, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'ch2'::regclass AND attnum = 1`, "character varying")
}
