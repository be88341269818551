package sql

import (
	"context"
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

func (s *Session) set(v *pg.VariableSetStmt) (*Result, error) {
	name := strings.ToLower(v.Name)
	if name == "time zone" {
		name = "timezone"
	}
	switch v.Kind {
	case pg.VariableSetKind_VAR_RESET_ALL:
		for k := range s.Settings {
			s.noteSet(k, false) // settings_txn.go
		}
	case pg.VariableSetKind_VAR_SET_MULTI:
	default:
		if !s.noteSet(name, v.IsLocal) {
			return tagResult("SET"), nil // SET LOCAL outside a block, after its warning
		}
	}
	if res, ok, err := s.setRole(v); ok { // sql/privileges/privileges_stmt.go
		return res, err
	}
	switch v.Kind {
	case pg.VariableSetKind_VAR_RESET_ALL:
		for k := range s.Settings {
			if d, ok := s.resetValue(k); ok {
				s.assign(k, d) // read-only settings refuse, and keep their value
			} else {
				s.assign(k, "") // a custom placeholder stays, emptied, as in PostgreSQL
			}
		}
		return tagResult("RESET"), nil
	case pg.VariableSetKind_VAR_RESET, pg.VariableSetKind_VAR_SET_DEFAULT:
		d, ok := s.resetValue(name)
		if !ok && !strings.Contains(name, ".") {
			return nil, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", v.Name)
		}
		if err := s.assign(name, d); err != nil {
			return nil, err
		}
		if v.Kind == pg.VariableSetKind_VAR_RESET {
			return tagResult("RESET"), nil
		}
		return tagResult("SET"), nil
	case pg.VariableSetKind_VAR_SET_MULTI:
		// SET TRANSACTION ... / SET SESSION CHARACTERISTICS: accepted
		return tagResult("SET"), nil
	case pg.VariableSetKind_VAR_SET_VALUE:
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SET form not supported")
	}
	var parts []string
	for _, a := range v.Args {
		c := a.GetAConst()
		if c == nil {
			if tc := a.GetTypeCast(); tc != nil && tc.Arg.GetAConst() != nil {
				c = tc.Arg.GetAConst()
			} else {
				return nil, pgerr.New(pgerr.SyntaxError, "SET %s takes constant values", v.Name)
			}
		}
		switch x := c.Val.(type) {
		case *pg.A_Const_Sval:
			parts = append(parts, x.Sval.Sval)
		case *pg.A_Const_Ival:
			parts = append(parts, strconv.Itoa(int(x.Ival.Ival)))
		case *pg.A_Const_Fval:
			parts = append(parts, x.Fval.Fval)
		case *pg.A_Const_Boolval:
			if x.Boolval.Boolval {
				parts = append(parts, "on")
			} else {
				parts = append(parts, "off")
			}
		}
	}
	val := strings.Join(parts, ", ")
	if _, ok := planner.DefaultSettings[name]; !ok && !strings.Contains(name, ".") {
		return nil, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", v.Name)
	}
	if err := s.assign(name, val); err != nil {
		return nil, err
	}
	return tagResult("SET"), nil
}

// resetValue is what RESET gives setting name: the connection's startup
// value, else the server default.
func (s *Session) resetValue(name string) (string, bool) {
	if v, ok := s.boot[name]; ok {
		return v, true
	}
	v, ok := planner.DefaultSettings[name]
	return v, ok
}

func (s *Session) assign(name, val string) error {
	val, err := canonicalSetting(name, val)
	if err != nil {
		return err
	}
	switch name {
	case "timezone":
		loc, err := planner.TimeZoneLocation(val) // planner/bind/timezone.go
		if err != nil {
			return err
		}
		s.Loc = loc
		if name, ok := planner.BareHoursName(val); ok {
			val = name
		}
	case "lakepg.snapshot":
		if val != "" {
			if _, err := s.resolveSnapshotText(context.Background(), val); err != nil {
				return err
			}
		}
	case "lakepg.disabled_rules":
		if err := planner.CheckDisabledRules(val); err != nil {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": %v", name, err)
		}
	case "server_version", "server_encoding", "lc_collate", "lc_ctype", "integer_datetimes", "max_identifier_length", "server_version_num":
		return pgerr.New(pgerr.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed", name)
	}
	s.Settings[name] = val
	if rep, ok := reported[name]; ok {
		s.changed[rep] = val
	}
	return nil
}

func (s *Session) show(v *pg.VariableShowStmt) (*Result, error) {
	name := strings.ToLower(v.Name)
	if name == "all" {
		var rows [][]exec.Expr
		for _, k := range sortedKeys(s.Settings) {
			rows = append(rows, []exec.Expr{planner.TextConst(k), planner.TextConst(s.Settings[k]), planner.TextConst("")})
		}
		cols := []Column{{Name: "name", Type: types.TextT}, {Name: "setting", Type: types.TextT}, {Name: "description", Type: types.TextT}}
		return &Result{cols: cols, op: &exec.Values{Env: s.NewEnv(), Rows: rows, T: []types.T{types.TextT, types.TextT, types.TextT}}, tag: "SHOW"}, nil
	}
	val, ok := s.Settings[name]
	if r, isRole := s.RoleSetting(name); isRole { // sql/privileges/privileges_stmt.go
		val, ok = r, true
	}
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", v.Name)
	}
	if name == "lakepg.snapshot" && val == "" {
		val = "latest"
	}
	if c, err := canonicalSetting(name, val); err == nil {
		val = c // a startup parameter is stored as the client sent it
	}
	return &Result{cols: []Column{{Name: showName(name), Type: types.TextT}}, op: &exec.Values{Env: s.NewEnv(), Rows: [][]exec.Expr{{planner.TextConst(val)}}, T: []types.T{types.TextT}}, tag: "SHOW"}, nil
}

// showName is the column SHOW names after a setting: PostgreSQL's own
// spelling of the name (TimeZone, DateStyle, IntervalStyle).
func showName(name string) string {
	if r, ok := reported[name]; ok {
		return r
	}
	return name
}
