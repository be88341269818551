package planner

import (
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner/bind"
	"github.com/lakepg/lakepg/types"
)

// The binder's names as the planner's API had them before the binder
// became package bind: package sql and the planner's own files keep using
// them unqualified.

type (
	Binder    = bind.Binder
	Scope     = bind.Scope
	ScopeCol  = bind.ScopeCol
	Params    = bind.Params
	Column    = bind.Column
	CallArgs  = bind.CallArgs
	CatalogFn = bind.CatalogFn
	Notice    = bind.Notice
)

const (
	ServerVersion = bind.ServerVersion
	TempNSBase    = bind.TempNSBase
	TempRelBase   = bind.TempRelBase
)

var (
	// the same map and slice: settings and privilege letters
	DefaultSettings  = bind.DefaultSettings
	AclPrivileges    = bind.AclPrivileges
	ParseTreeVersion = bind.ParseTreeVersion
)

// Assignable is bind.Assignable.
func Assignable(from, to types.T) bool {
	return bind.Assignable(from, to)
}

// BareHoursName is bind.BareHoursName.
func BareHoursName(v string) (string, bool) {
	return bind.BareHoursName(v)
}

// ContainsAgg is bind.ContainsAgg.
func ContainsAgg(n *pg.Node) bool {
	return bind.ContainsAgg(n)
}

// DeparseExpr is bind.DeparseExpr.
func DeparseExpr(n *pg.Node) string {
	return bind.DeparseExpr(n)
}

// EachMessage is bind.EachMessage.
func EachMessage(m protoreflect.Message, fn func(protoreflect.Message)) {
	bind.EachMessage(m, fn)
}

// ErrAt is bind.ErrAt.
func ErrAt(e *pgerr.Error, loc int32) *pgerr.Error {
	return bind.ErrAt(e, loc)
}

// FuncName is bind.FuncName.
func FuncName(f *pg.FuncCall) string {
	return bind.FuncName(f)
}

// IsSRF is bind.IsSRF.
func IsSRF(name string) bool {
	return bind.IsSRF(name)
}

// Itoa is bind.Itoa.
func Itoa(i int) string {
	return bind.Itoa(i)
}

// NodeLoc is bind.NodeLoc.
func NodeLoc(n *pg.Node) int32 {
	return bind.NodeLoc(n)
}

// NodeName is bind.NodeName.
func NodeName(n *pg.Node) string {
	return bind.NodeName(n)
}

// ResolveTypeName is bind.ResolveTypeName.
func ResolveTypeName(tn *pg.TypeName) (types.T, error) {
	return bind.ResolveTypeName(tn)
}

// StrNodes is bind.StrNodes.
func StrNodes(ns []*pg.Node) []string {
	return bind.StrNodes(ns)
}

// TableColOrigin is bind.TableColOrigin.
func TableColOrigin(t *catalog.Table, k int) bind.ColOrigin {
	return bind.TableColOrigin(t, k)
}

// TextConst is bind.TextConst.
func TextConst(s string) *exec.Const {
	return bind.TextConst(s)
}

// TimeZoneLocation is bind.TimeZoneLocation.
func TimeZoneLocation(v string) (*time.Location, error) {
	return bind.TimeZoneLocation(v)
}

// Walk is bind.Walk.
func Walk(n *pg.Node, fn func(*pg.Node) bool) {
	bind.Walk(n, fn)
}
