package bind

import (
	"strings"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// SetConfig binds set_config(name, value, is_local): SET as a function,
// which pgAdmin calls on connect (bytea_output) and ORMs call to scope a
// setting to a transaction. It answers the value as SHOW prints it.
// is_local true is SET LOCAL (sql/settings_txn.go). Not strict, as in
// PostgreSQL: a NULL value resets the setting, a NULL is_local is false.
func (b *Binder) SetConfig(args []exec.Expr, loc int32) (exec.Expr, error) {
	if len(args) != 3 {
		var ts []string
		for _, a := range args {
			ts = append(ts, a.Type().String())
		}
		e := pgerr.New(pgerr.UndefinedFunction, "function set_config(%s) does not exist", strings.Join(ts, ", "))
		e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
		return nil, ErrAt(e, loc)
	}
	for i, t := range []types.T{types.TextT, types.TextT, types.BoolT} {
		var err error
		if args[i], err = b.Cast(args[i], t, false, loc); err != nil {
			return nil, err
		}
	}
	s := b.Sess
	// not folded: it acts when the statement runs, each time it runs
	return &CatalogFn{Name: "set_config", T: types.TextT, Args: args, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
		if a[0].IsNull(i) {
			return pgerr.New("22004", "SET requires parameter name") // null_value_not_allowed
		}
		name := strings.ToLower(a[0].S[i])
		d, known := DefaultSettings[name]
		if !known && !strings.Contains(name, ".") {
			return pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", a[0].S[i])
		}
		val := d
		if !a[1].IsNull(i) {
			val = a[1].S[i]
		}
		shown, err := s.SessionHost().SetConfig(name, val, !a[2].IsNull(i) && a[2].B[i]) // sql/settings_txn.go
		if err != nil {
			return err
		}
		out.AppendString(shown)
		return nil
	}}, nil
}

// ServerVersion is what lakepg reports as its PostgreSQL version: the
// version whose catalogs pgcatalog emulates, as tools pick their catalog SQL
// by it.
const ServerVersion = "15.18"

var DefaultSettings = map[string]string{
	"search_path": `"$user", public`, "timezone": "UTC", "datestyle": "ISO, MDY",
	"client_encoding": "UTF8", "server_encoding": "UTF8", "intervalstyle": "postgres",
	"extra_float_digits": "1", "application_name": "", "standard_conforming_strings": "on",
	"integer_datetimes": "on", "statement_timeout": "0", "client_min_messages": "notice",
	"idle_in_transaction_session_timeout": "0", "idle_session_timeout": "0", "lock_timeout": "0",
	"bytea_output": "hex", "default_transaction_isolation": "read committed",
	"transaction_isolation": "read committed", "max_identifier_length": "63",
	"lc_collate": "C", "lc_ctype": "C.UTF-8", "server_version": ServerVersion,
	"server_version_num": "150018", "lakepg.snapshot": "",
	"default_tablespace": "", "default_table_access_method": "heap",
	"work_mem": defaultWorkMem,
}

// defaultWorkMem is PostgreSQL's work_mem default. lakepg does not enforce
// it: operators share --memory-limit and spill when it runs out. A session
// that sets work_mem to anything else gets it as every operator's own
// budget (workMemBytes).
const defaultWorkMem = "4MB"

func TextConst(s string) *exec.Const {
	return ConstOf(types.TextT, func(v *vec.Vector) { v.AppendString(s) })
}
