package planner

import (
	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/planner/laketypes"
	"github.com/lakepg/lakepg/sql/planner/optree"
	"github.com/lakepg/lakepg/sql/planner/parse"
	"github.com/lakepg/lakepg/types"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// The planner's API as package sql calls it, for what now lives in the
// packages below the planner (parse, laketypes, optree): the same names,
// so that the session's code does not change with the split.

// ParseStatements parses a statement text (parse.ParseStatements).
func ParseStatements(query string) (*pg.ParseResult, error) { return parse.ParseStatements(query) }

// ColumnType is the lakepg type a catalog column reads as (laketypes.ColumnType).
func ColumnType(c *catalog.Column) (types.T, error) { return laketypes.ColumnType(c) }

// DeclaredType is the type a table column reads as (laketypes.DeclaredType).
func DeclaredType(c *catalog.Column) (types.T, error) { return laketypes.DeclaredType(c) }

// AlterTextModifier is laketypes.AlterTextModifier.
func AlterTextModifier(c *snapshot.Commit, t *catalog.Table, col *catalog.Column, to types.T) error {
	return laketypes.AlterTextModifier(c, t, col, to)
}

// TextModifierInPlace is laketypes.TextModifierInPlace.
func TextModifierInPlace(from, to types.T) bool { return laketypes.TextModifierInPlace(from, to) }

// MapType is the type map columns read as (laketypes.MapType).
var MapType = laketypes.MapType

// MapMarker is the Sub of MapType (laketypes.MapMarker).
const MapMarker = laketypes.MapMarker

// ErrMapWrite is laketypes.ErrMapWrite.
func ErrMapWrite(col string) error { return laketypes.ErrMapWrite(col) }

// CloneExpr copies an expression for another worker (optree.CloneExpr).
func CloneExpr(e exec.Expr) exec.Expr { return optree.CloneExpr(e) }

// FoldErrors raises PostgreSQL's constant-folding errors of a plan (optree.FoldErrors).
func FoldErrors(env *exec.Env, op exec.Operator) error { return optree.FoldErrors(env, op) }
