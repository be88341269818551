package sql

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// literalFits reports whether a DEFAULT's literal text reads as a value of
// t the way scans read initial_default (planner/from.go), so recording it as the
// column's initial_default can never make the table unreadable.
func literalFits(t types.T, text string) bool {
	if t.ID == types.Array || t.ID == types.Struct {
		return false
	}
	return exec.ParseInto(vec.New(t, 1), text, nil, false) == nil
}
