package sql

import (
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
	pg "github.com/pganalyze/pg_query_go/v6"
)

// callArgs are a CALL's arguments: positional ones in order, named ones
// (name => value) by lower-cased name.
type callArgs struct {
	pos   []*pg.Node
	named map[string]*pg.Node
	b     *binder
	loc   int32
}

// value evaluates a constant argument as type t; nil for NULL.
func (a *callArgs) value(n *pg.Node, t types.T) (*vec.Vector, error) {
	e, err := a.b.bind(n, &scope{})
	if err != nil {
		return nil, err
	}
	if e, err = a.b.cast(e, t, false, nodeLoc(n)); err != nil {
		return nil, err
	}
	v, err := e.Eval(a.b.env, &vec.Batch{N: 1})
	if err != nil {
		return nil, err
	}
	if v.IsNull(0) {
		return nil, nil
	}
	return v, nil
}

func (a *callArgs) text(n *pg.Node) (string, bool, error) {
	v, err := a.value(n, types.TextT)
	if err != nil || v == nil {
		return "", false, err
	}
	return v.S[0], true, nil
}

func (a *callArgs) timestamp(n *pg.Node) (*time.Time, error) {
	v, err := a.value(n, types.TimestamptzT)
	if err != nil || v == nil {
		return nil, err
	}
	t := time.UnixMicro(v.I64[0]).UTC()
	return &t, nil
}

// check rejects arguments the procedure does not take.
func (a *callArgs) check(proc string, maxPos int, named ...string) error {
	if len(a.pos) > maxPos {
		return errAt(pgerr.New(pgerr.UndefinedFunction, "procedure %s takes at most %d positional arguments", proc, maxPos), a.loc)
	}
	for n := range a.named {
		ok := false
		for _, k := range named {
			ok = ok || n == k
		}
		if !ok {
			return errAt(pgerr.New(pgerr.UndefinedFunction, "procedure %s has no parameter \"%s\"", proc, n), a.loc)
		}
	}
	return nil
}

// dryRun reads the optional dry_run => bool argument.
func (a *callArgs) dryRun() (bool, error) {
	n, ok := a.named["dry_run"]
	if !ok {
		return false, nil
	}
	return a.boolean(n)
}

func (a *callArgs) boolean(n *pg.Node) (bool, error) {
	v, err := a.value(n, types.BoolT)
	if err != nil || v == nil {
		return false, err
	}
	return v.B[0], nil
}
