package order

import (
	"time"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/exectest"
	"github.com/lakepg/lakepg/exec/vec"
)

// The shared test sources and checks (exec/exectest), under the short
// names these tests use.
type (
	cancelAfter = exectest.CancelAfter
	pairSource  = exectest.PairSource
)

var (
	env            = &exec.Env{Loc: time.UTC, Now: time.Now()}
	newRowsOp      = exectest.NewRows
	collect        = exectest.Collect
	collectCtx     = exectest.CollectCtx
	rowText        = exectest.RowText
	sameRows       = exectest.SameRows
	ints           = exectest.Ints
	vecOfInts      = exectest.VecOfInts
	texts          = exectest.Texts
	testSpill      = exectest.UseSpill
	spillFilesLeft = exectest.SpillFilesLeft
)

func batch(vs ...*vec.Vector) *vec.Batch {
	return &vec.Batch{N: vs[0].Len(), Vecs: vs}
}
