package bind

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/pgcatalog"
	"github.com/lakepg/lakepg/types"
)

// This file holds what the SQL layer adds to sql/pgcatalog: the session's
// entry in pg_stat_activity, the catalog Context of a statement, the
// catalog functions tools call (pg_get_userbyid, format_type, ...) and the
// reg* casts. The rest of the package reaches it through these hooks:
//
//	(*binder).systemFunction        from bindFunc, before the exec/fn library
//	(*binder).regCast, regOutput    from TypeCast binding: x::regclass, x::regclass::text
//
// and the planner through (*QueryCtx).CatalogContext (the statement's
// Context, for systemTable too) and (*Session).catalogTableFunction
// (rangeFunction: pg_get_keywords()), both in sql/planner/catalog_context.go;
// and package sql's (*Session).noteActivity runs when a statement starts ("" when it ends)
//
// and the server calls SetBackendPID when a connection starts and ends.

// CatalogContext loads the statement's snapshot metadata for catalog
// functions and reg* casts that resolve names or OIDs at bind time.
func (b *Binder) CatalogContext() (*pgcatalog.Context, error) {
	ctx := context.Background()
	if b.Qc != nil && b.Qc.Context() != nil {
		ctx = b.Qc.Context()
	}
	snap, err := b.Sess.SessionHost().ReadSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	meta, err := b.Sess.SessionHost().Metadata(ctx, snap)
	if err != nil {
		return nil, err
	}
	if b.Qc != nil {
		return b.Qc.CatalogContext(meta), nil
	}
	return b.Sess.SessionHost().CatalogContext(meta), nil
}

// CatalogFn is a catalog function evaluated row by row. These run over
// catalog rows, a few thousand at most, so a call per row is fine here.
type CatalogFn struct {
	Name   string
	T      types.T
	Args   []exec.Expr
	Strict bool // a NULL argument gives NULL without calling fn
	Fn     func(out *vec.Vector, args []*vec.Vector, i int) error
}

func (f *CatalogFn) Type() types.T { return f.T }

func (f *CatalogFn) Eval(env *exec.Env, b *vec.Batch) (*vec.Vector, error) {
	vs := make([]*vec.Vector, len(f.Args))
	for k, a := range f.Args {
		v, err := a.Eval(env, b)
		if err != nil {
			return nil, err
		}
		vs[k] = v
	}
	out := vec.New(f.T, b.N)
	for i := 0; i < b.N; i++ {
		if f.Strict {
			null := false
			for _, v := range vs {
				null = null || v.IsNull(i)
			}
			if null {
				out.AppendNull()
				continue
			}
		}
		if err := f.Fn(out, vs, i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (f *CatalogFn) MapColumns(m func(int) int) exec.Expr {
	g := *f
	g.Args = make([]exec.Expr, len(f.Args))
	for i, a := range f.Args {
		g.Args[i] = exec.MapColumns(a, m)
	}
	return &g
}

// Fold evaluates f now when every argument is a constant.
func (b *Binder) Fold(f *CatalogFn, loc int32) (exec.Expr, error) {
	for _, a := range f.Args {
		if _, ok := a.(*exec.Const); !ok {
			return f, nil
		}
	}
	v, err := f.Eval(b.Env, &vec.Batch{N: 1})
	if err != nil {
		if pe, ok := pgerr.As(err); ok {
			return nil, ErrAt(pe, loc)
		}
		return nil, err
	}
	return exec.NewConst(v), nil
}

// txCounter numbers txid_current() calls; lakepg has no transaction ids.
var txCounter atomic.Int64

func init() { txCounter.Store(1000) }

// systemFunction binds the catalog functions PostgreSQL tools call. name
// is the function name without a pg_catalog qualification, args are bound
// (still of unknown type for bare literals), loc is the call's position.
// ok is false when name is none of them: the caller goes on to the
// exec/fn library. Call it from bindFunc before fn.Exists.
func (b *Binder) systemFunction(name string, args []exec.Expr, loc int32) (exec.Expr, bool, error) {
	nargs := func(lo, hi int) error {
		if len(args) < lo || len(args) > hi {
			var ts []string
			for _, a := range args {
				ts = append(ts, a.Type().String())
			}
			e := pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(ts, ", "))
			e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
			return ErrAt(e, loc)
		}
		return nil
	}
	// castArgs casts the arguments to ts (NULL literals included).
	castArgs := func(ts ...types.T) error {
		for i := range args {
			t := ts[len(ts)-1]
			if i < len(ts) {
				t = ts[i]
			}
			var err error
			if args[i], err = b.Cast(args[i], t, false, loc); err != nil {
				return err
			}
		}
		return nil
	}
	constant := func(t types.T, fill func(v *vec.Vector)) (exec.Expr, bool, error) {
		return ConstOf(t, fill), true, nil
	}
	null := func(t types.T) (exec.Expr, bool, error) { return exec.NullConst(t), true, nil }
	if e, ok, err := b.Sess.SessionHost().SequenceFunction(b, name, args, loc); ok || err != nil { // sql/sequences/sequence.go
		return e, true, err
	}
	rowFn := func(t types.T, strict bool, fn func(out *vec.Vector, args []*vec.Vector, i int) error) (exec.Expr, bool, error) {
		e, err := b.Fold(&CatalogFn{Name: name, T: t, Args: args, Strict: strict, Fn: fn}, loc)
		return e, true, err
	}
	oid, text, i4 := types.Int64T, types.TextT, types.Int32T
	if e, ok, err := b.arrayFunction(name, args, loc); ok || err != nil {
		return e, true, err
	}
	if e, ok, err := b.arrayBuilder(name, args, loc); ok || err != nil {
		return e, true, err
	}
	if e, ok, err := b.jsonBuilder(name, args, loc); ok || err != nil {
		return e, true, err
	}

	switch name {
	case "pg_backend_pid":
		if err := nargs(0, 0); err != nil {
			return nil, true, err
		}
		pid := int64(b.Sess.SessionHost().BackendPID())
		return constant(i4, func(v *vec.Vector) { v.AppendInt(pid) })

	case "pg_cancel_backend", "pg_terminate_backend":
		// pg_terminate_backend's optional timeout is accepted and not
		// waited on: the connection ends as soon as its statement stops
		if err := nargs(1, map[bool]int{true: 2, false: 1}[name == "pg_terminate_backend"]); err != nil {
			return nil, true, err
		}
		if err := castArgs(i4, types.Int64T); err != nil {
			return nil, true, err
		}
		host, terminate := b.Sess.SessionHost(), name == "pg_terminate_backend"
		return &CatalogFn{Name: name, T: types.BoolT, Args: args[:1], Strict: true,
			Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
				pid := a[0].I64[i]
				ok := host.SignalBackend(pid, terminate)
				if !ok {
					host.Raise(Notice{Severity: "WARNING", Code: "01000",
						Message: fmt.Sprintf("PID %d is not a PostgreSQL backend process", pid)})
				}
				out.AppendBool(ok)
				return nil
			}}, true, nil

	case "pg_get_userbyid":
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		if err := castArgs(oid); err != nil {
			return nil, true, err
		}
		c := &pgcatalog.Context{User: b.Sess.SessionUser(), Roles: b.Sess.SessionHost().CatalogRoles()}
		return rowFn(types.NameT, true, func(out *vec.Vector, a []*vec.Vector, i int) error {
			out.AppendString(pgcatalog.UserName(c, a[0].I64[i]))
			return nil
		})

	case "format_type":
		if err := nargs(2, 2); err != nil {
			return nil, true, err
		}
		if err := castArgs(oid, i4); err != nil {
			return nil, true, err
		}
		return rowFn(text, false, func(out *vec.Vector, a []*vec.Vector, i int) error {
			if a[0].IsNull(i) {
				out.AppendNull()
				return nil
			}
			mod, given := int32(-1), !a[1].IsNull(i)
			if given {
				mod = int32(a[1].I64[i])
			}
			out.AppendString(pgcatalog.FormatType(a[0].I64[i], mod, given))
			return nil
		})

	case "pg_my_temp_schema":
		// the session's pg_temp_N once it made a temporary table, else 0
		if err := nargs(0, 0); err != nil {
			return nil, true, err
		}
		my, _ := b.Sess.SessionHost().TempNamespace()
		return constant(oid, func(v *vec.Vector) { v.AppendInt(my) })

	case "pg_is_other_temp_schema":
		// dbt's catalog query leaves out other sessions' temporary schemas:
		// an OID of the temporary namespaces' range that is not this
		// session's (sql/temp.go); catalogs never show those, but an OID may
		// be kept from another session
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		if err := castArgs(oid); err != nil {
			return nil, true, err
		}
		my, ok := b.Sess.SessionHost().TempNamespace()
		if !ok {
			my = -1
		}
		return rowFn(types.BoolT, true, func(out *vec.Vector, a []*vec.Vector, i int) error {
			o := a[0].I64[i]
			out.AppendBool(isTempNamespaceOID(o) && o != my && o != my+1)
			return nil
		})

	case "pg_table_is_visible":
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		if err := castArgs(oid); err != nil {
			return nil, true, err
		}
		c, err := b.CatalogContext()
		if err != nil {
			return nil, true, err
		}
		vis := pgcatalog.RelationVisibility(c)
		return rowFn(types.BoolT, true, func(out *vec.Vector, a []*vec.Vector, i int) error {
			v, ok := vis[a[0].I64[i]]
			if !ok {
				out.AppendNull()
				return nil
			}
			out.AppendBool(v)
			return nil
		})

	case "pg_type_is_visible":
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		if err := castArgs(oid); err != nil {
			return nil, true, err
		}
		c, err := b.CatalogContext()
		if err != nil {
			return nil, true, err
		}
		visible := pgcatalog.TypeVisibility(c)
		return rowFn(types.BoolT, true, func(out *vec.Vector, a []*vec.Vector, i int) error {
			out.AppendBool(visible(a[0].I64[i]))
			return nil
		})
	case "pg_function_is_visible", "pg_collation_is_visible", "pg_opclass_is_visible",
		"pg_operator_is_visible", "pg_opfamily_is_visible", "pg_conversion_is_visible", "pg_ts_config_is_visible",
		"pg_ts_dict_is_visible", "pg_ts_parser_is_visible", "pg_ts_template_is_visible", "pg_statistics_obj_is_visible":
		// every type, function and the like lives in pg_catalog, always on the path
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		if err := castArgs(oid); err != nil {
			return nil, true, err
		}
		return rowFn(types.BoolT, true, func(out *vec.Vector, _ []*vec.Vector, _ int) error {
			out.AppendBool(true)
			return nil
		})

	case "pg_has_role":
		e, err := b.Sess.SessionHost().PgHasRole(b, args, loc) // sql/role_members.go
		return e, true, err
	case "has_table_privilege", "has_schema_privilege":
		e, err := b.Sess.SessionHost().HasPrivilege(b, name, args, loc) // sql/privileges/privileges_catalog.go
		return e, true, err
	case "has_database_privilege", "has_column_privilege",
		"has_any_column_privilege", "has_function_privilege", "has_sequence_privilege",
		"has_tablespace_privilege", "has_language_privilege", "has_foreign_data_wrapper_privilege",
		"has_server_privilege", "has_type_privilege":
		// the session user is a superuser: every privilege holds
		if err := nargs(2, 4); err != nil {
			return nil, true, err
		}
		for i := range args {
			if args[i].Type().ID == types.Unknown {
				var err error
				if args[i], err = b.Cast(args[i], text, false, loc); err != nil {
					return nil, true, err
				}
			}
		}
		return rowFn(types.BoolT, true, func(out *vec.Vector, _ []*vec.Vector, _ int) error {
			out.AppendBool(true)
			return nil
		})

	case "obj_description", "col_description":
		// comments on lake tables, views and columns (COMMENT ON); other
		// objects have none
		if err := nargs(1, 2); err != nil {
			return nil, true, err
		}
		col := name == "col_description"
		if col && len(args) != 2 {
			return nil, true, nargs(2, 2)
		}
		second := types.TextT
		if col {
			second = i4
		}
		if err := castArgs(oid, second); err != nil {
			return nil, true, err
		}
		cc, err := b.CatalogContext()
		if err != nil {
			return nil, true, err
		}
		return rowFn(text, true, func(out *vec.Vector, a []*vec.Vector, i int) error {
			sub := int32(0)
			if col {
				sub = int32(a[1].I64[i])
			} else if len(a) == 2 && a[1].S[i] != "pg_class" {
				out.AppendNull()
				return nil
			}
			if d, ok := pgcatalog.Description(cc, a[0].I64[i], sub); ok {
				out.AppendString(d)
			} else {
				out.AppendNull()
			}
			return nil
		})

	case "shobj_description":
		// no comments on databases, roles or tablespaces
		if err := nargs(1, 2); err != nil {
			return nil, true, err
		}
		return null(text)

	case "pg_get_expr":
		// pg_attrdef.adbin (and every other pg_node_tree column) already
		// holds the deparsed expression
		if err := nargs(2, 3); err != nil {
			return nil, true, err
		}
		if err := castArgs(text, oid, types.BoolT); err != nil {
			return nil, true, err
		}
		return rowFn(text, false, func(out *vec.Vector, a []*vec.Vector, i int) error {
			out.AppendFrom(a[0], i)
			return nil
		})

	case "pg_get_constraintdef":
		// the lake has no constraints; the built-in domains' CHECKs are described
		if err := nargs(1, 2); err != nil {
			return nil, true, err
		}
		want := []types.T{oid, types.BoolT}[:len(args)]
		if err := castArgs(want...); err != nil {
			return nil, true, err
		}
		cc, err := b.CatalogContext()
		if err != nil {
			return nil, true, err
		}
		return rowFn(text, true, func(out *vec.Vector, a []*vec.Vector, i int) error {
			def, ok := pgcatalog.ConstraintDef(a[0].I64[i], len(a) > 1 && a[1].B[i])
			if !ok {
				def, ok = pgcatalog.LakeConstraintDef(cc, a[0].I64[i]) // sql/constraints.go
			}
			if !ok {
				out.AppendNull()
				return nil
			}
			out.AppendString(def)
			return nil
		})
	case "pg_get_viewdef":
		// (oid | text [, pretty boolean | wrap integer]): the stored query of
		// a lake view; NULL for anything else
		if err := nargs(1, 2); err != nil {
			return nil, true, err
		}
		byName := args[0].Type().Category() == 'S' || args[0].Type() == types.UnknownT
		first := oid
		if byName {
			first = text
		}
		if err := castArgs(first, args[len(args)-1].Type()); err != nil {
			return nil, true, err
		}
		cc, err := b.CatalogContext()
		if err != nil {
			return nil, true, err
		}
		in, err := b.regInput("regclass")
		if err != nil {
			return nil, true, err
		}
		return rowFn(text, true, func(out *vec.Vector, a []*vec.Vector, i int) error {
			var rel int64
			if byName {
				if rel, err = in(a[0].S[i]); err != nil {
					return err
				}
			} else {
				rel = a[0].I64[i]
			}
			if v, ok := pgcatalog.ViewByOID(cc, rel); ok {
				out.AppendString(pgcatalog.ViewDefinition(v))
			} else {
				out.AppendNull()
			}
			return nil
		})

	case "pg_get_indexdef":
		// (oid [, column integer, pretty boolean]): the index of a lake
		// table's PRIMARY KEY or UNIQUE constraint (pgcatalog/constraints.go)
		if err := nargs(1, 3); err != nil {
			return nil, true, err
		}
		want := []types.T{oid, types.Int32T, types.BoolT}[:len(args)]
		if err := castArgs(want...); err != nil {
			return nil, true, err
		}
		cc, err := b.CatalogContext()
		if err != nil {
			return nil, true, err
		}
		return rowFn(text, true, func(out *vec.Vector, a []*vec.Vector, i int) error {
			col := 0
			if len(a) > 1 {
				col = int(a[1].I64[i])
			}
			if def, ok := pgcatalog.LakeIndexDef(cc, a[0].I64[i], col); ok {
				out.AppendString(def)
			} else {
				out.AppendNull()
			}
			return nil
		})

	case "pg_get_triggerdef", "pg_get_ruledef",
		"pg_get_partkeydef", "pg_get_statisticsobjdef_columns", "pg_get_function_result",
		"pg_get_function_arguments", "pg_get_function_identity_arguments",
		"pg_get_functiondef", "pg_get_partition_constraintdef", "pg_get_function_sqlbody":
		// the lake has no constraints, indexes, views, triggers, rules or
		// sequences for these to describe
		if err := nargs(1, 3); err != nil {
			return nil, true, err
		}
		return null(text)

	case "getdatabaseencoding", "pg_client_encoding":
		if err := nargs(0, 0); err != nil {
			return nil, true, err
		}
		enc := "UTF8"
		if name == "pg_client_encoding" && b.Sess.SessionSettings()["client_encoding"] != "" {
			enc = b.Sess.SessionSettings()["client_encoding"]
		}
		return constant(text, func(v *vec.Vector) { v.AppendString(enc) })

	case "pg_relation_is_publishable":
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		return constant(types.BoolT, func(v *vec.Vector) { v.AppendBool(false) })

	case "pg_tablespace_location":
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		return constant(text, func(v *vec.Vector) { v.AppendString("") })

	case "pg_encoding_to_char":
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		if err := castArgs(i4); err != nil {
			return nil, true, err
		}
		return rowFn(text, true, func(out *vec.Vector, a []*vec.Vector, i int) error {
			out.AppendString(pgcatalog.EncodingName(a[0].I64[i]))
			return nil
		})

	case "pg_char_to_encoding":
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		if err := castArgs(text); err != nil {
			return nil, true, err
		}
		return rowFn(i4, true, func(out *vec.Vector, a []*vec.Vector, i int) error {
			n := int64(-1)
			for k := int64(0); k < 64; k++ {
				if e := pgcatalog.EncodingName(k); e != "" && strings.EqualFold(e, strings.ReplaceAll(a[0].S[i], "-", "")) {
					n = k
					break
				}
			}
			out.AppendInt(n)
			return nil
		})

	case "pg_postmaster_start_time", "pg_conf_load_time":
		if err := nargs(0, 0); err != nil {
			return nil, true, err
		}
		t := pgcatalog.StartTime().UnixMicro()
		return constant(types.TimestamptzT, func(v *vec.Vector) { v.AppendInt(t) })

	case "current_schemas":
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		if err := castArgs(types.BoolT); err != nil {
			return nil, true, err
		}
		c, err := b.CatalogContext()
		if err != nil {
			return nil, true, err
		}
		implicit, explicit := currentSchemas(c)
		return rowFn(types.ArrayOf(types.NameT), true, func(out *vec.Vector, a []*vec.Vector, i int) error {
			if a[0].B[i] {
				out.AppendString(implicit)
			} else {
				out.AppendString(explicit)
			}
			return nil
		})

	case "pg_typeof":
		// PostgreSQL returns regtype; its text is the type's name
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		s := regtypeName(args[0].Type())
		return constant(text, func(v *vec.Vector) { v.AppendString(s) })

	case "txid_current", "pg_current_xact_id", "txid_current_if_assigned", "pg_current_xact_id_if_assigned":
		if err := nargs(0, 0); err != nil {
			return nil, true, err
		}
		return &CatalogFn{Name: name, T: types.Int64T, Fn: func(out *vec.Vector, _ []*vec.Vector, _ int) error {
			out.AppendInt(txCounter.Add(1))
			return nil
		}}, true, nil

	case "pg_is_in_recovery", "pg_is_wal_replay_paused": // a lake server is never a standby
		if err := nargs(0, 0); err != nil {
			return nil, true, err
		}
		return constant(types.BoolT, func(v *vec.Vector) { v.AppendBool(false) })

	case "pg_stat_get_numscans":
		// lakepg keeps no access statistics (pg_stat_user_tables shows zeros too)
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		if err := castArgs(oid); err != nil {
			return nil, true, err
		}
		return &CatalogFn{Name: name, T: types.Int64T, Args: args[:1], Strict: true,
			Fn: func(out *vec.Vector, _ []*vec.Vector, _ int) error {
				out.AppendInt(0)
				return nil
			}}, true, nil

	case "pg_table_size", "pg_relation_size", "pg_total_relation_size", "pg_indexes_size":
		// a lake table's size is the bytes of the data files written for it
		// (DuckLake's table stats, at the head); a lake has no indexes
		if err := nargs(1, 2); err != nil {
			return nil, true, err
		}
		if err := castArgs(oid, text); err != nil {
			return nil, true, err
		}
		c, err := b.CatalogContext()
		if err != nil {
			return nil, true, err
		}
		db, indexes := b.Sess.SessionDB(), name == "pg_indexes_size"
		return &CatalogFn{Name: name, T: types.Int64T, Args: args[:1], Strict: true,
			Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
				id, ok := pgcatalog.LakeTableID(c, a[0].I64[i])
				switch {
				case !ok:
					out.AppendNull()
				case indexes:
					out.AppendInt(0)
				default:
					st, _, err := db.TableStats(context.Background(), id)
					if err != nil {
						return err
					}
					out.AppendInt(st.FileSizeBytes)
				}
				return nil
			}}, true, nil

	case "pg_size_pretty":
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		if err := castArgs(types.Int64T); err != nil {
			return nil, true, err
		}
		return rowFn(text, true, func(out *vec.Vector, a []*vec.Vector, i int) error {
			out.AppendString(pgcatalog.SizePretty(a[0].I64[i]))
			return nil
		})

	case "array_to_string":
		// lakepg has no array type yet: the catalog's array columns hold
		// PostgreSQL's text form, which this joins as array_to_string would
		if len(args) == 0 || args[0].Type().ID != types.Text {
			return nil, false, nil
		}
		if err := nargs(2, 3); err != nil {
			return nil, true, err
		}
		if err := castArgs(text); err != nil {
			return nil, true, err
		}
		return rowFn(text, false, func(out *vec.Vector, a []*vec.Vector, i int) error {
			if a[0].IsNull(i) || a[1].IsNull(i) {
				out.AppendNull()
				return nil
			}
			elems, ok := pgcatalog.ArrayElements(a[0].S[i])
			if !ok {
				return pgerr.New(pgerr.InvalidTextRepr, "malformed array literal: \"%s\"", a[0].S[i])
			}
			var parts []string
			for _, e := range elems {
				switch {
				case e != nil:
					parts = append(parts, *e)
				case len(a) > 2 && !a[2].IsNull(i):
					parts = append(parts, a[2].S[i])
				}
			}
			out.AppendString(strings.Join(parts, a[1].S[i]))
			return nil
		})

	case "set_config":
		e, err := b.SetConfig(args, loc)
		return e, true, err

	case "current_setting":
		if err := nargs(1, 2); err != nil {
			return nil, true, err
		}
		if err := castArgs(text, types.BoolT); err != nil {
			return nil, true, err
		}
		// not folded: a prepared statement must see later SETs
		sess := b.Sess
		return &CatalogFn{Name: name, T: text, Args: args, Strict: true, Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			n := strings.ToLower(a[0].S[i])
			sess.SessionSettingsMu().Lock() // set_config may write them meanwhile
			v, ok := sess.SessionSettings()[n]
			sess.SessionSettingsMu().Unlock()
			if !ok {
				v, ok = pgcatalog.SettingValue(n)
			}
			if r, isRole := sess.SessionHost().RoleSetting(n); isRole { // sql/privileges/privileges_stmt.go
				v, ok = r, true
			}
			switch {
			case ok:
				out.AppendString(v)
			case len(a) > 1 && a[1].B[i]:
				out.AppendNull()
			default:
				return pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", a[0].S[i])
			}
			return nil
		}}, true, nil

	case "to_regclass", "to_regtype", "to_regnamespace", "to_regproc", "to_regrole":
		// like the reg* input casts, but NULL instead of an error
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		if err := castArgs(text); err != nil {
			return nil, true, err
		}
		in, err := b.regInput(strings.TrimPrefix(name, "to_"))
		if err != nil {
			return nil, true, err
		}
		return rowFn(oid, true, func(out *vec.Vector, a []*vec.Vector, i int) error {
			n, err := in(a[0].S[i])
			if err != nil {
				out.AppendNull()
				return nil
			}
			out.AppendInt(n)
			return nil
		})
	}
	return nil, false, nil
}

// currentSchemas is current_schemas(true) and current_schemas(false) as
// name[] values. The search path holds the schemas of the search_path
// setting, then main, which lakepg searches last (sql/session.go): main is an
// implicitly searched schema, as pg_catalog is, so it shows only with the
// implicit ones (and where search_path names it). Schemas that do not
// exist are left out, as PostgreSQL leaves them out.
func currentSchemas(c *pgcatalog.Context) (implicit, explicit string) {
	exists := map[string]bool{}
	if c.Meta != nil {
		for _, s := range c.Meta.Schemas {
			exists[s.Name] = true
		}
	}
	named := map[string]bool{}
	for _, p := range strings.Split(c.Settings["search_path"], ",") {
		named[strings.Trim(strings.TrimSpace(p), `"`)] = true
	}
	var impl, expl []string
	if !named["pg_catalog"] {
		impl = append(impl, "pg_catalog")
	}
	for _, s := range c.SearchPath {
		if !exists[s] && s != "pg_catalog" && s != "information_schema" {
			continue
		}
		impl = append(impl, s)
		if named[s] {
			expl = append(expl, s)
		}
	}
	return nameArray(impl), nameArray(expl)
}

func nameArray(names []string) string {
	v := vec.New(types.NameT, len(names))
	for _, n := range names {
		v.AppendString(n)
	}
	return vec.EncodeArray(v, 0, v.Len())
}

// regTypes are the reg* types a cast can name.
var regTypes = map[string]bool{"regclass": true, "regtype": true, "regnamespace": true, "regproc": true,
	"regprocedure": true, "regrole": true}

// regInput returns the name → OID conversion of a reg* type.
func (b *Binder) regInput(typ string) (func(string) (int64, error), error) {
	switch typ {
	case "regclass", "regnamespace", "regrole":
		c, err := b.CatalogContext()
		if err != nil {
			return nil, err
		}
		switch typ {
		case "regclass":
			return func(s string) (int64, error) { return pgcatalog.RelationOIDByName(c, s) }, nil
		case "regnamespace":
			return func(s string) (int64, error) { return pgcatalog.NamespaceOIDByName(c, s) }, nil
		}
		return func(s string) (int64, error) { return pgcatalog.RoleOIDByName(c, s) }, nil
	case "regtype":
		return pgcatalog.TypeOIDByName, nil
	case "regproc", "regprocedure":
		return func(s string) (int64, error) {
			if i := strings.IndexByte(s, '('); i >= 0 { // regprocedure: name(argtypes)
				s = s[:i]
			}
			return pgcatalog.ProcOIDByName(s)
		}, nil
	}
	return nil, pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", typ)
}

// RegCast binds e::typ for a reg* type (typ without any pg_catalog
// qualification): text and unknown literals are looked up by name, as
// PostgreSQL's regclass_in and friends do ('items'::regclass is the
// table's OID, 42P01 when there is none), numbers are taken as OIDs. The
// result is the OID as bigint, lakepg's stand-in for the reg* types. ok is
// false when typ is not a reg* type.
func (b *Binder) RegCast(e exec.Expr, typ string, loc int32) (exec.Expr, bool, error) {
	if !regTypes[typ] {
		return nil, false, nil
	}
	switch e.Type().ID {
	case types.Unknown, types.Text:
	default:
		out, err := b.Cast(e, types.Int64T, false, loc)
		return out, true, err
	}
	in, err := b.regInput(typ)
	if err != nil {
		return nil, true, err
	}
	if e.Type().ID == types.Unknown {
		if e, err = b.Cast(e, types.TextT, false, loc); err != nil {
			return nil, true, err
		}
	}
	out, err := b.Fold(&CatalogFn{Name: typ, T: types.Int64T, Args: []exec.Expr{e}, Strict: true,
		Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			n, err := in(a[0].S[i])
			if err != nil {
				return err
			}
			out.AppendInt(n)
			return nil
		}}, loc)
	return out, true, err
}

// regOutput binds the text form of an OID as reg* type typ prints it:
// for oid::regclass::text, a relation name (qualified when it is not on
// the search path), a type name, a schema name, a function name. ok is
// false when typ is not a reg* type.
func (b *Binder) regOutput(e exec.Expr, typ string, loc int32) (exec.Expr, bool, error) {
	if !regTypes[typ] {
		return nil, false, nil
	}
	e, err := b.Cast(e, types.Int64T, false, loc)
	if err != nil {
		return nil, true, err
	}
	name, err := b.regNamer(typ)
	if err != nil {
		return nil, true, err
	}
	out, err := b.Fold(&CatalogFn{Name: typ, T: types.TextT, Args: []exec.Expr{e}, Strict: true,
		Fn: func(out *vec.Vector, a []*vec.Vector, i int) error {
			out.AppendString(name(a[0].I64[i]))
			return nil
		}}, loc)
	return out, true, err
}

// regNamer is the OID → name conversion of reg* type typ.
func (b *Binder) regNamer(typ string) (func(int64) string, error) {
	var name func(int64) string
	switch typ {
	case "regclass", "regnamespace", "regrole":
		c, err := b.CatalogContext()
		if err != nil {
			return nil, err
		}
		switch typ {
		case "regclass":
			names := pgcatalog.RelationNames(c)
			name = func(oid int64) string {
				if n, ok := names[oid]; ok {
					return n
				}
				return strconv.FormatInt(oid, 10)
			}
		case "regnamespace":
			name = func(oid int64) string { return pgcatalog.NamespaceName(c, oid) }
		default:
			name = func(oid int64) string { return pgcatalog.UserName(c, oid) }
		}
	case "regtype":
		name = pgcatalog.TypeName
	default:
		name = pgcatalog.ProcName
	}
	return name, nil
}

// regtypeName is a type as regtype prints it: the name without its
// modifiers (numeric, not numeric(12,2)), as pg_typeof answers.
func regtypeName(t types.T) string {
	switch {
	case t.ID == types.Unknown:
		return "unknown"
	case t.ID == types.Numeric:
		return "numeric"
	case t.ID == types.Text && t.Bpchar:
		return "character"
	case t.ID == types.Text && t.Varchar:
		return "character varying"
	case t.ID == types.Array:
		return regtypeName(t.Elem()) + "[]"
	}
	return t.String()
}

// isTempNamespaceOID reports whether oid is in the range of temporary
// namespaces' OIDs (any session's).
func isTempNamespaceOID(oid int64) bool { return oid >= TempNSBase+2 && oid < TempRelBase }

// OID layout: a session's temporary namespaces and relations take OIDs no
// lake schema or table reaches (lake OIDs are 16384 + catalog id), below
// 2^28 as relation OIDs must stay (pgcatalog/pgtype.go).
const (
	TempNSBase  = 1<<27 - 1<<22 // pg_temp_N is tempNSBase + 2N, pg_toast_temp_N one more
	TempRelBase = 1 << 27       // the session's k-th temporary relation is tempRelBase + k
)

// PrivilegeArgs checks the ([user,] object, privilege) arity of the
// privilege inquiry functions and casts their arguments to text in place;
// it gives the context their lookups run in.
func (b *Binder) PrivilegeArgs(name string, args []exec.Expr, loc int32) (context.Context, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args)), loc)
	}
	for i := range args {
		var err error
		if args[i], err = b.Cast(args[i], types.TextT, false, loc); err != nil {
			return nil, err
		}
	}
	if b.Qc != nil {
		return b.Qc.Context(), nil
	}
	return context.Background(), nil
}
