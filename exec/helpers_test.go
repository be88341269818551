package exec

import "github.com/lakepg/lakepg/exec/exectest"

// The shared test sources and checks (exec/exectest), under the short
// names these tests use.
type (
	pairSource  = exectest.PairSource
	cancelAfter = exectest.CancelAfter
)

var (
	newRowsOp      = exectest.NewRows
	collect        = exectest.Collect
	rowText        = exectest.RowText
	sorted         = exectest.Sorted
	sameRows       = exectest.SameRows
	fmtRow         = exectest.FmtRow
	randRows       = exectest.RandRows
	vecOfInts      = exectest.VecOfInts
	kst            = exectest.KST
	ints           = exectest.Ints
	texts          = exectest.Texts
	testSpill      = exectest.UseSpill
	spillFilesLeft = exectest.SpillFilesLeft
	collectCtx     = exectest.CollectCtx
)
