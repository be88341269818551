package sql

import "testing"

func TestSetConfig(t *testing.T) {
	s := lake(t)
	// pgAdmin's call on connect: untyped literals, one row
	must(t, s, `SELECT set_config('bytea_output','hex',false) FROM pg_show_all_settings() WHERE name = 'bytea_output'`, "hex")
	// the value as SHOW prints it, in effect at once and afterwards
	must(t, s, `SELECT set_config('statement_timeout', '1000', false), current_setting('statement_timeout')`, "1s|1s")
	must(t, s, `SHOW statement_timeout`, "1s")
	// is_local outside a block: the value for the statement's own
	// transaction, gone after it, as in PostgreSQL; inside, until the end
	must(t, s, `SELECT set_config('bytea_output', 'escape', true)`, "escape")
	must(t, s, `SHOW bytea_output`, "hex")
	must(t, s, `BEGIN`)
	must(t, s, `SELECT set_config('bytea_output', 'escape', true)`, "escape")
	must(t, s, `SHOW bytea_output`, "escape")
	must(t, s, `COMMIT`)
	must(t, s, `SHOW bytea_output`, "hex")
	// a NULL value resets; custom settings need a dot
	must(t, s, `SELECT set_config('statement_timeout', NULL, false)`, "0")
	must(t, s, `SELECT set_config('myapp.tenant', '42', false), current_setting('myapp.tenant')`, "42|42")
	mustFail(t, s, `SELECT set_config('no_such_setting', '1', false)`, "42704")
	mustFail(t, s, `SELECT set_config(NULL, '1', false)`, "22004")
	mustFail(t, s, `SELECT set_config('bytea_output', 'base64', false)`, "22023")
	mustFail(t, s, `SELECT set_config('server_version', '1', false)`, "55P02")
}
