package bind

import (
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// CallArgs are a CALL's arguments: positional ones in order, named ones
// (name => value) by lower-cased name.
type CallArgs struct {
	Pos   []*pg.Node
	Named map[string]*pg.Node
	B     *Binder
	Loc   int32
}

// Value evaluates a constant argument as type t; nil for NULL.
func (a *CallArgs) Value(n *pg.Node, t types.T) (*vec.Vector, error) {
	e, err := a.B.Bind(n, &Scope{})
	if err != nil {
		return nil, err
	}
	if e, err = a.B.Cast(e, t, false, NodeLoc(n)); err != nil {
		return nil, err
	}
	v, err := e.Eval(a.B.Env, &vec.Batch{N: 1})
	if err != nil {
		return nil, err
	}
	if v.IsNull(0) {
		return nil, nil
	}
	return v, nil
}

func (a *CallArgs) Text(n *pg.Node) (string, bool, error) {
	v, err := a.Value(n, types.TextT)
	if err != nil || v == nil {
		return "", false, err
	}
	return v.S[0], true, nil
}

func (a *CallArgs) Timestamp(n *pg.Node) (*time.Time, error) {
	v, err := a.Value(n, types.TimestamptzT)
	if err != nil || v == nil {
		return nil, err
	}
	t := time.UnixMicro(v.I64[0]).UTC()
	return &t, nil
}

// Check rejects arguments the procedure does not take.
func (a *CallArgs) Check(proc string, maxPos int, named ...string) error {
	if len(a.Pos) > maxPos {
		return ErrAt(pgerr.New(pgerr.UndefinedFunction, "procedure %s takes at most %d positional arguments", proc, maxPos), a.Loc)
	}
	for n := range a.Named {
		ok := false
		for _, k := range named {
			ok = ok || n == k
		}
		if !ok {
			return ErrAt(pgerr.New(pgerr.UndefinedFunction, "procedure %s has no parameter \"%s\"", proc, n), a.Loc)
		}
	}
	return nil
}

// DryRun reads the optional dry_run => bool argument.
func (a *CallArgs) DryRun() (bool, error) {
	n, ok := a.Named["dry_run"]
	if !ok {
		return false, nil
	}
	return a.Boolean(n)
}

func (a *CallArgs) Boolean(n *pg.Node) (bool, error) {
	v, err := a.Value(n, types.BoolT)
	if err != nil || v == nil {
		return false, err
	}
	return v.B[0], nil
}
