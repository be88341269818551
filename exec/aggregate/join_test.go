package aggregate

import (
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/types"
)

func col(i int, t types.T) *exec.ColRef { return &exec.ColRef{Idx: i, T: t} }
